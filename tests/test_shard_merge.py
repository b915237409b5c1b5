"""A merge of shards is checked: each shard once, none missing, all of one
run (seed, settings, versions); a run merged with itself is refused; each
refusal is exit 2 naming the shard (issue 27, point 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli.main import main
from conformance.report.runs import shard_problem
from conformance.results.run_result import RunResult

FAST = ["--oracles", "numpy", "--ops", "numpy.take", "--max-examples", "3", "--in-process"]


def _shard(i: int, n: int, *, seed: int = 0, ops: list[str] | None = None, numpy: str = "2.4.6") -> RunResult:
    budget = {"seed": seed, "shard": [i, n], "ops": ops or ["numpy.take"], "max_examples": 3}
    return RunResult({"versions": {"numpy": numpy}}, seed, budget, {"numpy": 3}, 1.0, {}, [])


@pytest.mark.parametrize(
    ("runs", "words"),
    [
        ([_shard(0, 2), _shard(0, 2)], ["a and b are both shard 0/2", "twice"]),
        ([_shard(0, 3), _shard(1, 3)], ["shard 2/3 is missing"]),
        ([_shard(1, 2)], ["shard 0/2 is missing"]),
        ([_shard(0, 2), _shard(1, 2, seed=4)], ["b (shard 1/2) does not belong", "seed"]),
        ([_shard(0, 2), _shard(1, 2, ops=["numpy.take_along_axis"])], ["b (shard 1/2)", "settings differ in ops"]),
        ([_shard(0, 2), _shard(1, 2, numpy="2.3.0")], ["b (shard 1/2)", "facts differ in versions"]),
        ([_shard(0, 2), _shard(1, 3)], ["different splits"]),
        ([_shard(0, 1), _shard(0, 1)], ["two whole runs", "--compare"]),
    ],
    ids=["duplicate", "missing", "lone shard", "seed", "selection", "versions", "splits", "two whole runs"],
)
def test_shards_that_are_not_one_run_once_each_are_refused_naming_the_shard(runs, words) -> None:
    problem = shard_problem(runs, ["a", "b"][: len(runs)])
    assert problem is not None and all(w in problem for w in words), problem


def test_every_shard_once_of_one_run_merges() -> None:
    assert shard_problem([_shard(1, 3), _shard(0, 3), _shard(2, 3)], ["a", "b", "c"]) is None


def _report(paths: list[Path], out: Path, capsys) -> tuple[int, str]:
    code = main(["report", *map(str, paths), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("shards")
    for i in range(3):
        assert main(["run", *FAST, "--shard", f"{i}/3", "--out", str(root / f"s{i}")]) == 0
    return [root / f"s{i}" for i in range(3)]


def test_real_shards_merge_and_a_duplicate_or_missing_one_is_exit_2(shards, capsys, tmp_path) -> None:
    s0, s1, s2 = shards
    assert _report([s0, s1, s2], tmp_path / "all", capsys)[0] == 0
    code, text = _report([s0, s1, s1], tmp_path / "dup", capsys)
    assert code == 2 and f"{s1} is given twice" in text and "Traceback" not in text, text
    code, text = _report([s0, s2], tmp_path / "missing", capsys)
    assert code == 2 and "shard 1/3 is missing" in text, text
    code, text = _report([s0], tmp_path / "lone", capsys)
    assert code == 2 and "missing" in text, text
    assert not (tmp_path / "dup" / "index.html").exists()


def test_a_run_merged_with_itself_is_refused(capsys, tmp_path) -> None:
    run = tmp_path / "r"
    assert main(["run", *FAST, "--out", str(run)]) == 0
    capsys.readouterr()
    code, text = _report([run, run], tmp_path / "twice", capsys)
    assert code == 2 and "given twice" in text and "itself" in text, text
    code, text = _report([run, run / "results.jsonl"], tmp_path / "twice2", capsys)
    assert code == 2 and "two whole runs" in text, text
