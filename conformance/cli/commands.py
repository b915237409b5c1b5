"""What each command does, with typed arguments (the CLI parses, this module
acts): plan a campaign (every check before any work), run it, check it
against the baseline, write the report.

>>> plan_campaign(seed=0, max_examples=0, budget=None, timeout=20, ops=None, oracles=None,
...               allow_missing=False, shard="0/1", out=Path("reports"), in_process=True, workers=None)
Traceback (most recent call last):
...
conformance.cli.selection.UsageError: --max-examples: must be > 0, got 0
"""

from __future__ import annotations

import fnmatch
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from conformance.campaign.dispatch import close_all, end_all
from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import (
    MIN_BUDGET_PER_ORACLE_S,
    MIN_BUDGET_S,
    PROBE_TIMEOUT_S,
    STARTUP_SHARE,
    STOP_EXIT_S,
    Progress,
    Settings,
    min_budget,
)
from conformance.cli.console import closing_summary, progress_for
from conformance.cli.selection import (
    GATE_FAILS,
    OK,
    TOOL_FAILED,
    UsageError,
    check_coverage,
    parse_shard,
    positive,
    select_ops,
    select_oracles,
    writable_dir,
    writable_file,
)
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.vocabulary import FindingStatus, GateProblem
from conformance.execution import registry
from conformance.execution.artefact_cache import cache_root, cache_sections, clear_cache
from conformance.execution.cores import CORES, machine_cores
from conformance.execution.environment import describe, run_facts
from conformance.gate import baseline as bl
from conformance.gate.junit import junit_xml
from conformance.gate.rekey import document as rekey_document
from conformance.gate.rekey import rekey
from conformance.gate.replay import replay
from conformance.results.run_result import ResultsFileError, RunResult
from conformance.results.stream import StreamError, rebuild
from conformance.upgrade.environments import InstallError, Provider, VenvProvider, suite_root
from conformance.upgrade.ranges import draft_baseline, range_changes
from conformance.upgrade.request import RequestError, parse_requests
from conformance.upgrade.study import SelectionError, Study, StudyError, StudyPlan, run_study
from conformance.upgrade.verdict import exit_status

RUN_ARTIFACTS = ("results.json", "results.jsonl")
"""Files the campaign writes into its folder (the report clears its own)."""


NO_ATLAS_IN_PROCESS = (
    "the probe atlas is not run (some probes hang frameworks, and only an oracle in a worker process can be stopped); "
    "drawn cases only"
)
"""What ``--in-process`` says about the atlas (on the console and in the run's facts)."""

BUDGET_TIMEOUT_SHARE = 0.05
"""With ``--budget``, the per-case timeout is at most this share of it."""

STARTING_POLL_S = 0.1
"""How often the start-up of the oracles' workers looks at its deadline and at a stop."""


@dataclass(frozen=True)
class CampaignPlan:
    """A checked campaign request: what to draw, on which oracles, where to write."""

    settings: Settings
    oracles: tuple[str, ...]
    infos: dict[str, OracleInfo]
    timeout: float
    out: Path
    in_process: bool
    missing: dict[str, str]
    workers: int
    """Oracle workers running cases at once (``--workers``; default: the cores this process may use)."""


def broken_frameworks() -> dict[str, str]:
    """Oracle modules whose framework is installed but failed to load: module -> its error."""
    return {r.module: r.problem for r in registry.discover() if r.problem and not r.problem.startswith("not installed")}


