"""The HTML report: ``reports/index.html`` with ``findings.json`` and ``summary.md``.

:func:`build_report` turns one run, several shards of one run (merged), or two
runs (compared) into a self-contained folder that opens from disk with no
network: one ``index.html`` (CSS and JS inline, rendered from the Jinja2
templates in ``conformance/templates/``), ``findings.json`` (the merged
:class:`RunResult`, loadable with :meth:`RunResult.load`), ``summary.md`` (for CI
logs and pull-request comments), ``comparison.json`` when comparing, and one
file per reproduction script and per ONNX model so that each can be downloaded.

Everything the templates show is computed here by small pure functions:
:func:`merge_runs`, :func:`compare_runs`, :func:`differing_coordinates`,
:func:`array_view`, :func:`matrix_rows` and :func:`finding_anchor`.

>>> import numpy as np
>>> from conformance.model import Outcome
>>> differing_coordinates(Outcome.returned(np.array([[1, 2], [3, 4]])), Outcome.returned(np.array([[1, 0], [3, 0]])))
[(0, 1), (1, 1)]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from conformance.arrays import dtype_family, dtype_name, unequal_elements
from conformance.findings import Behaviour, Finding, RunResult
from conformance.model import Kind, Outcome

TEMPLATES = Path(__file__).parent / "templates"

SEVERITY: dict[str, int] = {
    Behaviour.CONFORMS.value: 0,
    Behaviour.UNSUPPORTED.value: 1,
    Behaviour.RAISES.value: 2,
    Behaviour.WRAPS.value: 3,
    Behaviour.CLAMPS.value: 3,
    Behaviour.CLAMPS_RAW.value: 4,
    Behaviour.FILLS.value: 4,
    Behaviour.ZERO_FILLS.value: 4,
    Behaviour.UNCHECKED.value: 3,
    Behaviour.WRONG_ERROR.value: 5,
    Behaviour.TIMEOUT.value: 6,
    Behaviour.GARBAGE.value: 7,
    Behaviour.CRASH.value: 8,
}
"""How much a behaviour should catch the eye (an unknown one counts as 5)."""

KIND_SEVERITY: dict[str, int] = {"crash": 8, "timeout": 6, "value": 5, "error": 2, "unsupported": 1}

VOLATILE_FACTS: frozenset[str] = frozenset(
    {"started", "finished", "start", "end", "date", "time", "timestamp", "hostname", "host", "pid", "shard", "shards",
     "shard_index", "shard_count", "argv", "command", "out", "output", "wall_s", "seconds", "executable"}
)  # fmt: skip
"""Facts that may differ between shards of one run without making them different runs."""

MAX_CELLS = 512
"""Arrays larger than this are shown truncated (reproducers are minimal, so rarely)."""


# -- small pure helpers ---------------------------------------------------------


def severity(behaviour: str) -> int:
    """How alarming a behaviour is, 0 (conforms) to 8 (crash).

    >>> severity("crash") > severity("clamps") > severity("conforms"), severity("something new")
    (True, 5)
    """
    return SEVERITY.get(behaviour, 5)


def css_class(behaviour: str) -> str:
    """The CSS class of a behaviour (letters and dashes only).

    >>> css_class("clamps (raw)"), css_class("not supported")
    ('b-clamps-raw', 'b-not-supported')
    """
    return "b-" + "-".join("".join(c if c.isalnum() else " " for c in behaviour.lower()).split())


def finding_anchor(finding: Finding) -> str:
    """A stable HTML id for a finding, from its signature key.

    >>> from conformance.findings import Signature, Case
    >>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value", "clip", ("oob-below",))
    >>> finding_anchor(Finding(sig, Case("numpy.take", np.zeros(1), np.zeros(1, int), {}), Outcome.unsupported(""), {}))
    'f-75042007ca'
    """
    return "f-" + hashlib.sha1(finding.signature.key().encode()).hexdigest()[:10]


def comparison_key(finding: Finding) -> str:
    """The signature key without the version: the same bug across an upgrade.

    >>> from conformance.findings import Signature
    >>> sig = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "error", "raises", ("negative",))
    >>> comparison_key(Finding(sig, None, None, {}))
    'torch.gather|torch|cpu|eager|error|raises|negative'
    """
    parts = finding.signature.key().split("|")
    return "|".join(parts[:2] + parts[3:])


def case_size(finding: Finding) -> tuple[int, int, float]:
    """How big a reproducer is (elements, total rank, then time to find): smaller is better.

    >>> from conformance.findings import Signature, Case
    >>> f = Finding(Signature("o", "x", "1", "cpu", "eager", "value", "", ()), Case("o", np.zeros((2, 3)), np.zeros(4, int), {}), None, {})
    >>> case_size(f)
    (10, 3, 0.0)
    """
    return (int(finding.case.data.size + finding.case.indices.size), finding.case.data.ndim + finding.case.indices.ndim, finding.first_seen_s)


def format_element(x: Any) -> str:
    """One array element as text: strings quoted, floats as NumPy prints them.

    >>> format_element(np.float32(-0.0)), format_element(np.str_("")), format_element(np.int8(-3)), format_element(np.bool_(True))
    ('-0.0', "''", '-3', 'True')
    """
    if isinstance(x, (str, np.str_, bytes, np.bytes_)):
        return repr(str(x) if isinstance(x, np.str_) else x)
    return str(x)


def differing_coordinates(reference: Outcome, got: Outcome) -> list[tuple[int, ...]]:
    """Coordinates where two returned values differ bit for bit (NaN equals
    NaN with the same bits; ``-0.0`` differs from ``0.0``). Empty unless both
    outcomes are values of the same shape and dtype.

    >>> differing_coordinates(Outcome.returned(np.array([0.0, np.nan])), Outcome.returned(np.array([-0.0, np.nan])))
    [(0,)]
    >>> differing_coordinates(Outcome.returned(np.array(["a", "b"])), Outcome.returned(np.array(["a", "c"])))
    [(1,)]
    """
    a, b = reference.value, got.value
    if reference.kind is not Kind.VALUE or got.kind is not Kind.VALUE or a is None or b is None:
        return []
    if a.shape != b.shape or a.dtype != b.dtype:
        return []
    return [tuple(int(i) for i in c) for c in np.argwhere(unequal_elements(a, b))]


def mismatch_note(reference: Outcome, got: Outcome) -> str:
    """One line saying how an outcome differs from the reference.

    >>> mismatch_note(Outcome.returned(np.zeros((2, 2))), Outcome.returned(np.ones((2, 2))))
    '4 of 4 elements differ'
    >>> mismatch_note(Outcome.returned(np.zeros(2)), Outcome.returned(np.zeros(3)))
    'shape [3] instead of [2]'
    """
    if reference.kind is not got.kind:
        return f"{got.kind.value} where the reference gives {reference.kind.value}"
    if got.kind is Kind.VALUE:
        a, b = reference.value, got.value
        assert a is not None and b is not None
        if a.shape != b.shape:
            return f"shape {list(b.shape)} instead of {list(a.shape)}"
        if a.dtype != b.dtype:
            return f"dtype {dtype_name(b.dtype)} instead of {dtype_name(a.dtype)}"
        n = len(differing_coordinates(reference, got))
        return f"{n} of {a.size} elements differ" if n else "agrees with the reference"
    if got.kind is Kind.ERROR and got.error_class != reference.error_class:
        cls = got.error_class.value if got.error_class else "?"
        ref = reference.error_class.value if reference.error_class else "?"
        return f"error class {cls} instead of {ref}"
    return "agrees with the reference"


@dataclass
class ArrayView:
    """An array laid out for the template: 2-D blocks of rows of cells."""

    dtype: str
    shape: list[int]
    blocks: list[tuple[str, list[list[dict[str, Any]]]]]  # (label like "[1, :, :]", rows of cells)
    truncated: bool = False


def array_view(a: np.ndarray, highlight: Iterable[tuple[int, ...]] = (), other: np.ndarray | None = None) -> ArrayView:
    """Lay ``a`` out as labelled 2-D blocks; cells at ``highlight`` are marked
    (with ``other``'s element at the same place as their tooltip).

    >>> v = array_view(np.arange(6).reshape(1, 2, 3), highlight=[(0, 1, 2)])
    >>> v.blocks[0][0], [c["text"] for c in v.blocks[0][1][1]], v.blocks[0][1][1][2]["hit"]
    ('[0, :, :]', ['3', '4', '5'], True)
    """
    hits = set(map(tuple, highlight))
    shape = list(a.shape)
    outer = [()] if a.ndim <= 2 else list(np.ndindex(*a.shape[:-2]))
    n_rows = a.shape[-2] if a.ndim >= 2 else 1
    n_cols = a.shape[-1] if a.ndim >= 1 else 1
    grid = a.reshape(len(outer), n_rows, n_cols)
    blocks, shown = [], 0
    for k, prefix in enumerate(outer):
        if shown >= MAX_CELLS:
            break
        label = "[" + ", ".join([*map(str, prefix), ":", ":"]) + "]" if a.ndim > 2 else ""
        rows = []
        for i in range(grid.shape[1]):
            if shown >= MAX_CELLS:
                break
            row = []
            for j in range(grid.shape[2]):
                coord = tuple(prefix) + ((i, j) if a.ndim >= 2 else (j,) if a.ndim == 1 else ())
                cell = {"text": format_element(grid[k, i, j]), "hit": coord in hits, "coord": list(coord)}
                if cell["hit"] and other is not None:
                    cell["other"] = format_element(other[coord])
                row.append(cell)
            rows.append(row)
            shown += len(row)
        blocks.append((label, rows))
    return ArrayView(dtype_name(a.dtype), shape, blocks, truncated=shown < a.size)


# -- merging shards and comparing runs -------------------------------------------


def comparable_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """The facts that must agree for two results to be shards of one run.

    >>> comparable_facts({"versions": {"torch": "2.13.0"}, "hostname": "ci-3", "shard": 1})
    {'versions': {'torch': '2.13.0'}}
    """
    return {k: v for k, v in facts.items() if k not in VOLATILE_FACTS}


def merge_matrices(matrices: Iterable[dict[str, dict[str, dict[str, int]]]]) -> dict[str, dict[str, dict[str, int]]]:
    """The union of behaviour matrices, counts summed (first-seen key order kept).

    >>> merge_matrices([{"t|neg|int": {"torch": {"raises": 2}}}, {"t|neg|int": {"torch": {"raises": 1, "wraps": 1}}}])
    {'t|neg|int': {'torch': {'raises': 3, 'wraps': 1}}}
    """
    out: dict[str, dict[str, dict[str, int]]] = {}
    for matrix in matrices:
        for row, cells in matrix.items():
            for oracle, counts in cells.items():
                cell = out.setdefault(row, {}).setdefault(oracle, {})
                for behaviour, n in counts.items():
                    cell[behaviour] = cell.get(behaviour, 0) + n
    return out


def sum_counts(dicts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Numbers summed key by key; any other value kept if all agree, else listed.

    >>> sum_counts([{"torch": 3, "mode": "fast"}, {"torch": 2, "numpy": 1, "mode": "slow"}])
    {'torch': 5, 'mode': ['fast', 'slow'], 'numpy': 1}
    """
    out: dict[str, Any] = {}
    for d in dicts:
        for k, v in d.items():
            if k not in out:
                out[k] = v
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(out[k], (int, float)):
                out[k] = out[k] + v
            elif out[k] != v:
                out[k] = (out[k] if isinstance(out[k], list) else [out[k]]) + [v]
    return out


def merge_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings deduplicated by signature key: counts summed, the earliest
    time to find kept, and the smallest reproducer (with its outcomes, scripts
    and model) kept; "known" wins over "new", a baseline note is kept.

    >>> from conformance.findings import Signature, Case
    >>> sig = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "value", "wraps", ("negative",))
    >>> big = Finding(sig, Case("torch.take", np.zeros(9), np.zeros(2, int), {}), None, {}, count=4, first_seen_s=1.0)
    >>> small = Finding(sig, Case("torch.take", np.zeros(2), np.zeros(1, int), {}), None, {}, count=3, first_seen_s=2.0)
    >>> [(f.count, f.first_seen_s, f.case.data.size) for f in merge_findings([big, small])]
    [(7, 1.0, 2)]
    """
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.signature.key(), []).append(f)
    merged = []
    for group in groups.values():
        best = min(group, key=case_size)
        known = next((f for f in group if f.status == "known"), None)
        merged.append(
            replace(
                best,
                count=sum(f.count for f in group),
                first_seen_s=min(f.first_seen_s for f in group),
                status="known" if known else best.status,
                baseline_note=best.baseline_note or next((f.baseline_note for f in group if f.baseline_note), None),
                baseline_link=best.baseline_link or next((f.baseline_link for f in group if f.baseline_link), None),
            )
        )
    return merged


def merge_runs(runs: Sequence[RunResult]) -> RunResult:
    """Shards of one run as one run: the facts must agree (except
    :data:`VOLATILE_FACTS`); matrices, cases, budgets, seconds (worker
    seconds) and raw discrepancies are summed, findings merged with
    :func:`merge_findings`. The seed is kept if all shards share it, else
    None with the shards' seeds listed in ``facts["shard_seeds"]``.

    >>> a = RunResult({"numpy": "2.4.6"}, 1, {"examples": 10}, {"numpy": 10}, 2.0, {}, [])
    >>> b = RunResult({"numpy": "2.4.6"}, 2, {"examples": 10}, {"numpy": 12}, 3.0, {}, [])
    >>> m = merge_runs([a, b]); (m.seed, m.facts["shard_seeds"], m.cases, m.seconds, m.budget)
    (None, [1, 2], {'numpy': 22}, 5.0, {'examples': 20})
    """
    if not runs:
        raise ValueError("no results to merge")
    if len(runs) == 1:
        return runs[0]
    first = comparable_facts(runs[0].facts)
    for i, run in enumerate(runs[1:], start=2):
        other = comparable_facts(run.facts)
        if other != first:
            keys = sorted(k for k in set(first) | set(other) if first.get(k) != other.get(k))
            raise ValueError(
                f"results 1 and {i} are not shards of one run: their facts differ in {', '.join(keys)}; "
                "compare them instead (compare=True / --compare)"
            )
    extra = {"figures": merge_figures(getattr(r, "figures", {}) or {} for r in runs)} if "figures" in RunResult.__dataclass_fields__ else {}
    seeds = [r.seed for r in runs]
    facts = dict(runs[0].facts)
    if len(set(seeds)) > 1:
        facts["shard_seeds"] = seeds
    facts["shards_merged"] = len(runs)
    return RunResult(
        facts=facts,
        seed=seeds[0] if len(set(seeds)) == 1 else None,
        budget=sum_counts(r.budget for r in runs),
        cases=sum_counts(r.cases for r in runs),
        seconds=sum(r.seconds for r in runs),
        matrix=merge_matrices(r.matrix for r in runs),
        findings=merge_findings(f for r in runs for f in r.findings),
        raw_discrepancies=sum(r.raw_discrepancies for r in runs),
        **extra,
    )


def merge_figures(figures: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A campaign's figures over shards: counts and seconds summed, rates
    (``*_per_second``) dropped (the report recomputes throughput), per-key
    dicts (times to first find) merged keeping the smallest value.

    >>> merge_figures([{"oracle_runs": 4, "cases_per_second": 2.0, "time_to_first_find_s": {"k": 3.0}},
    ...                {"oracle_runs": 6, "cases_per_second": 3.0, "time_to_first_find_s": {"k": 1.0, "j": 2.0}}])
    {'oracle_runs': 10, 'time_to_first_find_s': {'k': 1.0, 'j': 2.0}}
    """
    figures = [{k: v for k, v in f.items() if not k.endswith("_per_second")} for f in figures]
    nested = {k for f in figures for k, v in f.items() if isinstance(v, dict)}
    out = sum_counts({k: v for k, v in f.items() if k not in nested} for f in figures)
    for k in sorted(nested, key=[k for f in figures for k in f].index):
        merged: dict[str, Any] = {}
        for f in figures:
            for key, v in (f.get(k) or {}).items():
                merged[key] = v if key not in merged or v is None or merged[key] is None else min(merged[key], v)
        out[k] = merged
    return out


