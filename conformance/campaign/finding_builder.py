"""From signatures to findings: shrink each signature's first case (only on
the finding's own oracle and op), re-run the minimal case on every oracle for
the side-by-side view, and ask the finding's oracles for their reproducers.

A crash or timeout met while shrinking is itself a signature: it is recorded
(once) as a finding of its own, never retried (isolated oracles remember the
cases that hung or crashed them). Past the shrink deadline, or after a stop,
signatures keep their first example as it was drawn.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from conformance.campaign.array_shrinker import Arrays, shrink_arrays
from conformance.campaign.designed import beyond_int32_examples
from conformance.campaign.dispatch import evaluate, evaluate_cases
from conformance.campaign.settings import WAIT_STEP_S, Progress, Settings
from conformance.campaign.shrinker import shrink, widened
from conformance.campaign.sightings import First, Sightings, harness_error
from conformance.cases.class_case import ClassCase
from conformance.cases.counterfactual import counterfactuals
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.outcome import Kind, Outcome
from conformance.core.vocabulary import POLICY_REGIMES, ConditionKind, MismatchKind
from conformance.judge.judged import Judged, judgement
from conformance.judge.rootcause import BEYOND_INT32, NARROWING, fact, still_shows
from conformance.judge.signature import Signature
from conformance.judge.verdict import judged_reference, narrowed, reference_outcome
from conformance.results.finding import Finding, Tried, ranked

FAULTS = (Kind.CRASH, Kind.TIMEOUT)
SMALL_DATA, SMALL_INDICES = 4, 2
"""A reproducer at most this large (data, index elements) is not cut further."""
ARRAY_SHRINK_EVALS = 30
"""Most candidates evaluated while cutting one finding's arrays down."""


def note_faults(sightings: Sightings, cc: ClassCase, judged: list[Judged]) -> None:
    """Record, once, a crash or timeout met while shrinking or rebuilding a
    finding: it becomes a signature of its own (and is never run again: the
    isolated oracle remembers the case)."""
    for j in judged:
        if not j.verdict.conforms and j.outcome.kind in FAULTS:
            sightings.fault(cc, j)


CRASHES_PER_SHRINK = 8
"""Most candidates that crash their worker while one root cause is shrunk and its arrays cut down: each costs a
worker start (Paddle 1.4 s, TensorFlow 2 s), and cutting one Paddle crash's arrays down took 27 of them, 50 s of
the last minute of a default campaign."""


@dataclass
class Spend:
    """What shrinking one root cause has spent on faults, and whether it stops (:meth:`over`): after a candidate
    hung (each hang costs a whole time limit, then twice that alone) or the harness failed on one (``stopped``),
    after :data:`CRASHES_PER_SHRINK` candidates
    crashed their worker, or once ``halt`` is set (a stop: the run writes what it has, and a shrink going on beside
    it took the CPU its writing needed, 6 s of a loaded stop). Counts, never the clock: the same findings on any
    machine.

    >>> from conformance.core.outcome import Outcome
    >>> sig = Signature("numpy.take", "numpy", "1", "cpu", "eager", "crash", None, ())
    >>> spend, crashed = Spend(sig), [Judged(None, "numpy", None, None, Outcome.crashed(11, None), None)]
    >>> for _ in range(CRASHES_PER_SHRINK - 1): spend.saw(crashed)
    >>> spend.over(), spend.saw(crashed), spend.over()
    (False, None, True)
    """

    sig: Signature
    halt: threading.Event | None = None
    crashes: int = 0
    stopped: bool = False

    def over(self) -> bool:
        return self.stopped or self.crashes >= CRASHES_PER_SHRINK or (self.halt is not None and self.halt.is_set())

    def saw(self, judged: Sequence[Judged]) -> None:
        self.crashes += sum(j.outcome.kind is Kind.CRASH for j in judged)
        timeout = any(j.outcome.kind is Kind.TIMEOUT for j in judged)
        self.stopped = self.stopped or (timeout and self.sig.outcome.kind is not MismatchKind.TIMEOUT)


