"""The probe atlas as the report's first table: one table per equivalence
class, a row per condition (probe order, under its group's heading), a
column per framework op, grouped by framework, with the oracle, version and
mode in the header. Columns of one op whose cells are the same in every row
(``onnxruntime`` and its ``-noopt`` and ``-static`` modes, mostly) share a
column whose header names them all.

A cell says what the op did (the behaviour word, the error class where it
raised), coloured by :func:`conformance.core.behaviour.css_class`; it is marked
``departs`` where it does not do what its own docs say, ``silent`` where the
docs say nothing about the condition, ``‡`` where its probe does not isolate the condition for that op (the
op's case breaks another of its rules too: :func:`unisolated_why`); it carries the findings behind it
(:mod:`conformance.report.atlas_match`) and an evidence record (the probe
case, what the docs give and what happened) the page shows on a click. A row
*disagrees* where the ops of the class behave differently (``not supported``
and ``not run`` left out).

>>> from conformance.results.atlas import Atlas, AtlasCell
>>> ex = {"reference": "error IndexError (index out of range)", "observed": "value float32[1]"}
>>> cells = [AtlasCell("size", "element gather", "torch.gather", "torch", "2.13.0", "raises", "index out of range",
...     True, ex),
...          AtlasCell("size", "element gather", "numpy.take_along_axis", "numpy", "2.4.6", "clamps", None, False, ex)]
>>> [table] = atlas_tables(Atlas(cells), [], {}, {})
>>> [(c.framework, c.op_label) for c in table.columns], table.rows[0].disagree, table.rows[0].cells[0].departs
([('numpy', 'take_along_axis'), ('torch', 'gather')], True, True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.cases.probes import condition, condition_order, isolation
from conformance.core.behaviour import Behaviour, css_class
from conformance.core.case import OpKey
from conformance.core.encoding import decode_array, decode_attrs
from conformance.report.arrays_view import attr_text
from conformance.report.atlas_diff import AtlasChange, cell_words, condition_words
from conformance.report.atlas_match import FindingIndex, cell_findings
from conformance.results.atlas import Atlas, AtlasCell
from conformance.results.finding import Finding
from conformance.spec.catalog import spec
from conformance.spec.plans import EqClass

FRAMEWORK_ORDER = ("numpy", "torch", "tensorflow", "jax", "onnxruntime", "onnx", "cupy")
"""Frameworks left to right (others after them, by name)."""
IGNORED = frozenset({Behaviour.UNSUPPORTED.value, Behaviour.NOT_RUN.value})
"""Behaviours that do not make a row disagree: nothing was asked of the framework."""
SHORT_WORDS = {
    "unchecked (empty output)": "unchecked",
    "clamps (raw)": "clamps raw",
    "internal error": "internal",
    "not supported": "n/a",
    "protocol error": "protocol",
    "rejects dtype": "rejects dtype",
    "reads as its int": "as int",
}
"""Cell texts shorter than the behaviour word (the evidence says it in full)."""
SHORT_ERRORS = {
    "index out of range": "index",
    "shape invalid": "shape",
    "attribute invalid": "attribute",
    "negative index rejected": "negative",
    "dtype unsupported": "",
    "internal": "",
    "other": "other",
}
"""Error classes as the cell's second line."""
MAX_INDEX_VALUES = 24
"""Index arrays up to this size are shown in the evidence with their values."""

Anchors = Mapping[str, tuple[str, int]]
"""A finding's signature key -> (its anchor, its number)."""


def framework_key(framework: str) -> tuple[int, str]:
    """Sort key of a framework (:data:`FRAMEWORK_ORDER`)."""
    return (FRAMEWORK_ORDER.index(framework), "") if framework in FRAMEWORK_ORDER else (len(FRAMEWORK_ORDER), framework)


def short_op(op: str) -> str:
    """An op key without its framework prefix and namespaces (the header's framework row says it).

    >>> short_op("tensorflow.experimental.numpy.take"), short_op("onnx.GatherND-12"), short_op("odd")
    ('take', 'GatherND-12', 'odd')
    """
    try:
        key = OpKey.parse(op)
    except ValueError:
        return op
    name = key.name.rsplit(".", 1)[-1]
    return f"{name}-{key.opset}" if key.opset is not None else name


