"""Replaying the baseline: every accepted entry's reproducers, run exactly on
the installed frameworks, judged, and compared with the entry.

An entry is ``reproduces`` while every one of its reproducers still shows
its root cause; ``fixed`` when each of them now conforms (fixed upstream:
the gate fails until the entry is removed or its version range ends);
``changed`` when one shows another root cause (the behaviour changed: the
gate fails); ``skipped`` when no oracle here matches its oracle at a version
in its range, or marked not ``standalone`` (listed, never a failure).
Nothing here depends on a seed: the reproducers are exact inputs and attributes.

>>> import numpy as np
>>> from conformance.gate.baseline import Entry
>>> from conformance.core.case import Case, CaseTags
>>> from conformance.core.oracle import Capabilities, OracleInfo
>>> from conformance.core.outcome import Outcome
>>> class Clip:  # an oracle whose numpy.take clamps where the docs say raise
...     name = "clip"
...     capabilities = Capabilities()
...     def info(self): return OracleInfo("clip", "numpy", "1.0", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases, *, timeout=None):
...         return [Outcome.returned(np.take(c.data, c.indices, axis=0, mode="clip")) for c in cases]
>>> case = Case("numpy.take", np.arange(4), np.array([6]), {"axis": 0, "mode": "raise"},
...     CaseTags("oob-above", "int64", "int"))
>>> e = Entry(op="numpy.take", oracle="clip", outcome="value instead of error", policy="clamps",
...     condition=("bad index",),
...           versions=">=1", reproducers=(case.to_json(),))
>>> [(str(r.status), r.detail) for r in replay([e], [Clip()])]
[('reproduces', '1 of 1 reproducers show it on clip 1.0')]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from conformance.campaign.settings import PROBE_TIMEOUT_S
from conformance.core.case import Case
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.outcome import Outcome
from conformance.core.vocabulary import FAULTS, ReplayStatus
from conformance.execution.fanout import Limited, run_on_all
from conformance.gate.baseline import Entry, in_range
from conformance.judge import rootcause
from conformance.judge.judged import judged_alone, replay_status


@dataclass(frozen=True)
class Replayed:
    """One entry's replay: its status and what was seen."""

    entry: Entry
    status: ReplayStatus
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry.describe(), "status": self.status.value, "detail": self.detail}


def oracles_for(entry: Entry, infos: dict[str, OracleInfo]) -> list[str]:
    """The oracles here that the entry names, at a version in its range, implementing its op."""
    return [
        name
        for name, i in infos.items()
        if (fnmatchcase(name, entry.oracle) or name in entry.oracles)
        and in_range(i.version, entry.versions)
        and any(fnmatchcase(rootcause.family(k), entry.op) or fnmatchcase(k, entry.op) for k in i.ops)
    ]


def replay(
    entries: Sequence[Entry], oracles: Sequence[Oracle], done: Callable[[], None] | None = None
) -> list[Replayed]:
    """Every entry replayed (see the module docstring), in entry order;
    ``done`` is called once per oracle as its reproducers are run (progress)."""
    infos = {o.name: o.info() for o in oracles}
    bounded = {o.name for o in oracles if o.capabilities.bounded}
    plan: list[tuple[int, str, Case]] = []
    for n, entry in enumerate(entries):
        if not entry.standalone:
            continue
        for name in oracles_for(entry, infos):
            if entry.outcome in FAULTS and name not in bounded:
                continue  # a hang or crash replayed in this process would take the gate down with it
            plan += [(n, name, Case.from_json(c)) for c in entry.reproducers if Case.from_json(c).op in infos[name].ops]
    batches: dict[str, list[Case]] = {}
    for _, name, case in plan:
        batches.setdefault(name, []).append(case)
    runners = [Limited(o, PROBE_TIMEOUT_S) for o in oracles]  # the limit a hang was found under
    answers = {name: iter(outs) for name, outs in run_on_all(runners, batches, done).items()}
    judged = [_judged(entries[n], name, infos[name], case, next(answers[name])) for n, name, case in plan]
    for _ in range(REPLAY_TRIES - 1):  # a reproducer that does not show its root cause runs again
        again = [k for k, (kind, _) in enumerate(judged) if kind is not ReplayStatus.REPRODUCES]
        again = [k for k in again if entries[plan[k][0]].outcome not in FAULTS]
        if not again:
            break
        batches = {}
        for k in again:
            batches.setdefault(plan[k][1], []).append(plan[k][2])
        outs = {name: iter(got) for name, got in run_on_all(runners, batches, None).items()}
        for k in again:
            n, name, case = plan[k]
            tried = _judged(entries[n], name, infos[name], case, next(outs[name]))
            if _rank(tried[0]) > _rank(judged[k][0]):
                judged[k] = tried
    seen: dict[int, list[tuple[ReplayStatus, str]]] = {}
    for (n, _, _), said in zip(plan, judged):
        seen.setdefault(n, []).append(said)
    return [_status(entry, seen.get(n, [])) for n, entry in enumerate(entries)]


REPLAY_TRIES = 5
"""How many times a reproducer that does not show its root cause is run before the replay says so: a read outside
the input finds other bytes from run to run (OpenVINO's Gather-8 on an empty axis: its documented zero fill on one
run, stray bytes on the next, as the reproducer scripts' tries found for MLX)."""


def _rank(kind: ReplayStatus) -> int:
    """Which of a reproducer's tries the replay keeps: one that reproduces, else one that changed, else fixed."""
    return {ReplayStatus.REPRODUCES: 2, ReplayStatus.CHANGED: 1}.get(kind, 0)


def _judged(entry: Entry, name: str, info: OracleInfo, case: Case, got: Outcome) -> tuple[ReplayStatus, str]:
    """One reproducer's answer judged: its status and where (the oracle, or the root cause it shows instead)."""
    j = judged_alone(case, info, got)
    kind = replay_status(j, entry.matches)  # the judgement a reproducer script prints (judge.judged)
    return kind, (f"{name} {info.version}" if kind is not ReplayStatus.CHANGED else j.signature().words())


def _status(entry: Entry, seen: list[tuple[ReplayStatus, str]]) -> Replayed:
    if not seen:
        why = (
            "no reproducer stored"
            if not entry.reproducers
            else f"no oracle {entry.oracle} at {entry.versions or 'any version'} here"
        )
        if not entry.standalone:
            why = "not standalone: it shows only after other cases ran in the same process"
        if entry.reproducers and entry.outcome in FAULTS:
            why += " (a hang or crash is replayed only by an isolated oracle)"
        return Replayed(entry, ReplayStatus.SKIPPED, why)
    kinds = [k for k, _ in seen]
    words = {status: sorted({w for k, w in seen if k is status}) for status in ReplayStatus}
    if ReplayStatus.CHANGED in kinds:
        return Replayed(entry, ReplayStatus.CHANGED, "now: " + "; ".join(words[ReplayStatus.CHANGED]))
    if ReplayStatus.REPRODUCES not in kinds:
        on = ", ".join(sorted({w for _, w in seen}))
        return Replayed(entry, ReplayStatus.FIXED, f"every reproducer now conforms on {on}")
    hits = kinds.count(ReplayStatus.REPRODUCES)
    on = ", ".join(words[ReplayStatus.REPRODUCES])
    return Replayed(entry, ReplayStatus.REPRODUCES, f"{hits} of {len(kinds)} reproducers show it on {on}")
