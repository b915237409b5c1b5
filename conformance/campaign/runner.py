"""The campaign: draw cases, run them through every oracle, keep what differs.

For each equivalence class, Hypothesis draws
:class:`~conformance.cases.class_case.ClassCase` values (generation phase only: a
fixed number per class, or until the class's share of the time budget is
spent). Each is judged on every oracle (:func:`~conformance.campaign.dispatch.evaluate`);
every judgement goes into the behaviour matrix and the results stream
(:mod:`conformance.results.stream`); every non-conforming one has a signature. After
drawing, each signature's first case is shrunk (:mod:`conformance.campaign.shrinker`) to
a minimal reproducer, which becomes a :class:`~conformance.results.finding.Finding`
(:mod:`conformance.campaign.finding_builder`); :mod:`conformance.campaign.sightings` keeps the counts.

The harness never dies on a case: an exception anywhere in drawing,
translating, the reference, judging or shrinking becomes a
:class:`~conformance.results.finding.HarnessError` with its case, and the campaign
goes on. A ``stop`` event (SIGINT, SIGTERM), at any phase, ends the run
within seconds; what was found is written all the same (see :func:`run_campaign`).

>>> from conformance.core.oracle import Capabilities, OracleInfo

>>> from conformance.core.outcome import Outcome
>>> import numpy as np
>>> class Take:  # a stand-in oracle: NumPy's take, in process
...     name = "take"
...     capabilities = Capabilities()
...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases, *,
...     timeout=None): return [Outcome.returned(np.asarray(np.take(c.data, c.indices, **c.attrs))) for c in cases]
...     def reproducer(self, case, reference): raise NotImplementedError
>>> r = run_campaign([Take()], Settings(seed=1, max_examples=10, ops=("numpy.take",)))
>>> r.cases["take"] > 0, r.harness_errors
(True, [])
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as hypothesis_seed

from conformance.campaign.atlas_runner import AtlasRun, missing_cells, run_atlas
from conformance.campaign.confirmation import HistoryEffect, confirmed, history_facts
from conformance.campaign.dispatch import end_all, evaluate
from conformance.campaign.finding_builder import build_findings, quick_finding
from conformance.campaign.settings import (
    ATLAS_SHARE,
    DRAW_SHARE,
    GRACE_S,
    HARD_END_SHARE,
    PROBE_RUN_S,
    SHRINK_SHARE,
    WAIT_STEP_S,
    Progress,
    Settings,
)
from conformance.campaign.sightings import Sightings, harness_error
from conformance.cases.class_case import ClassCase
from conformance.cases.probes import probes
from conformance.cases.strategies import class_cases
from conformance.cases.translate import targets
from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.vocabulary import DRAWN_LAYOUTS, RunStatus
from conformance.execution.cores import CORES
from conformance.execution.fanout import Limited
from conformance.results.atlas import Atlas
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult
from conformance.results.stream import Record, ResultStream
from conformance.spec.plans import EqClass


class _Quiet:
    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, *, findings: int) -> None:
        pass


class _Stop(Exception):
    """Raised inside the Hypothesis loop to end a class early."""


def seeds(eq_class: EqClass) -> list[ClassCase]:
    """The explicit examples the fuzzer starts from: one probe per atlas
    condition of the class (its structure: shapes, axis, dtypes, layout)."""
    first: dict[str, ClassCase] = {}
    for p in probes(eq_class):
        cc = p.class_case
        if (
            cc.index_dtype in INDEX_DTYPES and cc.data_dtype in DATA_DTYPES and cc.layout in DRAWN_LAYOUTS
        ):  # what the strategy can derive values for
            first.setdefault(p.condition, cc)
    return list(first.values())


def _drive(
    body: Callable[[ClassCase], None],
    eq_class: EqClass,
    *,
    seed: int | None,
    max_examples: int,
    examples: Sequence[ClassCase] = (),
) -> None:
    """Call ``body`` on the explicit ``examples`` and ``max_examples``
    Hypothesis draws of ``eq_class`` (deterministic: a fixed seed, or
    derandomized when ``seed`` is None)."""

    @settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=seed is None,
        print_blob=False,
        report_multiple_bugs=False,
    )
    @given(class_cases((eq_class,)))
    def loop(cc: ClassCase) -> None:
        body(cc)

    for cc in reversed(examples):
        loop = example(cc)(loop)

    if seed is not None:
        loop = hypothesis_seed(seed)(loop)
    with _no_local_constants():
        try:
            loop()
        except _Stop:
            pass


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis (>= 6.13x) mixes literals harvested from every imported local
    module into generation, so a seeded campaign would draw differently under
    pytest, ``run`` and ``check`` (different modules imported). A campaign's
    cases must depend on its seed alone: draw with no local constants."""
    from hypothesis.internal.conjecture import providers

    original = providers._get_local_constants
    providers._get_local_constants = providers.Constants  # type: ignore[assignment]
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original  # type: ignore[assignment]
        providers.CONSTANTS_CACHE.cache.clear()


