"""The report's first screen and what surrounds it (issue 14): the probe
atlas as tables (rows class × condition in probe order, columns framework
ops, marks for disagreeing rows and cells that depart from their docs,
evidence and finding links), the dtype tables, the findings grouped and
filterable, upgrades at a glance, the legend in words, run facts that agree
with the console, and the Markdown summary's lead. No browser here (see
test_report_browser.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_report import FIGURES, crash_finding, known_finding, onnx_finding, synthetic_run

from conformance.campaign.atlas_runner import run_atlas
from conformance.cases.probes import CONDITIONS, condition_order
from conformance.cli.console import closing_summary
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import ErrorClass, Outcome
from conformance.judge.signature import Signature
from conformance.report import build_report, load_atlases
from conformance.report.atlas_view import atlas_tables
from conformance.report.dtype_view import dtype_tables
from conformance.report.html import render_html
from conformance.report.markdown import markdown_summary
from conformance.report.run_view import console_head
from conformance.report.runs import compare_runs
from conformance.report.views import finding_anchor
from conformance.results.atlas import Atlas, AtlasCell, RootSighting
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult

# -- atlases to show --------------------------------------------------------------------------

E, B = "element gather", "block gather"
OOB = {"reference": "error IndexError (index out of range)", "observed": "value float32[1]"}


def example(op: str, indices: Sequence[int], regime: str, **attrs: object) -> dict[str, object]:
    """A probe example as the atlas writes it: the case, what the docs give and what happened."""
    return (
        Case(
            op, np.arange(5, dtype=np.float32), np.array(indices), dict(attrs), CaseTags(regime, "int64", "float")
        ).to_json()
        | OOB
    )


def cell(
    cond: str,
    eq: str,
    op: str,
    oracle: str,
    version: str,
    behaviour: str,
    documented: bool,
    error: str | None = None,
    roots: tuple[RootSighting, ...] = (),
) -> AtlasCell:
    regime = "negative" if cond in ("negative", "minus-size") else "oob-above" if cond == "size" else "in-range"
    ex = example(op, [5 if cond == "size" else -1], regime)
    return AtlasCell(cond, eq, op, oracle, version, behaviour, error, documented, ex, roots=roots)


def hand_atlas(torch_size: str = "raises") -> Atlas:
    """Element and block gather on a few ops: numpy and torch disagree on ``size``;
    two onnxruntime modes alike (one column); onnx.Gather-1 wraps negatives where its docs are silent."""
    cells = [
        cell("in-range", E, "numpy.take_along_axis", "numpy", "2.4.6", "conforms", True),
        cell("in-range", E, "torch.gather", "torch", "2.13.0", "conforms", True),
        cell("size", E, "numpy.take_along_axis", "numpy", "2.4.6", "raises", True, "index out of range"),
        cell(
            "size",
            E,
            "torch.gather",
            "torch",
            "2.13.0",
            torch_size,
            torch_size == "raises",
            "index out of range" if torch_size == "raises" else None,
            ()
            if torch_size == "raises"
            else (RootSighting(torch_size_signature(), frozenset({Behaviour(torch_size)})),),
        ),
        cell("data-str", E, "numpy.take_along_axis", "numpy", "2.4.6", "conforms", True),
        cell("data-str", E, "torch.gather", "torch", "2.13.0", "not supported", True),
        cell("negative", B, "onnx.Gather-1", "onnxruntime", "1.31.1", "wraps", False),
        cell("negative", B, "onnx.Gather-1", "onnxruntime-noopt", "1.31.1", "wraps", False),
        cell("negative", B, "numpy.take", "numpy", "2.4.6", "wraps", True),
    ]
    return Atlas(cells)


ORACLES = {
    "numpy": {"framework": "numpy", "version": "2.4.6", "mode": "eager"},
    "torch": {"framework": "torch", "version": "2.13.0", "mode": "eager"},
    "onnxruntime": {"framework": "onnxruntime", "version": "1.31.1", "mode": "session"},
    "onnxruntime-noopt": {"framework": "onnxruntime", "version": "1.31.1", "mode": "session (no optimizations)"},
}


def torch_size_signature() -> Signature:
    """The root cause of torch clamping an index of ``size`` where its docs say it raises."""
    return Signature(
        "torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "clamps", ("bad index",)
    )


def torch_size_finding() -> Finding:
    """torch clamps an index of ``size`` where its docs say it raises (the finding behind the ``size`` cell)."""
    case = Case(
        "torch.gather",
        np.arange(5, dtype=np.float32),
        np.array([5]),
        {"dim": 0},
        CaseTags("oob-above", "int64", "float"),
    )
    ref = Outcome.raised(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE)
    return Finding(torch_size_signature(), case, ref, {"torch": Outcome.returned(np.array([4.0], np.float32))}, count=3)


class Clamping:
    """A stand-in framework whose take_along_axis clamps every index into range (NumPy raises)."""

    name = "clampy"

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return OracleInfo("clampy", "clampy", "0.1", "cpu", "eager (clamps)", ("numpy.take_along_axis",))

    def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
        out = []
        for c in cases:
            try:
                axis = c.attrs.get("axis")
                data = c.data.reshape(-1) if axis is None else c.data
                size = data.shape[0 if axis is None else axis]
                idx = (
                    np.clip(c.indices.astype(np.int64), 0, max(size - 1, 0))
                    if c.indices.dtype.kind in "iu"
                    else c.indices
                )
                out.append(
                    Outcome.returned(np.asarray(np.take_along_axis(data, idx, axis=0 if axis is None else axis)))
                )
            except Exception as exc:  # noqa: BLE001 - a stand-in: any error is an answer
                out.append(Outcome.raised(exc, ErrorClass.SHAPE_INVALID))
        return out


def numpy_and_clamping_atlas() -> Atlas:
    """A real atlas: NumPy's take_along_axis (in process) next to :class:`Clamping`."""
    from oracles.numpy_oracle import oracles_here

    oracles = [*oracles_here(), Clamping()]
    return run_atlas(oracles, {o.name: o.info() for o in oracles}, ops=["numpy.take_along_axis"])


