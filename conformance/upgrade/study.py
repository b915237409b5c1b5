"""An upgrade study, from the requested versions to what changed: every
environment prepared first (:class:`~conformance.upgrade.environments.Provider`:
a version that cannot be installed stops the study before any campaign runs),
then in each the ``check`` command on the framework's oracles only, then the
runs compared here (:func:`~conformance.upgrade.timeline.build_timeline`) and
judged (:func:`~conformance.upgrade.verdict.departures`).

Why ``check`` in each environment, rather than a lighter entry point: it is
the gate's own path (the probe atlas, the baseline replay and a seeded fuzz,
with crash isolation), so a study sees a version exactly as CI would. The
atlas is seed-free and the replay deterministic; the fuzz is short
(``--max-examples``, :data:`UPGRADE_EXAMPLES` by default) and seeded, so each
version is asked the same drawn cases. Each environment replays the baseline
entries of the chosen oracles at *every* version
(:func:`~conformance.upgrade.timeline.any_version`), so a fix or a regression
shows whatever an entry's range says.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from conformance.gate import baseline as bl
from conformance.results.atlas import Atlas
from conformance.results.run_result import RunResult
from conformance.upgrade.environments import Environment, EnvironmentFacts, Provider, failure_words
from conformance.upgrade.request import Request
from conformance.upgrade.timeline import Timeline, any_version, build_timeline
from conformance.upgrade.verdict import Departure, departures

UPGRADE_EXAMPLES = 20
"""Drawn cases per equivalence class in each environment (besides the atlas and the replay)."""
REPLAYED_BASELINE = "baseline-replayed.json"
"""The entries each environment replays (the chosen oracles', at any version), in the report folder."""
VERSIONS_DIR = "versions"
"""One run folder per version (``versions/<label>/``: results.json, atlas.json, its own report, campaign.log)."""
MAX_SCRIPTS = 200
"""Reproducer scripts asked of the environments at most (the rest show their case)."""
REPRODUCERS_PER_ENTRY = 3
"""Reproducers of one baseline entry written as scripts at most."""
OWNED = ("index.html", "summary.md", "upgrade.json", REPLAYED_BASELINE, "scripts", "steps", VERSIONS_DIR)
"""What a study writes into its folder (and removes there before it writes again)."""


class StudyError(RuntimeError):
    """The study itself failed (a campaign in an environment did not finish): exit status 3."""


class SelectionError(ValueError):
    """Oracles the study cannot run (the CLI makes it a usage error)."""


@dataclass(frozen=True)
class StudyPlan:
    """A checked study request."""

    requests: list[Request]
    out: Path
    entries: list[bl.Entry]
    seed: int = 0
    max_examples: int = UPGRADE_EXAMPLES
    timeout: float = 20.0
    oracles: list[str] | None = None
    ops: tuple[str, ...] | None = None

    @property
    def framework(self) -> str:
        return self.requests[0].framework


@dataclass
class VersionRun:
    """One version's environment and run."""

    facts: EnvironmentFacts
    folder: Path
    seconds: float
    result: RunResult
    atlas: Atlas | None


@dataclass
class Study:
    """What a study found (see the module docstring)."""

    plan: StudyPlan
    oracles: list[str]
    left_out: dict[str, list[str]]
    """Oracles of the framework that only some environments have -> the versions that have them."""
    versions: list[VersionRun]
    timeline: Timeline
    departures: list[Departure]
    environments_s: float
    wall_s: float = 0.0
    scripts: dict[str, str] = field(default_factory=dict)
    """Reproducer file name -> its text (see :func:`wanted_scripts`)."""


def labels(facts: Sequence[EnvironmentFacts]) -> list[str]:
    """What each version is called in the report: the version really
    installed (with the request where two requests got the same one).

    >>> f = [EnvironmentFacts(Request("numpy", s), "2.4.6", "3.11", "", "pip", True) for s in ("==2.4.*", "==2.4.6")]
    >>> labels(f)
    ['2.4.6 (==2.4.*)', '2.4.6 (==2.4.6)']
    """
    installed = [f.installed for f in facts]
    return [
        f.installed if installed.count(f.installed) == 1 else f"{f.installed} ({f.request.specifier})" for f in facts
    ]


def choose_oracles(
    facts: Sequence[EnvironmentFacts], wanted: Sequence[str] | None
) -> tuple[list[str], dict[str, list[str]]]:
    """The oracles every version runs: ``wanted`` (each must run in every
    environment), else the framework's oracles that every environment has;
    and the framework's oracles left out because only some have them.

    >>> from conformance.core.oracle import OracleInfo
    >>> def env(version, *names):
    ...     infos = tuple(OracleInfo(n, "onnxruntime", version, "cpu", "session") for n in names)
    ...     request = Request("onnxruntime", "==" + version)
    ...     return EnvironmentFacts(request, version, "3.11", "", "pip", True, {}, infos, names)
    >>> choose_oracles([env("1.31.1", "onnxruntime"), env("1.32.0", "onnxruntime", "onnxruntime-cuda")], None)
    (['onnxruntime'], {'onnxruntime-cuda': ['1.32.0']})
    """
    every = [{o.name for o in f.oracles} for f in facts]
    own = list(dict.fromkeys(o.name for f in facts for o in f.oracles))
    left_out = {
        n: [f.installed for f, names in zip(facts, every) if n in names] for n in own if not all(n in e for e in every)
    }
    if wanted:
        for name in wanted:
            missing = [f.request.requirement for f in facts if name not in f.available]
            if missing:
                here = ", ".join(facts[0].available) or "none"
                raise SelectionError(
                    f"--oracles: {name!r} cannot run in the environment of {', '.join(missing)} (there: {here})"
                )
        return list(dict.fromkeys(wanted)), left_out
    chosen = [n for n in own if all(n in e for e in every)]
    if not chosen:
        framework = facts[0].request.framework
        problems = "; ".join(f"{m}: {p}" for f in facts for m, p in f.problems.items())
        why = f" (failed to load: {problems})" if problems else ""
        raise SelectionError(
            f"--oracles: no oracle of {framework} runs in every environment{why}; "
            "name the oracles to run with --oracles"
        )
    return chosen, left_out


def relevant_entries(entries: Sequence[bl.Entry], oracles: Sequence[str]) -> list[bl.Entry]:
    """The baseline entries that name one of ``oracles`` (exactly or by pattern).

    >>> entries = [bl.Entry(op="x", oracle="onnxruntime*"), bl.Entry(op="y", oracle="torch")]
    >>> relevant_entries(entries, ["onnxruntime-static"])
    [Entry(op='x', oracle='onnxruntime*', ...)]
    """
    return [e for e in entries if any(fnmatchcase(o, e.oracle) for o in oracles)]


def campaign_arguments(plan: StudyPlan, oracles: Sequence[str], folder: Path, replayed: Path) -> list[str]:
    """The ``gather-conformance`` arguments each environment runs.

    >>> plan = StudyPlan([Request("numpy", "==2.4.6")], Path("out"), [], max_examples=3)
    >>> " ".join(campaign_arguments(plan, ["numpy"], Path("out/v"), Path("out/b.json")))
    'check --oracles numpy --seed 0 --max-examples 3 --timeout 20 --baseline out/b.json --out out/v --allow-missing'
    """
    args = ["check", "--oracles", *oracles, "--seed", str(plan.seed), "--max-examples", str(plan.max_examples)]
    args += ["--timeout", f"{plan.timeout:g}", "--baseline", str(replayed), "--out", str(folder), "--allow-missing"]
    return args + (["--ops", *plan.ops] if plan.ops else [])


def clear_study(out: Path) -> None:
    """Remove what an earlier study wrote into ``out`` (its own files and folders only, :data:`OWNED`)."""
    for name in OWNED:
        path = out / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def run_version(env: Environment, plan: StudyPlan, oracles: Sequence[str], replayed: Path) -> VersionRun:
    """The campaign in one environment, and what it wrote (a :class:`StudyError` if it did not finish)."""
    facts = env.facts
    folder = plan.out / VERSIONS_DIR / facts.request.label
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = env.campaign(campaign_arguments(plan, oracles, folder, replayed), folder / "campaign.log")
    seconds = time.monotonic() - started
    results = folder / "results.json"
    if done.returncode not in (0, 1) or not results.is_file():
        raise StudyError(
            f"the campaign in the environment of {facts.request.requirement} failed (exit {done.returncode}): "
            f"{failure_words(done.output)} (log: {folder / 'campaign.log'})"
        )
    atlas_file = folder / "atlas.json"
    return VersionRun(
        facts, folder, seconds, RunResult.load(results), Atlas.load(atlas_file) if atlas_file.is_file() else None
    )


def run_study(plan: StudyPlan, provider: Provider, say: Callable[[str], None]) -> Study:
    """Prepare every environment, run each, compare (see the module docstring)."""
    started = time.monotonic()
    envs = provider.prepare(plan.requests, say)
    environments_s = time.monotonic() - started
    facts = [e.facts for e in envs]
    for f in facts:
        pins = ", ".join(f"{p} → {v or 'none'}" for p, v in f.relaxed.items())
        relaxed = f"; relaxed {pins}" if pins else ""
        say(f"{f.request.requirement}: {plan.framework} {f.installed} installed (python {f.python}, {f.tool}{relaxed})")
    oracles, left_out = choose_oracles(facts, plan.oracles)
    relevant = relevant_entries(plan.entries, oracles)
    plan.out.mkdir(parents=True, exist_ok=True)
    clear_study(plan.out)
    replayed = plan.out / REPLAYED_BASELINE
    about = "The baseline entries of the oracles studied, at every version (what each environment replays)."
    doc = {"format": bl.BASELINE_FORMAT, "about": about, "entries": [any_version(e).to_json() for e in relevant]}
    replayed.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    runs = []
    for n, env in enumerate(envs, start=1):
        say(
            f"[{n}/{len(envs)}] {plan.framework} {env.facts.installed}: atlas, "
            f"baseline replay ({len(relevant)} entries) and {plan.max_examples} drawn cases per class "
            f"on {', '.join(oracles)}"
        )
        runs.append(run_version(env, plan, oracles, replayed))
        say(f"[{n}/{len(envs)}] {plan.framework} {env.facts.installed}: done in {runs[-1].seconds:.0f} s")
    timeline = build_timeline(labels(facts), [r.result for r in runs], [r.atlas for r in runs], relevant)
    study = Study(plan, oracles, left_out, runs, timeline, departures(timeline), environments_s)
    study.scripts = written_scripts(study, envs)
    study.wall_s = time.monotonic() - started
    return study


def script_name(kind: str, number: int, label: str, oracle: str, part: int | None = None) -> str:
    """The file name of a reproducer in the report's ``scripts/`` folder.

    >>> script_name("cell", 3, "1.32.0", "onnxruntime-static"), script_name("entry", 1, "1.32.0", "numpy", 2)
    ('scripts/cell-3_1.32.0_onnxruntime_static.py', 'scripts/entry-1-2_1.32.0_numpy.py')
    """
    safe = "".join(ch if ch.isalnum() or ch in "._" else "_" for ch in f"{label}_{oracle}")
    return f"scripts/{kind}-{number}{'' if part is None else f'-{part}'}_{safe}.py"


def wanted_scripts(study: Study) -> dict[int, list[tuple[str, dict[str, Any]]]]:
    """The reproducers to ask each environment (by version index) for: for
    every atlas change, the probe case of the side that departs from the docs
    (the one before, for an improvement), in the environment after the step;
    for every entry fixed upstream, its reproducers in the environment where
    it is fixed. Findings carry their own scripts."""
    t = study.timeline
    wanted: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for k, cell in enumerate(t.cells, start=1):
        for i in cell.changes():
            change = cell.change(i)
            side = change.after if change.after is not None and not change.after.documented else change.before
            if side is not None and side.example:
                item = {"oracle": side.oracle, "case": side.example}
                wanted.setdefault(i, []).append((script_name("cell", k, t.labels[i], side.oracle), item))
    for k, entry in enumerate(t.entries, start=1):
        oracle = next((o for o in study.oracles if fnmatchcase(o, entry.entry.oracle)), None)
        for i in entry.fixed_at():
            for r, case in enumerate(entry.entry.reproducers[:REPRODUCERS_PER_ENTRY], start=1):
                if oracle is not None:
                    name = script_name("entry", k, t.labels[i], oracle, r)
                    wanted.setdefault(i, []).append((name, {"oracle": oracle, "case": case}))
    return wanted


def written_scripts(study: Study, envs: Sequence[Environment]) -> dict[str, str]:
    """Reproducer scripts (file name -> text), written in the environments
    (:data:`MAX_SCRIPTS` at most); one that cannot be written says why."""
    out: dict[str, str] = {}
    budget = MAX_SCRIPTS
    for i, items in sorted(wanted_scripts(study).items()):
        items = items[:budget]
        budget -= len(items)
        if not items:
            continue
        answers = envs[i].scripts([item for _, item in items], study.versions[i].folder / "scripts-work")
        for (name, _), answer in zip(items, answers):
            out[name] = answer.get("script") or f"# no reproducer: {answer.get('error') or 'not written'}\n"
    return out
