"""The dtype-support tables as the report shows them: one for index dtypes,
one for data dtypes; a row per op (ONNX opsets, and oracles of one
framework, share a row where they behave alike), a column per dtype seen;
each cell ``ok`` (accepted), ``rejected`` (with the error class), ``wrong``
(a wrong value for in-range indices) or ``n/a`` (the framework cannot hold
the dtype), from :mod:`conformance.judge.dtype_support`.

>>> rows = [{"op": "torch.gather", "oracle": "torch", "arg": "index", "dtype": "int32", "documented": True,
...          "statuses": {"rejected (dtype unsupported)": 2}},
...         {"op": "torch.gather", "oracle": "torch-compile", "arg": "index", "dtype": "int32", "documented": True,
...          "statuses": {"rejected (dtype unsupported)": 1}}]
>>> [t] = [t for t in dtype_tables(rows) if t.arg == "index"]
>>> t.dtypes, t.rows[0].label, t.rows[0].cells["int32"].word, t.rows[0].cells["int32"].departs
(['int32'], 'torch.gather · torch, -compile', 'rejected', True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.core.behaviour import Behaviour, css_class
from conformance.core.case import OpKey
from conformance.core.vocabulary import DtypeArg, Support
from conformance.judge.dtype_support import summary
from conformance.report.atlas_match import op_family
from conformance.report.atlas_view import SHORT_ERRORS

TITLES = {DtypeArg.INDEX: "Index dtypes", DtypeArg.DATA: "Data dtypes"}
WORDS = {Support.ACCEPTED: "ok", Support.WRONG: "wrong", Support.REJECTED: "rejected", Support.CANNOT_HOLD: "n/a"}
"""A cell's word for each status."""
CSS = {
    Support.ACCEPTED: css_class(Behaviour.CONFORMS),
    Support.WRONG: css_class(Behaviour.GARBAGE),
    Support.REJECTED: css_class(Behaviour.DTYPE_REJECTED),
    Support.CANNOT_HOLD: css_class(Behaviour.UNSUPPORTED),
}
"""A cell's colour for each status: the behaviour it stands for."""


@dataclass(frozen=True)
class DtypeCell:
    """What one op did with one dtype: its status, the error class of a
    rejection, whether the docs promise the dtype, and every status with its
    count (the tooltip)."""

    support: Support
    detail: str
    documented: bool
    counts: str

    @property
    def word(self) -> str:
        return WORDS[self.support]

    @property
    def css(self) -> str:
        return CSS[self.support]

    @property
    def departs(self) -> bool:
        """A promised dtype refused or mishandled."""
        return self.documented and self.support in (Support.REJECTED, Support.WRONG)


@dataclass(frozen=True)
class DtypeRow:
    """One op (opsets and oracles that behave alike together)."""

    label: str
    pairs: tuple[tuple[str, str], ...]  # (op key, oracle)
    cells: Mapping[str, DtypeCell]

    @property
    def title(self) -> str:
        return "; ".join(f"{op} on {oracle}" for op, oracle in self.pairs)


@dataclass(frozen=True)
class DtypeTable:
    """The index or the data dtypes."""

    arg: DtypeArg
    dtypes: list[str]
    rows: list[DtypeRow]

    @property
    def title(self) -> str:
        return TITLES[self.arg]


def dtype_cell(statuses: Mapping[str, int], documented: bool) -> DtypeCell:
    """One cell from its status counts (:func:`conformance.judge.dtype_support.summary` decides).

    >>> c = dtype_cell({"accepted": 3, "rejected (index out of range)": 1}, False)
    >>> c.word, c.detail, c.counts
    ('rejected', 'index', 'accepted 3, rejected (index out of range) 1')
    """
    status = summary(statuses)
    counts = ", ".join(f"{s} {n}" for s, n in statuses.items())
    support = Support.parse(status)
    cls = status.removeprefix(support.value).strip(" ()")
    return DtypeCell(support, SHORT_ERRORS.get(cls, cls), documented, counts)


def _label(ops: Sequence[str], oracles: Sequence[str]) -> str:
    """``onnx.Gather-1, -11 · onnxruntime, onnx-reference``."""
    keys = [OpKey.parse(o) if "." in o else None for o in ops]
    if len(ops) > 1 and all(k is not None and k.opset is not None for k in keys):
        op_text = f"{op_family(ops[0])}-" + ", -".join(str(k.opset) for k in keys if k is not None)
    else:
        op_text = ", ".join(ops)
    return f"{op_text} · {short_names(oracles)}"


def short_names(names: Sequence[str]) -> str:
    """Oracle names, a mode of an earlier one as its suffix.

    >>> short_names(["onnxruntime", "onnxruntime-noopt", "onnx-reference", "torch"])
    'onnxruntime, -noopt, onnx-reference, torch'
    """
    out: list[str] = []
    for i, n in enumerate(names):
        base = next((b for b in names[:i] if n.startswith(b + "-")), None)
        out.append(n.removeprefix(base) if base else n)
    return ", ".join(out)


def _sum(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for k, n in c.items():
            out[k] = out.get(k, 0) + n
    return out


def dtype_tables(rows: Sequence[Mapping[str, Any]]) -> list[DtypeTable]:
    """The index table then the data table (an argument with no rows has none); see the module docstring."""
    tables = []
    for arg in (DtypeArg.INDEX, DtypeArg.DATA):
        order = {d: i for i, d in enumerate(INDEX_DTYPES if arg is DtypeArg.INDEX else DATA_DTYPES)}
        statuses: dict[tuple[str, str], dict[str, tuple[Mapping[str, int], bool]]] = {}
        for r in rows:
            if DtypeArg(r["arg"]) is arg:
                statuses.setdefault((r["op"], r["oracle"]), {})[r["dtype"]] = (r["statuses"], bool(r["documented"]))
        if not statuses:
            continue
        cells = {pair: {d: dtype_cell(st, doc) for d, (st, doc) in by.items()} for pair, by in statuses.items()}
        alike: dict[tuple[str, tuple[Any, ...]], list[tuple[str, str]]] = {}
        for (op, oracle), by_dtype in cells.items():
            shape = tuple(sorted((d, c.word, c.detail, c.documented) for d, c in by_dtype.items()))
            alike.setdefault((op_family(op), shape), []).append((op, oracle))
        table_rows = []
        for (_, _), pairs in sorted(alike.items(), key=lambda kv: (kv[0][0], kv[1][0][1])):
            ops = tuple(dict.fromkeys(op for op, _ in pairs))
            oracles = tuple(dict.fromkeys(o for _, o in pairs))
            summed = {
                d: dtype_cell(_sum(statuses[p][d][0] for p in pairs), doc) for d, (_, doc) in statuses[pairs[0]].items()
            }
            table_rows.append(DtypeRow(_label(ops, oracles), tuple(pairs), summed))
        dtypes = sorted({d for c in cells.values() for d in c}, key=lambda d: (order.get(d, len(order)), d))
        tables.append(DtypeTable(arg, dtypes, table_rows))
    return tables