def _keeps(
    sig: Signature,
    op: str,
    oracle: Oracle,
    infos: Mapping[str, OracleInfo],
    sightings: Sightings,
    spend: Spend,
) -> Any:
    """The shrink predicate "``op`` still has the root cause ``sig``" (a
    named behaviour stays named, so the example stays discriminating), noting new crash/timeout
    signatures on the way; every candidate once ``spend`` is over is rejected unevaluated."""

    def keeps(cc: ClassCase) -> bool:
        if spend.over():
            return False
        try:
            judged = evaluate(cc, [oracle], infos, [op])
        except Exception as exc:  # noqa: BLE001 - a harness bug on a candidate: recorded once, shrinking stops
            sightings.error(harness_error(f"shrink {op} on {sig.oracle}", exc, cc))
            spend.stopped = True
            return False
        note_faults(sightings, cc, judged)
        spend.saw(judged)
        return any(_shows(j, sig) for j in judged)

    return keeps


def _shows(j: Judged, sig: Signature) -> bool:
    """Whether shrink candidate ``j`` still shows ``sig``, with an answer a fresh process can tell from zeros
    (:meth:`~conformance.judge.judged.Judged.tells_stray_bytes_apart`)."""
    return not j.verdict.conforms and still_shows(j.signature(), sig) and j.tells_stray_bytes_apart()


def _slimmed(
    sig: Signature,
    small: ClassCase,
    case: Case,
    oracle: Oracle,
    infos: Mapping[str, OracleInfo],
    deadline: float | None,
    spend: Spend,
) -> Arrays | None:
    """The finding's arrays cut down (:mod:`conformance.campaign.array_shrinker`) where
    they are larger than a minimal case needs (a probe's arrays, which no
    class case derives), judged on the finding's own oracle and op only, until ``spend`` is over."""
    data, indices = np.asarray(case.data), np.asarray(case.indices)
    if (
        data.size <= SMALL_DATA
        and indices.size <= SMALL_INDICES
        or small.data_shape != data.shape
        or small.index_shape != indices.shape
    ):
        return None

    def keeps(cc: ClassCase, d: np.ndarray, i: np.ndarray) -> bool:
        if spend.over():
            return False
        judged = evaluate(cc, [oracle], infos, [case.op], arrays=(d, i))
        spend.saw(judged)
        return any(_shows(j, sig) for j in judged)

    slim = shrink_arrays(small, data, indices, keeps, ARRAY_SHRINK_EVALS, deadline)
    return slim if slim[1].size + slim[2].size < data.size + indices.size else None


def _sibling(j: Judged) -> dict[str, Any]:
    return {
        "op": j.case.op,
        "oracle": j.oracle,
        "attrs": dict(j.case.attrs),
        "outcome": j.outcome.describe(),
        "verdict": str(j.verdict.outcome),
        "behaviour": j.verdict.behaviour.value,
    }


@dataclass(frozen=True)
class Written:
    """What the oracles wrote for a finding's case: their reproducers and short upstream scripts (each keyed
    by oracle name; an oracle that writes no short script has none) and an ONNX model if one came along."""

    scripts: dict[str, str]
    upstream: dict[str, str]
    model: str | None


def reproducers(
    case: Case,
    ref: Outcome,
    oracles: Sequence[Oracle],
    observed: Mapping[str, Outcome],
    roots: Mapping[str, Signature] | None = None,
) -> tuple[dict[str, str], str | None]:
    """Each oracle's script for ``case`` (keyed by oracle name), and an ONNX model if one came along
    (:func:`written`, without the short upstream scripts)."""
    w = written(case, ref, oracles, observed, roots)
    return w.scripts, w.model