@dataclass
class Change:
    """One thing that differs between two runs, in words."""

    what: str  # "finding" or "matrix"
    key: str
    before: str
    after: str
    anchor: str | None = None


@dataclass
class Comparison:
    """What appeared, disappeared or changed from an old run to a new one."""

    appeared: list[Finding] = field(default_factory=list)
    disappeared: list[Finding] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    old_facts: dict[str, Any] = field(default_factory=dict)
    fact_changes: list[Change] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.appeared or self.disappeared or self.changed or self.fact_changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "appeared": [f.signature.key() for f in self.appeared],
            "disappeared": [f.signature.key() for f in self.disappeared],
            "changed": [vars(c) for c in self.changed],
            "fact_changes": [vars(c) for c in self.fact_changes],
        }


def cell_summary(counts: dict[str, int]) -> str:
    """A matrix cell in words, most alarming behaviour first.

    >>> cell_summary({"conforms": 90, "clamps": 10})
    'clamps 10, conforms 90'
    """
    return ", ".join(f"{b} {n}" for b, n in sorted(counts.items(), key=lambda bn: (-severity(bn[0]), -bn[1])))


def _table_rows(value: Any) -> list[dict[str, Any]] | None:
    """A list of dicts, or a dict of flat dicts (``facts["oracles"]``: name ->
    info), as table rows (a dict's keys become a ``name`` column); else None.

    >>> _table_rows({"jax": {"version": "0.10.2"}}), _table_rows({"a": 1})
    ([{'name': 'jax', 'version': '0.10.2'}], None)
    """
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return value
    if isinstance(value, dict) and value and all(isinstance(v, dict) and not any(isinstance(x, dict) for x in v.values()) for v in value.values()):
        return [{"name": k} | {c: x for c, x in v.items() if c != "name"} for k, v in value.items()]
    return None


