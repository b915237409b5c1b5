"""Re-keying the baseline: every entry's reproducers replayed (each on its
own oracle, in that oracle's worker) and judged under the current root-cause
rule (:mod:`conformance.judge.rootcause`), and the baseline rewritten under
the keys they show now, each entry's note, link and ``at_fault`` kept.

Each entry ends up in one of these lists:

* ``kept``: its reproducers show one root cause, and the entry still names it
  (written unchanged, patterns included);
* ``rekeyed``: one root cause, under another key (its fields rewritten);
* ``merged``: it shows the same fact as other entries (execution modes of
  one framework, or a rule that no longer tells them apart): one entry for
  them all, listing its modes (``oracles``), every reproducer and every note;
* ``split``: its reproducers show several root causes: one entry for each;
* ``not reproducing``: every reproducer now conforms (kept unchanged: the
  gate's replay says it is fixed);
* ``not run``: no oracle here runs it, it is not standalone, or its
  reproducers met the time limit where the entry is no hang (kept unchanged:
  the machine is never evidence).

>>> import numpy as np
>>> from conformance.core.case import Case, CaseTags
>>> from conformance.core.oracle import Capabilities, OracleInfo
>>> from conformance.core.outcome import Outcome
>>> class Clip:  # numpy.take clamping where the docs say raise, in two modes
...     capabilities = Capabilities()
...     def __init__(self, name, mode): self.name, self.mode = name, mode
...     def info(self): return OracleInfo(self.name, "numpy", "1.0", "cpu", self.mode, ("numpy.take",))
...     def run_many(self, cases, *, timeout=None):
...         return [Outcome.returned(np.take(c.data, c.indices, axis=0, mode="clip")) for c in cases]
>>> case = Case("numpy.take", np.arange(4), np.array([6]), {"axis": 0, "mode": "raise"},
...     CaseTags("oob-above", "int64", "int"))
>>> entries = [Entry(op="numpy.take", oracle=name, mode=mode, outcome="value instead of error", policy="clamps",
...                  condition=("bad index",), versions=">=1", note=name, reproducers=(case.to_json(),))
...            for name, mode in (("clip", "eager"), ("clip-jit", "jit"))]
>>> out = rekey(entries, [Clip("clip", "eager"), Clip("clip-jit", "jit")])
>>> [(e.oracle, e.oracles, e.mode, e.note) for e in out.entries], out.counts()
([('clip', ('clip-jit',), '*', 'clip / clip-jit')], {'kept': 0, 'rekeyed': 0, 'merged': 2, 'split': 0, 'not
reproducing': 0, 'not run': 0})
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.campaign.settings import PROBE_TIMEOUT_S
from conformance.core.case import Case
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.vocabulary import FAULTS, MismatchKind
from conformance.execution.fanout import Limited, run_on_all
from conformance.gate.baseline import Entry
from conformance.gate.replay import oracles_for
from conformance.judge import rootcause
from conformance.judge.judged import judged_alone
from conformance.judge.signature import Signature

LISTS = ("kept", "rekeyed", "merged", "split", "not reproducing", "not run")
"""Where each entry of the old baseline ends up (see the module docstring)."""


@dataclass
class Piece:
    """What an entry's reproducers show of one fact: the signature in each
    mode (oracle name -> signature) and the reproducers that show it."""

    entry: int
    signatures: dict[str, Signature] = field(default_factory=dict)
    reproducers: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Rekeyed:
    """The re-keyed entries and, per list of :data:`LISTS`, the old entries' descriptions."""

    entries: list[Entry]
    lists: dict[str, list[str]]

    def counts(self) -> dict[str, int]:
        return {name: len(self.lists[name]) for name in LISTS}


