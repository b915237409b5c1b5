"""The gate replays the baseline's reproducers: fixed upstream, changed and
skipped entries are told apart without any random drawing."""

from __future__ import annotations

import numpy as np

from conformance.core.case import Case, CaseTags
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import Outcome
from conformance.gate import baseline as bl
from conformance.gate.replay import replay
from conformance.results.run_result import RunResult

CASE = Case(
    "numpy.take", np.arange(4), np.array([6]), {"axis": 0, "mode": "raise"}, CaseTags("oob-above", "int64", "int")
)
ENTRY = bl.Entry(
    op="numpy.take",
    oracle="fake",
    outcome="value instead of error",
    policy="clamps",
    condition=("bad index",),
    versions=">=1,<2",
    note="clamps instead of raising",
    at_fault="framework",
    link="l",
    reproducers=(CASE.to_json(),),
)


class Fake:
    """numpy.take in some mode, whatever the case asks."""

    def __init__(self, mode: str, version: str = "1.0") -> None:
        self.name, self.mode, self.version = "fake", mode, version

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return OracleInfo("fake", "numpy", self.version, "cpu", "eager", ("numpy.take",))

    def run_many(self, cases, *, timeout=None):
        out = []
        for c in cases:
            try:
                out.append(Outcome.returned(np.take(c.data, c.indices, axis=0, mode=self.mode)))
            except IndexError as exc:
                from conformance.core.outcome import ErrorClass

                out.append(Outcome.raised(exc, ErrorClass.INDEX_OUT_OF_RANGE))
        return out


def _gate(oracle: Fake) -> tuple[str, list[str]]:
    (r,) = replay([ENTRY], [oracle])
    result = RunResult({}, 0, {}, {"fake": 1}, 1.0, {}, [], replay=[r.to_json()])
    return r.status, bl.check(result, [ENTRY])


def test_an_entry_still_misbehaving_reproduces_and_the_gate_passes() -> None:
    assert _gate(Fake("clip")) == ("reproduces", [])


def test_a_framework_that_stops_misbehaving_fails_the_gate_naming_the_entry_as_fixed() -> None:
    status, problems = _gate(Fake("raise"))
    assert status == "fixed"
    assert (
        len(problems) == 1
        and str(problems[0]).startswith("fixed upstream: numpy.take on fake >=1,<2")
        and "update or remove" in str(problems[0])
    )


def test_a_changed_behaviour_fails_the_gate_as_changed() -> None:
    status, problems = _gate(Fake("wrap"))
    assert status == "changed" and str(problems[0]).startswith("changed: ") and "wraps" in str(problems[0])


def test_an_entry_for_a_version_not_installed_is_skipped_and_listed() -> None:
    (r,) = replay([ENTRY], [Fake("clip", version="2.0")])
    assert (r.status, r.status.fails) == ("skipped", False) and "no oracle fake at >=1,<2" in r.detail


def test_entries_without_reproducers_are_invalid() -> None:
    d = ENTRY.to_json()
    del d["reproducers"]
    assert "missing reproducers" in bl.entry_problems(d)
    assert bl.entry_problems({**ENTRY.to_json(), "reproducers": [{"op": "x"}]})[0].startswith(
        "reproducers must be a list of cases"
    )


def test_the_packaged_baseline_is_valid_and_every_entry_has_a_reproducer() -> None:
    entries = bl.load()
    assert entries and all(e.reproducers for e in entries)


def test_an_entry_that_is_not_standalone_is_skipped_not_judged() -> None:
    from dataclasses import replace

    (r,) = replay([replace(ENTRY, standalone=False)], [Fake("raise")])
    assert (r.status, r.status.fails) == ("skipped", False) and "not standalone" in r.detail


def test_the_replay_says_each_oracle_done_so_that_a_ci_log_shows_its_progress() -> None:
    """A default check's replay ran 86 s with '[replay] 0' lines only: now one step per oracle."""
    steps: list[int] = []
    idle = Fake("clip")
    idle.name = "idle"  # no entry of this oracle: done at once
    replay([ENTRY], [Fake("clip"), idle], done=lambda: steps.append(1))
    assert len(steps) == 2