def _is_table(value: Any) -> bool:
    return _table_rows(value) is not None


def _fact_text(value: Any) -> str:
    """A fact's value as text: lists of words joined, the rest as JSON.

    >>> _fact_text(["numpy.take", "numpy.take_along_axis"]), _fact_text(2), _fact_text("cpu")
    ('numpy.take, numpy.take_along_axis', '2', 'cpu')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    return json.dumps(value, default=str)


def flatten_facts(facts: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested facts as ``a.b -> text``; a list of dicts with a ``name`` (the
    oracles) flattens by name.

    >>> flatten_facts({"versions": {"torch": "2.13.0"}, "oracles": [{"name": "jax", "version": "0.10.2"}]})
    {'versions.torch': '2.13.0', 'oracles.jax.version': '0.10.2'}
    """
    out: dict[str, str] = {}
    for k, v in facts.items():
        if isinstance(v, dict):
            out.update(flatten_facts(v, f"{prefix}{k}."))
        elif isinstance(v, list) and _is_table(v) and all("name" in row for row in v):
            for row in v:
                out.update(flatten_facts({n: x for n, x in row.items() if n != "name"}, f"{prefix}{k}.{row['name']}."))
        else:
            out[f"{prefix}{k}"] = _fact_text(v)
    return out


def fact_tables(facts: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, list[str], list[list[str]]]]]:
    """Facts split for display: flat ``key -> text`` pairs, and a table
    ``(title, columns, rows)`` per list of dicts (such as the oracles with
    their versions).

    >>> fact_tables({"cores": 2, "oracles": [{"name": "jax", "version": "0.10.2"}]})
    ({'cores': '2'}, [('oracles', ['name', 'version'], [['jax', '0.10.2']])])
    """
    flat = flatten_facts({k: v for k, v in facts.items() if not _is_table(v)})
    tables = []
    for k, value in facts.items():
        rows = _table_rows(value)
        if rows is not None:
            columns = list(dict.fromkeys(c for row in rows for c in row))
            tables.append((k, columns, [[_fact_text(row.get(c, "")) for c in columns] for row in rows]))
    return flat, tables


