"""One drawn case through every oracle: translate, run (every oracle at once),
judge. Each answer becomes a :class:`Judged`; a non-conforming one has a
:class:`~conformance.judge.signature.Signature`.

>>> import numpy as np
>>> from conformance.spec.plans import EqClass
>>> class Take:  # a stand-in oracle: NumPy's take, in process
...     name = "take"
...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases): return [Outcome.returned(np.take(c.data, c.indices, **c.attrs)) for c in cases]
>>> cc = ClassCase(EqClass.BLOCK, (3,), (2,), 0, 0, "int32", "int64", "in-range", False, "contiguous", 0, 0)
>>> [(j.case.op, j.verdict.outcome) for j in evaluate(cc, [Take()], {"take": Take().info()})]
[('numpy.take', 'ok')]

Oracles are anything with the :class:`~conformance.core.oracle.Oracle` shape: an in-process oracle
plug-in, an :class:`~conformance.execution.isolation.IsolatedOracle`, or a
test fake. Their batches are sent at once (:func:`dispatch`), so oracles in
worker processes work in parallel; whatever an oracle answers is passed
through :meth:`Outcome.checked <conformance.core.outcome.Outcome.checked>`, so a
broken answer is a protocol-error outcome, never a crash of the campaign.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.cases.class_case import ClassCase, materialize
from conformance.cases.translate import translate
from conformance.core.case import Case, CaseLike, as_case
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.outcome import Outcome
from conformance.execution.fanout import run_on_all
from conformance.judge.judged import Judged
from conformance.judge.verdict import PolicyValues, judge, reference_outcome


def _answers(oracle: Oracle, cases: list[Case]) -> list[Outcome]:
    """The oracle's outcomes for ``cases``, each checked; a batch that fails
    as a whole (an oracle that raises, or answers with the wrong count) is a
    protocol error on every case."""
    try:
        got = list(oracle.run_many(cases))
    except Exception as exc:  # noqa: BLE001 - an oracle that raises has broken its contract
        return [Outcome.protocol_error(f"run_many raised {type(exc).__name__}: {exc}")] * len(cases)
    if len(got) != len(cases):
        return [Outcome.protocol_error(f"answered {len(got)} outcomes for {len(cases)} cases")] * len(cases)
    return [Outcome.checked(o) for o in got]


class _Guarded:
    """An oracle whose batch answers are always one checked outcome per case."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle, self.name = oracle, oracle.name

    def run_many(self, cases: Sequence[CaseLike]) -> list[Outcome]:
        return _answers(self.oracle, [as_case(c) for c in cases])


def dispatch(oracles: Sequence[Oracle], batches: Mapping[str, list[Case]]) -> dict[str, list[Outcome]]:
    """Every oracle's batch at once (:func:`~conformance.execution.fanout.run_on_all`:
    isolated oracles compute in parallel); outcomes by oracle name, in case order."""
    busy = [_Guarded(o) for o in oracles if batches.get(o.name)]
    return run_on_all(busy, batches)


def evaluate(
    cc: ClassCase,
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    ops: Iterable[str] | None = None,
    arrays: tuple[Any, Any] | None = None,
) -> list[Judged]:
    """Every (translated case, oracle implementing its op) pair of ``cc``,
    judged; on ``arrays`` (data, indices) when given (a probe's own values),
    else on ``cc``'s derived ones."""
    cases = translate(cc, ops, arrays if arrays is not None else materialize(cc))
    refs = [reference_outcome(c) for c in cases]
    values = [PolicyValues(c) for c in cases]
    mine = {o.name: [i for i, c in enumerate(cases) if c.op in infos[o.name].ops] for o in oracles}
    answers = dispatch(oracles, {name: [cases[i] for i in idx] for name, idx in mine.items()})
    judged: list[Judged] = []
    for oracle in oracles:
        for i, got in zip(mine[oracle.name], answers.get(oracle.name, [])):
            info = infos[oracle.name]
            judged.append(
                Judged(
                    cases[i], oracle.name, info, refs[i], got, judge(cases[i], refs[i], got, values[i], bits=info.bits)
                )
            )
    return judged


def close_all(oracles: Iterable[Any]) -> None:
    """Close every oracle that can be closed (workers stop)."""
    for o in oracles:
        close = getattr(o, "close", None)
        if callable(close):
            close()
