"""``gather-conformance upgrade`` on fake environments (no network, no
install): the diff between versions, the timeline with three, the exit status
as a gate, the report files, the draft baseline, and every argument error
before any environment is built or any campaign runs."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.cli import commands
from conformance.cli.main import main
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Outcome
from conformance.gate import baseline as bl
from conformance.judge.signature import Signature
from conformance.results.atlas import Atlas, AtlasCell
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult
from conformance.upgrade.environments import EnvironmentFacts, InstallError
from conformance.upgrade.installer import Completed
from conformance.upgrade.request import Request

ORACLE = "fake-rt"
FRAMEWORK = "fakert"
OP = "numpy.take"


def _case(indices: list[int]) -> Case:
    return Case(OP, np.arange(5.0), np.array(indices), {"axis": 0, "mode": "raise"})


def _cell(condition: str, version: str, behaviour: str, documented: bool) -> AtlasCell:
    example = _case([5]).to_json() | {"reference": "error IndexError (index out of range)", "observed": behaviour}
    error = "index out of range" if behaviour == "raises" else None
    return AtlasCell(condition, "block gather", OP, ORACLE, version, behaviour, error, documented, example)


def _finding(version: str, policy: str, tags: tuple[str, ...]) -> Finding:
    sig = Signature(OP, ORACLE, version, "cpu", "eager", "value instead of error", policy, tags)
    reference = Outcome.raised(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE)
    outcomes = {ORACLE: Outcome.returned(np.array([0.0]))}
    return Finding(sig, _case([5]), reference, outcomes, scripts={ORACLE: f"print('repro {policy} on {version}')\n"})


ENTRIES = {
    # op family / tags -> what the entry's reproducer shows at each version
    "fixed-later": bl.Entry(
        op=OP,
        oracle=ORACLE,
        outcome="value instead of error",
        policy="clamps",
        condition=("bad index",),
        versions=">=1.1,<1.2",
        note="n",
        link="l",
        at_fault="framework",
        reproducers=(_case([7]).to_json(),),
    ),
    "always": bl.Entry(
        op=OP,
        oracle=ORACLE,
        outcome="value instead of error",
        policy="wraps",
        condition=("negative",),
        versions=">=1.0,<1.1",
        note="n",
        link="l",
        at_fault="docs",
        reproducers=(_case([-9]).to_json(),),
    ),
    "other-oracle": bl.Entry(
        op="torch.gather",
        oracle="torch",
        outcome="wrong value",
        versions=">=2.13",
        note="n",
        link="l",
        at_fault="framework",
    ),
}


def _scenario(version: str) -> tuple[Atlas, list[Finding], dict[str, str]]:
    """What each fake version does: see the tests below."""
    cells = {
        "1.0": [("size", "raises", True), ("negative", "clamps", False), ("in-range", "conforms", True)],
        "1.1": [("size", "raises", True), ("negative", "raises", True), ("in-range", "conforms", True)],
        "1.2": [("size", "wraps", False), ("negative", "raises", True), ("in-range", "conforms", True)],
    }[version]
    findings = {
        "1.0": [_finding(version, "clamps", ("negative",)), _finding(version, "clamps", ("index beyond int32",))],
        "1.1": [_finding(version, "clamps", ("index beyond int32",))],
        "1.2": [_finding(version, "wraps", ("bad index",))],
    }[version]
    replay = {
        "1.0": {"fixed-later": "reproduces", "always": "reproduces"},
        "1.1": {"fixed-later": "reproduces", "always": "reproduces"},
        "1.2": {"fixed-later": "fixed", "always": "reproduces"},
    }[version]
    return Atlas([_cell(c, version, b, d) for c, b, d in cells]), findings, replay


class FakeEnvironment:
    """A 'built' environment: its campaign writes prepared results into the folder it is given."""

    def __init__(self, request: Request, installed: str, ran: list[str]) -> None:
        info = OracleInfo(ORACLE, FRAMEWORK, installed, "cpu", "eager", (OP,))
        self.facts = EnvironmentFacts(
            request, installed, "3.11.7", f"/envs/{installed}", "pip", True, {}, (info,), (ORACLE,)
        )
        self.ran = ran

    def campaign(self, arguments: Sequence[str], log: Path) -> Completed:
        self.ran.append(self.facts.installed)
        out = Path(arguments[arguments.index("--out") + 1])
        replayed = json.loads(Path(arguments[arguments.index("--baseline") + 1]).read_text())["entries"]
        atlas, findings, statuses = _scenario(self.facts.installed)
        names = {ENTRIES[k].describe(): k for k in ENTRIES}
        replay = []
        for d in replayed:
            entry = bl.Entry.from_json(d)
            key = next(k for k, e in ENTRIES.items() if e.op == entry.op and e.policy == entry.policy)
            status = statuses.get(key, "skipped")
            replay.append({"entry": entry.describe(), "status": status, "detail": f"{status} on {ORACLE}"})
        assert not any(d["versions"] for d in replayed), "every entry is replayed at every version"
        assert len(names) == len(ENTRIES)
        facts = {"oracles": {ORACLE: self.facts.oracles[0].to_json()}}
        RunResult(facts, 0, {}, {ORACLE: 10}, 1.0, {}, findings, replay=replay).save(out / "results.json")
        atlas.save(out / "atlas.json")
        log.write_text("ok")
        return Completed(1 if findings else 0, "ok")

    def scripts(self, wanted: Sequence[Mapping[str, Any]], work: Path) -> list[dict[str, Any]]:
        return [
            {"script": f"# {w['oracle']} {w['case']['op']} on {self.facts.installed}\n", "model": None, "error": ""}
            for w in wanted
        ]


class FakeProvider:
    """Prepares fake environments; a version in ``missing`` cannot be installed."""

    def __init__(self, missing: Sequence[str] = ()) -> None:
        self.missing, self.ran, self.prepared = set(missing), [], []

    def prepare(self, requests: Sequence[Request], say: Callable[[str], None]) -> list[FakeEnvironment]:
        envs = []
        for r in requests:
            if r.label in self.missing:
                raise InstallError(
                    f"{r.requirement} cannot be installed: Could not find a version (from versions: 1.0, 1.1)"
                )
            envs.append(FakeEnvironment(r, r.label, self.ran))
            self.prepared.append(r.label)
        return envs


@pytest.fixture
def baseline_file(tmp_path: Path) -> Path:
    path = tmp_path / "baseline.json"
    path.write_text(
        json.dumps({"format": 2, "about": "test", "entries": [e.to_json() for e in ENTRIES.values()]}, indent=1)
    )
    return path


def _upgrade(versions: list[str], out: Path, baseline: Path, provider: FakeProvider, **kw: Any) -> int:
    args: dict[str, Any] = {"out": out, "max_examples": 2, "seed": 0, "timeout": 5.0, "oracles": None, "ops": None}
    args |= {"baseline": baseline, "update_baseline": None}
    return commands.upgrade(versions, provider=provider, **(args | kw))


def test_two_versions_report_the_cells_findings_and_entries_that_changed_and_fail_on_a_new_departure(
    tmp_path: Path, baseline_file: Path, capsys
) -> None:
    out = tmp_path / "up"
    code = _upgrade([f"{FRAMEWORK}==1.1", "1.2"], out, baseline_file, FakeProvider())
    printed = capsys.readouterr().out
    assert code == 1, printed
    report = json.loads((out / "upgrade.json").read_text())
    assert report["format"] == 1 and report["verdict"] == "fail" and report["exit_status"] == 1
    assert [v["installed"] for v in report["versions"]] == ["1.1", "1.2"]
    (step,) = report["steps"]
    assert [(c["before"], c["after"]) for c in step["atlas"]] == [("raises (index out of range)", "wraps")]
    assert [f.split(": ", 1)[1] for f in step["appeared"]] == [
        "value instead of error, observed policy wraps, for bad index"
    ]
    assert len(step["disappeared"]) == 1 and "int32" in step["disappeared"][0]
    assert step["fixed_upstream"] == [ENTRIES["fixed-later"].describe()], "named with its own range"
    cell = "numpy.take on fake-rt: index size (block gather): 1.1 → 1.2: raises (index out of range) → wraps"
    finding = "numpy.take on fake-rt (cpu, eager): value instead of error, observed policy wraps, for bad index"
    assert report["departures"] == [f"1.1 → 1.2: atlas cell: {cell}", f"1.1 → 1.2: new finding: {finding}"]
    assert (
        "1.1 → 1.2: 1 atlas cells changed, 1 findings appeared, 1 disappeared, 1 baseline entries fixed upstream"
        in printed
    )
    assert "upgrade: fakert 1.1 → 1.2: FAIL: 2 new departures from the docs" in printed


def test_three_versions_give_a_timeline_per_cell_saying_which_version_changed_what(
    tmp_path: Path, baseline_file: Path, capsys
) -> None:
    out = tmp_path / "up"
    assert _upgrade([f"{FRAMEWORK}==1.0", "1.1", "1.2"], out, baseline_file, FakeProvider()) == 1
    report = json.loads((out / "upgrade.json").read_text())
    cells = {c["condition"]: (c["words"], c["changes_at"], c["documented"]) for c in report["timeline"]["cells"]}
    assert cells == {
        "negative": (
            ["clamps", "raises (index out of range)", "raises (index out of range)"],
            [1],
            [False, True, True],
        ),
        "size": (["raises (index out of range)", "raises (index out of range)", "wraps"], [2], [True, True, False]),
    }, "the unchanged in-range cell is left out"
    findings = {f["finding"].rsplit("for ", 1)[1]: f["present"] for f in report["timeline"]["findings"]}
    assert findings == {
        "negative": [True, False, False],
        "index beyond int32": [True, True, False],
        "bad index": [False, False, True],
    }
    entries = {e["entry"].split(": ", 1)[1]: e["statuses"] for e in report["timeline"]["baseline"]}
    assert entries == {
        "value instead of error, policy clamps, for bad index": ["reproduces", "reproduces", "fixed"],
        "value instead of error, policy wraps, for negative": ["reproduces", "reproduces", "reproduces"],
    }, "only the entries of the oracles studied are replayed"
    assert [len(s["departures"]) for s in report["steps"]] == [0, 2], "the first step only got better"
    summary = (out / "summary.md").read_text()
    assert "### Timeline" in summary and "| numpy.take on fake-rt: index size (block gather) | raises" in summary
    page = (out / "index.html").read_text()
    assert 'id="cells"' in page and "FAIL" in page and "1.0 → 1.1" in page
    for step in ("1.0_to_1.1", "1.1_to_1.2"):
        assert (out / "steps" / step / "index.html").is_file() and (out / "steps" / step / "comparison.json").is_file()
    assert {p.name for p in (out / "scripts").iterdir()} >= {
        "cell-1_1.1_fake_rt.py",  # negative: the 1.0 probe that clamped, written in 1.1's environment
        "cell-2_1.2_fake_rt.py",  # size: the probe that wraps in 1.2
        "entry-1-1_1.2_fake_rt.py",  # the entry fixed in 1.2, its reproducer
        "finding-2_1.2_fake_rt.py",  # the finding that appeared in 1.2, its own script
    }


def test_an_upgrade_that_only_gets_better_passes(tmp_path: Path, baseline_file: Path) -> None:
    out = tmp_path / "up"
    assert _upgrade([f"{FRAMEWORK}==1.0", f"{FRAMEWORK}==1.1"], out, baseline_file, FakeProvider()) == 0
    report = json.loads((out / "upgrade.json").read_text())
    assert report["verdict"] == "pass" and report["departures"] == []
    assert report["steps"][0]["atlas"][0]["after"] == "raises (index out of range)"


def test_a_version_that_cannot_be_installed_is_one_line_before_any_campaign(
    tmp_path: Path, baseline_file: Path, monkeypatch, capsys
) -> None:
    provider = FakeProvider(missing=["9.9"])
    monkeypatch.setattr(commands, "default_provider", lambda constraints, rebuild: provider)
    out = tmp_path / "up"
    code = main(["upgrade", f"{FRAMEWORK}==1.0", "9.9", "--baseline", str(baseline_file), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and provider.ran == []
    (line,) = [x for x in err.splitlines() if "error" in x]
    assert line.startswith("gather-conformance upgrade: error: versions: fakert==9.9 cannot be installed")
    assert "Traceback" not in err and not (out / "upgrade.json").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["numpy==2.4.6"], "versions: give at least 2 versions"),
        (["numpy==2.4.6", "torch==2.13.0"], "versions: all must name one framework, got numpy and torch"),
        (["numpy=2.4", "numpy==2.3"], "versions: 'numpy=2.4' is not FRAMEWORK==VERSION"),
        (["numpy", "numpy==2.3.5"], "versions: 'numpy' names no version"),
        (["numpy==2.4.6", "2.4.6"], "versions: numpy==2.4.6 is given twice"),
        (["numpy==2.4.6", "numpy==2.3.5", "--max-examples", "0"], "--max-examples: must be > 0"),
        (["numpy==2.4.6", "numpy==2.3.5", "--ops", "numpy.tak"], "--ops: unknown op 'numpy.tak'"),
        (["numpy==2.4.6", "numpy==2.3.5", "--update-baseline", "/"], "--update-baseline: / is a directory"),
    ],
    ids=[
        "one version",
        "two frameworks",
        "not a requirement",
        "no version",
        "twice",
        "max-examples",
        "op",
        "draft path",
    ],
)
def test_bad_arguments_are_one_line_and_exit_2_before_any_environment(
    args, words, tmp_path, monkeypatch, capsys
) -> None:
    provider = FakeProvider()
    monkeypatch.setattr(commands, "default_provider", lambda constraints, rebuild: provider)
    code = main(["upgrade", *args, "--out", str(tmp_path / "up")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err, err
    assert provider.prepared == [] and provider.ran == []


def test_oracles_that_cannot_run_everywhere_are_a_usage_error_before_any_campaign(
    tmp_path: Path, baseline_file: Path, capsys
) -> None:
    provider = FakeProvider()
    with pytest.raises(commands.UsageError, match="--oracles: 'torch' cannot run in the environment of fakert==1.0"):
        _upgrade([f"{FRAMEWORK}==1.0", "1.1"], tmp_path / "up", baseline_file, provider, oracles=["torch"])
    assert provider.prepared == ["1.0", "1.1"] and provider.ran == []


def test_update_baseline_writes_a_draft_with_ranges_widened_and_narrowed_from_what_was_observed(
    tmp_path: Path, baseline_file: Path, capsys
) -> None:
    packaged = bl.DEFAULT_PATH.read_bytes()
    draft = tmp_path / "draft.json"
    code = _upgrade(
        [f"{FRAMEWORK}==1.0", "1.1", "1.2"], tmp_path / "up", baseline_file, FakeProvider(), update_baseline=draft
    )
    printed = capsys.readouterr().out
    assert code == 1
    doc = json.loads(draft.read_text())
    assert bl.validate(doc) == [] and doc["about"].startswith("test DRAFT by `gather-conformance upgrade`")
    ranges = [e["versions"] for e in doc["entries"]]
    # fixed-later: reproduces on 1.0 and 1.1 (widened down to 1.0), fixed on 1.2 (already out of range)
    # always: reproduces everywhere (widened up to <1.3); other-oracle: not replayed here, unchanged
    assert ranges == [">=1.0,<1.2", ">=1.0,<1.3", ">=2.13"]
    assert "--update-baseline: 2 of 2 replayed entries change range" in printed
    assert (
        "widened: numpy.take on fake-rt value instead of error, policy wraps, for negative: >=1.0,<1.1 → >=1.0,<1.3"
        in printed
    )
    assert bl.DEFAULT_PATH.read_bytes() == packaged, "the packaged baseline is never touched unless named"
    assert json.loads(baseline_file.read_text())["entries"][0]["versions"] == ">=1.1,<1.2", "nor the source baseline"