def written(
    case: Case,
    ref: Outcome,
    oracles: Sequence[Oracle],
    observed: Mapping[str, Outcome],
    roots: Mapping[str, Signature] | None = None,
) -> Written:
    """Each oracle's script for ``case``, its short upstream script where it writes one
    (:attr:`~conformance.core.oracle.Reproducer.upstream`), and an ONNX model if one came along;
    an oracle without 64-bit types expects what the reference gives on the inputs as it receives them.
    Each script judges as the campaign does (:func:`~conformance.judge.judged.judgement`): it reproduces
    while its oracle shows its root cause in ``roots`` (the finding's, for its own oracle), else the one
    it showed here."""
    scripts: dict[str, str] = {}
    upstream: dict[str, str] = {}
    model = None
    for oracle in oracles:
        info = oracle.info()
        received = narrowed(case) if info.bits == 32 else None  # what its framework documents it receives
        seen = observed.get(oracle.name)
        verdicts = {} if seen is None else {"judgement": judgement(case, info, seen, (roots or {}).get(oracle.name))}
        try:
            repro = oracle.reproducer(
                case, reference_outcome(received) if received is not None else ref, seen, **verdicts
            )
        except Exception as exc:  # noqa: BLE001 - a script we cannot write is noted, not fatal
            scripts[oracle.name] = f"# no reproducer: {type(exc).__name__}: {exc}\n"
            continue
        scripts[oracle.name] = repro.text
        if repro.upstream:
            upstream[oracle.name] = repro.upstream
        if "model.onnx" in repro.attachments:
            model = base64.b64encode(repro.attachments["model.onnx"]).decode()
    return Written(scripts, upstream, model)


Lead = tuple[ClassCase, "tuple[Any, Any] | None"]
"""What a built finding's case was judged from: its class case and the explicit arrays (data, indices) it ran on,
or None where they derive from the class case; another mode of the same framework tries it first (:func:`follow`)."""


def make_finding(
    sig: Signature,
    first: First,
    small: ClassCase,
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    sightings: Sightings,
    seed: int | None,
    deadline: float | None,
    spend: Spend,
) -> tuple[Finding, Lead]:
    """A finding from a minimal class case: the op's case, reference, every
    oracle's outcome on it, every sibling op's outcome, and the reproducers;
    with what its case was judged from.
    If the minimal case no longer shows ``sig`` (a flaky oracle, a probe),
    the first example is kept, with the outcome it was judged on (never the
    outcomes of a re-run that did not show it); arrays larger than a minimal
    case needs are cut down (before ``deadline``, until ``spend``, shrinking's, is over)."""
    by_name = {o.name: o for o in oracles}
    op = first.judged.case.op
    hit, judged, given = None, [], None
    if not (first.probe and small == first.class_case):  # a probe's values: its class case does not derive them
        judged = evaluate(small, oracles, infos)
        note_faults(sightings, small, judged)
        hit = next((j for j in judged if j.case.op == op and _shows(j, sig)), None)
    if hit is None:  # a flaky oracle, or a probe: the first example's own arrays
        small = first.class_case
    case = first.judged.case if hit is None else hit.case
    slim = _slimmed(sig, small, case, by_name[sig.oracle], infos, deadline, spend)
    if slim is not None or hit is None:  # cut down: judged on the finding's op only
        cut, data, indices = slim or (small, case.data, case.indices)
        shown = _shown_on(sig, op, (cut, (data, indices)), oracles, infos, sightings)
        if shown is not None:
            small, given, (hit, judged) = cut, (data, indices), shown
        elif hit is None:  # not shown again (a flaky oracle): the first example, with the outcomes it was judged on
            small, hit, judged = first.class_case, first.judged, [first.judged]
            given = (case.data, case.indices) if first.probe else None
        # else the cut-down arrays lost it: the minimal case as it was judged
    return _assembled(sig, first, small, hit, judged, oracles, infos, sightings, seed), (small, given)


