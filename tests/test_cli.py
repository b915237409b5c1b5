"""Bad input gets a clear one-line error and exit status 2 before any work;
the gate never goes green while it tested nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from conformance.cli.main import main

FAST = ["--oracles", "numpy", "--ops", "numpy.take", "--max-examples", "3", "--in-process"]


def _run(args: list[str], capsys) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["check", "--ops", "torch.gatherx"], ["--ops", "unknown op 'torch.gatherx'", "did you mean 'torch.gather'"]),
        (["check", "--budget", "0"], ["--budget", "must be > 0"]),
        (["check", "--max-examples", "0"], ["--max-examples", "must be > 0"]),
        (["check", "--timeout", "-1"], ["--timeout", "must be > 0"]),
        (["check", "--workers", "0"], ["--workers", "must be > 0"]),
        (["check", "--shard", "2/2"], ["--shard", "0 <= i < n"]),
        (["check", "--oracles", "nunpy"], ["--oracles", "unknown oracle 'nunpy'", "did you mean 'numpy'"]),
        (["check", "--oracles", "numpy", "--ops", "torch.gather"], ["no selected oracle implements torch.gather"]),
        (["check", "--ops", "webnn.gather"], ["no selected oracle implements webnn.gather"]),
    ],
    ids=[
        "unknown op",
        "budget 0",
        "max-examples 0",
        "negative timeout",
        "workers 0",
        "bad shard",
        "unknown oracle",
        "op without oracle",
        "spec-only op",
    ],
)
def test_bad_campaign_arguments_fail_before_any_work(args, words, capsys, tmp_path) -> None:
    code, text = _run([*args, "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and all(w in text for w in words), text
    assert "Traceback" not in text
    assert not (tmp_path / "out" / "results.jsonl").exists(), "no campaign ran"


def test_out_naming_a_file_or_an_unwritable_place_fails_first(capsys, tmp_path) -> None:
    a_file = tmp_path / "f"
    a_file.write_text("x")
    assert _run(["run", *FAST, "--out", str(a_file)], capsys) == (
        2,
        _run(["run", *FAST, "--out", str(a_file)], capsys)[1],
    )
    code, text = _run(["run", *FAST, "--out", "/proc/no/such/place"], capsys)
    assert code == 2 and "--out" in text and "cannot write" in text


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "not JSON (empty file)"),
        ("{}", "not a gather-conformance results file"),
        ('{"format": 2, "findin', "not JSON"),
        ('{"format": 3}', "damaged results file"),
        ("[1, 2]", "not a gather-conformance results file"),
    ],
    ids=["empty", "{}", "truncated", "missing keys", "a list"],
)
def test_report_on_something_that_is_not_results_names_the_file(content, words, capsys, tmp_path) -> None:
    path = tmp_path / "results.json"
    path.write_text(content)
    code, text = _run(["report", str(path), "--out", str(tmp_path / "r")], capsys)
    assert code == 2 and str(path) in text and words in text and "Traceback" not in text


def test_report_on_a_folder_without_results_says_so(capsys, tmp_path) -> None:
    code, text = _run(["report", str(tmp_path), "--out", str(tmp_path / "r")], capsys)
    assert code == 2 and "results.jsonl" in text


@pytest.mark.parametrize(
    ("baseline", "words"),
    [
        ({"format": 1, "entries": [{}]}, "entry 1: missing op"),
        (
            {
                "format": 1,
                "entries": [
                    {
                        "op": "numpy.take",
                        "oracle": "numpy",
                        "outcome": "wrong value",
                        "versions": "banana",
                        "note": "n",
                        "at_fault": "docs",
                        "link": "l",
                    }
                ],
            },
            "not a PEP 440 specifier set",
        ),
        (
            {
                "format": 1,
                "entries": [
                    {
                        "op": "*",
                        "oracle": "*",
                        "outcome": "*",
                        "versions": "",
                        "note": "n",
                        "at_fault": "docs",
                        "link": "l",
                    }
                ],
            },
            "must name something",
        ),
        ({"entries": []}, "format must be 2"),
    ],
    ids=["empty entry", "bad versions", "match-all entry", "no format"],
)
def test_a_baseline_that_is_not_valid_fails_before_the_campaign(baseline, words, capsys, tmp_path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(baseline))
    code, text = _run(["check", *FAST, "--baseline", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and words in text and not (tmp_path / "o" / "results.jsonl").exists(), text
    assert _run(["baseline", "validate", str(path)], capsys)[0] == 2


def test_a_misspelt_baseline_path_is_a_usage_error(capsys, tmp_path) -> None:
    code, text = _run(["check", *FAST, "--baseline", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "nope.json" in text and "cannot read" in text


def test_the_packaged_baseline_validates(capsys) -> None:
    code, text = _run(["baseline", "validate"], capsys)
    assert code == 0 and "valid entries" in text


def test_version_flag(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and "gather-conformance" in capsys.readouterr().out


def test_check_writes_junit_and_saved_results_carry_the_status_it_computed(capsys, tmp_path) -> None:
    out = tmp_path / "o"
    code, text = _run(["check", *FAST, "--out", str(out), "--junit", str(tmp_path / "j.xml")], capsys)
    xml = (tmp_path / "j.xml").read_text()
    assert "<testsuite" in xml and 'classname="baseline"' in xml
    saved = json.loads((out / "results.json").read_text())
    statuses = {f["status"] for f in saved["findings"]}
    assert statuses <= {"known", "new"} and ("new" in statuses) == ("new:" in text)
    assert code in (0, 1) and "report:" in text


def test_a_run_leaves_nothing_stale_from_an_earlier_run(capsys, tmp_path) -> None:
    out = tmp_path / "o"
    (out / "scripts").mkdir(parents=True)
    (out / "scripts" / "f-0000000000.py").write_text("stale")
    (out / "results.json").write_text("stale")
    assert _run(["run", *FAST, "--out", str(out)], capsys)[0] == 0
    assert not (out / "scripts" / "f-0000000000.py").exists()
    assert json.loads((out / "results.json").read_text())["format"] == 3


BROKEN_JAX = textwrap.dedent("""
    raise ImportError("jax is broken on purpose (test)")
