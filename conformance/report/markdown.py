"""A short Markdown summary of a run (``summary.md``), for CI logs and
pull-request comments. It leads with what is new and what changed, in a few
lines (:func:`lead_lines`), then the run's figures (the console's headline),
the findings table (new first), the atlas rows where frameworks disagree,
the matrix cells that do not conform and, when comparing, what changed.

>>> from conformance.results.run_result import RunResult
>>> print(markdown_summary(RunResult({"versions": {"numpy": "2.4.6"}}, 7, {}, {"numpy": 40}, 2.0, {}, [])))
## gather-conformance: 0 findings (0 new, 0 known): 0 bugs, 0 hazards, 0 questions
<BLANKLINE>
**New**: nothing.
<BLANKLINE>
40 oracle runs in 2.0 s · 0 findings (0 new, 0 known) · 0 raw discrepancies · seed 7 · versions.numpy 2.4.6
<BLANKLINE>
No findings.
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.core.behaviour import Behaviour, severity
from conformance.core.vocabulary import FindingKind, FindingStatus, RunStatus
from conformance.report.atlas_diff import AtlasChange, condition_words
from conformance.report.facts_view import flatten_facts, framework_versions, human_duration
from conformance.report.run_view import console_head
from conformance.report.runs import Comparison, cell_summary
from conformance.report.views import FindingView, finding_views
from conformance.results.atlas import Atlas
from conformance.results.run_result import MatrixKey, RunResult

MAX_ROWS = 30
"""Rows per Markdown table before "... and N more"."""
LEAD_ITEMS = 3
"""New findings and changes named in the lead lines (the rest counted)."""


def table_cell(text: str) -> str:
    """Text safe inside a Markdown table cell.

    >>> table_cell("a|b\\nc")
    'a\\\\|b c'
    """
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table, cut at :data:`MAX_ROWS`.

    >>> table(["a"], [["1"]])
    ['| a |', '|---|', '| 1 |']
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(table_cell(c) for c in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_ROWS} more (see the HTML report)")
    return lines


def headline(run: RunResult) -> str:
    """The first line: how many findings, how many new.

    >>> headline(RunResult({}, 0, {}, {}, 1.0, {}, []))
    '## gather-conformance: 0 findings (0 new, 0 known): 0 bugs, 0 hazards, 0 questions'
    """
    new = sum(f.status is FindingStatus.NEW for f in run.findings)
    n = len(run.findings)
    kinds = ", ".join(f"{sum(f.kind is k for f in run.findings)} {k.value}s" for k in FindingKind)
    return f"## gather-conformance: {n} finding{'s' * (n != 1)} ({new} new, {n - new} known): {kinds}"


def facts_line(run: RunResult) -> str:
    """The console's headline, then the seed and the versions, in one line.

    >>> facts_line(RunResult({"oracles": [{"name": "jax", "framework": "jax", "version": "0.10.2"}]}, 1, {}, {"jax": 3},
    ...     0.0, {}, []))
    '3 oracle runs in 0.0 s · 0 findings (0 new, 0 known) · 0 raw discrepancies · seed 1 · jax 0.10.2'
    """
    versions = framework_versions(run.facts) or [
        f"{k} {v}" for k, v in flatten_facts(run.facts).items() if "version" in k
    ]
    return " · ".join([console_head(run), f"seed {run.seed}", *versions])


def lead_lines(
    views: Sequence[FindingView], comparison: Comparison | None, changes: Sequence[AtlasChange] | None
) -> list[str]:
    """What is new and what changed, in a few lines: the new findings (the
    worst named), and when comparing, the atlas cells and findings that changed.

    >>> lead_lines([], Comparison(), [])
    ['**New**: nothing.', '', '**Changed** since the compared run: nothing.', '']
    """
    fresh = [v for v in views if v.finding.status is FindingStatus.NEW]
    new = [v for v in fresh if v.finding.kind.fails_gate]
    silent = len(fresh) - len(new)
    also = f" (and {silent} question{'s' * (silent != 1)}, where the docs are silent)" if silent else ""
    if new:
        lines = [f"**New**: {len(new)} finding{'s' * (len(new) != 1)} not in the baseline{also}; the worst:"]
        lines += [f"- F{v.number} {v.words}" for v in new[:LEAD_ITEMS]]
        if len(new) > LEAD_ITEMS:
            lines.append(f"- … and {len(new) - LEAD_ITEMS} more (table below)")
    else:
        lines = [f"**New**: nothing{also}."]
    if comparison is not None:
        cells = list(changes or ())
        parts = [f"{len(cells)} atlas cell{'s' * (len(cells) != 1)}"] if changes is not None else []
        parts += [f"{len(comparison.appeared)} finding(s) appeared", f"{len(comparison.disappeared)} disappeared"]
        lines.append("")
        if not cells and comparison.is_empty():
            lines.append("**Changed** since the compared run: nothing.")
        else:
            lines.append(f"**Changed** since the compared run: {', '.join(parts)}:")
            lines += [f"- {c.words()} · {c.where()}" for c in cells[:LEAD_ITEMS]]
            lines += [
                f"- appeared: {f.signature.words()}" for f in comparison.appeared[: max(0, LEAD_ITEMS - len(cells))]
            ]
    return [*lines, ""]


def atlas_lines(atlas: Atlas) -> list[str]:
    """The atlas in a table: each (class, condition) where the ops disagree, with who does what.

    >>> from conformance.results.atlas import AtlasCell
    >>> cells = [AtlasCell("size", "element gather", op, o, "1", b, None, d, {}) for op, o, b, d in
    ...          [("torch.gather", "torch", "raises", True), ("numpy.take_along_axis", "numpy", "clamps", False)]]
    >>> atlas_lines(Atlas(cells))[-1]
    '| element gather | index size | raises: torch.gather (torch) · clamps ⚠: numpy.take_along_axis (numpy) |'
    """
    rows: dict[tuple[str, str], dict[str, list[str]]] = {}
    for c in atlas.cells:
        if c.behaviour not in (Behaviour.UNSUPPORTED, Behaviour.NOT_RUN):
            word = c.behaviour.value + ("" if c.documented else " ⚠")
            rows.setdefault((c.eq_class, c.condition), {}).setdefault(word, []).append(f"{c.op} ({c.oracle})")
    disagree = [(k, v) for k, v in rows.items() if len({w.removesuffix(" ⚠") for w in v}) > 1]
    if not disagree:
        return ["The probe atlas: every op of each class behaves alike on every condition.", ""]
    table_rows = [
        [eq, condition_words(cond), " · ".join(f"{w}: {', '.join(who)}" for w, who in v.items())]
        for (eq, cond), v in disagree
    ]
    head = f"### Where the frameworks disagree ({len(disagree)} of {len(rows)} atlas rows; ⚠ departs from its docs)"
    return [head, "", *table(["class", "condition", "who does what"], table_rows)]


def row_words(key: MatrixKey) -> str:
    """A matrix row in words (an empty part left out).

    >>> row_words(MatrixKey("torch.gather", "negative", "int")), row_words(MatrixKey("t.g", "empty", ""))
    ('torch.gather · negative · int', 't.g · empty')
    """
    return " · ".join(part for part in (key.op, key.regime, key.data_family) if part)


def nonconforming_cells(run: RunResult) -> list[list[str]]:
    """``[row, oracle, behaviours]`` for every matrix cell where something did not conform, worst first.

    >>> k = MatrixKey("t.g", "negative", "int")
    >>> nonconforming_cells(RunResult({}, 0, {}, {}, 1.0, {k: {"a": {"conforms": 2}, "b": {"wraps": 1}}}, []))
    [['t.g · negative · int', 'b', 'wraps 1']]
    """
    rows = []
    for key, cells in run.matrix.items():
        for oracle, counts in cells.items():
            worst = max((severity(b) for b, n in counts.items() if n), default=0)
            if worst > 0:
                rows.append((worst, [row_words(key), oracle, cell_summary(counts)]))
    return [r for _, r in sorted(rows, key=lambda wr: -wr[0])]


def warning_lines(run: RunResult) -> list[str]:
    """What makes the run's numbers incomplete: its status, its harness errors.

    >>> from conformance.results.finding import HarnessError
    >>> errors = [HarnessError("judge", "KeyError: 'x'")]
    >>> for line in warning_lines(RunResult({}, 0, {}, {}, 1.0, {}, [], harness_errors=errors,
    ...     status=RunStatus.PARTIAL)):
    ...     print(line)
    **Run partial**: the matrix and the findings cover only part of it.
    **1 harness error** (judge: KeyError: 'x')
    <BLANKLINE>
    """
    lines = []
    if run.status is not RunStatus.COMPLETE:
        lines.append(f"**Run {run.status}**: the matrix and the findings cover only part of it.")
    cut = run.figures.get("cut_short")
    if cut:
        lines.append(f"**Cut short** by the {cut['by']} during {cut['phase']}: what was found by then.")
    skipped = run.figures.get("atlas_skipped") or {}
    if skipped:
        whys = "; ".join(f"{n} {why}" for why, n in skipped.items())
        lines.append(
            f"**Atlas partial**: {run.figures.get('atlas_cells', 0)} cells run, "
            f"{sum(skipped.values())} skipped ({whys}); `atlas.json` lists them."
        )
    if run.history_effects:
        n = len(run.history_effects)
        per = ", ".join(f"{o} {k}" for o, k in (run.facts.get("history_effects") or {}).get("per_oracle", {}).items())
        lines.append(
            f"**{n} history effect{'s' * (n != 1)}** ({per}): discrepancies a fresh worker of their oracle did not "
            "repeat, left out of the findings: faults of the oracle, listed in the report."
        )
    if run.harness_errors:
        n = len(run.harness_errors)
        shown = "; ".join(f"{e.stage}: {e.error}" for e in run.harness_errors[:3]) + ("; …" if n > 3 else "")
        lines.append(f"**{n} harness error{'s' * (n != 1)}** ({table_cell(shown)})")
    return lines + [""] if lines else []


def comparison_lines(comparison: Comparison) -> list[str]:
    """The "changes since the old run" section.

    >>> comparison_lines(Comparison())
    ['### Changes since the compared run', '', 'No finding changed.', '']
    """
    lines = ["### Changes since the compared run", ""]
    if comparison.is_empty():
        return lines + ["No finding changed.", ""]
    for label, found in (("Appeared", comparison.appeared), ("Disappeared", comparison.disappeared)):
        lines += [f"**{label}** ({len(found)}):" if found else f"**{label}**: none"]
        lines += [f"- {f.signature.words()}" for f in found[:MAX_ROWS]]
        lines.append("")
    if comparison.changed or comparison.fact_changes:
        rows = [[c.what, c.key, c.before, c.after] for c in comparison.fact_changes + comparison.changed]
        lines += table(["what", "where", "before", "after"], rows) + [""]
    return lines


def finding_row(view: FindingView) -> list[str]:
    """A finding's row in the findings table: number, status (NEW shouts), signature, examples, first seen.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.results.finding import Finding
    >>> from conformance.judge.signature import Signature
    >>> from conformance.core.outcome import Outcome
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "crash", "", ("in-range",))
    >>> f = Finding(sig, Case("t.g", np.zeros(1), np.zeros(1, int)), Outcome.returned(np.zeros(1)), {}, count=2)
    >>> finding_row(finding_views([f])[0])
    ['F1', 'NEW', 'hazard', 't.g on t 1 (cpu, eager): crash, for data (1,), indices (1,) [0]', '2', '0 s']
    """
    f = view.finding
    status = f.status.value.upper() if f.status is FindingStatus.NEW else f.status.value
    return [f"F{view.number}", status, f.kind.value, view.words, str(f.count), human_duration(f.first_seen_s)]


def markdown_summary(
    run: RunResult,
    comparison: Comparison | None = None,
    *,
    atlas: Atlas | None = None,
    changes: Sequence[AtlasChange] | None = None,
) -> str:
    """The whole ``summary.md`` (see the module docstring); ``changes``: the atlas cells an upgrade changed."""
    views = finding_views(run.findings)
    lines = [headline(run), "", *lead_lines(views, comparison, changes), facts_line(run), "", *warning_lines(run)]
    rows = [finding_row(v) for v in views]
    if rows:
        lines += table(["#", "status", "kind", "finding", "examples", "first seen"], rows) + [""]
    else:
        lines += ["No findings.", ""]
    if atlas is not None:
        lines += atlas_lines(atlas) + [""]
    cells = nonconforming_cells(run)
    if cells:
        lines += ["### Behaviour matrix: cells that do not conform", ""]
        lines += table(["row", "oracle", "behaviours"], cells) + [""]
    if comparison is not None:
        lines += comparison_lines(comparison)
    return "\n".join(lines)