def follow(
    sig: Signature,
    first: First,
    lead: Lead,
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    sightings: Sightings,
    seed: int | None,
) -> Finding | None:
    """The finding of ``sig`` on ``lead``, the case of the same fact already built in its framework's first
    mode, where that case shows ``sig`` too (None where it does not: it is built on its own). The modes
    of one fact are one finding (:func:`~conformance.results.finding.across_modes`), shown with the first
    mode's case; on it, each mode's own script; and shrinking it again in every mode cost the most of a
    default campaign's shrinking (a worker start per crashing candidate, in each mode).

    >>> import numpy as np
    >>> from conformance.core.oracle import Capabilities
    >>> from conformance.spec.plans import EqClass
    >>> class Take:  # a stand-in oracle: NumPy's take in mode "clip", where the op's docs raise
    ...     name, capabilities = "take", Capabilities()
    ...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
    ...     def run_many(self, cases, *, timeout=None):
    ...         return [Outcome.returned(np.take(c.data, c.indices, axis=c.attrs.get("axis"), mode="clip"))
    ...                 for c in cases]
    ...     def reproducer(self, case, reference, observed=None, judgement=None): raise NotImplementedError
    >>> cc = ClassCase(EqClass.BLOCK, (3,), (1,), 0, 0, "int32", "int64", "oob-above", False, "contiguous", 0, 0)
    >>> arrays, infos = (np.array([5, 6, 7], np.int32), np.array([9])), {"take": Take().info()}
    >>> sightings = Sightings(start=0.0)
    >>> sightings.add(cc, evaluate(cc, [Take()], infos, ["numpy.take"], arrays=arrays))
    >>> sig = next(iter(sightings.first))
    >>> f = follow(sig, sightings.first[sig], (cc, arrays), [Take()], infos, sightings, 0)
    >>> str(f.signature.outcome), str(f.signature.policy), f.case.indices.tolist(), list(f.scripts)
    ('value instead of error', 'clamps', [9], ['take'])
    >>> follow(sig, sightings.first[sig], (cc, (arrays[0], np.array([1]))), [Take()], infos, sightings, 0) is None
    True
    """
    shown = _shown_on(sig, first.judged.case.op, lead, oracles, infos, sightings)
    if shown is None:
        return None
    own = [o for o in oracles if o.name == sig.oracle]
    return _assembled(sig, first, lead[0], *shown, oracles, infos, sightings, seed, scripted=own)


def _shown_on(
    sig: Signature,
    op: str,
    lead: Lead,
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    sightings: Sightings,
) -> tuple[Judged, list[Judged]] | None:
    """``lead`` judged on every oracle for ``op``: the judgement that shows ``sig``, and all of them (None if
    none shows it)."""
    cc, arrays = lead
    again = evaluate(cc, oracles, infos, [op], arrays=arrays)
    note_faults(sightings, cc, again)
    shown = next((j for j in again if _shows(j, sig)), None)
    return None if shown is None else (shown, again)


def _assembled(
    sig: Signature,
    first: First,
    small: ClassCase,
    hit: Judged,
    judged: list[Judged],
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    sightings: Sightings,
    seed: int | None,
    scripted: Sequence[Oracle] | None = None,
) -> Finding:
    """The finding of ``sig`` shown by ``hit`` among ``judged`` (``small``'s judgements): the scripts of
    ``scripted`` (default: every oracle with the op)."""
    op = hit.case.op
    own = [j for j in judged if j.case.op == op]
    case = hit.case
    ref = judged_reference(case)
    with_op = [o for o in (oracles if scripted is None else scripted) if op in infos[o.name].ops]
    w = written(case, ref, with_op, {j.oracle: j.outcome for j in own}, {sig.oracle: sig})
    also = {j.case.op: 1 for j in judged if j.case.op != op and j.oracle == sig.oracle and _shows(j, sig)}
    framework = infos[sig.oracle].framework
    conforming = {
        j.oracle: infos[j.oracle].mode for j in own if j.verdict.conforms and infos[j.oracle].framework == framework
    }
    mine = next((o for o in oracles if o.name == sig.oracle), None)
    return Finding(
        signature=sig,
        case=case,
        reference=ref,
        outcomes={j.oracle: j.outcome for j in own},
        count=sightings.counts[sig],
        first_seen_s=round(first.seconds, 3),
        seed=seed,
        scripts=w.scripts,
        upstream_scripts=w.upstream,
        onnx_model_b64=w.model,
        class_case=small.to_json(),
        siblings=[_sibling(j) for j in judged if j.case.op != op],
        variants=_variants(sightings, sig) | ({"minimal case also shows it on": also} if also else {}),
        framework=framework,
        conforming_modes=conforming,
        tried=tried(sig, case, small, mine, infos[sig.oracle], sightings) if mine is not None else [],
    )


