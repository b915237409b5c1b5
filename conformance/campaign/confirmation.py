"""No finding that a fresh process does not confirm (issue 43).

Before a campaign reports its findings, each one's example runs again in a new worker of its oracle: one worker per
oracle for all of that oracle's findings (:meth:`~conformance.execution.isolation.IsolatedOracle.fresh`), so the
cost is one start-up per oracle. A finding whose example the fresh worker answers as the campaign's worker did stands;
one whose example it answers as the docs say is a :class:`HistoryEffect`: the campaign's worker gave that answer
because of what it had run before (IREE's wrong unsigned values after other cases, issue 43), which is a fault of
the oracle to fix, not of the framework. A history effect is kept with both answers and the cases its worker ran
before the example, counted per oracle in the run's facts, and shown apart in the report.

Crashes and timeouts are not run again here: the isolation layer already repeats a crash in a fresh worker and
confirms a timeout alone (:mod:`conformance.execution.isolation`). An answer read from memory outside the input
(``garbage``, ``fills or garbage``, elements of an empty input) differs from process to process, and a fresh read
may hold anything, a policy's answer included: it is never refuted. An oracle run in the campaign's own process
(``--in-process``) has no fresh process to ask: its findings stand, unconfirmed.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from conformance.core.case import Case, CaseLike
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.outcome import Kind, Outcome
from conformance.judge.judged import Judged, judged_alone
from conformance.judge.kind import reads_from_nothing
from conformance.judge.signature import Signature
from conformance.judge.verdict import STRAY
from conformance.results.finding import Finding
from conformance.results.run_result import history_summary

ASKED = (Kind.VALUE, Kind.ERROR)
"""The answers a fresh worker is asked to confirm (a crash or timeout is confirmed where it happens)."""


@runtime_checkable
class Fresh(Protocol):
    """An oracle that can run cases in a new worker (:class:`~conformance.execution.isolation.IsolatedOracle`)."""

    def fresh(self, cases: Sequence[CaseLike]) -> list[Outcome]: ...

    def before(self, case: CaseLike) -> tuple[str, ...]: ...


@dataclass(frozen=True, eq=False)
class HistoryEffect:
    """A discrepancy its oracle's fresh worker did not repeat: the root cause the campaign's worker showed, the
    example, what that worker answered (``seen``) and what the fresh one did (``fresh``), and the cases the campaign's
    worker had run just before it (``before``, oldest first).

    >>> import numpy as np
    >>> sig = Signature("onnx.Gather", "iree", "3.13.0", "cpu", "llvm-cpu", "wrong value", "", ("in-range",))
    >>> effect = HistoryEffect(sig, Case("onnx.Gather-13", np.arange(3, dtype=np.uint8), np.array([1])),
    ...     Outcome.returned(np.array([224], np.uint8)), Outcome.returned(np.array([1], np.uint8)), ("a case",))
    >>> HistoryEffect.from_json(effect.to_json()) == effect
    True
    >>> effect.words().split("for ")[1]
    "in-range: value uint8[1] in the campaign's worker, value uint8[1] in a fresh one"
    """

    signature: Signature
    case: Case
    seen: Outcome
    fresh: Outcome
    before: tuple[str, ...] = ()

    def words(self) -> str:
        """The effect in one line: the root cause and both answers."""
        seen, fresh = self.seen.describe(), self.fresh.describe()
        return f"{self.signature.words()}: {seen} in the campaign's worker, {fresh} in a fresh one"

    def to_json(self) -> dict[str, Any]:
        return {
            "signature": self.signature.to_json(),
            "case": self.case.to_json(),
            "seen": self.seen.to_json(),
            "fresh": self.fresh.to_json(),
            "before": list(self.before),
            "words": self.words(),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HistoryEffect:
        return cls(
            Signature.from_json(d["signature"]),
            Case.from_json(d["case"]),
            Outcome.from_json(d["seen"]),
            Outcome.from_json(d["fresh"]),
            tuple(d.get("before", ())),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HistoryEffect) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.signature)


def repeats(seen: Judged, fresh: Judged) -> bool:
    """Whether the ``fresh`` worker's answer repeats the discrepancy ``seen`` in the campaign's: it departs from the
    docs, with the same root cause (judged alike, so a finding renamed or merged since compares as itself), or both are
    reads outside the input, whose bytes differ from process to process: whatever the fresh worker answers, it
    refutes nothing: its bytes may hold anything, a policy's answer included (MLX's
    ``take`` past its axis read stray bytes in the campaign's worker and, in a fresh one, bytes that looked like a
    policy's: the first default run with confirmation called it a history effect).

    >>> import numpy as np
    >>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
    >>> from conformance.core.case import CaseTags
    >>> case = Case("numpy.take", np.arange(4.0), np.array([1]), {"axis": 0, "mode": "raise"},
    ...     CaseTags("in-range", "int64", "float"))
    >>> wrong, right = (judged_alone(case, info, Outcome.returned(np.array([v]))) for v in (3.0, 1.0))
    >>> repeats(wrong, wrong), repeats(wrong, right)
    (True, False)
    """
    a = seen.signature()
    if a.policy in STRAY or reads_from_nothing(seen.case, seen.outcome):
        return True
    if fresh.verdict.conforms:
        return False
    return fresh.signature() == a


def confirmed(
    findings: Sequence[Finding], oracles: Sequence[Oracle], infos: Mapping[str, OracleInfo]
) -> tuple[list[Finding], list[HistoryEffect]]:
    """The findings a fresh worker of their oracle confirms, in their order, and the history effects (see the module
    docstring). Each oracle's findings run in a thread of their own, one fresh worker each."""
    fresh = {o.name: o for o in oracles if isinstance(o, Fresh)}
    asked: dict[str, list[Finding]] = {}
    for f in findings:
        seen = f.outcomes.get(f.signature.oracle)
        if seen is not None and seen.kind in ASKED and f.signature.oracle in fresh:
            asked.setdefault(f.signature.oracle, []).append(f)
    effects: dict[int, HistoryEffect] = {}
    lock = threading.Lock()

    def confirm(name: str) -> None:
        oracle, fs = fresh[name], asked[name]
        before = [oracle.before(f.case) for f in fs]  # what the campaign's worker ran: the fresh one runs them again
        try:
            answers = oracle.fresh([f.case for f in fs])
        except Exception:  # noqa: BLE001 - no fresh worker could answer: the findings stand, as unconfirmed
            return
        info = infos[name]
        for f, got, ran in zip(fs, answers, before):
            if got.kind not in ASKED:  # the fresh worker could not answer (it broke, or hung): nothing is shown
                continue
            seen = judged_alone(f.case, info, f.outcomes[name])
            if not repeats(seen, judged_alone(f.case, info, got)):
                effect = HistoryEffect(f.signature, f.case, f.outcomes[name], got, ran)
                with lock:
                    effects[id(f)] = effect

    threads = [threading.Thread(target=confirm, args=(n,), name=f"confirm-{n}", daemon=True) for n in asked]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [f for f in findings if id(f) not in effects], [effects[id(f)] for f in findings if id(f) in effects]


def history_facts(effects: Sequence[HistoryEffect]) -> dict[str, Any]:
    """What the run's facts say of its history effects: how many per oracle, and each one.

    >>> history_facts([])
    {'per_oracle': {}, 'effects': []}
    """
    return history_summary([e.to_json() for e in effects])