@dataclass(frozen=True)
class Column:
    """One framework op on one or more oracles whose cells are all alike."""

    framework: str
    version: str
    op: str
    oracles: tuple[str, ...]
    modes: tuple[str, ...]

    @property
    def op_label(self) -> str:
        return short_op(self.op)

    @property
    def oracle_label(self) -> str:
        return self.oracles[0] + (f" +{len(self.oracles) - 1}" if len(self.oracles) > 1 else "")

    @property
    def mode_label(self) -> str:
        return self.modes[0] + (" …" if len(set(self.modes)) > 1 else "")

    @property
    def title(self) -> str:
        on = "; ".join(f"{o} ({m})" for o, m in zip(self.oracles, self.modes))
        return f"{self.op} — {self.framework} {self.version} — on {on}" + (
            ": the same in every row" if len(self.oracles) > 1 else ""
        )


@dataclass
class CellView:
    """One cell as the page shows it (see the module docstring)."""

    behaviour: str
    error_class: str | None
    departs: bool
    silent: bool
    seen: tuple[str, ...]
    evidence: int
    findings: list[tuple[str, int, str]] = field(default_factory=list)  # (anchor, number, status)
    change: str = ""
    unisolated: str = ""
    """Why the cell's probe does not isolate its condition for this op (:func:`~conformance.cases.probes.isolation`):
    the reference also refuses it for another rule; empty where it does."""

    @property
    def word(self) -> str:
        return SHORT_WORDS.get(self.behaviour, self.behaviour)

    @property
    def error(self) -> str:
        return SHORT_ERRORS.get(self.error_class, self.error_class) if self.error_class else ""

    @property
    def css(self) -> str:
        return css_class(self.behaviour)


@dataclass
class Row:
    """One condition in one class."""

    condition: str
    words: str
    group: str
    group_start: bool
    cells: list[CellView | None]

    @property
    def behaviours(self) -> list[str]:
        return list(dict.fromkeys(c.behaviour for c in self.cells if c is not None and c.behaviour not in IGNORED))

    @property
    def disagree(self) -> bool:
        return len(self.behaviours) > 1

    @property
    def departs(self) -> int:
        return sum(1 for c in self.cells if c is not None and c.departs)


@dataclass
class Table:
    """One equivalence class of the atlas."""

    eq_class: str
    columns: list[Column]
    rows: list[Row]

    @property
    def frameworks(self) -> list[tuple[str, str, int]]:
        """``(framework, version, columns)`` spans of the header's first row."""
        spans: list[tuple[str, str, int]] = []
        for c in self.columns:
            if spans and spans[-1][0] == c.framework:
                spans[-1] = (c.framework, spans[-1][1], spans[-1][2] + 1)
            else:
                spans.append((c.framework, c.version, 1))
        return spans

    @property
    def disagreeing(self) -> int:
        return sum(r.disagree for r in self.rows)

    @property
    def departing(self) -> int:
        return sum(r.departs for r in self.rows)

    @property
    def anchor(self) -> str:
        return "atlas-" + css_class(self.eq_class).removeprefix("b-")


def unisolated_why(cell: AtlasCell) -> str:
    """Why ``cell``'s probe does not isolate its condition for its op (the reference's refusal for another rule:
    :func:`~conformance.cases.probes.isolation`), or "".

    >>> cell = AtlasCell("empty-outer-scalar", "block gather", "paddle.index_select", "paddle", "3", "raises",
    ...                  "shape invalid", True, {})
    >>> unisolated_why(cell)
    'PreconditionValueError: paddle.index_select: index must be 1-D, got shape ()'
    >>> from dataclasses import replace
    >>> unisolated_why(replace(cell, op="numpy.take"))
    ''
    """
    known = {c.value: c for c in EqClass}
    eq = known.get(cell.eq_class)
    return isolation().get((cell.condition, eq, cell.op), "") if eq is not None else ""


def is_silent(cell: AtlasCell) -> bool:
    """Whether the op's docs say nothing about the cell's probe (its index regime is unspecified)."""
    regime = (cell.example.get("tags") or {}).get("regime")
    try:
        return not cell.documented and regime in spec(cell.op).unspecified
    except ValueError:
        return False


