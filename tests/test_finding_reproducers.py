"""Every finding's own reproducer reproduces it, error-class findings included
(issue 26), and the script, the baseline replay and the pytest plugin judge a
finding alike.

One small real campaign over oracles whose findings include an internal
error, an error of the wrong class and a shape refusal (the three kinds the
old scripts denied: they called "both raised" agreement). Each finding's own
oracle's script is saved in a folder of its own and run by a fresh
interpreter from another folder, as a framework engineer runs it: it must
print REPRODUCED and exit 1, naming the expected and the observed error class.
The same findings drafted as baseline entries must replay as ``reproduces``
(``gather-conformance baseline`` / ``check``) and xfail as known in the pytest
plugin.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.cli.selection import select_ops
from conformance.core.oracle import Reproducer
from conformance.core.vocabulary import MismatchKind, ReplayStatus
from conformance.execution import registry
from conformance.execution.scripts import save
from conformance.gate.baseline import BASELINE_FORMAT, Entry, draft_entries
from conformance.gate.replay import replay
from conformance.results.finding import Finding

ORACLES = ("torch", "onnx-reference")
OPS = ("torch.take_along_dim", "torch.index_select", "onnx.GatherND-*", "onnx.GatherElements-*")
"""torch.take_along_dim on an empty axis raises RuntimeError: ZeroDivisionError (internal), and so is onnx-reference's
GatherND's "IndexError: tuple index out of range" for 0-d indices (a Python tuple indexed past its end inside the
evaluator; a wrong error class until stop 46, whose scripts tests/test_reproducers.py's fake-unit case still runs);
its GatherElements refuses shapes its docs accept (shapes refused)."""
KINDS = (MismatchKind.INTERNAL, MismatchKind.SHAPES_REFUSED)

pytestmark = pytest.mark.skipif(
    not set(ORACLES) <= set(registry.available()), reason=f"needs the oracles {', '.join(ORACLES)}"
)


@pytest.fixture(scope="module")
def findings() -> list[Finding]:
    oracles = [registry.get(n) for n in ORACLES]
    try:
        settings = Settings(seed=0, max_examples=8, shrink_evals=10, ops=select_ops(OPS), atlas=True)
        result = run_campaign(oracles, settings)
    finally:
        for o in oracles:
            o.close()
    return result.findings


def _run_alone(finding: Finding, folder: Path, elsewhere: Path) -> subprocess.CompletedProcess[str]:
    """The finding's own oracle's script, saved in ``folder``, run from ``elsewhere``."""
    text = finding.scripts.get(finding.signature.oracle, "")
    assert text and not text.startswith("# no reproducer"), finding.signature.words()
    model = {"model.onnx": base64.b64decode(finding.onnx_model_b64)} if finding.onnx_model_b64 else {}
    path = save(Reproducer(finding.signature.oracle, text, model), folder)
    return subprocess.run(
        [sys.executable, str(path)], cwd=elsewhere, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def ran(findings: list[Finding], tmp_path_factory: pytest.TempPathFactory) -> list[subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("own-scripts")
    (root / "elsewhere").mkdir()
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(
            pool.map(lambda n: _run_alone(findings[n], root / f"f{n}", root / "elsewhere"), range(len(findings)))
        )


@pytest.mark.timeout(900)
def test_internal_errors_wrong_error_classes_and_shape_refusals_reproduce_alone(
    findings: list[Finding], ran: list[subprocess.CompletedProcess[str]]
) -> None:
    kinds = {f.signature.outcome.kind for f in findings}
    assert set(KINDS) <= kinds, sorted(str(k) for k in kinds)
    denied = [
        (f.signature.words(), r.returncode, r.stdout[-600:] + r.stderr[-600:])
        for f, r in zip(findings, ran)
        if r.returncode != 1 or r.stdout.splitlines()[-1:] != ["REPRODUCED"]
    ]
    assert denied == []


@pytest.mark.timeout(900)
def test_error_findings_print_the_expected_and_the_observed_error_class(
    findings: list[Finding], ran: list[subprocess.CompletedProcess[str]]
) -> None:
    for f, r in zip(findings, ran):
        if f.signature.outcome.kind not in KINDS:
            continue
        observed = next(line for line in r.stdout.splitlines() if line.startswith("observed:"))
        assert observed.startswith(f"observed: error ({f.outcomes[f.signature.oracle].error_class}) "), r.stdout
        assert any(line.startswith("judged: ") for line in r.stdout.splitlines()), r.stdout


@pytest.mark.timeout(900)
def test_the_baseline_replay_the_pytest_plugin_and_the_scripts_agree(
    findings: list[Finding], ran: list[subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    drafted = draft_entries(findings)
    entries = [Entry.from_json(d) for d in drafted]
    oracles = [registry.get(n) for n in ORACLES]
    try:
        replayed = [r.status for r in replay(entries, oracles)]
    finally:
        for o in oracles:
            o.close()
    scripts = [r.returncode == 1 and r.stdout.splitlines()[-1:] == ["REPRODUCED"] for r in ran]
    assert [s is ReplayStatus.REPRODUCES for s in replayed] == scripts == [True] * len(findings)

    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"format": BASELINE_FORMAT, "entries": drafted}))
    junit = tmp_path / "junit.xml"
    plugin = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--gather-conformance",
            "--gc-oracles",
            ",".join(ORACLES),
            "--gc-ops",
            ",".join(OPS),
            f"--gc-baseline={baseline}",
            "-k",
            "baseline",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--junitxml={junit}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    known = [c.get("name") for c in cases if any(s.get("type") == "pytest.xfail" for s in c.iter("skipped"))]
    assert len(cases) == sum(len(e.reproducers) for e in entries) and len(known) == len(cases), plugin.stdout[-3000:]


def test_a_stray_read_that_may_be_a_fill_shows_a_root_cause_whose_example_was_ambiguous() -> None:
    """Regression (quiet .ci/run at e9d3e84): MLX's take_along_axis on int64 data of one element, index 255 (uint8),
    read a value both policies give ('ambiguous'); its script read 8031165433303884146, which one element makes
    'fills or garbage' (any constant may be a fill), not 'garbage', and said 'not reproduced'. Since issue 39 MLX's
    docs make that index undefined (a policy's value conforms there), so the rule is held on Paddle, whose docs say
    nothing of uint8 indices nor of indices at the dtype's end."""
    from dataclasses import replace

    import numpy as np

    from conformance.core.behaviour import Behaviour
    from conformance.core.case import Case, CaseTags
    from conformance.core.oracle import OracleInfo
    from conformance.core.outcome import Outcome
    from conformance.judge.judged import judged_alone, judgement, settles

    info = OracleInfo("paddle", "paddle", "3.3.1", "cpu", "dygraph", ("paddle.take_along_axis",))
    case = Case(
        "paddle.take_along_axis",
        np.array([-3], np.int64),
        np.array([255], np.uint8),
        {"axis": 0, "broadcast": True},
        CaseTags("extreme", "uint8", "int"),
    )
    stray = judged_alone(case, info, Outcome.returned(np.array([8031165433303884146], np.int64)))
    assert stray.signature().policy is Behaviour.FILLS_OR_GARBAGE
    root = replace(stray.signature(), policy=Behaviour.AMBIGUOUS)
    assert judged_alone(case, info, Outcome.returned(np.array([-3], np.int64))).signature() == root
    assert settles(stray, lambda s: s == root)
    assert judgement(case, info, Outcome.returned(np.array([-3], np.int64)), root).other[1]


def test_a_stray_read_shows_a_root_cause_whose_example_was_ambiguous() -> None:
    """Regression (.ci/run on a47b767, loaded): MLX's take_along_axis read an
    out-of-range uint8 index (255) as a value that policies also give, so its
    finding was 'observed policy ambiguous'; its script, run alone, read other
    bytes ('a value no policy explains') and said 'not reproduced'. Garbage
    fits every ambiguous value, so the replay, the plugin and the script all
    take a stray read as showing such a root cause."""
    from dataclasses import replace

    import numpy as np

    from conformance.core.behaviour import Behaviour
    from conformance.core.case import Case, CaseTags
    from conformance.core.oracle import OracleInfo
    from conformance.core.outcome import Outcome
    from conformance.judge.judged import judged_alone, judgement, replay_status, settles

    info = OracleInfo("mlx", "mlx", "0.32.4", "cpu", "eager", ("mlx.take_along_axis",))
    data, indices = np.array([[1, 2], [3, 4]], np.int64), np.array([[255, 0]], np.uint8)
    case = Case("mlx.take_along_axis", data, indices, {"axis": 0}, CaseTags("extreme", "uint8", "int"))
    stray = judged_alone(case, info, Outcome.returned(np.array([[2308769305445819244, 4]], np.int64)))
    root = replace(stray.signature(), policy=Behaviour.AMBIGUOUS)
    assert settles(stray, lambda s: s == root)
    assert str(replay_status(stray, lambda s: s == root)) == "reproduces"
    assert judgement(case, info, Outcome.returned(np.array([[3, 4]], np.int64)), root).other[1]


def test_a_bfloat16_stray_read_from_an_empty_axis_shows_its_root_cause_whatever_the_bytes() -> None:
    """Regression (make test at f72e80e, test_consistency): MLX's take_along_axis on an empty bfloat16 axis read 0.0
    when its finding was built ('spec silent, for empty axis', a value a zero fill gives too) and 1.48e-21 when its
    script ran; the script's verdicts had no stand-in for 'a value no policy explains' in bfloat16 (ml_dtypes'
    kind 'V'), so it said 'not reproduced'."""
    import numpy as np

    from conformance.core.arrays import as_dtype
    from conformance.core.case import Case, CaseTags
    from conformance.core.oracle import OracleInfo
    from conformance.core.outcome import Outcome
    from conformance.judge.judged import judgement

    info = OracleInfo("mlx", "mlx", "0.32.4", "cpu", "eager", ("mlx.take_along_axis",))
    bf16 = as_dtype("bfloat16")
    case = Case(
        "mlx.take_along_axis", np.zeros(0, bf16), np.array([0]), {"axis": 0}, CaseTags("oob-above", "int64", "float")
    )
    other, shows = judgement(case, info, Outcome.returned(np.zeros(1, bf16))).other
    assert shows, other


def test_a_script_of_a_stray_read_runs_the_case_again_until_it_finds_other_bytes(tmp_path) -> None:
    """Regression (CI on 08008ad, test_consistency): MLX's take_along_axis on an empty bfloat16 axis read
    stray bytes in the campaign's oracle process ('spec silent, for empty axis'); its script, in a fresh process,
    read 0, which a zero fill gives too and MLX's docs permit ("Indexing out of bounds is undefined behavior"), and
    said 'not reproduced'. MLX's first unchecked read in a process finds zeros, the next ones mostly do not: a
    script of a stray read runs the case up to STRAY_TRIES times and says which run showed it."""
    import numpy as np

    pytest.importorskip("mlx.core", reason="needs MLX")
    from conformance.core.arrays import as_dtype
    from conformance.core.case import Case, CaseTags
    from conformance.core.outcome import Outcome
    from conformance.execution.registry import get
    from conformance.judge.judged import STRAY_TRIES, judged_alone, judgement
    from conformance.judge.verdict import STRAY, reference_outcome

    bf16 = as_dtype("bfloat16")
    case = Case(
        "mlx.take_along_axis",
        np.zeros(0, bf16),
        np.array([65535], np.uint16),
        {"axis": 0},
        CaseTags("extreme", "uint16", "float"),
    )
    garbage = Outcome.returned(np.array([5.28e22], bf16))
    oracle = get("mlx", isolated=False)
    try:
        info = oracle.info()
        assert judged_alone(case, info, garbage).verdict.behaviour in STRAY
        verdicts = judgement(case, info, garbage)
        assert verdicts.tries == STRAY_TRIES
        assert judgement(case, info, Outcome.returned(np.zeros(0, bf16))).tries == 1  # not a stray read
        repro = oracle.reproducer(case, reference_outcome(case), garbage, judgement=verdicts)
    finally:
        oracle.close()
    path = save(repro, tmp_path / "script")
    run = subprocess.run(
        [sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 1 and "REPRODUCED" in run.stdout, run.stdout + run.stderr
    assert f"of at most {STRAY_TRIES}" in run.stdout, run.stdout
