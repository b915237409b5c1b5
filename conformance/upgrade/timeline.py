"""One framework's runs at several versions, side by side: for each atlas
cell, finding and baseline entry, what every version did, and for each step
(a version and the next) what changed. Built from the two-run comparisons
(:func:`~conformance.report.atlas_diff.atlas_changes`,
:func:`~conformance.report.runs.compare_runs`), one per step.

>>> from conformance.results.atlas import AtlasCell
>>> def atlas(behaviour):
...     return Atlas([AtlasCell("size", "block gather", "onnx.Gather-13", "onnxruntime", "1", behaviour,
...                             None, behaviour == "raises", {})])
>>> runs = [RunResult({}, 0, {}, {"onnxruntime": 1}, 1.0, {}, []) for _ in range(3)]
>>> t = build_timeline(["1.30.0", "1.31.1", "1.32.0"], runs, [atlas("raises"), atlas("raises"), atlas("wraps")], [])
>>> [(c.where(), c.words(), c.changes()) for c in t.cells]
[('onnx.Gather-13 on onnxruntime: index size (block gather)', ['raises', 'raises', 'wraps'], [2])]
>>> [s.words() for s in t.steps]
['1.30.0 → 1.31.1', '1.31.1 → 1.32.0']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.gate.baseline import Entry
from conformance.report.atlas_diff import AtlasChange, atlas_changes, cell_words
from conformance.report.runs import Comparison, compare_runs
from conformance.results.atlas import Atlas, AtlasCell
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult

NOT_THERE = "—"
"""What a version shows where it has no such cell, finding or replay."""
REPRODUCES, FIXED, CHANGED = "reproduces", "fixed", "changed"
"""Replay statuses (:data:`conformance.gate.replay.STATUSES`) the timeline reads."""


def any_version(entry: Entry) -> Entry:
    """The entry at every version: what each environment replays, so that a
    fix (or a regression) shows whatever the entry's range says.

    >>> any_version(Entry(op="numpy.take", versions=">=2.4,<2.5")).versions
    ''
    """
    return replace(entry, versions="")


@dataclass(frozen=True)
class CellTimeline:
    """One atlas cell (condition, class, op, oracle) at every version (None where a version lacks it)."""

    cells: tuple[AtlasCell | None, ...]

    @property
    def cell(self) -> AtlasCell:
        shown = next((c for c in reversed(self.cells) if c is not None), None)
        assert shown is not None, "a timeline has the cell at one version at least"
        return shown

    def where(self) -> str:
        """Op, oracle, condition in words and class."""
        return AtlasChange(None, self.cell).where()

    def words(self) -> list[str]:
        """What each version did, in words (:func:`~conformance.report.atlas_diff.cell_words`)."""
        return [cell_words(c) for c in self.cells]

    def documented(self) -> list[bool | None]:
        """Per version: did the op do what its docs say (None: no such cell)."""
        return [None if c is None else c.documented for c in self.cells]

    def changes(self) -> list[int]:
        """The versions (indexes) whose words differ from the version before."""
        words = self.words()
        return [i for i in range(1, len(words)) if words[i] != words[i - 1]]

    def change(self, i: int) -> AtlasChange:
        """The step into version ``i`` as a two-run change."""
        return AtlasChange(self.cells[i - 1], self.cells[i])

    def departs(self, i: int) -> bool:
        """Whether version ``i`` departs from the docs where version ``i - 1`` did not."""
        now, before = self.cells[i], self.cells[i - 1]
        return now is not None and not now.documented and (before is None or before.documented)

    def to_json(self) -> dict[str, Any]:
        c = self.cell
        return {
            "condition": c.condition,
            "eq_class": c.eq_class,
            "op": c.op,
            "oracle": c.oracle,
            "where": self.where(),
            "words": self.words(),
            "documented": self.documented(),
            "changes_at": self.changes(),
            "example": c.example,
        }


@dataclass(frozen=True)
class FindingTimeline:
    """One root cause (matched across versions) at every version (None where it was not found)."""

    findings: tuple[Finding | None, ...]

    @property
    def finding(self) -> Finding:
        shown = next((f for f in reversed(self.findings) if f is not None), None)
        assert shown is not None, "a timeline has the finding at one version at least"
        return shown

    def words(self) -> str:
        """The root cause in words, without a version.

        >>> import numpy as np
        >>> from conformance.core.case import Case
        >>> from conformance.judge.signature import Signature
        >>> sig = Signature("onnx.Gather", "onnxruntime", "1.32.0", "cpu", "session", "value instead of error",
        ...                 "wraps", ("bad index",))
        >>> FindingTimeline((Finding(sig, Case("onnx.Gather-13", np.zeros(2), np.zeros(1, int)), None, {}),)).words()
        'onnx.Gather on onnxruntime (cpu, session): value instead of error, observed policy wraps, for bad index'
        """
        return self.finding.signature.across_versions().words().replace("  ", " ")

    def present(self) -> list[bool]:
        return [f is not None for f in self.findings]

    def appeared(self) -> list[int]:
        """Versions (indexes) where it was found and the version before did not have it."""
        p = self.present()
        return [i for i in range(1, len(p)) if p[i] and not p[i - 1]]

    def disappeared(self) -> list[int]:
        p = self.present()
        return [i for i in range(1, len(p)) if p[i - 1] and not p[i]]

    def to_json(self) -> dict[str, Any]:
        return {
            "finding": self.words(),
            "key": self.finding.signature.across_versions().key(),
            "present": self.present(),
            "appeared_at": self.appeared(),
            "disappeared_at": self.disappeared(),
        }


@dataclass(frozen=True)
class EntryTimeline:
    """One baseline entry's replay at every version: its status and what was seen."""

    entry: Entry
    statuses: tuple[str, ...]
    details: tuple[str, ...]

    def fixed_at(self) -> list[int]:
        """Versions (indexes) where it is fixed and reproduced in the version before: fixed upstream there."""
        s = self.statuses
        return [i for i in range(1, len(s)) if s[i] == FIXED and s[i - 1] == REPRODUCES]

    def departs(self, i: int) -> bool:
        """Whether version ``i`` departs from the docs where version ``i - 1`` did not
        (it reproduces again after a fix) or departs in another way (``changed``)."""
        before, now = self.statuses[i - 1], self.statuses[i]
        return (before == FIXED and now in (REPRODUCES, CHANGED)) or (before == REPRODUCES and now == CHANGED)

    def changes(self) -> list[int]:
        s = self.statuses
        return [i for i in range(1, len(s)) if s[i] != s[i - 1]]

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry.describe(),
            "versions": self.entry.versions,
            "statuses": list(self.statuses),
            "details": list(self.details),
            "fixed_at": self.fixed_at(),
        }