def rekey(entries: Sequence[Entry], oracles: Sequence[Oracle]) -> Rekeyed:
    """The baseline ``entries`` re-keyed on ``oracles`` (see the module docstring)."""
    infos = {o.name: o.info() for o in oracles}
    plan = _plan(entries, infos, {o.name for o in oracles if o.capabilities.bounded})
    batches: dict[str, list[Case]] = {}
    for _, name, case in plan:
        batches.setdefault(name, []).append(case)
    answers = {n: iter(outs) for n, outs in run_on_all([Limited(o, PROBE_TIMEOUT_S) for o in oracles], batches).items()}
    ran: set[int] = set()
    pieces: dict[Signature, list[Piece]] = {}
    for n, name, case in plan:
        j = judged_alone(case, infos[name], next(answers[name]))
        if j.verdict.outcome.kind is MismatchKind.TIMEOUT and entries[n].outcome != str(j.verdict.outcome):
            continue  # a loaded machine is no evidence: a time limit met is not a new key (the entry stays)
        ran.add(n)
        if j.verdict.conforms:
            continue
        sig = j.signature()
        sig = next((s for s in rootcause.settled_forms(sig, j.words()) if entries[n].matches(s)), sig)
        fact = rootcause.fact(sig, infos[name].framework)
        group = pieces.setdefault(fact, [])
        piece = next((p for p in group if p.entry == n), None)
        if piece is None:
            piece = Piece(n)
            group.append(piece)
        piece.signatures.setdefault(name, sig)
        if case.to_json() not in piece.reproducers:
            piece.reproducers.append(case.to_json())
    return _rewritten(entries, ran, pieces)


def _plan(entries: Sequence[Entry], infos: dict[str, OracleInfo], bounded: set[str]) -> list[tuple[int, str, Case]]:
    """(entry number, oracle, reproducer) for every run the re-keying makes."""
    plan = []
    for n, entry in enumerate(entries):
        if not entry.standalone:
            continue
        for name in oracles_for(entry, infos):
            if entry.outcome in FAULTS and name not in bounded:
                continue  # a hang or crash is run only where a worker takes it
            cases = [Case.from_json(c) for c in entry.reproducers]
            plan += [(n, name, c) for c in cases if c.op in infos[name].ops]
    return plan


def _rewritten(entries: Sequence[Entry], ran: set[int], pieces: dict[Signature, list[Piece]]) -> Rekeyed:
    lists: dict[str, list[str]] = {name: [] for name in LISTS}
    out: list[tuple[int, Entry]] = []
    for cluster in _clusters(len(entries), pieces):
        groups = [g for g in pieces.values() if g[0].entry in cluster]
        olds = [entries[n] for n in cluster]
        if not groups:
            lists["not reproducing" if cluster[0] in ran else "not run"].append(olds[0].describe())
            out.append((cluster[0], olds[0]))
            continue
        if len(cluster) > 1:
            lists["merged"] += [e.describe() for e in olds]
        elif len(groups) > 1 and not _accepts(olds[0], groups):
            lists["split"].append(olds[0].describe())
        else:
            lists["kept" if _accepts(olds[0], groups) else "rekeyed"].append(olds[0].describe())
        joined = _joined(cluster, entries, groups)
        if _accepts(joined, groups):  # the entries' own keys, patterns included, still name what they show
            out.append((cluster[0], joined))
        else:
            out += [(g[0].entry, _entry(g, entries)) for g in groups]
    return Rekeyed([e for _, e in sorted(out, key=lambda ne: ne[0])], lists)


def _clusters(count: int, pieces: dict[Signature, list[Piece]]) -> list[list[int]]:
    """The old entries in sets that show a fact in common (each set in entry order)."""
    root = list(range(count))

    def find(n: int) -> int:
        while root[n] != n:
            n = root[n]
        return n

    for group in pieces.values():
        for p in group[1:]:
            root[find(p.entry)] = find(group[0].entry)
    clusters: dict[int, list[int]] = {}
    for n in range(count):
        clusters.setdefault(find(n), []).append(n)
    return sorted(clusters.values())