@dataclass
class _ClassRun:
    """The body of one class's Hypothesis loop: judge this shard's share of the
    drawn cases until the class's time slot ends or a stop is asked for."""

    oracles: Sequence[Oracle]
    infos: dict[str, OracleInfo]
    ops: list[str] | None
    sightings: Sightings
    progress: Progress
    stops: tuple[threading.Event, ...]
    """The campaign's halt and the caller's stop: a signal ends drawing at the
    next case, not when the caller next looks (the count drawn is not a matter of timing)."""
    slot_end: float | None
    shard: tuple[int, int]
    drawn: int = 0

    def __call__(self, cc: ClassCase) -> None:
        if any(e.is_set() for e in self.stops) or (self.slot_end is not None and time.monotonic() > self.slot_end):
            raise _Stop
        self.drawn += 1
        if (self.drawn - 1) % self.shard[1] != self.shard[0]:
            return
        try:
            self.sightings.add(cc, evaluate(cc, self.oracles, self.infos, self.ops))
        except Exception as exc:  # noqa: BLE001 - the harness never dies on a case
            self.sightings.error(harness_error("evaluate", exc, cc))
        self.progress.advance(findings=len(self.sightings.first))


def _broken(oracle: object) -> str | None:
    """Why an isolated oracle can no longer run, or None (in-process oracles never break)."""
    reason = getattr(oracle, "broken", None)
    return str(reason) if reason else None


def campaign_classes(infos: dict[str, Any], ops: Sequence[str] | None) -> list[EqClass]:
    """The equivalence classes some oracle can run an op of."""
    covered = {k for i in infos.values() for k in i.ops}
    return [c for c in EqClass if any(s.key in covered for s in targets(c, ops))]


Replay = Callable[[Callable[[], None]], Sequence[dict[str, Any]]]
"""What the gate replays before a campaign (the baseline's reproducers), as JSON records; it calls
its argument once per oracle as that oracle's reproducers are run (the phase's progress)."""