def tried(
    sig: Signature, case: Case, cc: ClassCase, oracle: Oracle, info: OracleInfo, sightings: Sightings
) -> list[Tried]:
    """``case``'s counterfactuals (:func:`~conformance.cases.counterfactual.counterfactuals`) run on ``oracle``,
    each with what it answered to the ordinary value, whether that conforms and whether it removes ``sig``'s
    behaviour; a harness error on them is recorded and leaves the finding without a trigger (named by its full
    condition)."""
    changed = counterfactuals(case)
    if not changed:
        return []
    try:
        judged = evaluate_cases([c.case for c in changed], oracle, info)
    except Exception as exc:  # noqa: BLE001 - a harness bug on a counterfactual: recorded, the finding stands
        sightings.error(harness_error(f"counterfactuals of {case.op} on {oracle.name}", exc, cc))
        return []
    return [
        Tried(c.feature, c.detail, c.shows, c.ordinary, j.outcome.describe(), j.verdict.conforms, _removes(j, sig))
        for c, j in zip(changed, judged)
    ]


UNWORDED = frozenset({ConditionKind.EMPTY_OUTPUT, ConditionKind.EMPTY_DATA, ConditionKind.EMPTY_AXIS})
"""Conditions whose examples read no element, so show no policy word: TF XLA's gather_nd answering a value for index
7 on data (5, 0) is the clamp it shows on data (5, 1) (audit of stop 45: 'empty dimensions' was no trigger)."""


def _removes(j: Judged, sig: Signature) -> bool:
    """Whether a counterfactual's judgement no longer shows ``sig``'s behaviour: it conforms, or answers a value that
    departs otherwise (another finding's), and that no word of ``sig`` fits (an example too small to tell policies
    apart shows nothing gone). A refusal of the ordinary value for another reason is no evidence either way."""
    if j.verdict.conforms:
        return True
    seen = j.signature()
    if j.outcome.kind is not Kind.VALUE or seen.shows_behaviour_of(sig) or still_shows(seen, sig):
        return False  # still_shows: any word beyond int32 is the policy-less root there (OpenVINO's GatherElements
        # read -2**63 as x[0] under axis 0 as under axis 1, "ambiguous" there: axis=1 was no trigger, audit 8A n=19)
    if sig.policy is None and sig.condition.kind in UNWORDED and seen.outcome.kind is sig.outcome.kind:
        return False  # an empty case shows no policy word: the same departure with one is the same behaviour
    unread = sig.policy in (None, Behaviour.AMBIGUOUS)  # the acceptance itself, not a reading an index value shows
    if sig.outcome.kind is MismatchKind.UNDOCUMENTED_DTYPE and unread and seen.outcome.kind is sig.outcome.kind:
        return False  # the same dtype accepted, whatever index it held (onnx.reference's uint64 [0] as [2**64-1])
    in_range = j.case.tags is None or j.case.tags.regime not in POLICY_REGIMES  # no index a policy would read there
    return sig.policy is None or in_range or sig.policy not in j.words()


def _grown(finding: Finding, sightings: Sightings) -> Finding:
    """``finding`` with the count and variants its root cause has now (sightings merged into it after it was built)."""
    sig = finding.signature
    return replace(finding, count=sightings.counts[sig], variants={**finding.variants, **_variants(sightings, sig)})


def _variants(sightings: Sightings, sig: Signature) -> dict[str, dict[str, int]]:
    """The finding's variants by kind ("op", "regime", dtypes), each value with its count."""
    out: dict[str, dict[str, int]] = {}
    for (kind, value), n in sorted(sightings.variants.get(sig, {}).items()):
        out.setdefault(kind, {})[value] = n
    return out


