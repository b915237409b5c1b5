"""The CI regression gate: the default deterministic campaign against the
baseline. Fails on a finding no entry accepts (new behaviour) and on an
entry whose behaviour no longer occurs (fixed upstream, or lost power)."""

from __future__ import annotations

import numpy as np
import pytest

import oracles
from conformance import baseline
from conformance.baseline import Entry, check, in_range, load
from conformance.campaign import DEFAULT_EXAMPLES, load_oracles, run_campaign
from conformance.findings import Case, Finding, RunResult, Signature
from conformance.model import Outcome


def _result(*sigs: Signature) -> RunResult:
    case = Case("numpy.take", np.zeros(1), np.zeros(1, np.int64), {})
    facts = {"oracles": {"numpy": {"version": "2.4.6", "device": "cpu", "mode": "eager", "ops": ["numpy.take"]}}}
    return RunResult(facts, 0, {"ops": None}, {}, 0.0, {}, [Finding(s, case, Outcome.returned(np.zeros(1)), {}) for s in sigs])


SIG = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "", ("in-range", "0-d"))


def test_known_finding_passes_and_is_annotated() -> None:
    r = _result(SIG)
    assert check(r, [Entry(op="numpy.take", oracle="numpy", outcome="value instead of error", tags=("0-d",), note="n", link="L")]) == []
    assert r.findings[0].status == "known" and r.findings[0].baseline_link == "L"


def test_new_finding_is_reported() -> None:
    assert check(_result(SIG), [])[0].startswith("new: numpy.take")


def test_entry_no_longer_seen_is_reported_as_vanished() -> None:
    problems = check(_result(), [Entry(op="numpy.take", oracle="numpy", versions=">=2,<3", note="gone")])
    assert problems and problems[0].startswith("vanished")


def test_entry_for_another_version_does_not_vanish() -> None:
    assert check(_result(), [Entry(op="numpy.take", oracle="numpy", versions="<2")]) == []


def test_version_ranges() -> None:
    assert in_range("2.13.0+cpu", ">=2.13,<2.14") and not in_range("2.14.0", ">=2.13,<2.14") and in_range("1.2", "==1.*")


def test_packaged_baseline_entries_have_notes_and_faults() -> None:
    for e in load():
        assert e.note and e.at_fault in ("framework", "spec", "docs"), e


@pytest.mark.timeout(600) if hasattr(pytest.mark, "timeout") else (lambda f: f)
def test_default_campaign_matches_the_baseline() -> None:
    """The deterministic CI campaign (seed 0, DEFAULT_EXAMPLES per class,
    every available oracle, isolated) has no new and no vanished behaviour."""
    chosen = load_oracles(None, in_process=False)
    try:
        result = run_campaign(chosen, seed=0, max_examples=DEFAULT_EXAMPLES)
    finally:
        for o in chosen:
            getattr(o, "close", lambda: None)()
    problems = check(result, baseline.load())
    assert not problems, "\n".join(problems)