@dataclass
class Step:
    """From version ``index - 1`` to version ``index``: what changed."""

    index: int
    labels: tuple[str, str]
    atlas: list[AtlasChange]
    comparison: Comparison
    fixed: list[EntryTimeline] = field(default_factory=list)

    def words(self) -> str:
        return f"{self.labels[0]} → {self.labels[1]}"


@dataclass
class Timeline:
    """Every version's run, side by side (see the module docstring)."""

    labels: list[str]
    runs: list[RunResult]
    atlases: list[Atlas | None]
    cells: list[CellTimeline]
    findings: list[FindingTimeline]
    entries: list[EntryTimeline]
    steps: list[Step]


def cell_timelines(atlases: Sequence[Atlas]) -> list[CellTimeline]:
    """Every cell that changes somewhere, in the order its first change is listed."""
    keys = dict.fromkeys(c.key for i in range(1, len(atlases)) for c in atlas_changes(atlases[i - 1], atlases[i]))
    cells = [{c.key: c for c in a.cells} for a in atlases]
    return [CellTimeline(tuple(by.get(k) for by in cells)) for k in keys]


def finding_timelines(runs: Sequence[RunResult], comparisons: Sequence[Comparison]) -> list[FindingTimeline]:
    """Every root cause that appears or disappears somewhere (matched across versions)."""
    keys = dict.fromkeys(f.signature.across_versions() for c in comparisons for f in [*c.appeared, *c.disappeared])
    found = [{f.signature.across_versions(): f for f in r.findings} for r in runs]
    return [FindingTimeline(tuple(by.get(k) for by in found)) for k in keys]


def entry_timelines(entries: Sequence[Entry], runs: Sequence[RunResult]) -> list[EntryTimeline]:
    """Every entry's replay at every version: each run replayed
    ``[any_version(e) for e in entries]``, in that order (a replay that is not
    the entry's shows :data:`NOT_THERE`)."""
    out = []
    for n, entry in enumerate(entries):
        wanted = any_version(entry).describe()
        seen = [r.replay[n] if n < len(r.replay) and r.replay[n].get("entry") == wanted else None for r in runs]
        statuses = tuple(s["status"] if s else NOT_THERE for s in seen)
        out.append(EntryTimeline(entry, statuses, tuple(s.get("detail", "") if s else "" for s in seen)))
    return out


def build_timeline(
    labels: Sequence[str], runs: Sequence[RunResult], atlases: Sequence[Atlas | None], entries: Sequence[Entry]
) -> Timeline:
    """The runs (and their atlases: without one for every version, no cell
    timeline) of versions ``labels``, in upgrade order, side by side."""
    comparisons = [compare_runs(runs[i - 1], runs[i]) for i in range(1, len(runs))]
    complete = [a for a in atlases if a is not None]
    cells = cell_timelines(complete) if len(complete) == len(atlases) else []
    replays = entry_timelines(entries, runs)
    steps = [
        Step(
            i,
            (labels[i - 1], labels[i]),
            sorted((c.change(i) for c in cells if i in c.changes()), key=AtlasChange.order),
            comparisons[i - 1],
            [e for e in replays if i in e.fixed_at()],
        )
        for i in range(1, len(runs))
    ]
    return Timeline(
        list(labels), list(runs), list(atlases), cells, finding_timelines(runs, comparisons), replays, steps
    )
