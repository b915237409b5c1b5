"""No finding that a fresh process does not confirm (issue 43): each finding's example runs again in a new worker of
its oracle before it is reported; one the fresh worker answers as the docs say is a history effect, kept with both
answers and the cases the campaign's worker ran before it, and never a finding."""

from __future__ import annotations

import numpy as np
from fake_oracles import PATH

from conformance.campaign.confirmation import HistoryEffect, confirmed, history_facts
from conformance.core.case import Case, CaseTags
from conformance.core.vocabulary import RunStatus
from conformance.execution.isolation import IsolatedOracle
from conformance.judge.judged import judged_alone
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult
from conformance.results.stream import Record, ResultStream, rebuild

TAGS = CaseTags("in-range", "int64", "float")
FIRST = Case("numpy.take", np.arange(5.0), np.array([0]), {"axis": 0, "mode": "raise"}, TAGS)
CASE = Case("numpy.take", np.arange(5.0), np.array([3]), {"axis": 0, "mode": "raise"}, TAGS)


def _finding(oracle: IsolatedOracle) -> Finding:
    """The finding the campaign's worker shows on ``CASE``, run after ``FIRST``."""
    seen = oracle.run_many([FIRST, CASE])[1]
    j = judged_alone(CASE, oracle.info(), seen)
    assert not j.verdict.conforms, seen.describe()
    return Finding(j.signature(), CASE, j.reference, {oracle.name: seen})


def test_an_answer_that_depends_on_the_case_run_before_is_a_history_effect_not_a_finding() -> None:
    with IsolatedOracle("fake-wrong-after", PATH, timeout=5) as oracle:
        finding = _finding(oracle)
        assert finding.outcomes[oracle.name].value.tolist() == [4.0]  # 3.0 + 1: it ran FIRST before
        kept, effects = confirmed([finding], [oracle], {oracle.name: oracle.info()})
    assert kept == []
    [effect] = effects
    assert effect.seen.value.tolist() == [4.0] and effect.fresh.value.tolist() == [3.0]
    assert len(effect.before) == 1 and effect.before[0].startswith("numpy.take on data float64[5], indices int64[1]")
    assert history_facts(effects)["per_oracle"] == {"fake-wrong-after": 1}
    assert HistoryEffect.from_json(effect.to_json()) == effect


def test_an_answer_a_fresh_worker_repeats_stays_a_finding() -> None:
    with IsolatedOracle("fake-wrong", PATH, timeout=5) as oracle:
        finding = _finding(oracle)
        first_pid = oracle.pid
        kept, effects = confirmed([finding], [oracle], {oracle.name: oracle.info()})
        assert oracle.pid != first_pid  # a new worker answered
    assert kept == [finding] and effects == []


def test_an_in_process_oracle_has_no_fresh_process_to_ask_and_its_findings_stand() -> None:
    from fake_oracles import FakeOracle

    oracle = FakeOracle("wrong")
    seen = oracle.run(CASE.op, CASE.data, CASE.indices, **CASE.attrs)
    j = judged_alone(CASE, oracle.info(), seen)
    finding = Finding(j.signature(), CASE, j.reference, {oracle.name: seen})
    assert confirmed([finding], [oracle], {oracle.name: oracle.info()}) == ([finding], [])


def test_a_stream_drops_a_finding_a_fresh_worker_did_not_confirm_and_its_facts_say_so(tmp_path) -> None:
    with IsolatedOracle("fake-wrong-after", PATH, timeout=5) as oracle:
        finding = _finding(oracle)
        _, [effect] = confirmed([finding], [oracle], {oracle.name: oracle.info()})
    stream = ResultStream.create(tmp_path / "results.jsonl")
    stream.header(facts={}, seed=0, budget={}, shard=(0, 1))
    stream.record(Record.FINDING, finding.to_json())
    stream.record(Record.HISTORY_EFFECT, effect.to_json())
    stream.end(seconds=1.0, status=RunStatus.COMPLETE)
    stream.close()
    run = rebuild(tmp_path / "results.jsonl")
    assert run.findings == [] and [e["words"] for e in run.history_effects] == [effect.words()]
    assert run.facts["history_effects"]["per_oracle"] == {"fake-wrong-after": 1}
    assert RunResult.from_json(run.to_json()).history_effects == run.history_effects


def test_a_read_outside_the_input_is_never_refuted_by_a_fresh_answer() -> None:
    """The first default run with confirmation (stop 49, seed 0) called MLX's read past the axis a history effect:
    mlx.take on data [[-2.0]] with index 6 read 569.2 (stray bytes) in the campaign's worker and -2.0 in a fresh one,
    which a clamp explains. A stray read may hold anything, a policy's answer included: the finding stands."""
    import base64

    from conformance.campaign.confirmation import repeats
    from conformance.core.oracle import OracleInfo
    from conformance.core.outcome import Outcome

    info = OracleInfo("mlx", "mlx", "0.32.4", "cpu", "eager", ("mlx.take",))
    case = Case(
        "mlx.take",
        np.array([[-2.0]], np.float32),
        np.array([6]),
        {"axis": None},
        CaseTags("oob-above", "int64", "float"),
    )
    stray = np.frombuffer(base64.b64decode("JE0ORA=="), np.float32).copy()
    seen = judged_alone(case, info, Outcome.returned(stray))
    fresh = judged_alone(case, info, Outcome.returned(np.array([-2.0], np.float32)))
    assert not seen.verdict.conforms and fresh.verdict.conforms
    assert repeats(seen, fresh)


def test_the_report_and_the_summary_show_history_effects_apart() -> None:
    from conformance.report.html import render_html
    from conformance.report.markdown import markdown_summary

    with IsolatedOracle("fake-wrong-after", PATH, timeout=5) as oracle:
        finding = _finding(oracle)
        kept, effects = confirmed([finding], [oracle], {oracle.name: oracle.info()})
    run = RunResult({"history_effects": history_facts(effects)}, 0, {}, {}, 1.0, {}, kept)
    html = render_html(run)
    assert 'id="history"' in html and "History effects (1)" in html and effects[0].words() in html.replace("&#39;", "'")
    assert (
        "what the campaign&#39;s worker ran just before" in html or "what the campaign's worker ran just before" in html
    )
    md = markdown_summary(run)
    assert "**1 history effect** (fake-wrong-after 1)" in md


def test_shards_may_differ_in_history_effects_and_their_merge_lists_them_all() -> None:
    """Each shard confirms its own findings: its history effects are its own, never a reason to refuse the merge
    (make test at 1ab40ef: a run and its own stream 'differ in history_effects')."""
    from conformance.report.runs import merge_runs
    from conformance.results.run_result import history_summary

    one = {"signature": {"oracle": "iree"}, "words": "a"}
    a = RunResult({"v": 1, "history_effects": history_summary([one])}, 0, {}, {}, 1.0, {}, [])
    b = RunResult({"v": 1, "history_effects": history_summary([])}, 0, {}, {}, 1.0, {}, [])
    merged = merge_runs([a, b])
    assert merged.history_effects == [one] and merged.facts["history_effects"]["per_oracle"] == {"iree": 1}
