"""What a campaign accumulates while it draws: cases per oracle, the
behaviour matrix, raw discrepancies per signature with the first example of
each, harness errors, and the figures; each judged case also goes to the
results stream as it happens.

>>> t = Sightings(0.0)
>>> t.raw, len(t.first), t.errors
(0, 0, [])
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from conformance.campaign.confirmation import HistoryEffect
from conformance.cases.class_case import ClassCase
from conformance.cases.probes import Probe
from conformance.judge.dtype_support import DtypeSupport
from conformance.judge.judged import Judged
from conformance.judge.rootcause import merged_into, variant
from conformance.judge.signature import Signature
from conformance.results.finding import Finding, HarnessError
from conformance.results.run_result import Matrix, MatrixKey
from conformance.results.stream import Record, ResultStream


def harness_error(stage: str, exc: BaseException, cc: ClassCase | None) -> HarnessError:
    """The record of an exception in the suite itself (call inside ``except``)."""
    return HarnessError(stage, f"{type(exc).__name__}: {exc}", cc.to_json() if cc else None, traceback.format_exc())


@dataclass
class First:
    """The first sighting of a signature: the drawn case and its judgement."""

    class_case: ClassCase
    judged: Judged
    seconds: float
    probe: bool = False  # seen on an atlas probe: explicit arrays that the class case does not derive


def _example(first: First) -> dict[str, Any]:
    """A first sighting as the stream records it (its case, the reference's and the oracle's outcome)."""
    j = first.judged
    return {
        "class_case": first.class_case.to_json(),
        "case": j.case.to_json(),
        "reference": j.reference.to_json(),
        "outcome": j.outcome.to_json(),
        "seconds": round(first.seconds, 3),
    }


@dataclass
class Sightings:
    """See the module docstring. ``start`` is a :func:`time.monotonic` value."""

    start: float
    stream: ResultStream | None = None
    cases: Counter[str] = field(default_factory=Counter)
    matrix: Matrix = field(default_factory=dict)
    first: dict[Signature, First] = field(default_factory=dict)
    counts: Counter[Signature] = field(default_factory=Counter)
    variants: dict[Signature, Counter[tuple[str, str]]] = field(default_factory=dict)
    dtypes: DtypeSupport = field(default_factory=DtypeSupport)
    errors: list[HarnessError] = field(default_factory=list)
    raw: int = 0
    drawn: int = 0
    built: dict[Signature, Finding] = field(default_factory=dict)
    """The findings built so far (:meth:`finding`), by signature."""
    frozen: bool = False
    """Set by :meth:`freeze`: nothing is counted or streamed any more."""
    settled: bool = False
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def freeze(self) -> None:
        """Count nothing more (a campaign cut short writes what there is now,
        while its work thread may still be running): settle, then freeze."""
        with self._lock:
            self._settle()
            self.frozen = True

    def add(self, cc: ClassCase, judged: list[Judged], *, drawn: bool = True) -> None:
        """Count one drawn case's judgements and stream them."""
        with self._lock:
            if not self.frozen:
                self._add(cc, judged, drawn)

    def _add(self, cc: ClassCase, judged: list[Judged], drawn: bool) -> None:
        self.drawn += drawn
        verdicts = []
        for j in judged:
            self.cases[j.oracle] += 1
            tags = j.case.tags
            assert tags is not None
            behaviour = j.verdict.behaviour.value
            cell = self.matrix.setdefault(MatrixKey(j.case.op, tags.regime, tags.data_family), {}).setdefault(
                j.oracle, {}
            )
            cell[behaviour] = cell.get(behaviour, 0) + 1
            verdicts.append(
                {
                    "op": j.case.op,
                    "oracle": j.oracle,
                    "regime": tags.regime.value,
                    "data_family": tags.data_family,
                    "behaviour": behaviour,
                    "outcome": str(j.verdict.outcome),
                }
            )
            self.dtypes.add(j)
            if not j.verdict.conforms:
                self.discrepancy(cc, j, probe=not drawn)
        if self.stream:
            self.stream.judged(cc.to_json(), verdicts)

    def add_probe(self, probe: Probe, j: Judged) -> None:
        """Count one judged probe case (:mod:`conformance.results.atlas`) as the campaign
        counts a drawn one: matrix, stream and, if it departs, its root cause."""
        self.add(probe.class_case, [j], drawn=False)

    def discrepancy(self, cc: ClassCase, j: Judged, *, probe: bool = False) -> None:
        """Count a non-conforming judgement; keep (and stream) the first of its signature."""
        self.raw += 1
        sig = j.signature()
        self.counts[sig] += 1
        self.variants.setdefault(sig, Counter()).update(variant(j.case, j.verdict.behaviour).items())
        if sig in self.first:
            return
        self.first[sig] = First(cc, j, time.monotonic() - self.start, probe)
        if self.stream:
            self.stream.record(Record.DISCREPANCY, {"signature": sig.to_json(), **_example(self.first[sig])})

    def fault(self, cc: ClassCase, j: Judged) -> None:
        """Record, once, a crash or timeout met while shrinking (a signature of its own)."""
        with self._lock:
            sig = j.signature()
            if self.frozen or sig in self.first:
                return
            self.first[sig] = First(cc, j, time.monotonic() - self.start)
            self.counts[sig] += 1
            self.raw += 1

    def rename(self, old: Signature, new: Signature, first: First) -> None:
        """Move ``old``'s sightings to ``new`` (an ambiguous behaviour named on
        a discriminating example): counts and variants add up; ``new`` keeps
        its own first sighting if it had one, else ``first``."""
        with self._lock:
            if not self.frozen:
                self._rename(old, new, first)
                if self.stream:  # so that a stream cut off before the findings settles as the run did
                    self.stream.record(
                        Record.RENAMED, {"from": old.to_json(), "signature": new.to_json(), **_example(first)}
                    )

    def _rename(self, old: Signature, new: Signature, first: First) -> None:
        self.counts[new] += self.counts.pop(old, 0)
        self.variants.setdefault(new, Counter()).update(self.variants.pop(old, Counter()))
        self.first.pop(old, None)
        self.first.setdefault(new, first)

    def settle(self) -> None:
        """Move the sightings of behaviours one example cannot name to the root
        cause they belong to (:func:`~conformance.judge.rootcause.merged_into`), once
        drawing has ended."""
        with self._lock:
            if not self.frozen:
                self._settle()

    def _settle(self) -> None:
        if self.settled:
            return
        self.settled = True
        for sig, first in sorted(self.first.items(), key=lambda kv: kv[1].seconds):
            target = merged_into(sig, first.judged.words(), self.first)
            if target is not None:
                self._rename(sig, target, first)

    def error_all(self, errors: list[dict[str, Any]]) -> None:
        """Record the atlas's harness errors (a probe the suite could not translate or judge)."""
        for e in errors:
            self.error(
                HarnessError(f"atlas {e['condition']} ({e['eq_class']}) {e.get('op') or ''}".strip(), e["error"])
            )

    def error(self, error: HarnessError) -> None:
        with self._lock:
            if self.frozen:
                return
            self.errors.append(error)
            if self.stream:
                self.stream.record(Record.HARNESS_ERROR, error.to_json())

    def history_effect(self, effect: HistoryEffect) -> None:
        """A finding its fresh worker did not confirm (:mod:`conformance.campaign.confirmation`): the stream says so,
        and a reader of it drops that finding."""
        with self._lock:
            if self.stream and not self.frozen:
                self.stream.record(Record.HISTORY_EFFECT, effect.to_json())

    def finding(self, finding: Finding) -> None:
        with self._lock:
            if self.frozen:
                return
            self.built[finding.signature] = finding
            if self.stream:
                self.stream.record(Record.FINDING, finding.to_json())

    def figures(self, loop_s: float, total_s: float, findings: list[Finding], atlas_s: float = 0.0) -> dict[str, Any]:
        """Throughput, collapse and times to first find. ``loop_s`` runs from
        the start (oracle start-up and the atlas's ``atlas_s`` included) to the
        end of drawing; throughput counts every oracle run in that time."""
        runs = sum(self.cases.values())
        return {
            "class_cases": self.drawn,
            "oracle_runs": runs,
            "loop_seconds": round(loop_s, 3),
            "atlas_seconds": round(atlas_s, 3),
            "cases_per_second": round(self.drawn / (loop_s - atlas_s), 2) if loop_s > atlas_s else None,
            "oracle_runs_per_second": round(runs / loop_s, 2) if loop_s else None,
            "shrink_seconds": round(total_s - loop_s, 3),
            "shrink_share": round((total_s - loop_s) / total_s, 3) if total_s else None,
            "raw_discrepancies": self.raw,
            "signatures": len(findings),
            "harness_errors": len(self.errors),
            "time_to_first_find_s": {f.signature.key(): f.first_seen_s for f in findings},
        }