def compare_runs(old: RunResult, new: RunResult) -> Comparison:
    """Findings that appeared or disappeared (matched across versions with
    :func:`comparison_key`), findings whose version, status or outcome changed,
    matrix cells whose behaviours changed, and facts that changed.

    >>> from conformance.findings import Signature, Case
    >>> def run(version, matrix):
    ...     sig = Signature("torch.take", "torch", version, "cpu", "eager", "value", "wraps", ("negative",))
    ...     f = Finding(sig, Case("torch.take", np.zeros(2), np.zeros(1, int), {}), Outcome.returned(np.zeros(1)), {"torch": Outcome.returned(np.ones(1))})
    ...     return RunResult({"torch": version}, 0, {}, {}, 1.0, matrix, [f])
    >>> c = compare_runs(run("2.12.0", {"torch.take|negative|float": {"torch": {"wraps": 3}}}), run("2.13.0", {"torch.take|negative|float": {"torch": {"raises": 3}}}))
    >>> [(ch.what, ch.before, ch.after) for ch in c.changed]
    [('finding', 'torch 2.12.0', 'torch 2.13.0'), ('matrix', 'wraps 3', 'raises 3')]
    >>> [(ch.key, ch.before, ch.after) for ch in c.fact_changes]
    [('torch', '2.12.0', '2.13.0')]
    """
    old_by = {comparison_key(f): f for f in old.findings}
    new_by = {comparison_key(f): f for f in new.findings}
    comparison = Comparison(
        appeared=[f for k, f in new_by.items() if k not in old_by],
        disappeared=[f for k, f in old_by.items() if k not in new_by],
        old_facts=old.facts,
    )
    for key in (k for k in new_by if k in old_by):
        before, after = old_by[key], new_by[key]
        for label, b, a in _finding_differences(before, after):
            comparison.changed.append(Change("finding", key, b, a, finding_anchor(after)))
    for row in list(dict.fromkeys([*old.matrix, *new.matrix])):
        for oracle in list(dict.fromkeys([*old.matrix.get(row, {}), *new.matrix.get(row, {})])):
            b = old.matrix.get(row, {}).get(oracle, {})
            a = new.matrix.get(row, {}).get(oracle, {})
            if set(b) != set(a):
                comparison.changed.append(Change("matrix", f"{row} · {oracle}", cell_summary(b) or "—", cell_summary(a) or "—"))
    old_facts, new_facts = flatten_facts(comparable_facts(old.facts)), flatten_facts(comparable_facts(new.facts))
    for k in dict.fromkeys([*old_facts, *new_facts]):
        if old_facts.get(k) != new_facts.get(k):
            comparison.fact_changes.append(Change("fact", k, old_facts.get(k, "—"), new_facts.get(k, "—")))
    return comparison