def plan_campaign(
    *,
    seed: int,
    max_examples: int | None,
    budget: float | None,
    timeout: float,
    ops: list[str] | None,
    oracles: list[str] | None,
    allow_missing: bool,
    shard: str,
    out: Path,
    in_process: bool,
    workers: int | None,
) -> CampaignPlan:
    """Check every argument (see :mod:`conformance.cli.selection`) before any work."""
    positive("--max-examples", max_examples, integer=True)
    positive("--workers", workers, integer=True)
    positive("--budget", budget)
    positive("--timeout", timeout)
    if oracles:  # the minimum budget is known before any framework is imported
        _budget_fits(budget, len(dict.fromkeys(oracles)))
    shard_pair = parse_shard(shard)
    chosen_ops = select_ops(ops)
    writable_dir("--out", out)
    broken = broken_frameworks()
    if broken and not allow_missing:
        lines = "; ".join(f"{module}: {problem}" for module, problem in broken.items())
        raise UsageError(f"a framework failed to import ({lines}); fix it, or pass --allow-missing to go on without it")
    infos = {i.name: i for i in registry.infos()}
    by_default = [n for n, i in infos.items() if not i.on_request]
    names = select_oracles(oracles, sorted(set(registry.ORACLE_MODULES) | set(infos)), list(infos), by_default)
    chosen = {n: infos[n] for n in names}
    check_coverage(chosen_ops, chosen)
    _budget_fits(budget, len(names))
    probe_timeout = PROBE_TIMEOUT_S
    if budget is not None:  # one hang may not eat the budget: a case gets at most 5% of it
        timeout = min(timeout, max(budget * BUDGET_TIMEOUT_SHARE, 1.0))
        probe_timeout = min(probe_timeout, timeout)
    settings = Settings(
        seed=seed,
        max_examples=max_examples,
        budget_s=budget,
        ops=chosen_ops,
        shard=shard_pair,
        atlas=not in_process,
        probe_timeout=probe_timeout,
    )
    return CampaignPlan(settings, tuple(names), chosen, timeout, out, in_process, broken, workers or machine_cores())


def _budget_fits(budget: float | None, oracles: int) -> None:
    """Refuse a budget too short for anything meaningful, naming the minimum.

    >>> _budget_fits(20, 1)
    Traceback (most recent call last):
    ...
    conformance.cli.selection.UsageError: --budget: 20 s is too short for anything meaningful on 1 oracle(s); the
    minimum is 22 s (20 s for the atlas's first conditions, drawing and the report, plus 2 s per oracle to start its
    worker)
    """
    if budget is not None and budget < min_budget(oracles):
        raise UsageError(
            f"--budget: {budget:g} s is too short for anything meaningful on {oracles} oracle(s); the minimum is "
            f"{min_budget(oracles):g} s ({MIN_BUDGET_S:g} s for the atlas's first conditions, drawing and the "
            f"report, plus {MIN_BUDGET_PER_ORACLE_S:g} s per oracle to start its worker)"
        )


def clean(out: Path) -> None:
    """Remove what an earlier run wrote into ``out`` (never other files)."""
    from conformance.report import clear_outputs

    for name in RUN_ARTIFACTS:
        (out / name).unlink(missing_ok=True)
    clear_outputs(out)