def _array_text(encoded: Any, values: bool) -> str:
    """``dtype[shape]``, with the values of a small index array."""
    if not isinstance(encoded, Mapping):
        return "?"
    text = f"{encoded.get('dtype', '?')}{list(encoded.get('shape', []))}"
    if values:
        try:
            a = decode_array(dict(encoded))
            if a.size <= MAX_INDEX_VALUES:
                text += " = " + json.dumps(a.tolist(), default=str)
        except Exception:  # noqa: BLE001 - the evidence shows what it can
            return text
    return text


def _outcome_text(example: Mapping[str, Any], which: str) -> str:
    """The short description of the reference's or the oracle's outcome, with its values where it has them.

    >>> _outcome_text({"observed": "value int64[1]",
    ...     "observed_value": {"dtype": "int64", "shape": [1], "b64": "BwAAAAAAAAA="}}, "observed")
    'value int64[1] = [7]'
    """
    text = str(example.get(which, "?"))
    encoded = example.get(f"{which}_value")
    if isinstance(encoded, Mapping) and (shown := _array_text(encoded, values=True)).count(" = "):
        text += " = " + shown.split(" = ", 1)[1]
    return text


def evidence(cell: AtlasCell, column: Column, words: str, view: CellView, titles: Mapping[str, str]) -> dict[str, Any]:
    """What the page shows when a cell is clicked: the probe, expected and observed, the findings behind it."""
    ex = cell.example
    attrs = ", ".join(f"{k}={attr_text(v)}" for k, v in decode_attrs(ex.get("attrs") or {}).items())
    verdict = (
        "departs from its docs"
        if view.departs and not view.silent
        else "docs silent"
        if view.silent
        else "as documented"
    )
    rows = [
        ["data", _array_text(ex.get("data"), values=True)],
        ["indices", _array_text(ex.get("indices"), values=True)],
        ["attrs", attrs or "none"],
        ["expected", _outcome_text(ex, "reference")],
        ["observed", _outcome_text(ex, "observed")],
    ]
    if ex.get("message"):
        rows.append(["message", str(ex["message"])])
    if ex.get("undefined"):  # an answer that depends on memory (conformance.campaign.atlas_runner)
        rows.append(["undefined", str(ex["undefined"])])
    if len(view.seen) > 1 or cell.probes > 1:
        rows.append(["probes", f"{cell.probes} cases (modes, index dtypes): " + ", ".join(view.seen)])
    rows += [["case", text] for text in case_lines(cell)]
    if len(column.oracles) > 1:
        rows.append(["same on", ", ".join(column.oracles)])
    if view.change:
        rows.append(["changed", view.change])
    if view.unisolated:
        rows.append(["not isolated", f"this op's case breaks another rule besides the condition: {view.unisolated}"])
    return {
        "h": [cell.op, column.oracle_label, cell.version, cell.eq_class, words],
        "b": cell_words(cell),
        "v": verdict,
        "r": rows,
        "f": [[a, f"F{n}", s, titles.get(a, "")] for a, n, s in view.findings],
    }


def case_lines(cell: AtlasCell) -> list[str]:
    """Each case of a cell that aggregates several (:attr:`~conformance.results.atlas.AtlasCell.cases`): what
    sets it apart from the others (the attributes that differ, the index dtype where they differ), then what the
    oracle did on it.

    >>> entry = {"attrs": {"axis": 1, "mode": None}, "indices": "bool", "behaviour": "wrong error",
    ...          "documented": True, "observed": "value float32[2, 3, 2]"}
    >>> clip = entry | {"attrs": {"axis": 1, "mode": "clip"}, "behaviour": "raises",
    ...                 "observed": "error ValueError (dtype unsupported)"}
    >>> cell = AtlasCell("index-bool", "block gather", "jax.numpy.take", "jax", "0.10.2", "wrong error", None, True,
    ...                  {}, 2, cases=(entry, clip))
    >>> case_lines(cell)
    ['mode=None: wrong error (value float32[2, 3, 2])', "mode='clip': raises (error ValueError (dtype unsupported))"]
    """
    if len(cell.cases) < 2:
        return []
    attrs = [decode_attrs(c.get("attrs") or {}) for c in cell.cases]
    names = [k for k in attrs[0] if any(repr(a.get(k)) != repr(attrs[0][k]) for a in attrs[1:])]
    dtypes = len({c.get("indices") for c in cell.cases}) > 1
    lines = []
    for c, a in zip(cell.cases, attrs, strict=True):
        parts = [f"{k}={attr_text(a.get(k))}" for k in names] + ([f"indices {c.get('indices')}"] if dtypes else [])
        lines.append(f"{', '.join(parts) or 'case'}: {c.get('behaviour')} ({c.get('observed')})")
    return lines