""")


def test_a_framework_that_fails_to_import_fails_the_gate_unless_allowed(tmp_path) -> None:
    shadow = tmp_path / "shadow"
    (shadow / "jax").mkdir(parents=True)
    (shadow / "jax" / "__init__.py").write_text(BROKEN_JAX)
    env = {"PYTHONPATH": str(shadow), "GATHER_CONFORMANCE_NO_CACHE": "1", "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-m", "conformance.cli.main", "check", *FAST, "--out", str(tmp_path / "o")]
    failed = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert failed.returncode == 2 and "jax is broken on purpose" in failed.stderr, failed.stderr[-2000:]
    allowed = subprocess.run(
        [*cmd, "--allow-missing"], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert allowed.returncode in (0, 1) and "going on without" in allowed.stderr and "jax" in allowed.stderr, (
        allowed.stderr[-2000:]
    )
    assert "jax" in json.loads((tmp_path / "o" / "results.json").read_text())["facts"]["missing"].__repr__()


def test_nothing_tested_never_passes(tmp_path) -> None:
    from conformance.gate.baseline import check
    from conformance.results.run_result import RunResult

    assert [str(p) for p in check(RunResult({}, 0, {}, {}, 0.0, {}, []), [])] == [
        "nothing tested: no oracle ran a single case"
    ]


def test_shards_merge_through_the_cli_into_one_report(capsys, tmp_path) -> None:
    for i in range(2):
        assert _run(["run", *FAST, "--shard", f"{i}/2", "--out", str(tmp_path / f"s{i}")], capsys)[0] == 0
    code, _text = _run(
        ["report", str(tmp_path / "s0"), str(tmp_path / "s1"), "--out", str(tmp_path / "merged")], capsys
    )
    assert code == 0 and (tmp_path / "merged" / "index.html").exists()


@pytest.mark.parametrize("seed", ["0", "7"])
def test_the_gate_passes_on_the_pinned_versions_whatever_the_seed(seed, capsys, tmp_path) -> None:
    # isolated (so the atlas and the baseline replay run); one oracle and op family keep it fast
    args = [
        "check",
        "--oracles",
        "numpy",
        "--ops",
        "numpy.take_along_axis",
        "--max-examples",
        "30",
        "--seed",
        seed,
        "--out",
        str(tmp_path / "o"),
    ]
    code, text = _run(args, capsys)
    assert code == 0, text[-3000:]
    replay = json.loads((tmp_path / "o" / "results.json").read_text())["replay"]
    assert any(r["status"] == "reproduces" for r in replay)  # the baseline's numpy entries were replayed, not skipped


def test_without_a_terminal_the_log_says_each_phase_and_shows_life_while_nothing_advances() -> None:
    import io
    import time

    from conformance.cli.console import PlainProgress, progress_for

    out = io.StringIO()
    assert isinstance(progress_for(out, None), PlainProgress)  # no terminal: plain lines
    progress = PlainProgress(out, every=0.2)
    progress.phase("atlas", 120)
    time.sleep(0.7)  # one long condition: nothing advances
    progress.advance(findings=3)
    progress.phase("drawing", None)
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[atlas] started: 0/120") and lines[-1].startswith("[drawing] ended: 0")
    beats = [line for line in lines if line.startswith("[atlas] 0/120")]
    assert len(beats) >= 2, lines
    assert any(line.startswith("[atlas] ended: 1/120") and "3 findings so far" in line for line in lines), lines


def test_an_oracle_declared_on_request_is_left_out_of_a_default_campaign_and_runs_when_named(tmp_path) -> None:
    from conformance.cli.commands import plan_campaign
    from conformance.execution import registry

    on_request = [i.name for i in registry.infos() if i.on_request]
    if not on_request:
        pytest.skip("no oracle here runs on request only (IREE, TVM not installed)")

    def plan(oracles: list[str] | None) -> tuple[str, ...]:
        return plan_campaign(
            seed=0,
            max_examples=1,
            budget=None,
            timeout=5.0,
            ops=None,
            oracles=oracles,
            allow_missing=True,
            shard="0/1",
            out=tmp_path,
            in_process=False,
            workers=None,
        ).oracles

    default = plan(None)
    assert default and not set(on_request) & set(default)
    assert plan(on_request[:1]) == tuple(on_request[:1])