def _finding_differences(before: Finding, after: Finding) -> list[tuple[str, str, str]]:
    """(label, before, after) for what changed in one finding between runs."""
    out = []
    if before.signature.version != after.signature.version:
        sig_b, sig_a = before.signature, after.signature
        out.append(("version", f"{sig_b.oracle} {sig_b.version}", f"{sig_a.oracle} {sig_a.version}"))
    if before.status != after.status:
        out.append(("status", before.status, after.status))
    ob, oa = before.outcomes.get(before.signature.oracle), after.outcomes.get(after.signature.oracle)
    if ob is not None and oa is not None and ob.describe() != oa.describe():
        out.append(("outcome", ob.describe(), oa.describe()))
    return out


# -- the behaviour matrix ------------------------------------------------------


@dataclass
class MatrixCell:
    """One oracle on one matrix row."""

    counts: dict[str, int]
    worst: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def ordered(self) -> list[tuple[str, int]]:
        return sorted(self.counts.items(), key=lambda bn: (-severity(bn[0]), -bn[1]))

    @property
    def title(self) -> str:
        return cell_summary(self.counts)


@dataclass
class MatrixRow:
    op: str
    regime: str
    families: list[str]
    cells: dict[str, MatrixCell | None]


def split_key(key: str) -> tuple[str, str, str]:
    """``"op|regime|family"`` as a triple (missing parts empty).

    >>> split_key("torch.gather|negative|int"), split_key("torch.gather|negative")
    (('torch.gather', 'negative', 'int'), ('torch.gather', 'negative', ''))
    """
    parts = (key.split("|") + ["", ""])[:3]
    return parts[0], parts[1], parts[2]


