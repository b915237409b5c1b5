"""One oracle's answer on one case, judged: a :class:`Judged`, with its root
cause (:meth:`Judged.signature`) when it does not conform; and the single-case
judge every path shares (:func:`judged_alone`: a baseline reproducer
replayed, a pytest item, a reproducer script's verdict).

>>> import numpy as np
>>> from conformance.core.case import Case
>>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
>>> case = Case("numpy.take", np.arange(3), np.array([1]), {"axis": 0, "mode": "raise"})
>>> j = judged_alone(case, info, Outcome.returned(np.array([1])))
>>> j.verdict.conforms
True
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import Outcome
from conformance.judge import rootcause
from conformance.judge.signature import Signature
from conformance.judge.verdict import PolicyValues, Verdict, judge, reference_outcome


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
        """The discrepancy's root cause (:mod:`conformance.judge.rootcause`)."""
        return rootcause.signature(self.case, self.info, self.verdict, self.outcome, self.reference)

    def words(self) -> frozenset[Behaviour]:
        """The behaviour words that fit the answer (:func:`~conformance.judge.rootcause.example_words`)."""
        return rootcause.example_words(self.case, self.outcome)


def judged_alone(case: Case, info: OracleInfo, got: Outcome) -> Judged:
    """One oracle's answer on one case, judged on its own (a baseline
    reproducer replayed, a pytest item): the reference computed here."""
    ref = reference_outcome(case)
    return Judged(case, info.name, info, ref, got, judge(case, ref, got, PolicyValues(case), bits=info.bits))
