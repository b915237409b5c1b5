"""The HTML report, its Markdown summary and findings.json, on synthetic runs
(no browser here; see test_report_browser.py)."""

from __future__ import annotations

import ast
import base64
import copy
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import conformance.report
from conformance.core.behaviour import BEHAVIOURS, css_class
from conformance.core.case import Case, CaseTags
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.judge.signature import Signature
from conformance.report import build_report, load_runs
from conformance.report.arrays_view import array_view, differing_coordinates
from conformance.report.html import render_html
from conformance.report.markdown import markdown_summary
from conformance.report.matrix_view import MatrixCell, MatrixRow, matrix_rows
from conformance.report.run_view import console_head
from conformance.report.runs import compare_runs, merge_runs
from conformance.report.views import finding_anchor
from conformance.results.finding import Finding, HarnessError
from conformance.results.run_result import MatrixKey, RunResult

REPORT_PACKAGE = Path(conformance.report.__file__).parent

VERSIONS: dict[str, str] = {
    "numpy": "2.4.6",
    "torch": "2.13.0",
    "onnxruntime": "1.31.1",
    "tensorflow": "2.21.0",
    "jax": "0.10.2",
}
ORACLE_FACTS: list[dict[str, Any]] = [
    {"name": n, "framework": n, "version": v, "device": "cpu", "mode": "eager", "ops": [f"{n}.gather"]}
    for n, v in VERSIONS.items()
]
FACTS: dict[str, Any] = {
    "python": "3.11.7",
    "platform": "Linux-x86_64",
    "cores": 2,
    "threads": {"torch": {"num_threads": 2}},
    "oracles": ORACLE_FACTS,
}  # (the shape of oracles.environment.run_facts())


def facts_with(**versions: str) -> dict[str, Any]:
    """FACTS with some oracles' versions changed."""
    return dict(FACTS, oracles=[dict(o, version=versions.get(o["name"], o["version"])) for o in ORACLE_FACTS])


ONNX_BYTES = b"\x08\x09\x12\x07synthetic-model"


def _sig(op: str, oracle: str, version: str, outcome: str, policy: str, *tags: str) -> Signature:
    return Signature(op, oracle, version, "cpu", "eager", outcome, policy, tags)


def onnx_finding() -> Finding:
    """onnxruntime zero-fills an out-of-range GatherElements index the reference rejects."""
    case = Case(
        "onnx.GatherElements-13",
        np.array([[1.5, 2.5], [3.5, 4.5]], np.float32),
        np.array([[0, 7], [1, 0]], np.int64),
        {"axis": 1},
        CaseTags("oob-above", "int64", "float"),
    )
    ref = Outcome.raised(IndexError("index 7 is out of bounds for axis 1 with size 2"), ErrorClass.INDEX_OUT_OF_RANGE)
    got = Outcome.returned(np.array([[1.5, 0.0], [4.5, 3.5]], np.float32))
    return Finding(
        _sig(
            "onnx.GatherElements-13", "onnxruntime", "1.31.1", "value instead of error", "fills or garbage", "bad index"
        ),
        case,
        ref,
        {"onnxruntime": got, "numpy": ref},
        count=12,
        first_seen_s=0.41,
        seed=3,
        scripts={"onnxruntime": "import onnxruntime as ort\nprint('repro')\n"},
        onnx_model_b64=base64.b64encode(ONNX_BYTES).decode(),
    )