def worst_behaviour(counts: dict[str, int]) -> str:
    """The most alarming behaviour of a cell (ties: the most frequent).

    >>> worst_behaviour({"conforms": 99, "garbage": 1})
    'garbage'
    """
    return max(counts.items(), key=lambda bn: (severity(bn[0]), bn[1]))[0] if counts else ""


def finding_family(finding: Finding) -> str:
    """The dtype family of a finding's data (``str`` for strings)."""
    return dtype_family(finding.case.data.dtype)


def findings_for(findings: Sequence[Finding], op: str, regime: str, families: Sequence[str], oracle: str) -> list[Finding]:
    """The findings behind a matrix cell: same op (a finding's ONNX ``-N``
    opset suffix ignored where the row names no opset) and oracle, the regime among their tags, data of one of the
    row's dtype families.

    >>> from conformance.findings import Signature, Case
    >>> f = Finding(Signature("torch.gather", "torch", "2", "cpu", "eager", "value", "wraps", ("negative",)), Case("torch.gather", np.zeros(2), np.zeros(1, int), {}), None, {})
    >>> len(findings_for([f], "torch.gather", "negative", ["float"], "torch")), len(findings_for([f], "torch.gather", "oob", ["float"], "torch"))
    (1, 0)
    """
    def base(name: str) -> str:
        head, _, tail = name.rpartition("-")
        return head if head and tail.isdigit() else name

    return [
        f
        for f in findings
        if (f.signature.op == op or base(f.signature.op) == op)
        and f.signature.oracle == oracle
        and (not regime or regime in f.signature.tags or regime in f.case.tags)
        and (not families or not families[0] or finding_family(f) in families)
    ]


def matrix_rows(matrix: dict[str, dict[str, dict[str, int]]], oracles: Sequence[str], findings: Sequence[Finding]) -> list[MatrixRow]:
    """Rows op × regime; a row is split by dtype family only where the
    families behave differently (a different worst behaviour for some oracle).

    >>> m = {"t|neg|int": {"a": {"raises": 1}}, "t|neg|float": {"a": {"raises": 2}},
    ...      "t|oob|int": {"a": {"clamps": 1}}, "t|oob|float": {"a": {"garbage": 1}}}
    >>> [(r.regime, r.families, r.cells["a"].worst) for r in matrix_rows(m, ["a"], [])]
    [('neg', ['int', 'float'], 'raises'), ('oob', ['int'], 'clamps'), ('oob', ['float'], 'garbage')]
    """
    groups: dict[tuple[str, str], dict[str, dict[str, dict[str, int]]]] = {}
    for key, cells in matrix.items():
        op, regime, family = split_key(key)
        groups.setdefault((op, regime), {})[family] = cells
    rows = []
    for (op, regime), by_family in groups.items():
        shapes = {tuple(worst_behaviour(cells.get(o, {})) for o in oracles) for cells in by_family.values()}
        parts = [list(by_family)] if len(shapes) == 1 else [[fam] for fam in by_family]
        for families in parts:
            merged = merge_matrices([{"": by_family[fam]} for fam in families]).get("", {})
            cells = {
                o: MatrixCell(merged[o], worst_behaviour(merged[o]), findings_for(findings, op, regime, families, o)) if merged.get(o) else None
                for o in oracles
            }
            rows.append(MatrixRow(op, regime, families, cells))
    return rows