def inprocess_atlas(names: Sequence[str]) -> Atlas | None:
    """The atlas of in-process oracles (None where none is installed); the
    ``numpy.take(mode="wrap")`` cases that hang NumPy answered as timeouts."""
    from conformance.execution import registry

    class NoHang:
        def __init__(self, oracle: object) -> None:
            self.oracle, self.name = oracle, oracle.name  # type: ignore[attr-defined]

        capabilities = Capabilities()

        def info(self) -> OracleInfo:
            return self.oracle.info()  # type: ignore[attr-defined, no-any-return]

        def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
            ok = [c for c in cases if not hangs(c) and not aborts(c)]
            ran = iter(self.oracle.run_many(ok))  # type: ignore[attr-defined]
            skipped = Outcome.not_run("in process: an attribute outside int32 aborts some frameworks")
            return [Outcome.timed_out(20.0) if hangs(c) else skipped if aborts(c) else next(ran) for c in cases]

    def aborts(case: Case) -> bool:
        """An attribute of the attribute domain that is no small int (onnxruntime's GatherND aborts the
        process on batch_dims at the int64 extremes: in process, that is the test's own death)."""
        return any(
            not isinstance(v, int) or isinstance(v, bool) or abs(v) > 2**31
            for k, v in case.attrs.items()
            if k in ("axis", "batch_dims", "dim") and v is not None
        )

    def hangs(case: Case) -> bool:
        i = np.asarray(case.indices)
        big = i.size and i.dtype.kind in "iu" and (int(i.min()) < -(2**40) or int(i.max()) > 2**40)
        return case.op == "numpy.take" and case.attrs.get("mode") == "wrap" and bool(big)

    here = registry.available()
    oracles = [NoHang(registry.get(n, isolated=False)) for n in names if n in here]
    return run_atlas(oracles, {o.name: o.info() for o in oracles}) if oracles else None


def run_with(findings: list[Finding] | None = None) -> RunResult:
    run = synthetic_run()
    run.facts = dict(run.facts, oracles=[{"name": n, **info} for n, info in ORACLES.items()])
    if findings is not None:
        run.findings = findings
    return run


# -- the atlas tables -----------------------------------------------------------------------------


