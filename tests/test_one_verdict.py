"""One run, one verdict whatever the path: a real small campaign's folder,
its results.json and its results.jsonl give the same findings, statuses and
gate verdict; a stream cut off mid-run is settled by the run's own rule; the
report's folder can be gated too (issue 27, point 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli.commands import load_results
from conformance.cli.main import main
from conformance.gate import baseline as bl

SMALL = ["--oracles", "numpy", "--ops", "numpy.take", "--max-examples", "10", "--seed", "3"]


def _verdict(path: Path, capsys) -> tuple[int, list[str]]:
    code = main(["check", "--results", str(path)])
    lines = capsys.readouterr().out.splitlines()
    return code, sorted(line for line in lines if not line.startswith("gate:"))


def _findings(path: Path) -> dict[str, str]:
    run = bl.annotated(load_results(path), bl.load())
    # every root cause a finding stands for (its own, its modes', those merged with it by trigger: a stream cut off
    # before the findings were built knows no trigger, so merges none)
    return {s.key(): str(f.status) for f in run.findings for s in f.member_signatures()}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    assert main(["check", *SMALL, "--out", str(out)]) in (0, 1)
    return out


def test_folder_results_json_and_stream_give_the_same_findings_and_verdict(run_dir, capsys) -> None:
    capsys.readouterr()
    paths = [run_dir, run_dir / "results.json", run_dir / "results.jsonl"]
    verdicts = [_verdict(p, capsys) for p in paths]
    assert verdicts[0] == verdicts[1] == verdicts[2], verdicts
    findings = [_findings(p) for p in paths]
    assert findings[0] == findings[1] == findings[2] and findings[0]
    saved = json.loads((run_dir / "results.json").read_text())
    assert {f["signature"]["op"] for f in saved["findings"]} == {"numpy.take"}


def test_the_stream_carries_the_replayed_baseline_entries(run_dir) -> None:
    saved = json.loads((run_dir / "results.json").read_text())
    assert saved["replay"] and load_results(run_dir / "results.jsonl").replay == saved["replay"]


def test_a_stream_cut_off_before_shrinking_settles_as_the_run_did(run_dir, tmp_path) -> None:
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    cut = [line for line in lines if json.loads(line)["type"] not in ("finding", "end")]
    (tmp_path / "results.jsonl").write_text("\n".join(cut) + "\n")
    killed = load_results(tmp_path / "results.jsonl")
    assert str(killed.status) == "partial"
    assert set(_findings(tmp_path / "results.jsonl")) == set(_findings(run_dir))


def test_the_report_of_a_stream_writes_results_json_that_gates_as_the_run(run_dir, capsys, tmp_path) -> None:
    out = tmp_path / "report"
    assert main(["report", str(run_dir / "results.jsonl"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert (out / "results.json").exists()
    assert _verdict(out, capsys) == _verdict(run_dir, capsys)
    assert _findings(out) == _findings(run_dir)
    statuses = {f["status"] for f in json.loads((out / "results.json").read_text())["findings"]}
    assert statuses == {str(s) for s in _findings(run_dir).values()}