def _accepts(entry: Entry, groups: list[list[Piece]]) -> bool:
    """Whether ``entry`` accepts every piece of ``groups`` in every mode it shows in."""
    return all(entry.matches(s) for group in groups for p in group for s in p.signatures.values())


def _joined(cluster: list[int], entries: Sequence[Entry], groups: list[list[Piece]]) -> Entry:
    """The widest entry of ``cluster`` (:func:`_width`; the first of those) as it is (patterns kept), standing for
    the others too: their modes, reproducers and notes added. The first alone narrowed a wildcard: OpenVINO's ONNX
    GatherND entry for indices beyond int32 with policy ``*`` joined one with policy ``""`` and took its ``""``, and
    the next check's merged finding, whose beyond-int32 sighting read the low 32 bits, was NEW (stop 47)."""
    olds = [entries[n] for n in cluster]
    first = max(olds, key=_width)  # the first of the widest
    if len(cluster) == 1:
        return first
    named = [m for e in olds for m in (e.oracle, *e.oracles)] + [n for g in groups for p in g for n in p.signatures]
    modes = [m for m in dict.fromkeys(named) if m != first.oracle and not any(c in m for c in "*?[")]
    reproducers: list[dict[str, Any]] = []
    for c in (c for e in olds for c in e.reproducers):
        reproducers += [c] if c not in reproducers else []
    return replace(
        first,
        oracles=tuple(modes),
        mode="*",
        note=" / ".join(dict.fromkeys(e.note for e in olds if e.note)),
        link=first.link or next((e.link for e in olds if e.link), ""),
        at_fault=first.at_fault or next((e.at_fault for e in olds if e.at_fault), ""),
        reproducers=tuple(reproducers),
        standalone=all(e.standalone for e in olds),
    )


def _width(entry: Entry) -> int:
    """How many pattern characters an entry's key holds: the wider of two entries of one fact accepts more.

    >>> narrow = Entry(op="t.g", oracle="t", device="cpu", mode="eager", outcome="crash", policy="", condition=("x",))
    >>> _width(narrow), _width(replace(narrow, policy="*", condition=("*",)))
    (0, 2)
    """
    fields = (entry.op, entry.oracle, entry.device, entry.mode, entry.outcome, entry.policy, *entry.condition)
    return sum(f.count(c) for f in fields for c in "*?[")


def _entry(group: list[Piece], entries: Sequence[Entry]) -> Entry:
    """One entry, under its exact key now, for one fact, from the pieces of the old entries that show it."""
    olds = [entries[n] for n in dict.fromkeys(p.entry for p in group)]
    first = olds[0]
    sigs = {name: s for p in group for name, s in p.signatures.items()}
    names = sorted(sigs)
    own = first.oracle if first.oracle in sigs else names[0]
    sig = sigs[own]
    reproducers: list[dict[str, Any]] = []
    for p in group:
        reproducers += [c for c in p.reproducers if c not in reproducers]
    words = sig.to_json()
    return replace(
        first,
        op=sig.op,
        oracle=own,
        oracles=tuple(n for n in names if n != own),
        device=sig.device,
        mode=sig.mode if len(names) == 1 else "*",
        outcome=words["outcome"],
        policy=words["policy"],
        condition=sig.tags,
        note=" / ".join(dict.fromkeys(e.note for e in olds if e.note)),
        link=first.link or next((e.link for e in olds if e.link), ""),
        at_fault=first.at_fault or next((e.at_fault for e in olds if e.at_fault), ""),
        reproducers=tuple(reproducers),
        standalone=all(e.standalone for e in olds),
    )


def document(result: Rekeyed, about: str) -> str:
    """The re-keyed baseline as the JSON text of a baseline file."""
    from conformance.gate.baseline import BASELINE_FORMAT

    doc = {"format": BASELINE_FORMAT, "about": about, "entries": [e.to_json() for e in result.entries]}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
