"""A pytest plugin (entry point ``pytest11``), so that a framework team runs
the suite in its own CI:

    pytest --gather-conformance [--gc-oracles torch,torch-compile] [--gc-ops 'torch.*'] [--gc-baseline FILE] [-n 4]

With ``--gather-conformance`` the session collects only the suite's items
(no test files): one per (oracle, op family, probe-atlas condition) and one
per baseline reproducer. An atlas item passes when every case of its
condition conforms on the oracle, is reported ``xfailed`` when what departs
is all accepted by the baseline (the entry named), and fails on a root cause
the baseline does not accept. A baseline item is a strict xfail: it xfails
while the reproducer still shows the entry's root cause, fails (XPASS
strict) when the framework stops misbehaving (fixed upstream: update the
baseline), and fails outright when it shows another root cause. ``-k``
selects by oracle, op or condition; ``--junitxml`` gives one test case per
item; items are independent, so ``pytest-xdist`` spreads them (each worker
starts its own isolated oracles).

A framework repository adds to its ``conftest.py``::

    pytest_plugins = ["conformance.gate.pytest_plugin"]   # only if the entry point is not installed

>>> item_name("atlas", "torch", "torch.gather", "size")
'atlas[torch-torch.gather-size]'
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.campaign.settings import PROBE_TIMEOUT_S
from conformance.cases.probes import all_probes, cases_of
from conformance.core.case import Case
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.vocabulary import ReplayStatus
from conformance.execution import registry
from conformance.execution.fanout import Limited, run_on_all
from conformance.gate import baseline as bl
from conformance.judge import rootcause
from conformance.judge.judged import Judged, judged_alone, replay_status, settles
from conformance.judge.kind import observed_kind


class KnownDiscrepancy(AssertionError):
    """A baseline reproducer still shows its entry's root cause (the strict xfail's expected failure)."""


class NewDiscrepancy(AssertionError):
    """A root cause the baseline does not accept, or an entry's reproducer showing another one."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gather-conformance")
    group.addoption(
        "--gather-conformance",
        action="store_true",
        help="collect and run the gather conformance suite (only its items)",
    )
    group.addoption(
        "--gc-oracles", default=None, help="comma-separated oracle names (default: every oracle available here)"
    )
    group.addoption("--gc-ops", default=None, help="comma-separated op globs, e.g. 'torch.*,numpy.take' (default: all)")
    group.addoption("--gc-baseline", default=None, help="baseline file (default: the packaged one)")
    group.addoption(
        "--gc-fail-on-questions",
        action="store_true",
        help="fail on what a framework does where its docs are silent too (default: such an item xfails, saying so)",
    )


def item_name(kind: str, oracle: str, op: str, what: str) -> str:
    return f"{kind}[{oracle}-{op}-{what}]"


def _selected(config: pytest.Config) -> tuple[list[str], list[str] | None]:
    wanted = config.getoption("--gc-oracles")
    oracles = [o.strip() for o in wanted.split(",") if o.strip()] if wanted else registry.available()
    unknown = [o for o in oracles if o not in registry.available()]
    if unknown:
        raise pytest.UsageError(
            f"--gc-oracles: {', '.join(unknown)} not available here (available: {', '.join(registry.available())})"
        )
    ops = config.getoption("--gc-ops")
    return oracles, [o.strip() for o in ops.split(",") if o.strip()] if ops else None


def _op_wanted(op: str, globs: list[str] | None) -> bool:
    return globs is None or any(
        fnmatch.fnmatchcase(op, g) or fnmatch.fnmatchcase(rootcause.family(op), g) for g in globs
    )


class _Oracles:
    """The session's isolated oracles, started on first use."""

    def __init__(self) -> None:
        self.started: dict[str, Oracle] = {}

    def get(self, name: str) -> Oracle:
        if name not in self.started:
            self.started[name] = registry.get(name)  # type: ignore[assignment]
        return self.started[name]

    def close(self) -> None:
        for o in self.started.values():
            getattr(o, "close", lambda: None)()


_ORACLES = _Oracles()


def _run(oracle: Oracle, cases: list[Case]) -> Iterator[Judged]:
    """Each case judged on the oracle, alone."""
    info = oracle.info()
    answers = run_on_all([Limited(oracle, PROBE_TIMEOUT_S)], {oracle.name: cases})
    for case, got in zip(cases, answers.get(oracle.name, [])):
        yield judged_alone(case, info, got)