@dataclass
class _Work:
    """The phases of a campaign (replay, atlas, drawing, shrinking), run in a
    thread of their own so that the caller can stop waiting at once: on a
    signal or at the budget's hard end it writes what :attr:`sightings` and
    :attr:`atlas_run` hold by then (see :func:`run_campaign`)."""

    oracles: Sequence[Oracle]
    settings: Settings
    infos: dict[str, OracleInfo]
    sightings: Sightings
    progress: Progress
    halt: threading.Event
    stop: threading.Event
    start: float
    replay: Replay | None
    out_dir: Path | None
    phase: str = "starting"
    seen_stop_in: str | None = None
    """The phase whose own loop saw the caller's stop first (drawing looks at
    each case) and ended, before :func:`_wait` looked: where the run was cut short."""
    replayed: list[dict[str, Any]] = field(default_factory=list)
    atlas_run: AtlasRun | None = None
    atlas: Atlas | None = None
    atlas_s: float = 0.0
    loop_s: float = 0.0
    findings: list[Finding] | None = None
    history: list[HistoryEffect] = field(default_factory=list)
    failure: BaseException | None = None
    phase_s: dict[str, float] = field(default_factory=dict)
    """Seconds per phase, in the order run (``starting``: before the first, the oracles' first start-ups)."""

    def _enter(self, phase: str) -> None:
        """Begin ``phase`` (``done``: the end): the phase before it gets its seconds in :attr:`phase_s`."""
        now = time.monotonic()
        began = self.start + sum(self.phase_s.values())
        self.phase_s[self.phase] = round(self.phase_s.get(self.phase, 0.0) + now - began, 3)
        self.phase = phase

    def __call__(self) -> None:
        try:
            self._phases()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
            self.failure = exc

    def let_go(self) -> None:
        """After a signal: count nothing more and end the oracles' workers
        now, so that writing what was found gets the cores. (Loaded, with
        four busy loops beside a default run, the workers finishing their
        batches left the writing a fraction of one core: 8.9 s to exit from
        shrinking, 15.2 s from drawing.) A case or atlas cell under way when
        its worker goes is counted nowhere; the atlas lists it as skipped."""
        self.sightings.freeze()
        if self.atlas_run is not None:
            self.atlas_run.freeze()
        end_all(self.oracles)

    def _phases(self) -> None:
        settings, sightings, budget = self.settings, self.sightings, self.settings.budget_s
        ops = list(settings.ops) if settings.ops else None
        if self.replay is not None:
            self._enter("replay")
            self.progress.phase("replay", len(self.oracles))
            replayed = list(self.replay(lambda: self.progress.advance(findings=0)))
            if self.halt.is_set():  # cut short: its oracles may have ended under it (not a replay's answers)
                return
            self.replayed = replayed
            if sightings.stream:
                for r in self.replayed:
                    sightings.stream.record(Record.REPLAY, r)
        if settings.atlas and not self.halt.is_set():
            self._enter("atlas")
            self.atlas_run = AtlasRun.over(self.oracles, self.infos)
            atlas_end = None if budget is None else self.start + budget * ATLAS_SHARE
            limit = None if budget is None else int(budget * ATLAS_SHARE / PROBE_RUN_S)

            def why() -> str | None:
                if self.halt.is_set():
                    return CUT_SHORT
                return ATLAS_TIME_UP if atlas_end is not None and time.monotonic() > atlas_end else None

            self.atlas = run_atlas(
                self.oracles,
                self.infos,
                ops,
                timeout=settings.probe_timeout,
                sink=sightings.add_probe,
                limit=limit,
                halt=why,
                into=self.atlas_run,
                progress=self.progress,
                findings=lambda: len(sightings.first),
            )
            sightings.error_all(self.atlas.errors)
            if self.out_dir is not None:
                self.atlas.save(self.out_dir / "atlas.json")
        self.atlas_s = time.monotonic() - self.start
        self._enter("drawing")
        self._draw(ops)
        if self.stop.is_set():
            self.seen_stop_in = self.phase
        self.loop_s = time.monotonic() - self.start
        # without a budget, shrinking is bounded by its evaluations (Settings.shrink_evals per root cause) and never
        # by the clock: what a finding is named and shown with is the same on a quiet and on a busy machine
        shrink_end = None if budget is None else self.start + budget * (DRAW_SHARE + SHRINK_SHARE)
        if self.halt.is_set() or self.stop.is_set():
            shrink_end = time.monotonic()  # interrupted: no shrinking, first examples as they are
        self._enter("shrinking")
        self.progress.phase("shrinking", len(sightings.first))
        # a shrink candidate may hang a framework where a probe did: the atlas's limit, not a drawn case's
        builders = [Limited(o, settings.probe_timeout) for o in self.oracles] if settings.atlas else self.oracles
        findings = build_findings(
            sightings, builders, self.infos, settings, shrink_end=shrink_end, progress=self.progress, halt=self.halt
        )
        self.findings = findings
        if not (self.halt.is_set() or self.stop.is_set()):  # a stop writes what there is, unconfirmed
            self._enter("confirming")
            self.progress.phase("confirming", None)
            self.findings, self.history = confirmed(findings, self.oracles, self.infos)
            for effect in self.history:
                sightings.history_effect(effect)
        self._enter("done")

    def _draw(self, ops: list[str] | None) -> None:
        settings, budget = self.settings, self.settings.budget_s
        classes = campaign_classes(self.infos, ops)
        draw_end = None if budget is None else self.start + budget * DRAW_SHARE
        explicit = {c: seeds(c) if settings.atlas else [] for c in classes}
        self.progress.phase(
            "drawing",
            None if budget is not None else settings.per_class() * len(classes) + sum(map(len, explicit.values())),
        )
        for n, eq_class in enumerate(classes):
            if self.halt.is_set():
                break
            now = time.monotonic()
            slot_end = None if draw_end is None else now + (draw_end - now) / (len(classes) - n)
            run = _ClassRun(
                self.oracles,
                self.infos,
                ops,
                self.sightings,
                self.progress,
                (self.halt, self.stop),
                slot_end,
                settings.shard,
            )
            try:
                _drive(
                    run, eq_class, seed=settings.seed, max_examples=settings.per_class(), examples=explicit[eq_class]
                )
            except Exception as exc:  # noqa: BLE001 - a strategy bug ends this class, not the run
                self.sightings.error(harness_error(f"draw {eq_class.value}", exc, None))