def crash_finding() -> Finding:
    """torch crashes (SIGSEGV) on a huge index."""
    case = Case(
        "torch.gather",
        np.arange(6, dtype=np.int32).reshape(2, 3),
        np.array([[2**40, 0, 1]], np.int64),
        {"dim": 1},
        CaseTags("oob-above", "int64", "int"),
    )
    ref = Outcome.raised(IndexError("index 1099511627776 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE)
    return Finding(
        _sig("torch.gather", "torch", "2.13.0", "crash", "", "oob-above"),
        case,
        ref,
        {"torch": Outcome.crashed(11, None, "Fatal Python error: Segmentation fault")},
        count=2,
        first_seen_s=3.2,
        scripts={"torch": "import torch\ntorch.gather(...)\n"},
    )


def string_finding() -> Finding:
    """TensorFlow returns the wrong string (and the strings need escaping)."""
    case = Case(
        "tensorflow.gather",
        np.array(["<b>x</b>", "a&b", ""]),
        np.array([2, 0], np.int32),
        {"axis": 0, "batch_dims": 0},
        CaseTags("in-range", "int32", "str"),
    )
    ref = Outcome.returned(np.array(["", "<b>x</b>"]))
    got = Outcome.returned(np.array(["", "<b>y</b>"]))
    return Finding(
        _sig("tensorflow.gather", "tensorflow", "2.21.0", "wrong value", "", "in-range"),
        case,
        ref,
        {"tensorflow": got},
        count=5,
        first_seen_s=1.0,
    )


def known_finding() -> Finding:
    """A known (baseline) clamp, with an error message to quote verbatim."""
    case = Case(
        "jax.numpy.take",
        np.array([10, 20, 30], np.int64),
        np.array([-1], np.int64),
        {"axis": 0, "mode": "clip"},
        CaseTags("negative", "int64", "int"),
    )
    return Finding(
        _sig("jax.numpy.take", "jax", "0.10.2", "error instead of value (index out of range)", "raises", "negative"),
        case,
        Outcome.returned(np.array([10], np.int64)),
        {"jax": Outcome.raised(ValueError("negative index -1 rejected: 'clip' <mode>"), ErrorClass.NEGATIVE_INDEX)},
        count=40,
        first_seen_s=0.05,
        status="known",
        baseline_note="documented clip semantics differ",
        baseline_link="https://github.com/jax-ml/jax/issues/1",
    )


MATRIX = {
    MatrixKey("onnx.GatherElements", "oob-above", "float"): {
        "onnxruntime": {"fills or garbage": 12, "conforms": 3},
        "numpy": {"conforms": 15},
    },
    MatrixKey("onnx.GatherElements", "oob-above", "int"): {
        "onnxruntime": {"fills or garbage": 4},
        "numpy": {"conforms": 4},
    },
    MatrixKey("torch.gather", "oob-above", "int"): {"torch": {"crash": 2, "raises": 30}},
    MatrixKey("torch.gather", "in-range", "int"): {"torch": {"conforms": 50}},
    MatrixKey("torch.gather", "in-range", "float"): {"torch": {"conforms": 40}},
    MatrixKey("tensorflow.gather", "in-range", "str"): {"tensorflow": {"garbage": 5, "conforms": 1}},
    MatrixKey("jax.numpy.take", "negative", "int"): {"jax": {"raises": 40}},
    MatrixKey("numpy.take", "negative", "int"): {"numpy": {"conforms": 40}},
}


FIGURES: dict[str, Any] = {
    "class_cases": 40,
    "oracle_runs": 246,
    "loop_seconds": 3.2,
    "atlas_seconds": 0.0,
    "cases_per_second": 12.5,
    "oracle_runs_per_second": 76.88,
    "shrink_seconds": 0.8,
    "raw_discrepancies": 59,
    "signatures": 4,
    "harness_errors": 0,
}  # (the shape of conformance.campaign.sightings.Sightings.figures)


def synthetic_run(seed: int = 3, facts: dict | None = None) -> RunResult:
    """A run with an ONNX, a crash, a string-dtype and a known finding."""
    return RunResult(
        facts=dict(facts or FACTS),
        seed=seed,
        budget={"max_examples": 200, "budget_s": None, "ops": None},
        cases={"numpy": 59, "onnxruntime": 19, "torch": 122, "tensorflow": 6, "jax": 40},
        seconds=4.0,
        matrix=copy.deepcopy(MATRIX),
        findings=[onnx_finding(), crash_finding(), string_finding(), known_finding()],
        raw_discrepancies=59,
        figures=dict(FIGURES),
    )


# -- differing elements ---------------------------------------------------------------


def test_differing_coordinates_compare_bits_so_negative_zero_differs_and_nan_matches() -> None:
    ref = Outcome.returned(np.array([[0.0, np.nan], [1.0, 2.0]], np.float32))
    got = Outcome.returned(np.array([[-0.0, np.nan], [1.0, 3.0]], np.float32))
    assert differing_coordinates(ref, got) == [(0, 0), (1, 1)]


def test_differing_coordinates_work_for_strings_and_zero_d_arrays() -> None:
    assert differing_coordinates(Outcome.returned(np.array(["a", "b"])), Outcome.returned(np.array(["a", "c"]))) == [
        (1,)
    ]
    assert differing_coordinates(Outcome.returned(np.array(1.0)), Outcome.returned(np.array(2.0))) == [()]


def test_differing_coordinates_are_empty_when_shapes_dtypes_or_kinds_differ() -> None:
    ref = Outcome.returned(np.zeros(2, np.float32))
    assert differing_coordinates(ref, Outcome.returned(np.ones(3, np.float32))) == []
    assert differing_coordinates(ref, Outcome.returned(np.ones(2, np.float64))) == []
    assert differing_coordinates(ref, Outcome.raised(IndexError("x"), ErrorClass.OTHER)) == []


def test_array_view_labels_blocks_of_higher_rank_arrays_and_marks_hits_with_the_other_value() -> None:
    a = np.arange(8).reshape(2, 2, 2)
    view = array_view(a, highlight=[(1, 0, 1)], other=np.zeros_like(a))
    assert [label for label, _ in view.blocks] == ["[0, :, :]", "[1, :, :]"]
    hit = view.blocks[1][1][0][1]
    assert hit["hit"] and hit["text"] == "5" and hit["other"] == "0" and hit["coord"] == [1, 0, 1]
    assert array_view(np.array(7)).blocks[0][1][0][0]["text"] == "7"
    assert array_view(np.zeros((0, 3))).blocks == [("", [])]


def test_array_view_truncates_large_arrays() -> None:
    view = array_view(np.zeros((1000, 3)))
    assert view.truncated and sum(len(row) for _, rows in view.blocks for row in rows) <= 600


# -- merging shards ---------------------------------------------------------------------


def test_merging_shards_sums_matrix_counts_cases_and_raw_discrepancies() -> None:
    merged = merge_runs([synthetic_run(), synthetic_run()])
    assert merged.matrix[MatrixKey("torch.gather", "oob-above", "int")]["torch"] == {"crash": 4, "raises": 60}
    assert merged.cases["torch"] == 244 and merged.raw_discrepancies == 118 and merged.seconds == 8.0
    assert merged.seed == 3 and merged.facts["shards_merged"] == 2


def test_merging_shards_dedupes_findings_summing_counts_and_keeping_the_smallest_reproducer() -> None:
    small = onnx_finding()
    big = replace(
        onnx_finding(),
        case=replace(small.case, data=np.zeros((4, 4), np.float32)),
        count=3,
        first_seen_s=0.1,
        status="known",
        baseline_note="seen",
    )
    a, b = synthetic_run(), synthetic_run(seed=4)
    a.findings, b.findings = [big], [small, string_finding()]
    merged = merge_runs([a, b])
    assert len(merged.findings) == 2 and merged.seed is None and merged.facts["shard_seeds"] == [3, 4]
    onnx = next(f for f in merged.findings if f.signature.oracle == "onnxruntime")
    assert onnx.count == 15 and onnx.first_seen_s == 0.1 and onnx.case.data.shape == (2, 2)
    assert onnx.status == "known" and onnx.baseline_note == "seen"


def test_merging_refuses_results_from_different_versions_but_ignores_volatile_facts() -> None:
    with pytest.raises(ValueError, match="oracles"):
        merge_runs([synthetic_run(), synthetic_run(facts=facts_with(torch="2.12.0"))])
    assert (
        merge_runs(
            [synthetic_run(facts=FACTS | {"hostname": "a"}), synthetic_run(facts=FACTS | {"hostname": "b"})]
        ).facts["hostname"]
        == "a"
    )


# -- comparing runs ---------------------------------------------------------------------


def test_comparing_runs_reports_appeared_disappeared_and_changed_findings_cells_and_facts() -> None:
    old = synthetic_run(facts=facts_with(torch="2.12.0"))
    old.findings = [
        replace(crash_finding(), signature=replace(crash_finding().signature, version="2.12.0")),
        known_finding(),
    ]
    old.matrix[MatrixKey("torch.gather", "oob-above", "int")] = {"torch": {"raises": 32}}
    new = synthetic_run()
    new.findings = [crash_finding(), onnx_finding()]
    c = compare_runs(old, new)
    assert [f.signature.oracle for f in c.appeared] == ["onnxruntime"]
    assert [f.signature.oracle for f in c.disappeared] == ["jax"]
    assert ("finding", "torch 2.12.0", "torch 2.13.0") in [(x.what, x.before, x.after) for x in c.changed]
    assert ("matrix", "torch.gather|oob-above|int · torch", "raises 32", "crash 2, raises 30") in [
        (x.what, x.key, x.before, x.after) for x in c.changed
    ]
    assert [(x.key, x.before, x.after) for x in c.fact_changes] == [("oracles.torch.version", "2.12.0", "2.13.0")]


def test_comparing_a_run_with_itself_finds_nothing() -> None:
    assert compare_runs(synthetic_run(), synthetic_run()).is_empty()


# -- the matrix -------------------------------------------------------------------------


def cell(row: MatrixRow, oracle: str) -> MatrixCell:
    c = row.cells[oracle]
    assert c is not None, f"no {oracle} cell"
    return c


def test_matrix_collapses_dtype_families_that_behave_alike_and_links_their_findings() -> None:
    run = synthetic_run()
    rows = matrix_rows(run.matrix, ["onnxruntime", "numpy", "torch", "tensorflow", "jax"], run.findings)
    by = {(r.op, r.regime, tuple(r.families)): r for r in rows}
    onnx_row = by[("onnx.GatherElements", "oob-above", ("float", "int"))]
    assert cell(onnx_row, "onnxruntime").worst == "fills or garbage" and cell(onnx_row, "onnxruntime").counts == {
        "fills or garbage": 16,
        "conforms": 3,
    }
    assert [f.signature.oracle for f in cell(onnx_row, "onnxruntime").findings] == ["onnxruntime"]
    assert onnx_row.cells["torch"] is None
    assert cell(by[("torch.gather", "oob-above", ("int",))], "torch").worst == "crash"
    assert cell(by[("torch.gather", "in-range", ("int", "float"))], "torch").worst == "conforms"


def test_matrix_splits_a_row_by_dtype_family_where_families_behave_differently() -> None:
    m = {
        MatrixKey("t", "negative", "int"): {"a": {"raises": 1}},
        MatrixKey("t", "negative", "float"): {"a": {"wraps": 1}},
    }
    assert [r.families for r in matrix_rows(m, ["a"], [])] == [["int"], ["float"]]


# -- the page ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    build_report([synthetic_run()], out)
    return out


def test_report_folder_holds_page_findings_json_summary_scripts_and_onnx_model(report_dir: Path) -> None:
    run = synthetic_run()
    onnx = onnx_finding()
    assert (report_dir / "models" / f"{finding_anchor(onnx)}.onnx").read_bytes() == ONNX_BYTES
    assert (report_dir / "scripts" / f"{finding_anchor(onnx)}_onnxruntime.py").read_text() == onnx.scripts[
        "onnxruntime"
    ]
    assert [f.signature.key() for f in RunResult.load(report_dir / "findings.json").findings] == [
        f.signature.key() for f in run.findings
    ]
    assert (report_dir / "summary.md").read_text().startswith("## gather-conformance: 4 findings (3 new, 1 known)")


def test_page_has_the_matrix_and_a_section_per_finding_with_links_between_them(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    assert 'id="matrix-table"' in html
    for f in synthetic_run().findings:
        anchor = finding_anchor(f)
        assert f'id="{anchor}"' in html and f'href="#{anchor}"' in html
    assert (
        'class="cell b-crash"' in html
        and 'class="cell b-fills-or-garbage"' in html
        and 'class="cell b-garbage"' in html
    )


def test_page_is_self_contained_with_no_external_scripts_styles_or_fonts(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    assert not re.search(r"<script[^>]+src=|<link[^>]+stylesheet|@import|url\(http", html)
    assert "<style>" in html and "<script>" in html


def test_page_quotes_error_messages_verbatim_and_escapes_html_in_data(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    assert "negative index -1 rejected: &#39;clip&#39; &lt;mode&gt;" in html
    assert "&#39;&lt;b&gt;x&lt;/b&gt;&#39;" in html and "<b>x</b>" not in html
    assert "Fatal Python error: Segmentation fault" in html and 'signal <span class="mono">11</span>' in html


def test_page_highlights_differing_elements_with_their_coordinates(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    assert 'class="hit" title="at [1]: reference &#39;&lt;b&gt;x&lt;/b&gt;&#39;"' in html
    assert 'differs at <span class="mono">[1]</span>' in html


def test_page_shows_baseline_note_link_counts_first_find_times_and_run_facts(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    assert "documented clip semantics differ" in html and 'href="https://github.com/jax-ml/jax/issues/1"' in html
    assert (
        "stands for <b>40</b> raw examples" in html
        and "first found after 0.41 s" in html
        and "first found after 50.0 ms" in html
    )
    for name, version in VERSIONS.items():
        assert re.search(rf"<tr><td[^>]*>{name}</td>.*?<td[^>]*>{re.escape(version)}</td>.*?</tr>", html), (
            name
        )  # the oracles table
    assert "Linux-x86_64" in html and "cases/s" in html
    assert html.index('F1</a> <span class="badge new">') < html.index("badge known")  # new findings first


def test_page_links_the_onnx_model_file_and_offers_copy_buttons_for_scripts(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    anchor = finding_anchor(onnx_finding())
    assert f'href="models/{anchor}.onnx"' in html
    assert f'data-copy="{anchor}-script-1"' in html and f'id="{anchor}-script-1"' in html


def test_an_empty_run_renders_without_findings_or_matrix() -> None:
    html = render_html(RunResult({}, None, {}, {}, 0.0, {}, []))
    assert "No findings" in html and "no behaviour matrix" in html


# -- comparing in the report, the summary and the CLI entry point -----------------------------------------


def test_comparison_report_shows_what_appeared_and_writes_comparison_json(tmp_path: Path) -> None:
    old, new = synthetic_run(), synthetic_run()
    old.findings = old.findings[:2]
    old.save(tmp_path / "old.json")
    new.save(tmp_path / "new.json")
    index = build_report(load_runs([tmp_path / "old.json", tmp_path / "new.json"]), tmp_path / "out", compare=True)
    html = index.read_text()
    assert 'id="comparison"' in html and "Appeared (2)" in html and "Disappeared (0)" in html
    assert len(json.loads((tmp_path / "out" / "comparison.json").read_text())["appeared"]) == 2
    assert "### Changes since the compared run" in (tmp_path / "out" / "summary.md").read_text()


def test_compare_needs_exactly_two_results(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exactly two"):
        build_report([synthetic_run()], tmp_path, compare=True)


def test_markdown_summary_leads_with_what_is_new_then_lists_findings_new_first_and_the_cells_that_do_not_conform() -> (
    None
):
    md = markdown_summary(synthetic_run())
    lines = md.splitlines()
    assert lines[0] == "## gather-conformance: 4 findings (3 new, 1 known): 3 bugs, 1 hazards, 0 questions"
    assert lines[2] == "**New**: 3 findings not in the baseline; the worst:"
    assert (
        # bugs by severity (issue 39): a silent wrong value where the docs define one, then a stray read where they
        # promise an error; the crash where torch's docs are silent is a hazard, after the bugs
        lines[3].startswith("- F1 tensorflow.gather on tensorflow 2.21.0")
        and lines[4].startswith("- F2 onnx.GatherElements-13 on onnxruntime 1.31.1")
        and len([x for x in lines[3:7] if x.startswith("- F")]) == 3
    )
    facts = next(x for x in lines if x.startswith("246 oracle runs"))
    assert facts.startswith(console_head(synthetic_run())) and "seed 3" in facts and "torch 2.13.0" in facts
    rows = [line for line in lines if line.startswith("| F")]
    assert [r.split(" | ")[1] for r in rows] == ["NEW", "NEW", "NEW", "known"]
    assert rows[0].startswith("| F1 | NEW | bug | tensorflow.gather on tensorflow 2.21.0")  # worst first
    assert "| torch.gather · oob-above · int | torch | crash 2, raises 30 |" in md


def test_reports_from_paths_merge_shards_and_refuse_results_that_cannot_be_merged(tmp_path: Path) -> None:
    synthetic_run().save(tmp_path / "a.json")
    synthetic_run(seed=4).save(tmp_path / "b.json")
    synthetic_run(facts=dict(FACTS, platform="Darwin")).save(tmp_path / "c.json")
    assert build_report(load_runs([tmp_path / "a.json", tmp_path / "b.json"]), tmp_path / "r").name == "index.html"
    merged = RunResult.load(tmp_path / "r" / "findings.json").findings
    assert next(f.count for f in merged if f.signature == onnx_finding().signature) == 24
    with pytest.raises(ValueError, match="platform"):
        build_report(load_runs([tmp_path / "a.json", tmp_path / "c.json"]), tmp_path / "r2")
    assert not (tmp_path / "r2").exists()


def test_outcome_kinds_each_render(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    for kind in (Kind.VALUE, Kind.ERROR, Kind.CRASH):
        assert f"kind kind-{kind.value}" in html


# -- behaviour colours, run status, harness errors ------------------------------------------------------


def test_page_colours_and_legend_come_from_the_behaviour_table(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text()
    style = (REPORT_PACKAGE / "templates" / "_style.css.j2").read_text()
    assert not re.search(r"^\s*\.b-", style, re.MULTILINE), "behaviour colours are generated, not hand-written"
    for behaviour, look in BEHAVIOURS.items():
        assert re.search(rf"\.{css_class(behaviour.value)} {{ background: {look.background};", html), behaviour
        assert f'title="{look.meaning}"' in html.replace("&#39;", "'"), (
            behaviour
        )  # the legend says what each word means


def test_protocol_errors_and_not_run_outcomes_render_with_their_own_badges() -> None:
    f = known_finding()
    f.outcomes = {
        "jax": Outcome.protocol_error("answered NoneType instead of an Outcome"),
        "numpy": Outcome.not_run("worker broken"),
    }
    html = render_html(RunResult({}, 0, {}, {}, 1.0, {}, [f]))
    assert 'class="kind kind-protocol-error"' in html and "answered NoneType instead of an Outcome" in html
    assert 'class="kind kind-not-run"' in html and "worker broken" in html
    assert ".kind-protocol-error {" in html and ".kind-not-run {" in html


def test_harness_errors_and_an_incomplete_status_show_and_survive_merging() -> None:
    a, b = synthetic_run(), synthetic_run()
    a.harness_errors = [HarnessError("judge", "KeyError: 'x'", {"seed": 1}, "Traceback ...")]
    b.status = "interrupted"
    merged = merge_runs([a, b])
    assert [e.stage for e in merged.harness_errors] == ["judge"] and merged.status == "interrupted"
    html = render_html(merged)
    assert 'id="harness"' in html and "KeyError: &#39;x&#39;" in html and 'id="run-status"' in html
    md = markdown_summary(merged).splitlines()
    at = md.index(next(x for x in md if x.startswith("**Run interrupted**")))
    assert md[at + 1] == "**1 harness error** (judge: KeyError: 'x')"
    assert 'id="harness"' not in render_html(synthetic_run())


def test_comparison_changes_link_the_finding_they_are_about() -> None:
    old, new = synthetic_run(facts=facts_with(torch="2.12.0")), synthetic_run()
    old.findings = [replace(crash_finding(), signature=replace(crash_finding().signature, version="2.12.0"))]
    html = render_html(new, compare_runs(old, new))
    assert f'<a href="#{finding_anchor(crash_finding())}">{crash_finding().signature.words()}</a>' in html


# -- the report folder is the report's own ------------------------------------------------------------------


def test_a_report_replaces_what_an_earlier_report_wrote_and_keeps_other_files(tmp_path: Path) -> None:
    build_report([synthetic_run()], tmp_path)
    old, new = synthetic_run(), synthetic_run()
    old.findings = old.findings[:1]
    build_report([old, new], tmp_path, compare=True)
    assert (tmp_path / "comparison.json").exists()
    (tmp_path / "results.jsonl").write_text("{}\n")
    (tmp_path / "scripts" / "my-notes.py").write_text("# mine\n")
    (tmp_path / "notes.md").write_text("mine\n")
    run = synthetic_run()
    run.findings = [string_finding()]  # no scripts, no model
    build_report([run], tmp_path)
    assert not (tmp_path / "comparison.json").exists() and not (tmp_path / "models").exists()
    assert [p.name for p in (tmp_path / "scripts").iterdir()] == ["my-notes.py"]
    assert (tmp_path / "results.jsonl").exists() and (tmp_path / "notes.md").exists()
    assert len(RunResult.load(tmp_path / "findings.json").findings) == 1


# -- the package's structure ------------------------------------------------------------------------


def report_imports() -> dict[str, set[str]]:
    """Each module of conformance/report -> the modules of the package it
    imports (and ``ext:<name>`` for top-level packages outside ``conformance``), from its AST."""
    modules = {p.stem: p for p in REPORT_PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = (
                    [f"{node.module}.{a.name}" for a in node.names]
                    if node.module == "conformance.report"
                    else [node.module]
                )
            for full in names:
                parts = full.split(".")
                if parts[:2] == ["conformance", "report"]:
                    targets.add(parts[2] if len(parts) > 2 and parts[2] in modules else "__init__")
                elif parts[0] != "conformance":
                    targets.add(f"ext:{parts[0]}")
        graph[name] = targets - {name}
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_report_modules_import_each_other_without_cycles_and_the_renderers_stay_apart() -> None:
    graph = report_imports()
    assert {"html", "markdown", "views", "runs"} <= set(graph)
    for name in graph:
        assert name not in reachable(graph, name), f"import cycle through conformance/report/{name}.py"
    assert "markdown" not in reachable(graph, "html") and "html" not in reachable(graph, "markdown")
    assert {"views"} <= graph["html"] & graph["markdown"]
    assert "__init__" not in set().union(*(graph[n] for n in graph if n != "__init__"))
    for name, targets in graph.items():
        assert "ext:oracles" not in targets and "ext:argparse" not in targets, name


def test_a_finding_card_shows_the_doc_sentence_it_departs_from() -> None:
    """Issue 22: the card quotes the sentence of the op's docs behind the rule, with its link (or says the docs are
    silent)."""
    from conformance.spec.basis import departed

    f = known_finding()
    html = render_html(RunResult({}, 0, {}, {}, 1.0, {}, [f]))
    basis = departed("jax.numpy.take", f.signature.condition.kind)
    assert basis.quote == 'The default mode="fill" returns invalid values (e.g. NaN) for out-of bounds indices'
    assert '<blockquote class="basis">Departs from: “' in html
    assert "returns invalid values (e.g. NaN) for out-of bounds indices" in html.replace("&#34;", '"')
    assert f'<a href="{basis.url}">' in html


def test_a_finding_card_says_where_the_docs_are_silent() -> None:
    f = known_finding()
    f.case = Case("torch.gather", np.array([10, 20]), np.array([-1]), {"dim": 0}, CaseTags("negative", "int64", "int"))
    f.signature = replace(f.signature, op="torch.gather")
    html = render_html(RunResult({}, 0, {}, {}, 1.0, {}, [f]))
    assert '<div class="basis muted">The docs are silent here: negatives are not documented' in html


def test_a_finding_card_quotes_a_requirement_the_docs_do_not_call_an_error() -> None:
    """Regression (check --seed 0 at 49e4d24 died rendering the report): a basis of status silent with a quote (ONNX
    GatherND's "2) The first b dimensions ... must be equal.") renders as a requirement, in the card and the upstream
    text alike."""
    from conformance.core.blame import Rule
    from conformance.report.upstream import issue_text

    f = known_finding()
    data, indices = np.zeros((1, 5, 1), np.float32), np.array([[[1]], [[2]]], np.int64)
    f.case = Case("onnx.GatherND-13", data, indices, {"batch_dims": 1}, CaseTags("in-range", "int64", "float"))
    f.signature = replace(
        f.signature,
        op="onnx.GatherND-13",
        outcome="value instead of error",
        policy="",
        condition=("precondition: batch mismatch",),
    )
    f.reference = Outcome(
        Kind.ERROR,
        error_type="ValueError",
        error_class=ErrorClass.SHAPE_INVALID,
        rule=Rule.BATCH_MISMATCH,
        argument="indices",
    )
    html = render_html(RunResult({}, 0, {}, {}, 1.0, {}, [f]))
    assert "The docs require this, without saying that breaking it is an error: “2) The first b dimensions" in html
    assert "a requirement; the docs do not say that breaking it is an error" in issue_text(f, {})


def test_a_finding_whose_attributes_are_numpy_scalars_and_0d_arrays_renders_them_as_python() -> None:
    """Regression: the attribute domain draws ``np.int64(1)`` and 0-d arrays; the report's card wrote
    attributes with ``tojson`` and a default campaign's report died with "ndarray is not JSON serializable"."""
    f = onnx_finding()
    f = replace(f, case=replace(f.case, attrs={"axis": np.int64(1), "batch_dims": np.array(0), "mode": None}))
    html = render_html(RunResult({}, 0, {}, {}, 1.0, {}, [f]))
    assert "axis=np.int64(1), batch_dims=np.array(0), mode=None)" in html
    markdown_summary(RunResult({}, 0, {}, {}, 1.0, {}, [f]))  # and the summary writes it too
