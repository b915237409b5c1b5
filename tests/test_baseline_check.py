"""The CI regression gate: a run against the baseline. Fails on a finding no
entry accepts (a new root cause) and on a replayed entry that is fixed
upstream or changed (tests/test_replay.py replays them)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from conformance.core.case import Case
from conformance.core.outcome import Outcome
from conformance.core.vocabulary import Condition
from conformance.gate.baseline import Entry, annotated, check, draft_entries, in_range, load
from conformance.judge.signature import Signature
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult


def _result(*sigs: Signature) -> RunResult:
    case = Case("numpy.take", np.zeros(1), np.zeros(1, np.int64), {})
    facts = {"oracles": {"numpy": {"version": "2.4.6", "device": "cpu", "mode": "eager", "ops": ["numpy.take"]}}}
    return RunResult(
        facts,
        0,
        {"ops": None},
        {"numpy": 10},
        0.0,
        {},
        [Finding(s, case, Outcome.returned(np.zeros(1)), {}) for s in sigs],
    )


SIG = Signature(
    "numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "", ("precondition: axis out of range",)
)


def test_known_finding_passes_and_is_annotated() -> None:
    r = _result(SIG)
    entries = [
        Entry(
            op="numpy.take",
            oracle="numpy",
            outcome="value instead of error",
            policy="",
            condition=("precondition: *",),
            note="n",
            link="L",
        )
    ]
    assert check(r, entries) == []
    marked = annotated(r, entries)
    assert marked.findings[0].status == "known" and marked.findings[0].baseline_link == "L"
    assert r.findings[0].status == "new", "checking a run does not change it"


def test_new_finding_is_reported() -> None:
    assert str(check(_result(SIG), [])[0]).startswith("new: numpy.take")


def test_an_entry_drafted_from_a_finding_accepts_it_with_the_root_causes_merged_into_it_by_their_trigger() -> None:
    """Regression (stop 53): IREE's crash on an ``extreme`` index had a crash on ``oob-above`` merged into it; the entry
    drafted for the first alone left the finding new at the next check."""
    crash = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "crash", "", ("extreme",))
    merged = replace(
        _result(crash),
        findings=[
            replace(_result(crash).findings[0], same_trigger=[replace(crash, condition=Condition.parse(["oob-above"]))])
        ],
    )
    entries = [Entry.from_json({**e, "note": "n"}) for e in draft_entries(merged.findings)]
    assert check(merged, entries) == []


def test_an_entry_matches_its_condition_exactly_not_a_subset() -> None:
    plain = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "wrong shape", "", ("in-range",))
    wider = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "wrong shape", "", ("in-range", "0-d"))
    entry = Entry(op="numpy.take", oracle="numpy", outcome="wrong shape", condition=("in-range",))
    assert entry.matches(plain) and not entry.matches(wider)


def test_replayed_entries_fixed_or_changed_fail_the_gate_and_skipped_ones_do_not() -> None:
    r = _result()
    r.replay = [
        {"entry": "a", "status": "fixed", "detail": "d"},
        {"entry": "b", "status": "changed", "detail": "now x"},
        {"entry": "c", "status": "skipped", "detail": "no oracle"},
        {"entry": "d", "status": "reproduces", "detail": ""},
    ]
    problems = check(r, [])
    assert [str(p).split(":")[0] for p in problems] == ["fixed upstream", "changed"]


def test_version_ranges() -> None:
    assert (
        in_range("2.13.0+cpu", ">=2.13,<2.14") and not in_range("2.14.0", ">=2.13,<2.14") and in_range("1.2", "==1.*")
    )


def test_a_nightly_before_a_release_is_not_in_a_range_starting_at_that_release() -> None:
    """The hand parser read 0.10.2.dev20260101 as 0.10.2.20260101, inside >=0.10.2 (wrong: PEP 440 puts it before)."""
    assert not in_range("0.10.2.dev20260101", ">=0.10.2") and in_range("0.10.3.dev20260101", ">=0.10.2,<0.11")


def test_packaged_baseline_entries_have_notes_and_faults() -> None:
    for e in load():
        assert e.note and e.at_fault in ("framework", "spec", "docs"), e


def test_a_reproducer_that_reads_stray_memory_is_tried_again_before_the_replay_says_fixed() -> None:
    """Regression (stop 46): OpenVINO's Gather-8 on an empty axis answers its documented zero fill on some runs and
    stray bytes on others, and check --seed 0 failed with 'fixed upstream' on one zero-fill run. A reproducer that
    does not show its root cause runs again, up to REPLAY_TRIES times; one that never shows it is still fixed."""
    from conformance.core.case import Case, CaseTags
    from conformance.core.oracle import Capabilities, OracleInfo
    from conformance.core.outcome import ErrorClass
    from conformance.gate.replay import REPLAY_TRIES, replay

    class StraySometimes:
        """numpy.take that raises as documented on its first calls and clamps from its ``clamp_from``-th."""

        name = "stray"
        capabilities = Capabilities()

        def __init__(self, clamp_from: int) -> None:
            self.calls, self.clamp_from = 0, clamp_from

        def info(self) -> OracleInfo:
            return OracleInfo("stray", "numpy", "1.0", "cpu", "eager", ("numpy.take",))

        def run_many(self, cases, *, timeout=None):
            self.calls += 1
            if self.calls < self.clamp_from:
                return [Outcome.raised(IndexError("out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE) for _ in cases]
            return [Outcome.returned(np.take(c.data, c.indices, axis=0, mode="clip")) for c in cases]

    case = Case(
        "numpy.take", np.arange(4), np.array([6]), {"axis": 0, "mode": "raise"}, CaseTags("oob-above", "int64", "int")
    )
    entry = Entry(
        op="numpy.take",
        oracle="stray",
        outcome="value instead of error",
        policy="clamps",
        condition=("bad index",),
        versions=">=1",
        reproducers=(case.to_json(),),
    )
    assert str(replay([entry], [StraySometimes(3)])[0].status) == "reproduces"
    assert str(replay([entry], [StraySometimes(REPLAY_TRIES + 1)])[0].status) == "fixed"
