"""The harness never dies and never lies: whatever the oracles answer, a
campaign finishes with zero harness errors, faults become findings once,
results stream to disk, shards merge to the unsharded run."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from conformance.campaign.dispatch import evaluate
from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.cases.strategies import class_cases
from conformance.core.case import Case
from conformance.core.oracle import Capabilities, OracleInfo, Reproducer
from conformance.core.outcome import Outcome
from conformance.core.vocabulary import MismatchKind
from conformance.judge.verdict import reference_outcome
from conformance.report.runs import merge_runs
from conformance.results.run_result import RunResult
from conformance.results.stream import rebuild
from conformance.spec.catalog import specs

ALL_OPS = tuple(s.key for s in specs())


class Fake:
    """An in-process oracle implementing every catalog op with ``answer(case)``."""

    def __init__(self, name: str, answer: Any, ops: tuple[str, ...] = ALL_OPS) -> None:
        self.name, self.answer, self.ops = name, answer, ops

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, "fake", "1.0", "cpu", "eager", self.ops)

    def run_many(self, cases: list[Case], *, timeout: float | None = None) -> list[Any]:
        return [self.answer(c) for c in cases]

    def reproducer(self, case: Case, reference: Outcome) -> Reproducer:
        return Reproducer(self.name, f"# {case.op}\n")


def _reference(case: Case) -> Outcome:
    return reference_outcome(case)


def _junk(case: Case) -> Any:
    """Every kind of wrong answer, chosen by the case."""
    k = int(case.data.size + case.indices.size) % 6
    return [
        None,
        [1, 2],
        Outcome.returned(np.array(["x"])),
        Outcome.returned(np.zeros((2, 3), np.float16)),
        Outcome.raised(RuntimeError("internal"), None),
        Outcome(kind="nonsense"),
    ][k]  # type: ignore[arg-type]


FAKES = [Fake("echo", _reference), Fake("junk", _junk), Fake("raises", lambda c: 1 / 0)]
ECHO_FINDINGS = (MismatchKind.UNDOCUMENTED_DTYPE, MismatchKind.SPEC_SILENT)
"""What the reference's own answers still earn: a dtype ONNX's type constraints
forbid, accepted; a behaviour where the docs are silent, recorded."""


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(class_cases())
def test_every_drawn_case_is_judged_without_a_harness_error(cc) -> None:
    """Every class, regime, dtype and layout the strategies draw goes through
    translate, the reference and the judge on fakes that answer right, wrong
    and with junk, without an exception."""
    infos = {f.name: f.info() for f in FAKES}
    judged = evaluate(cc, FAKES, infos)
    assert all(j.signature() for j in judged if not j.verdict.conforms)
    # the reference's own answer conforms, except on a dtype a type-constrained spec (ONNX) forbids
    assert all(j.verdict.conforms or j.verdict.outcome.kind in ECHO_FINDINGS for j in judged if j.oracle == "echo")


def test_a_campaign_over_junk_answering_oracles_has_no_harness_error(tmp_path) -> None:
    result = run_campaign(FAKES, Settings(seed=1, max_examples=25, shrink_evals=5), out_dir=tmp_path)
    assert result.harness_errors == []
    assert not [
        f for f in result.findings if f.signature.oracle == "echo" and f.signature.outcome.kind not in ECHO_FINDINGS
    ]
    assert {str(f.signature.outcome) for f in result.findings if f.signature.oracle == "junk"} >= {"protocol error"}


@pytest.mark.parametrize(
    "answer",
    [lambda c: Outcome.returned(None), lambda c: Outcome.returned([1]), lambda c: None],
    ids=["value None", "value list", "None"],
)
def test_an_oracle_answering_non_arrays_is_one_protocol_error_finding(answer) -> None:
    fake = Fake("bad", answer, ("numpy.take",))
    result = run_campaign([fake], Settings(seed=2, max_examples=30, ops=("numpy.take",), shrink_evals=3))
    assert result.harness_errors == []
    assert [(f.signature.op, str(f.signature.outcome)) for f in result.findings] == [("numpy.take", "protocol error")]


def test_results_stream_while_running_and_rebuild_a_report_input(tmp_path) -> None:
    result = run_campaign(
        [Fake("echo", _reference), Fake("junk", _junk)],
        Settings(seed=3, max_examples=10, shrink_evals=3),
        out_dir=tmp_path,
    )
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["format"] == 1 and lines[-1]["type"] == "end"
    assert sum(line["type"] == "judged" for line in lines) == result.figures["class_cases"]
    rebuilt = rebuild(tmp_path / "results.jsonl")
    assert {f.signature for f in rebuilt.findings} == {f.signature for f in result.findings}
    assert rebuilt.cases == result.cases and rebuilt.status == "complete"


def test_a_stream_cut_mid_line_rebuilds_as_partial(tmp_path) -> None:
    run_campaign([Fake("junk", _junk)], Settings(seed=4, max_examples=8, shrink_evals=2), out_dir=tmp_path)
    path = tmp_path / "results.jsonl"
    text = path.read_text()
    path.write_text(text[: text.rindex('{"type": "end"') - 1][:-40])  # killed mid-line, before the end
    rebuilt = rebuild(path)
    assert rebuilt.status == "partial" and sum(rebuilt.cases.values()) > 0


def test_results_json_carries_a_format_version(tmp_path) -> None:
    run_campaign([Fake("echo", _reference)], Settings(seed=0, max_examples=3), out_dir=tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["format"] == 3
    assert RunResult.load(tmp_path / "results.json").status == "complete"


def test_merged_shards_equal_the_unsharded_run() -> None:
    fakes = [Fake("echo", _reference), Fake("junk", _junk)]
    whole = run_campaign(fakes, Settings(seed=7, max_examples=20, shrink_evals=3))
    shards = [run_campaign(fakes, Settings(seed=7, max_examples=20, shrink_evals=3, shard=(i, 3))) for i in range(3)]
    merged = merge_runs(shards)
    # every root cause, as each finding stands for them (its own and those merged with it by trigger: which one
    # leads a trigger's findings depends on the case each shard's shrinking ended on)
    assert {s for f in merged.findings for s in f.member_signatures()} == {
        s for f in whole.findings for s in f.member_signatures()
    }
    assert merged.cases == whole.cases and merged.raw_discrepancies == whole.raw_discrepancies
    assert sum(f.count for f in merged.findings) == sum(f.count for f in whole.findings)


def test_a_stop_request_ends_drawing_and_still_returns_results() -> None:
    import threading

    stop = threading.Event()
    calls = 0

    def answer(case: Case) -> Outcome:
        nonlocal calls
        calls += 1
        if calls == 5:
            stop.set()
        return Outcome.returned(np.zeros(3))

    result = run_campaign([Fake("stops", answer)], Settings(seed=0, max_examples=200), stop=stop)
    assert result.status == "interrupted" and result.figures["class_cases"] < 10 and result.findings