CUT_SHORT = "the run was cut short"
"""Why the atlas cells after a stop (or the budget's hard end) were not run."""
ATLAS_TIME_UP = "the atlas's share of the budget ran out"
"""Why the atlas cells after its deadline were not run."""


def _wait(
    thread: threading.Thread, work: _Work, stop: threading.Event, hard_end: float | None
) -> dict[str, str] | None:
    """Wait for the campaign's ``work``; on ``stop`` or past ``hard_end``, ask
    it to halt and give it :data:`GRACE_S` more. What cut the run short
    (``by``: ``"signal"`` or ``"budget"``) and in which ``phase``, or None
    if it ran to its end."""
    while thread.is_alive():
        by = "signal" if stop.is_set() else "budget" if hard_end is not None and time.monotonic() >= hard_end else None
        if by is not None:
            phase = work.seen_stop_in or work.phase
            work.halt.set()
            if by == "signal":
                work.let_go()
            thread.join(GRACE_S)
            return {"by": by, "phase": phase}
        thread.join(WAIT_STEP_S)
    return {"by": "signal", "phase": work.seen_stop_in or "done"} if stop.is_set() else None


def _unfinished(work: _Work) -> list[Finding]:
    """The findings of a campaign whose work thread did not finish: those
    built so far, then every other signature's first example as it was found
    (no oracle is asked for anything: they may be busy)."""
    sightings = work.sightings
    sightings.freeze()
    built = dict(sightings.built)
    rest = [
        quick_finding(sig, first, None, sightings.counts[sig], work.settings.seed)
        for sig, first in sorted(sightings.first.items(), key=lambda kv: kv[1].seconds)
        if sig not in built
    ]
    return list(built.values()) + rest