def discriminate(
    sig: Signature, first: First, oracle: Oracle, infos: Mapping[str, OracleInfo], sightings: Sightings
) -> Signature:
    """For an ``ambiguous`` root cause, look for an example that tells the
    candidate policies apart (:func:`~conformance.campaign.shrinker.widened`); where one
    names the behaviour, the sightings move to the named root cause (merged
    with it if it was seen already). Returns the signature to build."""
    op = first.judged.case.op
    for cc in widened(first.class_case):
        judged = evaluate(cc, [oracle], infos, [op])
        note_faults(sightings, cc, judged)
        for j in judged:
            named = j.signature()
            if (
                not j.verdict.conforms
                and named.policy not in (None, Behaviour.AMBIGUOUS)
                and replace(named, policy=sig.policy) == sig
            ):
                sightings.rename(sig, named, First(cc, j, first.seconds))
                return named
    return sig


def built(
    sig: Signature, first: First, oracle: Oracle, infos: Mapping[str, OracleInfo], sightings: Sightings
) -> Signature:
    """For a root cause beyond int32 that no drawn example names (no word, or
    ``ambiguous``), run the examples built to tell what the framework reads
    of such an index (:func:`~conformance.campaign.designed.beyond_int32_examples`);
    where one names it (the low 32 bits, unsigned read as signed), the
    sightings move to that root cause, with the built example as its own.
    Returns the signature to build."""
    op = first.judged.case.op
    for cc, data, indices in beyond_int32_examples(first.class_case):
        judged = evaluate(cc, [oracle], infos, [op], arrays=(data, indices))
        note_faults(sightings, cc, judged)
        for j in judged:
            named = j.signature()
            if not j.verdict.conforms and named.policy in NARROWING and replace(named, policy=sig.policy) == sig:
                sightings.rename(sig, named, First(cc, j, first.seconds, probe=True))
                return named
    return sig


def quick_finding(
    sig: Signature,
    first: First,
    oracle: Oracle | None,
    count: int,
    seed: int | None,
    variants: dict[str, dict[str, int]] | None = None,
) -> Finding:
    """The first example as it was drawn, with only its own oracle's outcome
    and reproducer: what a finding is when time is up (no re-runs)."""
    j = first.judged
    ref = judged_reference(j.case)
    w = written(j.case, ref, [oracle], {j.oracle: j.outcome}, {j.oracle: sig}) if oracle else None
    return Finding(
        sig,
        j.case,
        ref,
        {j.oracle: j.outcome},
        count,
        round(first.seconds, 3),
        seed,
        scripts=w.scripts if w else {},
        upstream_scripts=w.upstream if w else {},
        onnx_model_b64=w.model if w else None,
        class_case=first.class_case.to_json(),
        variants=variants or {},
    )