def test_atlas_rows_are_class_by_condition_in_probe_order_under_their_group() -> None:
    tables = atlas_tables(hand_atlas(), [], {}, ORACLES)
    assert [t.eq_class for t in tables] == [E, B]  # EqClass order
    rows = tables[0].rows
    assert (
        [r.condition for r in rows]
        == sorted((r.condition for r in rows), key=condition_order)
        == ["in-range", "size", "data-str"]
    )
    assert [(r.group, r.group_start) for r in rows] == [
        ("index values", True),
        ("index values", False),
        ("dtypes", True),
    ]
    assert rows[1].words == next(c.words for c in CONDITIONS if c.key == "size")


def test_atlas_columns_are_framework_ops_grouped_by_framework_with_version_and_mode_and_alike_oracles_share_one() -> (
    None
):
    element, block = atlas_tables(hand_atlas(), [], {}, ORACLES)
    assert [(c.framework, c.op, c.oracles) for c in element.columns] == [
        ("numpy", "numpy.take_along_axis", ("numpy",)),
        ("torch", "torch.gather", ("torch",)),
    ]
    assert element.frameworks == [("numpy", "2.4.6", 1), ("torch", "2.13.0", 1)]
    ort = next(c for c in block.columns if c.framework == "onnxruntime")
    assert ort.oracles == ("onnxruntime", "onnxruntime-noopt") and ort.oracle_label == "onnxruntime +1"
    assert "session (no optimizations)" in ort.title and ort.op_label == "Gather-1"


def test_a_row_where_the_ops_of_a_class_disagree_is_marked_and_not_supported_does_not_count() -> None:
    rows = {r.condition: r for r in atlas_tables(hand_atlas("clamps"), [], {}, ORACLES)[0].rows}
    assert rows["size"].disagree and rows["size"].behaviours == ["raises", "clamps"]
    assert (
        not rows["in-range"].disagree and not rows["data-str"].disagree
    )  # conforms vs not supported: nothing to compare
    assert not atlas_tables(hand_atlas("raises"), [], {}, ORACLES)[0].rows[1].disagree


def test_cells_say_what_happened_with_the_error_class_and_are_marked_where_they_depart_from_their_docs() -> None:
    element, block = atlas_tables(hand_atlas("clamps"), [], {}, ORACLES)
    numpy_size, torch_size = element.rows[1].cells
    assert numpy_size is not None and torch_size is not None
    assert (numpy_size.word, numpy_size.error, numpy_size.departs, numpy_size.css) == (
        "raises",
        "index",
        False,
        "b-raises",
    )
    assert (torch_size.word, torch_size.departs, torch_size.css) == ("clamps", True, "b-clamps")
    gather_1 = next(c for c in block.rows[0].cells if c is not None and c.departs)
    assert gather_1.silent  # onnx.Gather-1's docs say nothing about negative indices


def test_a_cell_links_the_finding_that_stands_for_its_root_cause_only() -> None:
    behind = torch_size_finding()
    elsewhere = replace(behind, signature=replace(behind.signature, policy=Behaviour.WRAPS))
    other_oracle = replace(behind, signature=replace(behind.signature, oracle="torch-compile"))
    findings = [behind, elsewhere, other_oracle]
    anchors = {f.signature.key(): (finding_anchor(f), n) for n, f in enumerate(findings, start=1)}
    records: list[dict[str, object]] = []
    size_row = atlas_tables(hand_atlas("clamps"), findings, anchors, ORACLES, evidence_out=records)[0].rows[1]
    torch_cell = size_row.cells[1]
    assert torch_cell is not None and torch_cell.findings == [(finding_anchor(behind), 1, "new")]
    record = records[torch_cell.evidence]
    assert record["f"] == [[finding_anchor(behind), "F1", "new", behind.signature.words()]]
    rows = dict(record["r"])  # type: ignore[arg-type]
    assert (
        rows["indices"] == "int64[1] = [5]"
        and rows["expected"].startswith("error IndexError")
        and rows["observed"] == "value float32[1]"
    )
    assert record["v"] == "departs from its docs" and record["b"] == "clamps"