def _columns(cells: Sequence[AtlasCell], oracles: Mapping[str, Mapping[str, Any]]) -> list[Column]:
    """The class's columns: cells grouped by (op, oracle), alike ones merged, by framework."""
    by_pair: dict[tuple[str, str], dict[str, tuple[str, str | None, bool]]] = {}
    version: dict[tuple[str, str], str] = {}
    for c in cells:
        by_pair.setdefault((c.op, c.oracle), {})[c.condition] = (c.behaviour, c.error_class, c.documented)
        version[(c.op, c.oracle)] = c.version
    merged: dict[tuple[str, str, tuple[Any, ...]], list[str]] = {}
    for (op, oracle), row in by_pair.items():
        merged.setdefault((op, version[(op, oracle)], tuple(sorted(row.items()))), []).append(oracle)
    columns = []
    for (op, ver, _), names in merged.items():
        info = [oracles.get(n, {}) for n in names]
        fw = str(info[0].get("framework") or op.split(".", 1)[0])
        columns.append(Column(fw, ver, op, tuple(names), tuple(str(i.get("mode") or "") for i in info)))
    return sorted(columns, key=lambda c: (framework_key(c.framework), c.op, c.oracles))


def _group(key: str) -> str:
    try:
        return condition(key).group.value
    except KeyError:
        return "other"


def atlas_tables(
    atlas: Atlas,
    findings: Sequence[Finding],
    anchors: Anchors,
    oracles: Mapping[str, Mapping[str, Any]],
    changes: Sequence[AtlasChange] = (),
    evidence_out: list[dict[str, Any]] | None = None,
) -> list[Table]:
    """The atlas as tables, one per class in :class:`~conformance.spec.plans.EqClass`
    order (see the module docstring); ``anchors`` link findings, ``oracles``
    (``facts["oracles"]`` by name) name frameworks and modes, ``changes``
    mark the cells an upgrade changed; each cell's evidence record is
    appended to ``evidence_out`` (its index is the cell's ``evidence``)."""
    index = FindingIndex(findings)
    changed = {c.key: c.words() for c in changes}
    records = evidence_out if evidence_out is not None else []
    titles = {anchors[f.signature.key()][0]: f.signature.words() for f in findings if f.signature.key() in anchors}
    classes = [c.value for c in EqClass]
    by_class: dict[str, list[AtlasCell]] = {}
    for c in atlas.cells:
        by_class.setdefault(c.eq_class, []).append(c)
    tables = []
    for eq_class in sorted(by_class, key=lambda e: classes.index(e) if e in classes else len(classes)):
        cells = by_class[eq_class]
        columns = _columns(cells, oracles)
        where = {(col.op, o): i for i, col in enumerate(columns) for o in col.oracles}
        grid: dict[str, list[CellView | None]] = {}
        for c in cells:
            i = where[(c.op, c.oracle)]
            row = grid.setdefault(c.condition, [None] * len(columns))
            fs = [
                (anchors[f.signature.key()][0], anchors[f.signature.key()][1], f.status.value)
                for f in cell_findings(c, index)
                if f.signature.key() in anchors
            ]
            shown = row[i]
            if shown is not None:  # a merged column: one evidence record, every oracle's findings
                shown.findings += [f for f in fs if f not in shown.findings]
                continue
            view = CellView(
                c.behaviour,
                c.error_class,
                not c.documented,
                is_silent(c),
                c.seen or (c.behaviour,),
                len(records),
                fs,
                changed.get(c.key, ""),
                unisolated_why(c),
            )
            row[i] = view
            records.append({"cell": c, "column": columns[i], "view": view})
        rows, last_group = [], None
        for key in sorted(grid, key=condition_order):
            group = _group(key)
            rows.append(Row(key, condition_words(key), group, group != last_group, grid[key]))
            last_group = group
        tables.append(Table(eq_class, columns, rows))
    for n, r in enumerate(records):
        if "cell" in r:
            records[n] = evidence(r["cell"], r["column"], condition_words(r["cell"].condition), r["view"], titles)
    return tables