def build_findings(
    sightings: Sightings,
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    settings: Settings,
    *,
    shrink_end: float | None,
    progress: Progress,
    halt: threading.Event | None = None,
) -> list[Finding]:
    """Every root cause of ``sightings`` as a finding, worst first (:func:`~conformance.judge.cost.user_cost`),
    then in order of first sighting
    (including crash/timeout signatures met while shrinking), the execution
    modes of one framework merged (:func:`~conformance.results.finding.across_modes`); once ``halt``
    is set (a stop), the rest keep their first example as they are, with no script (none is rendered).

    Each oracle's root causes are built in a thread of their own, in order of
    first sighting (a root cause is renamed or merged only into one of its own
    oracle), so that one oracle's slow shrink does not hold the others; what
    is left when they end (faults met on another oracle's candidates) is built
    last, in order."""
    sightings.settle()
    builder = _Builder(sightings, {o.name: o for o in oracles}, oracles, infos, settings, shrink_end, progress, halt)
    threads = [
        threading.Thread(target=builder.all_of, args=(name,), name=f"build-{name}", daemon=True)
        for name in dict.fromkeys(s.oracle for s in list(sightings.first))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    builder.all_of(None)
    return ranked([f for _, f in sorted(builder.findings, key=lambda taken: taken[0])])


def leaders(sigs: Sequence[Signature], infos: Mapping[str, OracleInfo]) -> dict[Signature, Signature]:
    """Each root cause whose fact (:func:`~conformance.judge.rootcause.fact`) another mode of its framework
    shows too, with that fact's root cause in the first of those modes by oracle name (the mode a merged finding
    is listed under): a root cause leads only where it follows none, so no two wait on each other.

    >>> eager = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "crash", None, ())
    >>> compiled, other = replace(eager, oracle="torch-compile", mode="compile"), replace(eager, op="torch.gather")
    >>> info = OracleInfo("torch", "torch", "2.13.0", "cpu", "eager", ())
    >>> leaders([compiled, eager, other], {"torch": info, "torch-compile": info}) == {compiled: eager}
    True
    """
    facts: dict[Signature, list[Signature]] = {}
    for s in sigs:
        facts.setdefault(fact(s, infos[s.oracle].framework), []).append(s)
    leads: dict[Signature, Signature] = {}
    for group in facts.values():
        lead = min(group, key=lambda s: s.oracle)
        leads |= {s: lead for s in group if s != lead}
    return leads


class _Builder:
    """The state of :func:`build_findings`: the findings so far and the root
    causes taken (also those renamed away while building: never a count of what is left)."""

    def __init__(
        self,
        sightings: Sightings,
        by_name: Mapping[str, Oracle],
        oracles: Sequence[Oracle],
        infos: Mapping[str, OracleInfo],
        settings: Settings,
        shrink_end: float | None,
        progress: Progress,
        halt: threading.Event | None,
    ) -> None:
        self.sightings, self.by_name, self.oracles, self.infos = sightings, by_name, oracles, infos
        self.settings, self.shrink_end, self.progress, self.halt = settings, shrink_end, progress, halt
        self.findings: list[tuple[float, Finding]] = []
        """Each finding with the first sighting's time of the root cause it was
        built from: the order the findings are listed (and modes merged) in, whatever thread ends first."""
        self.done: set[Signature] = set()
        self.lock = threading.Lock()
        self.leads = leaders(list(sightings.first), infos)
        """Root causes built on another mode's case first (:func:`leaders`), of those there are before any build
        (the faults met while building lead and follow none)."""
        self.ended: dict[Signature, tuple[Finding, Lead] | None] = {}
        """Each root cause built so far (also under the name it was renamed to), with its case where a
        follower may try it (None: the build kept no case to try)."""
        self.changed = threading.Condition(self.lock)

    def _take(self, oracle: str | None) -> tuple[Signature, First] | None:
        """The next root cause of ``oracle`` (None: of any) in order of first
        sighting, taken; None when none is left."""
        with self.lock:
            pending = [
                (s, f)
                for s, f in list(self.sightings.first.items())
                if s not in self.done and (oracle is None or s.oracle == oracle)
            ]
            if not pending:
                return None
            sig, first = min(pending, key=lambda kv: kv[1].seconds)
            self.done.add(sig)
            return sig, first

    def all_of(self, oracle: str | None) -> None:
        """Build ``oracle``'s root causes (None: whatever is left) until none is left."""
        while (taken := self._take(oracle)) is not None:
            try:
                self._build(*taken)
            finally:  # a follower waits for this: whatever became of it (merged into another, or failed)
                self._ended([taken[0]])

    def _lead(self, drawn: Signature) -> tuple[Finding, Lead] | None:
        """The finding and case of ``drawn``'s leader (:func:`leaders`), once built; None where it has none, it
        kept no case, or the run was stopped while waiting."""
        leader = self.leads.get(drawn)
        if leader is None:
            return None
        with self.changed:
            while leader not in self.ended:
                if self.halt is not None and self.halt.is_set():
                    return None
                self.changed.wait(WAIT_STEP_S)
            return self.ended[leader]

    def _ended(self, sigs: Sequence[Signature], built: tuple[Finding, Lead] | None = None) -> None:
        """``sigs`` built (the first record stands), with the finding and case their followers try, if any."""
        with self.changed:
            for s in sigs:
                self.ended.setdefault(s, built)
            self.changed.notify_all()

    def _build(self, sig: Signature, first: First) -> None:
        sightings, by_name, infos, settings, shrink_end = (
            self.sightings,
            self.by_name,
            self.infos,
            self.settings,
            self.shrink_end,
        )
        taken_at, drawn = first.seconds, sig

        def as_found(oracle: Oracle | None) -> Finding:
            """The first example as found (no shrink); ``oracle``'s reproducer only, none without one."""
            return quick_finding(sig, first, oracle, sightings.counts[sig], settings.seed, _variants(sightings, sig))

        try:
            halted = self.halt is not None and self.halt.is_set()
            late = halted or (shrink_end is not None and time.monotonic() >= shrink_end)
            if sig.policy in (None, Behaviour.AMBIGUOUS) and sig.condition == BEYOND_INT32 and not late:
                sig = built(sig, first, by_name[sig.oracle], infos, sightings)
            if sig.policy is Behaviour.AMBIGUOUS and not late:
                sig = discriminate(sig, first, by_name[sig.oracle], infos, sightings)
            if sig != drawn:
                with self.lock:
                    merged = sig in self.done
                    if merged:  # merged into a root cause already built: its count grows
                        self.findings = [
                            (
                                t,
                                replace(_grown(f, sightings), built_from=[*f.built_from, drawn])
                                if f.signature == sig
                                else f,
                            )
                            for t, f in self.findings
                        ]
                        for grown in (f for _, f in self.findings if f.signature == sig):
                            sightings.finding(grown)  # the stream's line for it, with the count it has now
                    else:
                        self.done.add(sig)
                if merged:
                    return
                first = sightings.first[sig]
            if sig.outcome.kind is MismatchKind.TIMEOUT or late:
                # a hang is kept as found: every shrink step would cost a whole timeout; after a stop (a signal) no
                # script is rendered either (a script per oracle, an ONNX model: a minute for 300 root causes, loaded)
                finding = as_found(None if halted else by_name[sig.oracle])
                if not late:  # what triggers the hang: each counterfactual that hangs too costs its limit, once
                    case, oracle = first.judged.case, by_name[sig.oracle]
                    finding = replace(
                        finding, tried=tried(sig, case, first.class_case, oracle, infos[sig.oracle], sightings)
                    )
            else:
                lead = self._lead(drawn)
                followed = (
                    follow(sig, first, lead[1], self.oracles, infos, sightings, settings.seed)
                    if lead is not None and lead[0].fact() == fact(sig, infos[sig.oracle].framework)
                    else None
                )
                if followed is not None:
                    finding = followed
                else:
                    finding = self._shrunk(sig, drawn, first)
        except Exception as exc:  # noqa: BLE001 - keep the first example as it was
            sightings.error(harness_error(f"finding {sig.op} on {sig.oracle}", exc, first.class_case))
            finding = as_found(None)
        finding = replace(finding, framework=infos[sig.oracle].framework, built_from=[drawn] if sig != drawn else [])
        sightings.finding(finding)
        with self.lock:
            self.findings.append((taken_at, finding))
            self.progress.advance(findings=len(self.findings))
        self._ended([drawn, sig])  # built, with no case to follow where _shrunk kept none

    def _shrunk(self, sig: Signature, drawn: Signature, first: First) -> Finding:
        """``sig`` shrunk on its own oracle and op, then built (:func:`make_finding`); its case is what
        the modes that follow it try first."""
        by_name, infos, settings, sightings = self.by_name, self.infos, self.settings, self.sightings
        spend = Spend(sig, self.halt)
        keeps = _keeps(sig, first.judged.case.op, by_name[sig.oracle], infos, sightings, spend)
        small = (
            first.class_case if first.probe else shrink(first.class_case, keeps, settings.shrink_evals, self.shrink_end)
        )
        if self.halt is not None and self.halt.is_set():  # stopped while shrinking: no script is rendered
            return quick_finding(sig, first, None, sightings.counts[sig], settings.seed, _variants(sightings, sig))
        finding, lead = make_finding(
            sig, first, small, self.oracles, infos, sightings, settings.seed, self.shrink_end, spend
        )
        self._ended([drawn, sig], (finding, lead))
        return finding
