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
goes on. A ``stop`` event (SIGINT, SIGTERM) stops drawing; what was found is
written all the same.

>>> from conformance.core.oracle import Capabilities, OracleInfo

>>> from conformance.core.outcome import Outcome
>>> import numpy as np
>>> class Take:  # a stand-in oracle: NumPy's take, in process
...     name = "take"
...     capabilities = Capabilities()
...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases, *, timeout=None): return [Outcome.returned(np.asarray(np.take(c.data, c.indices, **c.attrs))) for c in cases]
...     def reproducer(self, case, reference): raise NotImplementedError
>>> r = run_campaign([Take()], Settings(seed=1, max_examples=10, ops=("numpy.take",)))
>>> r.cases["take"] > 0, r.harness_errors
(True, [])
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as hypothesis_seed

from conformance.campaign.atlas_runner import run_atlas
from conformance.campaign.dispatch import evaluate
from conformance.campaign.finding_builder import build_findings
from conformance.campaign.settings import DRAW_SHARE, MAX_SHRINK_S, SHRINK_SHARE, Progress, Settings
from conformance.campaign.sightings import Sightings, harness_error
from conformance.cases.class_case import ClassCase
from conformance.cases.probes import probes
from conformance.cases.strategies import class_cases
from conformance.cases.translate import targets
from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.vocabulary import DRAWN_LAYOUTS, RunStatus
from conformance.execution.fanout import Limited
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
    stop: threading.Event
    slot_end: float | None
    shard: tuple[int, int]
    drawn: int = 0

    def __call__(self, cc: ClassCase) -> None:
        if self.stop.is_set() or (self.slot_end is not None and time.monotonic() > self.slot_end):
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


def run_campaign(
    oracles: Sequence[Oracle],
    settings: Settings | None = None,
    *,
    out_dir: Path | None = None,
    facts: dict[str, Any] | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    started: float | None = None,
    replayed: Sequence[dict[str, Any]] = (),
) -> RunResult:
    """Run a campaign (see the module docstring); with ``out_dir``, stream
    ``results.jsonl`` there while running and write ``results.json`` at the end.
    ``started`` (a :func:`time.monotonic` value, default now) is when the
    budget's clock started: the command's start, so that starting the
    oracles' workers counts too. ``replayed``: the baseline entries the gate
    replayed before the campaign (:meth:`conformance.gate.replay.Replayed.to_json`),
    streamed and kept in the result, so that the stream gives the gate's verdict too."""
    start = time.monotonic() if started is None else started
    settings = settings or Settings()
    stop = stop or threading.Event()
    progress = progress or _Quiet()
    infos = {o.name: o.info() for o in oracles}
    ops = list(settings.ops) if settings.ops else None
    classes = campaign_classes(infos, ops)
    budget = settings.budget_s
    draw_end = None if budget is None else start + budget * DRAW_SHARE
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    stream = ResultStream.create(out_dir / "results.jsonl") if out_dir is not None else None
    run_facts = (facts or {}) | {"oracles": {n: i.to_json() for n, i in infos.items()}}
    if stream:
        stream.header(facts=run_facts, seed=settings.seed, budget=settings.to_json(), shard=settings.shard)
        for r in replayed:
            stream.record(Record.REPLAY, r)
    sightings = Sightings(start, stream)
    atlas = None
    if settings.atlas and not stop.is_set():
        progress.phase("probing", None)
        atlas = run_atlas(oracles, infos, ops, timeout=settings.probe_timeout, sink=sightings.add_probe)
        sightings.error_all(atlas.errors)
        if out_dir is not None:
            atlas.save(out_dir / "atlas.json")
    atlas_s = time.monotonic() - start
    explicit = {c: seeds(c) if settings.atlas else [] for c in classes}
    progress.phase(
        "drawing",
        None if budget is not None else settings.per_class() * len(classes) + sum(map(len, explicit.values())),
    )
    for n, eq_class in enumerate(classes):
        if stop.is_set():
            break
        slot_end = None if draw_end is None else time.monotonic() + (draw_end - time.monotonic()) / (len(classes) - n)
        run = _ClassRun(oracles, infos, ops, sightings, progress, stop, slot_end, settings.shard)
        try:
            _drive(run, eq_class, seed=settings.seed, max_examples=settings.per_class(), examples=explicit[eq_class])
        except Exception as exc:  # noqa: BLE001 - a strategy bug ends this class, not the run
            sightings.error(harness_error(f"draw {eq_class.value}", exc, None))
    loop_s = time.monotonic() - start
    # without a budget, shrinking gets at most a quarter of the time so far (a fifth of the run), and never more than MAX_SHRINK_S
    shrink_end = (
        time.monotonic() + min(MAX_SHRINK_S, loop_s / 4)
        if budget is None
        else start + budget * (DRAW_SHARE + SHRINK_SHARE)
    )
    if stop.is_set():
        shrink_end = time.monotonic()  # interrupted: no shrinking, first examples as they are
    progress.phase("shrinking", len(sightings.first))
    # a shrink candidate may hang a framework where a probe did: the atlas's limit, not a drawn case's
    builders = [Limited(o, settings.probe_timeout) for o in oracles] if settings.atlas else oracles
    findings = build_findings(sightings, builders, infos, settings, shrink_end=shrink_end, progress=progress)
    total_s = time.monotonic() - start
    broken = {o.name: reason for o in oracles if (reason := _broken(o))}
    if broken:  # said once, here; their remaining cases were counted as not run
        run_facts = run_facts | {"broken_oracles": broken}
    result = RunResult(
        facts=run_facts,
        seed=settings.seed,
        budget=settings.to_json(),
        cases=dict(sightings.cases),
        seconds=round(total_s, 3),
        matrix=sightings.matrix,
        findings=findings,
        raw_discrepancies=sightings.raw,
        figures=sightings.figures(loop_s, total_s, findings, atlas_s if atlas else 0.0)
        | ({"atlas_cells": len(atlas.cells)} if atlas else {}),
        harness_errors=list(sightings.errors),
        status=RunStatus.INTERRUPTED if stop.is_set() else RunStatus.COMPLETE,
        dtype_support=sightings.dtypes.to_json(),
        replay=list(replayed),
    )
    if stream:
        stream.end(seconds=result.seconds, status=result.status)
        stream.close()
    if out_dir is not None:
        result.save(out_dir / "results.json")
    return result


__all__ = ["run_campaign"]