def test_the_page_shows_the_atlas_first_with_marks_links_and_evidence_that_cannot_break_out_of_its_script(
    tmp_path: Path,
) -> None:
    run = run_with([torch_size_finding(), *synthetic_run().findings])
    run.dtype_support = DTYPES
    atlas = hand_atlas("clamps")
    atlas.cells[0] = replace(atlas.cells[0], example=atlas.cells[0].example | {"message": "</script><b>x</b>"})
    html = render_html(run, atlas=atlas)
    assert (
        html.index('id="atlas"') < html.index('id="dtypes"') < html.index('id="findings"') < html.index('id="matrix"')
    )
    assert '<tr class="disagree departs-row" data-condition="size">' in html and '<span class="ne">≠</span>' in html
    assert 'class="ac b-clamps departs"' in html and 'class="ac b-wraps silent"' in html
    assert f'<a class="fref new" href="#{finding_anchor(torch_size_finding())}">F' in html
    evidence = re.search(r'<script type="application/json" id="atlas-evidence">(.*?)</script>', html, re.DOTALL)
    assert evidence is not None and "<" not in evidence.group(1)
    assert "</script><b>x</b>" in json.dumps(json.loads(evidence.group(1)))  # intact once parsed


REAL_OPS = (
    "numpy.take_along_axis",
    "numpy.advanced_indexing",
    "torch.gather",
    "torch.take_along_dim",
    "torch.index_select",
)
"""Ops of a small real campaign whose atlas departs from the docs in many ways (no ``numpy.take(mode="wrap")``: it
hangs)."""


def test_every_departing_cell_of_a_real_campaign_links_the_finding_that_stands_for_it(tmp_path: Path) -> None:
    from conformance.campaign.dispatch import close_all
    from conformance.campaign.runner import run_campaign
    from conformance.campaign.settings import Settings
    from conformance.execution import registry
    from conformance.report.atlas_match import FindingIndex, cell_findings

    names = [n for n in ("numpy", "torch") if n in registry.available()]
    if not names:
        pytest.skip("neither numpy nor torch oracles here")
    oracles = [registry.get(n) for n in names]
    try:
        settings = Settings(seed=0, max_examples=4, ops=REAL_OPS, atlas=True)
        result = run_campaign(oracles, settings, out_dir=tmp_path)  # type: ignore[arg-type]
    finally:
        close_all(oracles)
    atlas = Atlas.load(tmp_path / "atlas.json")
    departing = [c for c in atlas.cells if not c.documented and c.behaviour is not Behaviour.HARNESS_ERROR]
    index = FindingIndex(result.findings)
    unlinked = [f"{c.condition} {c.op} {c.oracle}: {c.behaviour}" for c in departing if not cell_findings(c, index)]
    assert len(departing) > 10 and unlinked == []
    tables = atlas_tables(
        atlas,
        result.findings,
        {f.signature.key(): (finding_anchor(f), n) for n, f in enumerate(result.findings, start=1)},
        {},
    )
    shown = [c for t in tables for r in t.rows for c in r.cells if c is not None and c.departs and not c.silent]
    assert shown and all(c.findings for c in shown)


def test_a_real_atlas_renders_every_cell_and_marks_where_a_clamping_framework_disagrees_with_numpy() -> None:
    atlas = numpy_and_clamping_atlas()
    tables = atlas_tables(atlas, [], {}, {"clampy": {"framework": "clampy", "mode": "eager (clamps)"}})
    assert sum(c is not None for t in tables for r in t.rows for c in r.cells) == len(atlas.cells)
    rows = {(t.eq_class, r.condition): r for t in tables for r in t.rows}
    assert rows[(E, "size")].disagree and not rows[(E, "in-range")].disagree
    assert [c.framework for c in tables[0].columns] == ["numpy", "clampy"]
    html = render_html(run_with(), atlas=atlas)
    assert html.count('<td class="ac ') == len(atlas.cells)


# -- where the atlas comes from --------------------------------------------------------------------