def run_campaign(
    oracles: Sequence[Oracle],
    settings: Settings | None = None,
    *,
    out_dir: Path | None = None,
    facts: dict[str, Any] | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    started: float | None = None,
    replay: Replay | None = None,
) -> RunResult:
    """Run a campaign (see the module docstring); with ``out_dir``, stream
    ``results.jsonl`` there while running and write ``results.json`` at the end
    (after a ``stop``, the command writes it, once, with the gate's statuses).
    ``started`` (a :func:`time.monotonic` value, default now) is when the
    budget's clock started: the command's start, so that starting the
    oracles' workers counts too. ``replay``, called first, gives the
    baseline entries the gate replays (:meth:`conformance.gate.replay.Replayed.to_json`):
    streamed and kept in the result, so that the stream gives the gate's verdict too.

    A ``stop`` (SIGINT, SIGTERM), or the budget's hard end
    (:data:`~conformance.campaign.settings.HARD_END_SHARE` of it, the grace included), ends the
    run within :data:`~conformance.campaign.settings.GRACE_S` seconds
    whatever the phase: the result holds what was found so far, the atlas
    cells run so far (the others listed as skipped), and
    ``figures["cut_short"]`` says by what and in which phase."""
    start = time.monotonic() if started is None else started
    settings = settings or Settings()
    stop = stop or threading.Event()
    progress = progress or _Quiet()
    infos = {o.name: o.info() for o in oracles}
    budget = settings.budget_s
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    stream = ResultStream.create(out_dir / "results.jsonl") if out_dir is not None else None
    run_facts = (facts or {}) | {"oracles": {n: i.to_json() for n, i in infos.items()}}
    if stream:
        stream.header(facts=run_facts, seed=settings.seed, budget=settings.to_json(), shard=settings.shard)
    work = _Work(
        oracles, settings, infos, Sightings(start, stream), progress, threading.Event(), stop, start, replay, out_dir
    )
    thread = threading.Thread(target=work, name="campaign", daemon=True)
    thread.start()
    cause = _wait(thread, work, stop, None if budget is None else start + budget * HARD_END_SHARE - GRACE_S)
    if work.failure is not None:
        raise work.failure
    sightings = work.sightings
    atlas = work.atlas
    findings = _unfinished(work) if thread.is_alive() else work.findings or []  # cut short mid-phase: what there is
    if cause is not None and work.atlas_run is not None:  # every cell not run is listed as skipped (a whole atlas
        work.atlas_run.freeze()  # is saved as it is)
        atlas = work.atlas if work.atlas is not None else work.atlas_run.atlas()
        atlas.skipped += missing_cells(atlas, infos, settings.ops, CUT_SHORT)
        if out_dir is not None:  # saved here even when the campaign thread had it whole: that thread (a daemon)
            atlas.save(out_dir / "atlas.json")  # may not have reached its own save before this process ends
    total_s = time.monotonic() - start
    loop_s = work.loop_s or total_s
    broken = {o.name: reason for o in oracles if (reason := _broken(o))}
    if broken:  # said once, here; their remaining cases were counted as not run
        run_facts = run_facts | {"broken_oracles": broken}
    run_facts = run_facts | {
        "concurrency": CORES.figures(),
        "timing": {"phases_s": work.phase_s, "oracles": timing(oracles)},
        "history_effects": history_facts(work.history),
    }
    figures = sightings.figures(loop_s, total_s, findings, work.atlas_s if atlas else 0.0)
    if atlas:
        figures |= atlas_figures(atlas)
    if cause is not None:
        figures["cut_short"] = cause
    result = RunResult(
        facts=run_facts,
        seed=settings.seed,
        budget=settings.to_json(),
        cases=dict(sightings.cases),
        seconds=round(total_s, 3),
        matrix=sightings.matrix,
        findings=findings,
        raw_discrepancies=sightings.raw,
        figures=figures,
        harness_errors=list(sightings.errors),
        status=RunStatus.INTERRUPTED if stop.is_set() else RunStatus.COMPLETE,
        dtype_support=sightings.dtypes.to_json(),
        replay=work.replayed,
    )
    if stream:
        sightings.freeze()
        stream.end(seconds=result.seconds, status=result.status)
        stream.close()
    if out_dir is not None and not stop.is_set():  # after a stop, the command writes it once, gated (seconds count)
        result.save(out_dir / "results.json")
    return result


def timing(oracles: Sequence[Oracle]) -> dict[str, Any]:
    """Each isolated oracle's time figures (its workers' start-up, compilations cold and warm, runs, each with
    seconds; warm-ups, cases confirmed after passing their limit, hangs, the slowest that answered): slowness is a
    figure of the run, never a behaviour; ``facts["timing"]`` holds them under ``oracles``, beside the seconds of
    each phase (``phases_s``).

    >>> timing([])
    {}
    """
    return {o.name: figures() for o in oracles if callable(figures := getattr(o, "timing", None))}


def atlas_figures(atlas: Atlas) -> dict[str, Any]:
    """The atlas in the run's figures: cells run, cells skipped and why.

    >>> atlas_figures(Atlas([], [], [{"why": "budget"}, {"why": "budget"}]))
    {'atlas_cells': 0, 'atlas_skipped_cells': 2, 'atlas_skipped': {'budget': 2}}
    """
    why = Counter(str(s.get("why")) for s in atlas.skipped)
    return {"atlas_cells": len(atlas.cells), "atlas_skipped_cells": len(atlas.skipped), "atlas_skipped": dict(why)}


__all__ = ["run_campaign"]
