"""The CI regression gate: the default deterministic campaign against the
baseline. Fails on a finding no entry accepts (new behaviour) and on an
entry whose behaviour no longer occurs (fixed upstream, or lost power)."""

from __future__ import annotations

import numpy as np
import pytest

from conformance import baseline
from conformance.baseline import Entry, annotated, check, in_range, load
from conformance.campaign import run_campaign
from conformance.execution import registry
from conformance.findings import Case, Finding, RunResult, Signature
from conformance.model import Outcome
from conformance.settings import DEFAULT_EXAMPLES, Settings


def _result(*sigs: Signature) -> RunResult:
    case = Case("numpy.take", np.zeros(1), np.zeros(1, np.int64), {})
    facts = {"oracles": {"numpy": {"version": "2.4.6", "device": "cpu", "mode": "eager", "ops": ["numpy.take"]}}}
    return RunResult(facts, 0, {"ops": None}, {"numpy": 10}, 0.0, {}, [Finding(s, case, Outcome.returned(np.zeros(1)), {}) for s in sigs])


SIG = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "", ("in-range", "0-d"))


def test_known_finding_passes_and_is_annotated() -> None:
    r = _result(SIG)
    entries = [Entry(op="numpy.take", oracle="numpy", outcome="value instead of error", tags=("0-d",), note="n", link="L")]
    assert check(r, entries) == []
    marked = annotated(r, entries)
    assert marked.findings[0].status == "known" and marked.findings[0].baseline_link == "L"
    assert r.findings[0].status == "new", "checking a run does not change it"


def test_new_finding_is_reported() -> None:
    assert check(_result(SIG), [])[0].startswith("new: numpy.take")


def test_entry_no_longer_seen_is_reported_as_vanished() -> None:
    problems = check(_result(), [Entry(op="numpy.take", oracle="numpy", versions=">=2,<3", note="gone")])
    assert problems and problems[0].startswith("vanished")


def test_entry_for_another_version_does_not_vanish() -> None:
    assert check(_result(), [Entry(op="numpy.take", oracle="numpy", versions="<2")]) == []


def test_version_ranges() -> None:
    assert in_range("2.13.0+cpu", ">=2.13,<2.14") and not in_range("2.14.0", ">=2.13,<2.14") and in_range("1.2", "==1.*")


def test_a_nightly_before_a_release_is_not_in_a_range_starting_at_that_release() -> None:
    """The hand parser read 0.10.2.dev20260101 as 0.10.2.20260101, inside >=0.10.2 (wrong: PEP 440 puts it before)."""
    assert not in_range("0.10.2.dev20260101", ">=0.10.2") and in_range("0.10.3.dev20260101", ">=0.10.2,<0.11")


def test_packaged_baseline_entries_have_notes_and_faults() -> None:
    for e in load():
        assert e.note and e.at_fault in ("framework", "spec", "docs"), e


@pytest.mark.timeout(600) if hasattr(pytest.mark, "timeout") else (lambda f: f)
def test_default_campaign_matches_the_baseline() -> None:
    """The deterministic CI campaign (seed 0, DEFAULT_EXAMPLES per class,
    every available oracle, isolated) has no new and no vanished behaviour."""
    chosen = [registry.get(n) for n in registry.available()]
    try:
        result = run_campaign(chosen, Settings(seed=0, max_examples=DEFAULT_EXAMPLES))
    finally:
        for o in chosen:
            o.close()
    problems = check(result, baseline.load())
    assert not problems, "\n".join(problems)