def test_build_report_takes_the_atlas_beside_the_results_or_in_its_folder_if_its_versions_are_the_runs(
    tmp_path: Path,
) -> None:
    run = run_with()
    run.save(tmp_path / "results.json")
    hand_atlas().save(tmp_path / "atlas.json")
    assert [a is not None for a in load_atlases([tmp_path, tmp_path / "results.json", tmp_path / "nothing"])] == [
        True,
        True,
        False,
    ]
    html = build_report([run], tmp_path).read_text()  # the campaign's own folder
    assert 'class="atlas"' in html and 'id="no-atlas"' not in html
    other = tmp_path / "elsewhere"
    assert 'id="no-atlas"' in build_report([run], other).read_text()
    assert 'class="atlas"' in build_report([run], other, atlases=load_atlases([tmp_path])).read_text()
    upgraded = Atlas([replace(c, version="9.9") if c.oracle == "torch" else c for c in hand_atlas().cells])
    upgraded.save(tmp_path / "atlas.json")  # not this run's: left out
    assert 'id="no-atlas"' in build_report([run], tmp_path).read_text()


# -- upgrades at a glance ---------------------------------------------------------------------------


def upgrade() -> tuple[RunResult, RunResult, Atlas, Atlas]:
    old, new = run_with(), run_with()
    old.facts = dict(
        old.facts,
        oracles=[{"name": n, **info, **({"version": "2.12.0"} if n == "torch" else {})} for n, info in ORACLES.items()],
    )
    before = Atlas([replace(c, version="2.12.0") if c.oracle == "torch" else c for c in hand_atlas("clamps").cells])
    return old, new, before, hand_atlas("raises")


def test_an_upgrade_report_leads_with_the_atlas_cells_that_changed(tmp_path: Path) -> None:
    old, new, before, after = upgrade()
    index = build_report([old, new], tmp_path, compare=True, atlases=[before, after])
    html = index.read_text()
    words = "2.12.0 → 2.13.0: clamps → raises (index out of range)"
    assert html.index('id="upgrades"') < html.index('id="atlas"') and words in html
    assert "changed" in re.search(r'<td class="ac [^"]*changed[^"]*"', html).group(0)  # type: ignore[union-attr]
    summary = (tmp_path / "summary.md").read_text().splitlines()
    changed = next(i for i, line in enumerate(summary) if line.startswith("**Changed**"))
    assert changed < 10 and summary[changed + 1] == f"- {words} · torch.gather on torch: index size (element gather)"
    assert json.loads((tmp_path / "comparison.json").read_text())["atlas"][0]["after"] == "raises (index out of range)"


def test_an_upgrade_that_changed_no_cell_says_so() -> None:
    old, new, _, after = upgrade()
    html = render_html(new, compare_runs(old, new), atlas=after, old_atlas=after)
    assert "No atlas cell changed" in html


# -- dtypes, findings, legend, facts ------------------------------------------------------------------


DTYPES = [
    {"op": op, "oracle": oracle, "arg": arg, "dtype": dtype, "documented": doc, "statuses": statuses}
    for op, oracle, arg, dtype, doc, statuses in [
        ("torch.gather", "torch", "index", "int32", True, {"rejected (dtype unsupported)": 3}),
        ("torch.gather", "torch", "index", "int64", True, {"accepted": 9}),
        ("torch.gather", "torch", "data", "bfloat16", True, {"wrong": 1, "accepted": 2}),
        ("onnx.Gather-11", "onnxruntime", "index", "int64", True, {"accepted": 4}),
        ("onnx.Gather-13", "onnxruntime", "index", "int64", True, {"accepted": 5}),
        ("onnx.Gather-13", "onnxruntime", "data", "str", False, {"cannot hold": 2}),
    ]
]


def test_dtype_support_is_two_compact_tables_with_ops_as_rows() -> None:
    index, data = dtype_tables(DTYPES)
    assert (index.title, index.dtypes, data.title, data.dtypes) == (
        "Index dtypes",
        ["int32", "int64"],
        "Data dtypes",
        ["bfloat16", "str"],
    )
    assert [r.label for r in index.rows] == ["onnx.Gather-11, -13 · onnxruntime", "torch.gather · torch"]
    rejected = index.rows[1].cells["int32"]
    assert (rejected.word, rejected.departs, index.rows[1].cells["int64"].word) == ("rejected", True, "ok")
    assert data.rows[1].cells["bfloat16"].word == "wrong" and data.rows[0].cells["str"].word == "n/a"
    run = run_with()
    run.dtype_support = DTYPES
    html = render_html(run)
    assert 'id="dtypes-index"' in html and 'id="dtypes-data"' in html and "rejected (dtype unsupported) 3" in html


