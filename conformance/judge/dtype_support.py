"""The dtype-support table: which data and index dtypes each op accepts on
each oracle, learned from the campaign's own cases (inputs reach every
framework in their drawn dtypes).

A cell is (op key, oracle, argument, dtype) with counts of what happened:

* ``accepted``: the op returned a value (right or wrong, see findings);
* ``wrong``: it returned a wrong value for in-range indices;
* ``rejected (<error class>)``: it refused the dtype (a dtype error, or any
  error where the reference gives a value and the dtype is not documented);
* ``cannot hold``: the framework has no tensor of that dtype (not run).

Rejecting a dtype the docs do not promise is behaviour, recorded here and
nowhere else; rejecting one they promise is also a ``dtype rejected`` finding.

>>> import numpy as np
>>> from conformance.judge.verdict import PolicyValues, judge, reference_outcome
>>> from conformance.core.case import Case, CaseTags
>>> from conformance.core.oracle import OracleInfo
>>> from conformance.core.outcome import Outcome, ErrorClass
>>> from conformance.judge.judged import Judged
>>> c = Case("torch.gather", np.arange(3), np.array([1], np.int32), {"dim": 0}, CaseTags("in-range", "int32", "int"))
>>> got = Outcome.raised(RuntimeError("gather(): Expected dtype int64 for index"), ErrorClass.DTYPE_UNSUPPORTED)
>>> info = OracleInfo("torch", "torch", "2", "cpu", "eager", ("torch.gather",))
>>> t = DtypeSupport()
>>> t.add(Judged(c, "torch", info, reference_outcome(c), got, judge(c, reference_outcome(c), got, PolicyValues(c))))
>>> [(r["arg"], r["dtype"], r["documented"], r["statuses"]) for r in t.to_json()]
[('index', 'int32', False, {'rejected (dtype unsupported)': 1})]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from conformance.core.arrays import dtype_name
from conformance.core.outcome import ErrorClass, Kind
from conformance.core.vocabulary import DtypeArg, MismatchKind, Regime, Support
from conformance.judge.judged import Judged
from conformance.judge.rootcause import rejected_dtype
from conformance.judge.verdict import DtypeStatus
from conformance.spec.catalog import spec

DtypeKey = tuple[str, str, DtypeArg, str]
"""(op key, oracle, argument, dtype name)."""

WRONG_OUTCOMES = frozenset({MismatchKind.WRONG_VALUE, MismatchKind.WRONG_DTYPE, MismatchKind.WRONG_SHAPE})


def _statuses(j: Judged) -> list[tuple[DtypeArg, str]]:
    """``(arg, status words)`` pairs one judgement is evidence of."""
    got, case = j.outcome, j.case
    status = DtypeStatus.of(case)
    if got.kind is Kind.UNSUPPORTED:
        arg = DtypeArg.INDEX if f"{DtypeArg.INDEX} dtype" in (got.reason or "") else DtypeArg.DATA
        return [(arg, Support.CANNOT_HOLD.words())]
    if got.kind is Kind.VALUE:
        in_range = case.tags is not None and case.tags.regime is Regime.IN_RANGE
        support = Support.WRONG if j.verdict.outcome.kind in WRONG_OUTCOMES and in_range else Support.ACCEPTED
        return [(DtypeArg.DATA, support.words()), (DtypeArg.INDEX, support.words())]
    if got.kind is not Kind.ERROR:
        return []
    if got.error_class is ErrorClass.DTYPE_UNSUPPORTED:
        return [(rejected_dtype(case, got)[0], Support.REJECTED.words(ErrorClass.DTYPE_UNSUPPORTED))]
    if j.reference.kind is Kind.VALUE and not status.documented and got.error_class is not ErrorClass.INTERNAL:
        rejected = Support.REJECTED.words(got.error_class)
        return [(arg, rejected) for arg, ok in ((DtypeArg.DATA, status.data), (DtypeArg.INDEX, status.index)) if not ok]
    return []


@dataclass
class DtypeSupport:
    """The table (see the module docstring), filled one judgement at a time."""

    cells: dict[DtypeKey, Counter[str]] = field(default_factory=dict)

    def add(self, j: Judged) -> None:
        names = {
            DtypeArg.DATA: dtype_name(np.asarray(j.case.data).dtype),
            DtypeArg.INDEX: np.asarray(j.case.indices).dtype.name,
        }
        for arg, status in _statuses(j):
            self.cells.setdefault((j.case.op, j.oracle, arg, names[arg]), Counter())[status] += 1

    def to_json(self) -> list[dict[str, Any]]:
        """Rows sorted by op, oracle, argument and dtype, each saying whether the docs promise the dtype."""
        rows = []
        for (op, oracle, arg, dtype), counts in sorted(self.cells.items()):
            s = spec(op)
            documented = dtype in (s.data_dtypes if arg is DtypeArg.DATA else s.index_dtypes)
            rows.append(
                {
                    "op": op,
                    "oracle": oracle,
                    "arg": arg.value,
                    "dtype": dtype,
                    "documented": documented,
                    "statuses": dict(counts),
                }
            )
        return rows

    @classmethod
    def from_json(cls, rows: Iterable[Mapping[str, Any]]) -> DtypeSupport:
        return cls({(r["op"], r["oracle"], DtypeArg(r["arg"]), r["dtype"]): Counter(r["statuses"]) for r in rows})


def summary(statuses: Mapping[str, int]) -> str:
    """One word for a cell: wrong, else a rejection, else accepted.

    >>> summary({"accepted": 3, "rejected (dtype unsupported)": 1})
    'rejected (dtype unsupported)'
    """
    for support in (Support.WRONG, Support.REJECTED, Support.CANNOT_HOLD, Support.ACCEPTED):
        hit = next((s for s in statuses if Support.parse(s) is support), None)
        if hit:
            return hit
    return next(iter(statuses))