def oracle_columns(run: RunResult) -> list[str]:
    """The matrix columns: every oracle in the matrix, the cases or the findings, first seen first."""
    seen = [o for cells in run.matrix.values() for o in cells] + list(run.cases) + [f.signature.oracle for f in run.findings]
    return list(dict.fromkeys(seen))


# -- ordering and per-finding context -------------------------------------------------


def finding_order(finding: Finding) -> tuple[int, int, int, str]:
    """Sort key: new before known, then the most alarming (observed policy,
    or the kind of the oracle's outcome: a crash first), then the most frequent."""
    subject = finding.outcomes.get(finding.signature.oracle)
    kind = subject.kind.value if subject is not None else finding.signature.outcome
    worst = max(severity(finding.signature.policy) if finding.signature.policy else 0, KIND_SEVERITY.get(kind, 5))
    return (0 if finding.status == "new" else 1, -worst, -finding.count, finding.signature.key())


def op_doc(op: str) -> tuple[str, str] | None:
    """The documentation link and policy note of a catalog op, if it is one."""
    from conformance.catalog import spec

    try:
        s = spec(op)
    except ValueError:
        return None
    return s.doc, s.policy_note


def framework_of(oracle: str) -> str:
    """A file-name-safe word for a script's framework.

    >>> framework_of("onnxruntime-cpu/graph")
    'onnxruntime-cpu_graph'
    """
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in oracle)


@dataclass
class OutcomeView:
    """An oracle's outcome next to the reference."""

    name: str
    outcome: Outcome
    note: str
    array: ArrayView | None
    diffs: list[tuple[int, ...]]
    is_subject: bool = False


@dataclass
class FindingView:
    """A finding with everything its section shows."""

    number: int
    anchor: str
    finding: Finding
    words: str
    family: str
    data: ArrayView
    indices: ArrayView
    outcomes: list[OutcomeView]
    scripts: list[tuple[str, str, str]]  # (framework, file name, text)
    onnx_file: str | None
    doc: tuple[str, str] | None


def outcome_views(finding: Finding) -> list[OutcomeView]:
    """The reference first, then the finding's own oracle, then the others."""
    ref = finding.reference
    views = [OutcomeView("reference", ref, "", array_view(ref.value) if ref.value is not None else None, [])]
    names = sorted(finding.outcomes, key=lambda o: (o != finding.signature.oracle, o))
    for name in names:
        got = finding.outcomes[name]
        diffs = differing_coordinates(ref, got)
        array = array_view(got.value, diffs, ref.value) if got.value is not None else None
        views.append(OutcomeView(name, got, mismatch_note(ref, got), array, diffs, name == finding.signature.oracle))
    return views


def finding_views(findings: Sequence[Finding]) -> list[FindingView]:
    """Findings in report order, numbered F1, F2, ..."""
    views = []
    for number, f in enumerate(sorted(findings, key=finding_order), start=1):
        anchor = finding_anchor(f)
        scripts = [(fw, f"scripts/{anchor}_{framework_of(fw)}.py", text) for fw, text in sorted(f.scripts.items())]
        views.append(
            FindingView(
                number, anchor, f, f.signature.words(), finding_family(f), array_view(f.case.data), array_view(f.case.indices),
                outcome_views(f), scripts, f"models/{anchor}.onnx" if f.onnx_model_b64 else None, op_doc(f.case.op),
            )
        )
    return views


# -- writing the folder ----------------------------------------------------------------