class AtlasItem(pytest.Item):
    """Every probe case of one condition, for one op family, on one oracle."""

    def __init__(
        self, *, oracle: str, family: str, condition: str, cases: list[Case], entries: list[bl.Entry], **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.oracle, self.family, self.condition, self.cases, self.entries = oracle, family, condition, cases, entries

    def runtest(self) -> None:
        new, known, questions = [], set(), set()
        fail_questions = bool(self.config.getoption("gc_fail_on_questions"))
        for j in _run(_ORACLES.get(self.oracle), self.cases):
            if j.verdict.conforms:
                continue
            entry = next((e for e in self.entries if settles(j, e.matches)), None)
            sig = j.signature()
            if entry is not None:
                known.add(entry.describe())
            elif observed_kind(sig, j.reference, j.case, j.outcome).fails_gate or fail_questions:
                new.append(sig.words())
            else:  # what the docs are silent on: reported, failing only with --gc-fail-on-questions, as the gate
                questions.add(sig.words())
        if new:
            raise NewDiscrepancy("not in the baseline: " + "; ".join(sorted(set(new))))
        if known or questions:
            said = [f"known: {'; '.join(sorted(known))}"] if known else []
            said += [f"question (the docs are silent): {'; '.join(sorted(questions))}"] if questions else []
            pytest.xfail(" · ".join(said))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path("gather-conformance"), 0, self.name


class BaselineItem(pytest.Item):
    """One baseline reproducer on one oracle (a strict xfail, see the module docstring)."""

    def __init__(self, *, oracle: str, entry: bl.Entry, case: Case, **kw: Any) -> None:
        super().__init__(**kw)
        self.oracle, self.entry, self.case = oracle, entry, case
        self.add_marker(pytest.mark.xfail(strict=True, raises=KnownDiscrepancy, reason=f"baseline: {entry.note[:120]}"))

    def runtest(self) -> None:
        (j,) = list(_run(_ORACLES.get(self.oracle), [self.case]))
        status = replay_status(j, self.entry.matches)  # the baseline replay's and the scripts' judgement
        if status is ReplayStatus.FIXED:
            return  # conforms now: XPASS(strict) fails the run, naming the entry
        if status is ReplayStatus.REPRODUCES:
            raise KnownDiscrepancy(self.entry.describe())
        raise NewDiscrepancy(f"the reproducer of '{self.entry.describe()}' now shows: {j.signature().words()}")

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path("gather-conformance"), 0, self.name


def _infos() -> dict[str, OracleInfo]:
    return {i.name: i for i in registry.infos()}


def _atlas_items(
    session: pytest.Session, oracles: list[str], ops: list[str] | None, entries: list[bl.Entry]
) -> list[pytest.Item]:
    groups: dict[tuple[str, str, str], list[Case]] = {}
    probe_cases = [(p, c) for p in all_probes() for c in cases_of(p)]
    infos = _infos()
    for name in oracles:
        info = infos[name]
        for probe, case in probe_cases:
            if case.op in info.ops and _op_wanted(case.op, ops):
                groups.setdefault((name, rootcause.family(case.op), probe.condition), []).append(case)
    return [
        AtlasItem.from_parent(
            session,
            name=item_name("atlas", o, fam, cond),
            oracle=o,
            family=fam,
            condition=cond,
            cases=cases,
            entries=entries,
        )
        for (o, fam, cond), cases in groups.items()
    ]


def _baseline_items(
    session: pytest.Session, oracles: list[str], ops: list[str] | None, entries: list[bl.Entry]
) -> list[pytest.Item]:
    items: list[pytest.Item] = []
    infos = _infos()
    for n, entry in enumerate(entries, start=1):
        for name in oracles:
            info = infos[name]
            if not (fnmatch.fnmatchcase(name, entry.oracle) and bl.in_range(info.version, entry.versions)):
                continue
            for k, c in enumerate(entry.reproducers, start=1):
                case = Case.from_json(c)
                if case.op in info.ops and _op_wanted(case.op, ops):
                    what = f"entry{n}-{k}"
                    items.append(
                        BaselineItem.from_parent(
                            session,
                            name=item_name("baseline", name, case.op, what),
                            oracle=name,
                            entry=entry,
                            case=case,
                        )
                    )
    return items


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``--gather-conformance``, test files are not collected: only the suite's items run."""
    return True if config.getoption("--gather-conformance") else None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--gather-conformance"):
        return
    oracles, ops = _selected(config)
    path = config.getoption("--gc-baseline")
    try:
        entries = bl.load(Path(path) if path else None)
    except bl.BaselineError as exc:
        raise pytest.UsageError(f"--gc-baseline: {exc}") from None
    items[:] = _atlas_items(session, oracles, ops, entries) + _baseline_items(session, oracles, ops, entries)


def pytest_sessionfinish(session: pytest.Session) -> None:
    _ORACLES.close()
