"""One drawn case through every oracle: translate, run (every oracle at once),
judge. Each answer becomes a :class:`Judged`; a non-conforming one has a
:class:`~conformance.judge.signature.Signature`.

>>> import numpy as np
>>> from conformance.core.oracle import Capabilities
>>> from conformance.core.outcome import Outcome
>>> from conformance.spec.plans import EqClass
>>> class Take:  # a stand-in oracle: NumPy's take, in process
...     name = "take"
...     capabilities = Capabilities()
...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases, *, timeout=None):
...         return [Outcome.returned(np.take(c.data, c.indices, **c.attrs)) for c in cases]
>>> cc = ClassCase(EqClass.BLOCK, (3,), (2,), 0, 0, "int32", "int64", "in-range", False, "contiguous", 0, 0)
>>> [(j.case.op, str(j.verdict.outcome)) for j in evaluate(cc, [Take()], {"take": Take().info()})]
[('numpy.take', 'ok')]

Oracles are anything with the :class:`~conformance.core.oracle.Oracle` shape: an in-process oracle
plug-in, an :class:`~conformance.execution.isolation.IsolatedOracle`, or a
test fake. Their batches are sent at once
(:func:`~conformance.execution.fanout.run_on_all`), so oracles in worker
processes work in parallel, and whatever an oracle answers is checked there:
a broken answer is a protocol-error outcome, never a crash of the campaign.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.cases.class_case import ClassCase, materialize
from conformance.cases.translate import translate
from conformance.core.case import Case
from conformance.core.oracle import Oracle, OracleInfo
from conformance.execution.fanout import run_on_all
from conformance.judge.judged import Judged, judged_alone
from conformance.judge.verdict import PolicyValues, judge, reference_outcome


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
    answers = run_on_all(oracles, {name: [cases[i] for i in idx] for name, idx in mine.items()})
    judged: list[Judged] = []
    for oracle in oracles:
        for i, got in zip(mine[oracle.name], answers.get(oracle.name, [])):
            info = infos[oracle.name]
            judged.append(
                Judged(
                    cases[i],
                    oracle.name,
                    info,
                    refs[i],
                    got,
                    judge(cases[i], refs[i], got, values[i], bits=info.bits, framework=info.framework, mode=info.mode),
                )
            )
    return judged


def close_all(oracles: Iterable[Any]) -> None:
    """Close every oracle that can be closed (workers stop)."""
    for o in oracles:
        close = getattr(o, "close", None)
        if callable(close):
            close()


def end_all(oracles: Iterable[Any]) -> None:
    """End every oracle that can be ended (workers killed, none started again),
    closing the others: for a run cut short, whose abandoned work may still be
    running cases in its threads."""
    for o in oracles:
        end = getattr(o, "end", None)
        if callable(end):
            end()
        else:
            close_all([o])


def evaluate_cases(cases: Sequence[Case], oracle: Oracle, info: OracleInfo) -> list[Judged]:
    """Given cases (each with its tags) through one oracle, each judged on its own
    (:func:`~conformance.judge.judged.judged_alone`): a finding's counterfactuals.

    >>> import numpy as np
    >>> from conformance.core.case import CaseTags
    >>> from conformance.core.oracle import Capabilities
    >>> from conformance.core.outcome import Outcome
    >>> class Clip:  # NumPy's take in mode "clip", in process
    ...     name, capabilities = "clip", Capabilities()
    ...     def info(self): return OracleInfo("clip", "numpy", "1", "cpu", "eager", ("numpy.take",))
    ...     def run_many(self, cases, *, timeout=None):
    ...         return [Outcome.returned(np.take(c.data, c.indices, axis=0, mode="clip")) for c in cases]
    >>> tags = [CaseTags(r, "int64", "int") for r in ("oob-above", "in-range")]
    >>> cases = [Case("numpy.take", np.arange(3), np.array([i]), {"axis": 0, "mode": "raise"}, t)
    ...          for i, t in zip((5, 0), tags)]
    >>> [j.verdict.conforms for j in evaluate_cases(cases, Clip(), Clip().info())]
    [False, True]
    """
    answers = run_on_all([oracle], {oracle.name: list(cases)}).get(oracle.name, [])
    return [judged_alone(case, info, got) for case, got in zip(cases, answers)]
