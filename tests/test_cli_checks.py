"""Every output path is checked before any work; repeated --ops/--oracles add
up; options a mode would ignore are refused with the reason; --in-process
says that it runs no atlas (issue 27, point 8)."""

from __future__ import annotations

import json

import pytest

from conformance.cli.main import main, parser, with_defaults

FAST = ["--oracles", "numpy", "--ops", "numpy.take", "--max-examples", "3", "--in-process"]


def _run(args: list[str], capsys) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_junit_path_that_cannot_be_written_fails_before_the_campaign(capsys, tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    junit = blocker / "sub" / "j.xml"  # its folder cannot be made: a file is in the way
    code, text = _run(["check", *FAST, "--out", str(tmp_path / "o"), "--junit", str(junit)], capsys)
    assert code == 2 and "--junit" in text and "Traceback" not in text, text
    assert not (tmp_path / "o" / "results.jsonl").exists(), "no campaign ran"


def test_a_junit_path_naming_a_folder_fails_before_the_campaign(capsys, tmp_path) -> None:
    code, text = _run(["check", *FAST, "--out", str(tmp_path / "o"), "--junit", str(tmp_path)], capsys)
    assert code == 2 and "--junit" in text and "is a directory" in text, text
    assert not (tmp_path / "o").exists()


def test_a_junit_path_in_a_missing_folder_is_made_and_written(capsys, tmp_path) -> None:
    junit = tmp_path / "missing" / "j.xml"
    code, text = _run(["check", *FAST, "--out", str(tmp_path / "o"), "--junit", str(junit)], capsys)
    assert code in (0, 1) and "Traceback" not in text and "<testsuite" in junit.read_text()


def test_a_report_target_that_cannot_be_written_fails_before_reading_anything(capsys, tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, text = _run(["report", str(tmp_path / "no-such-run"), "--out", str(blocker)], capsys)
    assert code == 2 and "--out" in text and "not a directory" in text, text


def test_a_run_out_that_is_a_file_fails_before_any_work(capsys, tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, text = _run(["run", *FAST, "--out", str(blocker)], capsys)
    assert code == 2 and "--out" in text and "not a directory" in text


@pytest.mark.parametrize("option", ["--ops", "--oracles"])
def test_repeated_selection_options_add_up(option) -> None:
    values = {"--ops": ("numpy.take", "torch.gather"), "--oracles": ("numpy", "torch")}[option]
    args = parser().parse_args(["run", option, values[0], option, values[1]])
    assert getattr(args, option[2:]) == list(values)


def test_repeated_ops_run_both(capsys, tmp_path) -> None:
    args = ["run", "--oracles", "numpy", "--ops", "numpy.take", "--ops", "numpy.take_along_axis"]
    code, _ = _run([*args, "--max-examples", "2", "--in-process", "--out", str(tmp_path)], capsys)
    ran = json.loads((tmp_path / "results.json").read_text())["budget"]["ops"]
    assert code == 0 and ran == ["numpy.take", "numpy.take_along_axis"]


@pytest.mark.parametrize(
    "extra",
    [["--seed", "3"], ["--ops", "numpy.take"], ["--out", "x"], ["--budget", "60"], ["--in-process"], ["--seed", "0"]],
    ids=["seed", "ops", "out", "budget", "in-process", "seed given as its default"],
)
def test_check_results_refuses_campaign_options_it_would_ignore(extra, capsys, tmp_path) -> None:
    code, text = _run(["check", "--results", str(tmp_path), *extra], capsys)
    assert code == 2 and extra[0] in text and "runs no campaign" in text and "ignored" in text, text
    assert "Traceback" not in text


def test_campaign_options_not_given_take_their_defaults() -> None:
    args = with_defaults(parser().parse_args(["run"]))
    assert (args.seed, args.timeout, args.shard, str(args.out), args.in_process) == (0, 1.0, "0/1", "reports", False)


def test_in_process_says_it_runs_no_atlas(capsys, tmp_path) -> None:
    code, text = _run(["run", *FAST, "--out", str(tmp_path)], capsys)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert code == 0 and "--in-process: the probe atlas is not run" in text
    assert saved["facts"]["atlas"].startswith("not run") and not (tmp_path / "atlas.json").exists()