def _load_oracles(
    plan: CampaignPlan,
    deadline: float | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> tuple[list[Oracle], list[str]]:
    """The planned oracles, their workers started at once (each imports its
    framework), and the names of those not started by ``deadline`` (a
    :func:`time.monotonic` value; a budget's start-up share) or when ``stop``
    is set (a signal: it waits no longer): the campaign
    goes on without them (their workers, if they start later, die with this process).
    ``progress`` hears of each worker started (the "starting" phase)."""
    got: dict[str, Oracle] = {}
    failed: list[BaseException] = []
    too_late, lock = threading.Event(), threading.Lock()

    def start(name: str) -> None:
        try:
            oracle = cast(Oracle, registry.get(name, isolated=not plan.in_process, timeout=plan.timeout))
        except BaseException as exc:  # noqa: BLE001 - raised below, in the caller's thread
            failed.append(exc)
            return
        with lock:
            got[name] = oracle
            late = too_late.is_set()
            if progress is not None:
                progress.advance(findings=0)
        if late:  # left out: its worker is not kept waiting
            close_all([oracle])

    if progress is not None:
        progress.phase("starting", len(plan.oracles))
    threads = [threading.Thread(target=start, args=(n,), name=f"start-{n}", daemon=True) for n in plan.oracles]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive() and not (stop is not None and stop.is_set()):
            if deadline is not None and time.monotonic() >= deadline:
                break
            t.join(STARTING_POLL_S)
    with lock:
        too_late.set()
        ready = dict(got)
    if failed:
        raise failed[0]
    return [ready[n] for n in plan.oracles if n in ready], [n for n in plan.oracles if n not in ready]


def campaign(
    plan: CampaignPlan, stop: threading.Event, entries: list[bl.Entry] | None = None, started: float | None = None
) -> RunResult:
    """Run the planned campaign into ``plan.out`` with a progress display;
    with baseline ``entries``, their reproducers are replayed first (the gate).
    ``started``: when the budget's clock started (default now)."""
    started = time.monotonic() if started is None else started
    if plan.missing:
        print(f"going on without: {', '.join(plan.missing)} (--allow-missing)", file=sys.stderr)
    clean(plan.out)
    CORES.configure(plan.workers)
    facts: dict[str, Any] = {**run_facts(), "missing": plan.missing, "case_timeout_s": plan.timeout}
    if plan.in_process:
        print(f"--in-process: {NO_ATLAS_IN_PROCESS}", file=sys.stderr)
        facts["atlas"] = f"not run: {NO_ATLAS_IN_PROCESS}"
    progress = progress_for(sys.stderr, plan.settings.budget_s)
    budget = plan.settings.budget_s
    oracles, late = _load_oracles(plan, None if budget is None else started + budget * STARTUP_SHARE, progress, stop)
    if late:
        if not stop.is_set():
            print(
                f"not started within the budget's start-up share: {', '.join(late)} (the run goes on without)",
                file=sys.stderr,
            )
        facts["not_started"] = late
    abandoned = True
    try:
        result = run_campaign(
            oracles,
            plan.settings,
            out_dir=plan.out,
            facts=facts,
            progress=progress,
            stop=stop,
            started=started,
            replay=(lambda done: [r.to_json() for r in replay(entries, oracles, done)]) if entries else None,
        )
        abandoned = stop.is_set() or "cut_short" in result.figures
    finally:
        progress.close()
        (end_all if abandoned else close_all)(oracles)  # a run cut short: its work may still hold busy workers
    say_cut_short(result)
    return result


def say_cut_short(result: RunResult) -> None:
    """On the console: the atlas cells skipped (a short budget, a stop) and a run cut short."""
    skipped = result.figures.get("atlas_skipped") or {}
    if skipped:
        whys = "; ".join(f"{n} {why}" for why, n in skipped.items())
        print(
            f"atlas: {result.figures.get('atlas_cells', 0)} cells run, {sum(skipped.values())} skipped ({whys}); "
            "atlas.json lists them",
            file=sys.stderr,
        )
    cut = result.figures.get("cut_short")
    if cut:
        print(
            f"run cut short by the {cut['by']} during {cut['phase']}: what was found so far is written", file=sys.stderr
        )


def _entries(baseline: Path | None) -> list[bl.Entry]:
    """The baseline's entries; a bad baseline is a usage error."""
    try:
        return bl.load(baseline)
    except bl.BaselineError as exc:
        raise UsageError(f"--baseline: {exc}") from None


def _gate(
    result: RunResult, baseline: Path | None, questions_fail: bool = False
) -> tuple[RunResult, list[bl.Entry], list[GateProblem]]:
    entries = _entries(baseline)
    problems = bl.check(result, entries, questions_fail=questions_fail)
    questions = [f for f in bl.new_findings(result, entries) if not f.kind.fails_gate]
    if questions and not questions_fail:
        print(
            f"gate: {len(questions)} new question(s) where the docs are silent, reported and not failing "
            "(--fail-on-questions fails on them):",
            file=sys.stderr,
        )
        for f in questions:
            print(f"  question: {f.signature.words()}", file=sys.stderr)
    return bl.annotated(result, entries), entries, problems


EXIT_MARGIN_S = 1.0
"""Of the :data:`~conformance.campaign.settings.STOP_EXIT_S` a stop allows, what is kept for the exit itself."""


def report_deadline(stop: threading.Event) -> float | None:
    """When (:func:`time.monotonic`) the report of a run a signal cut short
    must be written by, or None (no signal: the report takes what it takes).

    >>> from conformance.campaign.settings import Stop
    >>> stop = Stop(); report_deadline(stop) is None
    True
    >>> stop.set(); report_deadline(stop) == stop.at + STOP_EXIT_S - EXIT_MARGIN_S
    True
    """
    at = getattr(stop, "at", None) if stop.is_set() else None
    return None if at is None else at + STOP_EXIT_S - EXIT_MARGIN_S


def _write_report(result: RunResult, out: Path, deadline: float | None = None) -> str:
    """``results.json``, then the report; with a ``deadline`` (a run cut short
    by a signal) the report is built in the background, and if it is not
    written by then, ``index.html`` says how to build it. Returns what the
    console says of the report (its path)."""
    from conformance.report import ReportAbandoned, WriteGate, build_report, pending_page

    result.save(out / "results.json")
    if deadline is None:
        return str(build_report([result], out))
    command = f"gather-conformance report {out}"
    why = (
        f"The run was cut short by a signal, and the report was not written within the {STOP_EXIT_S:g} s a stop allows."
    )
    (out / "index.html").write_text(pending_page(why, command), encoding="utf-8")
    gate, built, failed = WriteGate(), [], []

    def build() -> None:
        try:
            built.append(build_report([result], out, gate=gate))
        except ReportAbandoned:
            pass
        except Exception as exc:  # noqa: BLE001 - raised below, in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=build, name="report", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    gate.close()
    if failed:
        raise failed[0]
    if built:
        return str(built[0])
    return f"not written within the {STOP_EXIT_S:g} s a stop allows (results.json is): `{command}` builds it"


def _finish(
    result: RunResult,
    baseline: Path | None,
    out: Path,
    junit: Path | None,
    deadline: float | None = None,
    questions_fail: bool = False,
) -> tuple[RunResult, list[GateProblem]]:
    annotated, entries, problems = _gate(result, baseline, questions_fail)
    if junit is not None:
        junit.write_text(junit_xml(annotated, entries, problems), encoding="utf-8")
    report = _write_report(annotated, out, deadline)
    new = [f for f in annotated.findings if f.status is FindingStatus.NEW]
    print(closing_summary(annotated, new, report, problems))
    return annotated, problems


def run(plan: CampaignPlan, *, stop: threading.Event, started: float | None = None) -> int:
    """``run``: campaign, findings marked known/new, report. 0 unless the tool fails."""
    result = campaign(plan, stop, started=started)
    _finish(result, None, plan.out, None, report_deadline(stop))
    return OK


def check(
    plan: CampaignPlan,
    *,
    stop: threading.Event,
    baseline: Path | None,
    junit: Path | None,
    started: float | None = None,
    questions_fail: bool = False,
) -> int:
    """``check``: the campaign, then the gate: 1 on any problem."""
    entries = _entries(baseline)  # a bad baseline fails before any work
    result = campaign(plan, stop, entries, started)
    _, problems = _finish(result, baseline, plan.out, junit, report_deadline(stop), questions_fail)
    return _verdict(problems)


def _verdict(problems: list[GateProblem]) -> int:
    print(f"gate: {'FAIL' if problems else 'pass'} ({len(problems)} problems against the baseline)")
    return GATE_FAILS if problems else OK


def _is_stream(path: Path) -> bool:
    """Whether :func:`load_results` reads ``path`` from a ``results.jsonl`` (no statuses in it)."""
    return path.suffix == ".jsonl" or (path.is_dir() and not (path / "results.json").exists())


def load_results(path: Path) -> RunResult:
    """A run from a folder (``results.json``, else the ``results.jsonl`` a killed
    run left), a ``.jsonl`` stream, or a results/findings JSON file."""
    try:
        if path.is_dir():
            path = path / "results.json" if (path / "results.json").exists() else path / "results.jsonl"
        return rebuild(path) if path.suffix == ".jsonl" else RunResult.load(path)
    except (ResultsFileError, StreamError) as exc:
        raise UsageError(str(exc)) from None


def check_saved(results: Path, *, baseline: Path | None, junit: Path | None, questions_fail: bool = False) -> int:
    """``check --results``: the gate on saved results (their folder gets the report)."""
    result = load_results(results)
    annotated, entries, problems = _gate(result, baseline, questions_fail)
    if junit is not None:
        junit.write_text(junit_xml(annotated, entries, problems), encoding="utf-8")
    for p in problems:
        print(p)
    return _verdict(problems)


def report(paths: list[Path], *, out: Path, compare: bool) -> Path:
    """``report``: merge shards (or compare two runs) into a report in ``out``."""
    from conformance.report import build_report, load_atlases
    from conformance.report.runs import shard_problem

    if compare and len(paths) != 2:
        raise UsageError(f"--compare: needs exactly two runs, got {len(paths)}")
    writable_dir("--out", out)
    runs = [load_results(p) for p in paths]
    if not compare:
        same = {p.resolve(): p for p in paths}
        labels = [str(same[p.resolve()]) for p in paths]  # one path, one name: a run given twice is seen as such
        problem = shard_problem(runs, labels)
        if problem:
            raise UsageError(f"report: {problem}")
    if any(map(_is_stream, paths)):  # a killed run's stream: the statuses `run` gives them
        entries = bl.load()
        runs = [bl.annotated(r, entries) if _is_stream(p) else r for r, p in zip(runs, paths, strict=True)]
    try:
        index = build_report(runs, out, compare=compare, atlases=load_atlases(paths))
    except ValueError as exc:  # shards that are not of one run
        raise UsageError(str(exc)) from None
    if not compare:  # the folder is a run folder too: `check --results` and `report` take it
        RunResult.load(out / "findings.json").save(out / "results.json")
    return index


def describe_oracles() -> str:
    """``oracles``: the table, with why each missing module is missing."""
    return describe()


def cache_action(action: str) -> str:
    """``cache info``: a line per part of the cache, with its files and size; ``cache clear``: remove it all.

    >>> import os, tempfile; os.environ["GATHER_CONFORMANCE_CACHE"] = tempfile.mkdtemp() + "/gc"
    >>> print(cache_action("info").split(": ", 1)[1])
    empty
    >>> del os.environ["GATHER_CONFORMANCE_CACHE"]
    """
    root = cache_root()
    if action == "clear":
        return f"{root}: cleared ({clear_cache() / 2**20:.1f} MiB)"
    sections = cache_sections()
    if not sections:
        return f"{root}: empty"
    width = max(len(s.name) for s in sections)
    lines = [f"{s.name:{width}}  {s.files:6,d} files  {s.bytes / 2**20:9.1f} MiB" for s in sections]
    total = sum(s.bytes for s in sections) / 2**20
    return "\n".join([f"{root}: {total:.1f} MiB", *lines])


def baseline_action(action: str, file: Path | None) -> int:
    """``baseline validate [FILE]`` and ``baseline draft RESULTS``."""
    if action == "validate":
        try:
            entries = bl.load(file)
        except bl.BaselineError as exc:
            raise UsageError(str(exc)) from None
        print(f"{file or bl.DEFAULT_PATH}: {len(entries)} valid entries")
        return OK
    if file is None:
        raise UsageError("baseline draft: give the results file or run folder to draft entries from")
    result = load_results(file)
    entries = bl.load()
    new = [f for f in result.findings if bl.accepting(f, entries) is None]
    print(json.dumps({"format": bl.BASELINE_FORMAT, "entries": bl.draft_entries(new)}, indent=1))
    print(
        f"{len(new)} entries drafted for the new findings of {file}: review each TODO note before merging",
        file=sys.stderr,
    )
    return OK


def rekey_baseline(file: Path | None, out: Path | None) -> int:
    """``baseline rekey [FILE] [--out PATH]``: every entry's reproducers replayed,
    each on its own oracle's isolated worker, under the current root-cause
    rule (:mod:`conformance.gate.rekey`); the re-keyed baseline written (notes,
    links, at-fault kept) and the entries re-keyed, merged, split, not
    reproducing and not run listed. A bad baseline or ``--out`` fails first."""
    path = Path(file or bl.DEFAULT_PATH)
    try:
        entries = bl.load(path)
    except bl.BaselineError as exc:
        raise UsageError(f"baseline rekey: {exc}") from None
    target = writable_file("--out", out or path)
    about = json.loads(path.read_text(encoding="utf-8")).get("about", "")
    names = [
        n for n in registry.available() if any(fnmatch.fnmatchcase(n, e.oracle) or n in e.oracles for e in entries)
    ]
    print(f"re-keying {len(entries)} entries on {', '.join(names) or 'no oracle'}", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(len(names), 1)) as pool:
        oracles = [cast(Oracle, o) for o in pool.map(lambda n: registry.get(n, isolated=True), names)]
    try:
        result = rekey(entries, oracles)
    finally:
        close_all(oracles)
    target.write_text(rekey_document(result, about), encoding="utf-8")
    for name, described in result.lists.items():
        if name != "kept":
            print(f"{name} ({len(described)}):" + "".join(f"\n  {d}" for d in described))
    counts = ", ".join(f"{n} {name}" for name, n in result.counts().items())
    print(f"{len(entries)} entries -> {len(result.entries)}: {counts}; written to {target}")
    return OK


# -- upgrade -------------------------------------------------------------------------


def default_provider(constraints: Path | None, rebuild: bool) -> VenvProvider:
    """Environments built from this checkout and its pinned constraints
    (see :mod:`conformance.upgrade.environments`)."""
    root = suite_root()
    if root is None:
        raise UsageError(
            "upgrade: needs the suite's source checkout (pyproject.toml and constraints-ci.txt beside conformance/); "
            "run it from a clone of the repository"
        )
    constraints = constraints or root / "constraints-ci.txt"
    if not constraints.is_file():
        raise UsageError(f"--constraints: {constraints} is not a file")
    return VenvProvider(root, constraints, rebuild=rebuild)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def upgrade(
    versions: list[str],
    *,
    out: Path,
    max_examples: int,
    seed: int,
    timeout: float,
    oracles: list[str] | None,
    ops: list[str] | None,
    baseline: Path | None,
    update_baseline: Path | None,
    constraints: Path | None = None,
    rebuild: bool = False,
    provider: Provider | None = None,
) -> int:
    """``upgrade``: every argument checked, every environment prepared (a
    version that cannot be installed is a usage error naming it), then the
    study (:mod:`conformance.upgrade.study`) and its report. 1 when anything
    departs from the docs that did not before, 0 otherwise."""
    try:
        requests = parse_requests(versions)
    except RequestError as exc:
        raise UsageError(str(exc)) from None
    positive("--max-examples", max_examples, integer=True)
    positive("--timeout", timeout)
    chosen_ops = select_ops(ops)
    writable_dir("--out", out)
    entries = _entries(baseline)
    if update_baseline is not None:
        writable_file("--update-baseline", update_baseline)
    plan = StudyPlan(requests, out, entries, seed, max_examples, timeout, oracles, chosen_ops)
    try:
        study = run_study(plan, provider or default_provider(constraints, rebuild), _say)
    except InstallError as exc:
        raise UsageError(f"versions: {exc}") from None
    except SelectionError as exc:
        raise UsageError(str(exc)) from None
    except StudyError as exc:
        print(f"gather-conformance upgrade: failed: {exc}", file=sys.stderr)
        return TOOL_FAILED
    from conformance.upgrade.report_folder import write_report

    report_path = write_report(study)
    if update_baseline is not None:
        _draft(study, baseline, entries, update_baseline)
    print(_closing(study, report_path))
    return exit_status(study.departures)


def _closing(study: Study, report_path: Path) -> str:
    """What the command prints at the end: per step what changed, the departures, the report."""
    from conformance.upgrade.report_folder import headline

    lines = []
    for s in study.timeline.steps:
        lines.append(
            f"{s.words()}: {len(s.atlas)} atlas cells changed, {len(s.comparison.appeared)} findings appeared, "
            f"{len(s.comparison.disappeared)} disappeared, {len(s.fixed)} baseline entries fixed upstream"
        )
    lines += [d.line() for d in study.departures]
    lines.append(f"environments {study.environments_s:.0f} s, wall time {study.wall_s:.0f} s")
    lines.append(f"report: {report_path}")
    lines.append(f"upgrade: {headline(study)}")
    return "\n".join(lines)


def _draft(study: Study, baseline: Path | None, entries: list[bl.Entry], path: Path) -> None:
    """``--update-baseline PATH``: the baseline with its ranges following what
    was observed, written to ``PATH`` for review (the packaged baseline only if ``PATH`` names it)."""
    changes = range_changes(study.timeline.entries, [v.facts.installed for v in study.versions])
    versions = ", ".join(study.timeline.labels)
    note = (
        f"DRAFT by `gather-conformance upgrade` ({study.plan.framework} {versions}): "
        f"{len(changes)} version ranges widened or narrowed from what was observed; review before merging."
    )
    doc = draft_baseline(baseline or bl.DEFAULT_PATH, entries, changes, note)
    problems = bl.validate(doc, str(path))
    if problems:
        raise RuntimeError("the drafted baseline is not valid: " + "; ".join(problems[:3]))
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    print(
        f"--update-baseline: {len(changes)} of {len(study.timeline.entries)} replayed entries change range; "
        f"draft written to {path} (review it before merging)"
    )
    for c in changes:
        print(f"  {c.line()}")
