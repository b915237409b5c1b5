"""One drawn case through every oracle: translate, run (every oracle at once),
judge. Each answer becomes a :class:`Judged`; a non-conforming one has a
:class:`~conformance.findings.Signature`.

>>> import numpy as np
>>> from conformance.plans import EqClass
>>> class Take:  # a stand-in oracle: NumPy's take, in process
...     name = "take"
...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases): return [Outcome.returned(np.take(c.data, c.indices, **c.attrs)) for c in cases]
>>> cc = ClassCase(EqClass.BLOCK, (3,), (2,), 0, 0, "int32", "int64", "in-range", False, "contiguous", 0, 0)
>>> [(j.case.op, j.verdict.outcome) for j in evaluate(cc, [Take()], {"take": Take().info()})]
[('numpy.take', 'ok')]

Oracles are anything with the :class:`OracleLike` shape: an in-process oracle
plug-in, an :class:`~conformance.execution.isolation.IsolatedOracle`, or a
test fake. Their batches are sent at once (:func:`dispatch`), so oracles in
worker processes work in parallel; whatever an oracle answers is passed
through :meth:`Outcome.checked <conformance.model.Outcome.checked>`, so a
broken answer is a protocol-error outcome, never a crash of the campaign.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from conformance import rootcause
from conformance.compare import PolicyValues, Verdict, judge, reference_outcome
from conformance.execution.fanout import run_on_all
from conformance.findings import Signature
from conformance.model import Case, CaseLike, OracleInfo, Outcome, Reproducer, as_case
from conformance.strategies import ClassCase, materialize
from conformance.translate import translate


class OracleLike(Protocol):
    """What the campaign needs of an oracle."""

    name: str

    def info(self) -> OracleInfo: ...

    def run_many(self, cases: Sequence[Case]) -> list[Outcome]: ...

    def reproducer(self, case: Case, reference: Outcome, observed: Outcome | None = None) -> Reproducer: ...


@dataclass(frozen=True)
class Judged:
    """One oracle on one translated case."""

    case: Case
    oracle: str
    info: OracleInfo
    reference: Outcome
    outcome: Outcome
    verdict: Verdict

    def signature(self) -> Signature:
        """The discrepancy's root cause (:mod:`conformance.rootcause`)."""
        return rootcause.signature(self.case, self.info, self.verdict, self.outcome, self.reference)

    def words(self) -> frozenset[str]:
        """The behaviour words that fit the answer (:func:`~conformance.rootcause.example_words`)."""
        return rootcause.example_words(self.case, self.outcome)


def judged_alone(case: Case, info: OracleInfo, got: Outcome) -> Judged:
    """One oracle's answer on one case, judged on its own (a baseline
    reproducer replayed, a pytest item): the reference computed here."""
    ref = reference_outcome(case)
    return Judged(case, info.name, info, ref, got, judge(case, ref, got, PolicyValues(case), bits=info.bits))


def _answers(oracle: OracleLike, cases: list[Case]) -> list[Outcome]:
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

    def __init__(self, oracle: OracleLike) -> None:
        self.oracle, self.name = oracle, oracle.name

    def run_many(self, cases: Sequence[CaseLike]) -> list[Outcome]:
        return _answers(self.oracle, [as_case(c) for c in cases])


def dispatch(oracles: Sequence[OracleLike], batches: Mapping[str, list[Case]]) -> dict[str, list[Outcome]]:
    """Every oracle's batch at once (:func:`~conformance.execution.fanout.run_on_all`:
    isolated oracles compute in parallel); outcomes by oracle name, in case order."""
    busy = [_Guarded(o) for o in oracles if batches.get(o.name)]
    return run_on_all(busy, batches)


def evaluate(
    cc: ClassCase,
    oracles: Sequence[OracleLike],
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
            judged.append(Judged(cases[i], oracle.name, info, refs[i], got, judge(cases[i], refs[i], got, values[i], bits=info.bits)))
    return judged


def close_all(oracles: Iterable[Any]) -> None:
    """Close every oracle that can be closed (workers stop)."""
    for o in oracles:
        close = getattr(o, "close", None)
        if callable(close):
            close()