def environment() -> Environment:
    """The Jinja2 environment of the report templates (autoescape on)."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html", "j2", "html.j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["css"] = css_class
    env.filters["fact"] = _fact_text
    env.globals["severity"] = severity
    return env


def legend() -> list[tuple[str, str]]:
    """Every behaviour with its CSS class, least to most alarming."""
    return [(b.value, css_class(b.value)) for b in sorted(Behaviour, key=lambda b: severity(b.value))]


def throughput(run: RunResult) -> list[tuple[str, int, float]]:
    """(oracle, cases, cases per second) per oracle.

    >>> throughput(RunResult({}, 0, {}, {"numpy": 50}, 2.0, {}, []))
    [('numpy', 50, 25.0)]
    """
    return [(o, n, n / run.seconds if run.seconds else 0.0) for o, n in run.cases.items()]


def render_html(run: RunResult, comparison: Comparison | None = None, title: str = "gather-conformance report") -> str:
    """The report page as one self-contained HTML string."""
    oracles = oracle_columns(run)
    views = finding_views(run.findings)
    return environment().get_template("report.html.j2").render(
        title=title,
        run=run,
        figures=flatten_facts({k: v for k, v in (getattr(run, "figures", None) or {}).items() if not isinstance(v, dict)}),
        facts=fact_tables(run.facts)[0],
        fact_tables=fact_tables(run.facts)[1],
        oracles=oracles,
        rows=matrix_rows(run.matrix, oracles, run.findings),
        anchors={v.finding.signature.key(): (v.anchor, v.number) for v in views},
        findings=views,
        legend=legend(),
        throughput=throughput(run),
        comparison=comparison,
        new_count=sum(f.status == "new" for f in run.findings),
        known_count=sum(f.status != "new" for f in run.findings),
        total_cases=sum(run.cases.values()),
    )


def load_runs(results: Sequence[RunResult | str | Path]) -> list[RunResult]:
    """RunResults from RunResults or ``results.json`` paths."""
    return [r if isinstance(r, RunResult) else RunResult.load(r) for r in results]


def build_report(results: Sequence[RunResult] | Sequence[Path], out_dir: Path, compare: bool = False) -> Path:
    """Write the report folder and return the path of its ``index.html``.

    ``results``: RunResults or paths of ``results.json`` files. Without
    ``compare``, they are shards of one run and are merged (:func:`merge_runs`;
    a ValueError if their facts differ). With ``compare``, exactly two: the old
    run then the new one; the report shows the new one and what changed.

    The folder holds ``index.html``, ``findings.json`` (the merged run,
    readable with :meth:`RunResult.load`), ``summary.md``, ``comparison.json``
    (when comparing), ``scripts/<finding>_<framework>.py`` and
    ``models/<finding>.onnx``.

    >>> import tempfile
    >>> run = RunResult({"versions": {"numpy": "2.4.6"}}, 0, {"examples": 1}, {"numpy": 1}, 0.5, {}, [])
    >>> build_report([run], Path(tempfile.mkdtemp())).name
    'index.html'
    """
    from conformance.summary import markdown_summary

    runs = load_runs(results)
    comparison = None
    if compare:
        if len(runs) != 2:
            raise ValueError(f"compare needs exactly two results (old, new), got {len(runs)}")
        comparison = compare_runs(runs[0], runs[1])
        run = runs[1]
    else:
        run = merge_runs(runs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for view in finding_views(run.findings):
        for _, name, text in view.scripts:
            _write(out_dir / name, text)
        if view.onnx_file and view.finding.onnx_model_b64:
            _write(out_dir / view.onnx_file, base64.b64decode(view.finding.onnx_model_b64))
    run.save(out_dir / "findings.json")
    if comparison is not None:
        _write(out_dir / "comparison.json", json.dumps(comparison.to_json(), indent=1))
    _write(out_dir / "summary.md", markdown_summary(run, comparison))
    index = out_dir / "index.html"
    _write(index, render_html(run, comparison))
    return index


def _write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def main_report(args: argparse.Namespace) -> int:
    """``gather-conformance report RESULTS... [--out DIR] [--compare]``.

    ``args.results``: paths of ``results.json`` files (shards of one run, or
    with ``args.compare`` the old run then the new one); ``args.out``: the
    report folder (default ``reports``). Prints where the report is and the
    Markdown summary; returns 0, or 2 when the results cannot be combined.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> RunResult({}, 0, {}, {}, 1.0, {}, []).save(d / "results.json")
    >>> main_report(argparse.Namespace(results=[d / "results.json"], out=d / "report", compare=False))  # doctest: +ELLIPSIS
    report: .../report/index.html
    ...
    0
    """
    try:
        index = build_report([Path(p) for p in args.results], Path(getattr(args, "out", None) or "reports"), bool(getattr(args, "compare", False)))
    except (ValueError, FileNotFoundError) as exc:
        print(f"gather-conformance report: {exc}")
        return 2
    print(f"report: {index}")
    print((index.parent / "summary.md").read_text(encoding="utf-8"))
    return 0