def test_findings_are_grouped_new_then_spec_silent_then_known_collapsed_with_what_the_filter_reads() -> None:
    silent = replace(
        onnx_finding(), signature=replace(onnx_finding().signature, outcome="spec silent", condition=("negative",))
    )
    html = render_html(run_with([known_finding(), silent, crash_finding(), onnx_finding()]))
    new, spec, known = (html.index(f'id="group-{g}"') for g in ("new", "silent", "known"))
    assert new < spec < known and "Spec silent (1)" in html
    crash = re.search(rf'<details class="finding new" id="{finding_anchor(crash_finding())}"[^>]*>', html)
    assert crash is not None and 'data-framework="torch"' in crash.group(0) and " open" in crash.group(0)
    jax = re.search(rf'<details class="finding known" id="{finding_anchor(known_finding())}"[^>]*>', html)
    assert jax is not None and " open" not in jax.group(0) and 'data-status="known"' in jax.group(0)
    assert 'data-filter="framework"' in html and 'id="finding-search"' in html and "<option>jax</option>" in html


def test_the_legend_says_in_words_what_each_behaviour_means_and_when_it_conforms() -> None:
    legend = render_html(run_with()).split('id="legend"', 1)[1].split("</section>", 1)[0]
    assert "conforms</span></td><td>returned exactly what the documented semantics give</td><td>always</td>" in legend
    assert "garbage</span></td><td>returned a value no index policy explains</td><td>never</td>" in legend
    assert "where the op&#39;s docs say so" in legend


def test_run_facts_agree_with_the_console_and_read_without_raw_json_or_odd_units() -> None:
    run = synthetic_run()
    run.facts = dict(run.facts, case_timeout_s=20.0, missing={}, thread_env=None)
    f = known_finding()
    f.outcomes = {"jax": Outcome.timed_out(20.0)}
    run.findings = [f]
    html = render_html(run)
    head = closing_summary(run, [x for x in run.findings if x.status == "new"], "r").splitlines()[0]
    assert head == console_head(run) and head in html.split('id="totals"', 1)[1].split("</span>", 1)[0]
    facts = html.split('id="facts"', 1)[1].split("</section>", 1)[0]
    assert "null" not in facts and "None" not in facts and "e+0" not in html
    assert "<th>drawing</th><td>3.20 s: 40 class cases (12.5 cases/s)</td>" in facts and facts.count("cases/s") == 1
    assert "<th>time limit per case</th><td>20.0 s</td>" in facts and "<th>time budget</th><td>no limit</td>" in facts
    assert "20.0 s</div>" in html  # the timeout's duration, not 2e+04 ms


def test_the_markdown_summary_leads_with_new_behaviour_counting_spec_silent_apart() -> None:
    run = synthetic_run()
    silent = replace(onnx_finding().signature, op="paddle.gather", outcome="spec silent", policy="wraps", condition=())
    run.findings.append(replace(onnx_finding(), signature=silent))  # a question: where paddle's docs are silent
    lines = markdown_summary(run, atlas=hand_atlas("clamps")).splitlines()
    assert lines[2] == "**New**: 3 findings not in the baseline (and 1 question, where the docs are silent); the worst:"
    table = lines.index(next(x for x in lines if x.startswith("### Where the frameworks disagree")))
    assert lines[table].startswith("### Where the frameworks disagree (1 of 4 atlas rows")
    assert (
        "| element gather | index size | raises: numpy.take_along_axis (numpy) · clamps ⚠: torch.gather (torch) |"
        in lines
    )


@pytest.mark.parametrize(
    "seconds, text", [(0.00002, "20 µs"), (0.0123, "12.3 ms"), (0.41, "0.41 s"), (20000.0, "5.6 h"), (95.0, "1.6 min")]
)
def test_durations_read_in_human_units(seconds: float, text: str) -> None:
    from conformance.report.facts_view import human_duration

    assert human_duration(seconds) == text


def test_figures_survive_without_rates_after_merging_shards() -> None:
    from conformance.report.runs import merge_runs

    merged = merge_runs([synthetic_run(), synthetic_run()])
    assert "cases_per_second" not in merged.figures and merged.figures["class_cases"] == 2 * FIGURES["class_cases"]
    assert "(12.5 cases/s)" in render_html(merged)  # recomputed from the summed counts and seconds
