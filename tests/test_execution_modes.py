"""Execution modes are variants of one fact (issue 21): a small real campaign
over jax and jax-default, torch and torch-compile and the three onnxruntime
sessions; findings that differ only in the mode merge, a behaviour that
shows in one mode only stays apart and names the modes that conform; the
first finding the summary and the report list is the worst."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.cli.console import closing_summary
from conformance.core.case import Case, CaseTags
from conformance.core.outcome import Kind, Outcome
from conformance.gate.baseline import Entry, accepting
from conformance.judge.cost import user_cost
from conformance.judge.judged import judged_alone
from conformance.judge.signature import Signature
from conformance.report.runs import merge_findings
from conformance.report.views import finding_views
from conformance.results.finding import Finding, across_modes

MODES = ("jax", "jax-default", "torch", "torch-compile", "onnxruntime", "onnxruntime-noopt", "onnxruntime-static")
OPS = ("jax.numpy.take", "torch.take_along_dim", "onnx.GatherND-11", "onnx.GatherND-12", "onnx.GatherND-13")


@pytest.fixture(scope="module")
def modes_run():
    import oracles

    names = [n for n in MODES if n in oracles.available()]
    if len(names) < len(MODES):
        pytest.skip(f"needs the oracles {', '.join(sorted(set(MODES) - set(names)))}")
    started = [oracles.get(n) for n in names]
    try:
        yield run_campaign(started, Settings(seed=11, max_examples=8, ops=OPS, atlas=True)), started
    finally:
        for o in started:
            o.close()


def test_no_two_findings_of_a_run_differ_only_in_the_execution_mode(modes_run) -> None:
    result, _ = modes_run
    facts = [f.fact() for f in result.findings]
    assert len(set(facts)) == len(facts)
    for a, b in combinations(result.findings, 2):
        assert not (set(a.modes) & set(b.modes) and a.fact() == b.fact())


def test_a_fact_seen_in_several_modes_is_one_finding_with_a_reproducer_per_mode(modes_run) -> None:
    result, _ = modes_run
    several = [f for f in result.findings if len(f.modes) > 1]
    assert any(set(f.modes) == {"onnxruntime", "onnxruntime-noopt", "onnxruntime-static"} for f in several)
    for f in several:
        assert all(f.scripts[o].startswith(f"# Reproducer: {o} (") for o in f.modes), f.signature.words()


def test_a_behaviour_of_one_mode_stays_apart_and_names_the_modes_that_conform(modes_run) -> None:
    result, started = modes_run
    apart = [f for f in result.findings if f.conforming_modes]
    assert apart, "seed 11 shows behaviours of one mode only (torch eager, jax with x64)"
    by_name = {o.name: o for o in started}
    for f in apart:
        assert not set(f.conforming_modes) & set(f.modes)
        for name in f.conforming_modes:  # replayed alone: that mode conforms on the finding's own example
            oracle = by_name[name]
            got = oracle.run_many([f.case])[0]
            if got.kind is Kind.TIMEOUT:
                continue  # a loaded machine (a compile past the time limit) is no evidence either way
            assert judged_alone(f.case, oracle.info(), got).verdict.conforms, (name, f.signature.words())


def test_the_first_finding_of_the_summary_and_the_report_is_the_worst(modes_run) -> None:
    result, _ = modes_run
    worst = min(user_cost(f.signature) for f in result.findings)
    assert user_cost(result.findings[0].signature) == worst  # results.json: worst first
    assert user_cost(finding_views(result.findings)[0].finding.signature) == worst
    lines = closing_summary(result, result.findings, "r").splitlines()
    first = next(line for line in lines if line.startswith("  NEW"))
    assert user_cost(next(f for f in result.findings if f.signature.words() in first).signature) == worst


# -- the rule on fixed findings: both ways, shard merge and baseline ------------------------------

SIG = Signature(
    "onnx.GatherND",
    "onnxruntime",
    "1.31.1",
    "cpu",
    "session",
    "value instead of error",
    "",
    ("precondition: batch mismatch",),
)
CASE = Case(
    "onnx.GatherND-13",
    np.zeros((2, 3)),
    np.zeros((4, 1), np.int64),
    {"batch_dims": 1},
    CaseTags("in-range", "int64", "float"),
)


def _in(oracle: str, mode: str, **changes: object) -> Finding:
    from dataclasses import replace

    sig = replace(SIG, oracle=oracle, mode=mode, **changes)
    return Finding(sig, CASE, Outcome.returned(np.zeros(1)), {}, framework="onnxruntime", scripts={oracle: oracle})


def test_equal_facts_in_two_modes_merge_and_a_departing_mode_stays_apart() -> None:
    from conformance.core.vocabulary import Condition

    merged = across_modes([_in("onnxruntime", "session"), _in("onnxruntime-noopt", "session (no optimizations)")])
    assert [set(f.modes) for f in merged] == [{"onnxruntime", "onnxruntime-noopt"}]
    assert merged[0].scripts == {"onnxruntime": "onnxruntime", "onnxruntime-noopt": "onnxruntime-noopt"}
    other = Condition.parse(["precondition: index tuple length"])
    apart = across_modes([_in("onnxruntime", "session"), _in("onnxruntime-static", "static", condition=other)])
    assert len(apart) == 2


def test_a_fact_is_shown_in_its_default_mode_whichever_mode_was_built_first() -> None:
    """Findings are built one thread per oracle, so which mode's finding comes
    first is a matter of timing: the finding (and the gate's identity) is the
    default mode's (the shortest oracle name), never the first one built."""
    modes = [("onnxruntime-static", "static"), ("onnxruntime-noopt", "no optimizations"), ("onnxruntime", "session")]
    for order in (modes, modes[::-1], modes[1:] + modes[:1]):
        (merged,) = across_modes([_in(oracle, mode) for oracle, mode in order])
        assert merged.signature.oracle == "onnxruntime" and len(merged.modes) == 3


def test_shards_merge_the_modes_of_one_fact() -> None:
    merged = merge_findings([_in("onnxruntime", "session"), _in("onnxruntime-static", "session (static shapes)")])
    assert len(merged) == 1 and set(merged[0].modes) == {"onnxruntime", "onnxruntime-static"}


def test_a_merged_finding_is_known_only_where_the_baseline_accepts_every_mode() -> None:
    f = across_modes([_in("onnxruntime", "session"), _in("onnxruntime-noopt", "session (no optimizations)")])[0]
    words = {"op": "onnx.GatherND", "outcome": "value instead of error", "condition": ("precondition: batch mismatch",)}
    one = Entry(oracle="onnxruntime", **words)  # type: ignore[arg-type]
    assert accepting(f, [one]) is None
    both = Entry(oracle="onnxruntime", mode="*", oracles=("onnxruntime-noopt",), **words)  # type: ignore[arg-type]
    assert accepting(f, [both]) == both
