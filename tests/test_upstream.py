"""Upstream-ready findings (issue 22): for every finding of a small real campaign, a Markdown issue
text in the report folder whose script (issue 39, point 8: the call on literal arrays, at most 30 lines)
imports only its framework and NumPy and shows the finding when run alone from a folder outside the
checkout. tests/test_upstream_snippets.py runs every oracle's short script on every op it runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.core.behaviour import Behaviour
from conformance.core.outcome import Kind
from conformance.core.vocabulary import MismatchKind
from conformance.execution.glance import MAX_LINES, outcome_words
from conformance.report import build_report
from conformance.report.upstream import UPSTREAM_DIR, upstream_path
from conformance.report.views import finding_anchor
from conformance.results.atlas import Atlas
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult
from tests.test_upstream_snippets import allowed, imports

OPS = ("numpy.take_along_axis", "numpy.take", "torch.gather", "torch.take_along_dim", "torch.index_select")
"""numpy.take for NumPy's findings: numpy.take_along_axis had one only (axis=True), which conforms since stop 48."""


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory) -> Path:
    from conformance.campaign.dispatch import close_all
    from conformance.campaign.runner import run_campaign
    from conformance.campaign.settings import Settings
    from conformance.execution import registry

    names = [n for n in ("numpy", "torch") if n in registry.available()]
    if "torch" not in names:
        pytest.skip("needs torch")
    oracles = [registry.get(n) for n in names]
    out = tmp_path_factory.mktemp("run")
    try:
        result = run_campaign(oracles, Settings(seed=0, max_examples=4, ops=OPS, atlas=True), out_dir=out)  # type: ignore[arg-type]
    finally:
        close_all(oracles)
    build_report([result], out, atlases=[Atlas.load(out / "atlas.json")])
    return out


def test_every_finding_has_an_upstream_issue_text_with_what_an_upstream_report_needs(report_folder: Path) -> None:
    import json

    findings = json.loads((report_folder / "findings.json").read_text())["findings"]
    texts = sorted((report_folder / UPSTREAM_DIR).glob("*.md"))
    assert findings and len(texts) == len(findings)
    for path in texts:
        text = path.read_text()
        assert text.startswith("# `") and "## Environment" in text and "```python" in text, path.name
        assert "## What the docs say" in text and "- expected (the docs):" in text and "- observed (" in text
        assert re.search(r"^Other (frameworks|oracles) on the same", text, re.MULTILINE), path.name
    html = (report_folder / "index.html").read_text()
    assert html.count('data-copy="f-') >= len(texts) and 'class="script upstream"' in html


UNDEFINED_READS = frozenset({Behaviour.GARBAGE, Behaviour.FILLS_OR_GARBAGE, Behaviour.AMBIGUOUS})
"""Behaviours whose values are whatever memory held: a script shows their dtype and shape, not their values."""


def _not_shown(finding: Finding, script: str, folder: Path) -> tuple[Any, ...] | None:
    """Why the short ``script`` of ``finding``, run alone in ``folder`` (no PYTHONPATH), does not show it, or None.
    It must print what the docs ask for, then: the observed value (its dtype and shape; its elements too where they
    follow a named policy or are a NaN's bits, not whatever memory held), the observed error's type (exit status 1),
    a crash (any other end), or no answer in 10 s for a hang (the campaign gave it 1 s; numpy.take's mode='wrap' on
    INT64_MIN would take years)."""
    observed = finding.outcomes[finding.signature.oracle]
    (folder / "repro.py").write_text(script)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    limit = 10 if observed.kind is Kind.TIMEOUT else 120
    try:
        done = subprocess.run(
            [sys.executable, "repro.py"],
            check=False,
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        return None if observed.kind is Kind.TIMEOUT else (f"no answer in {limit} s", observed.describe())
    said = (done.returncode, done.stdout[-400:], done.stderr[-400:])
    if not done.stdout.startswith("expected (the docs): "):
        return ("no expected line", *said)
    if observed.kind is Kind.VALUE and observed.value is not None:
        v = np.asarray(observed.value)
        exact = finding.signature.outcome.kind is MismatchKind.NAN_PAYLOAD or (
            finding.signature.policy is not None and finding.signature.policy not in UNDEFINED_READS
        )
        dtype = "object" if v.dtype.kind in "US" else v.dtype  # strings as the framework answers them (str objects)
        want = f"observed: {outcome_words(observed)}" if exact else f"observed: value {dtype} {list(v.shape)} = "
        shown = any(line == want or (not exact and line.startswith(want)) for line in done.stdout.splitlines())
        return None if done.returncode == 0 and shown else (f"not {want!r}", *said)
    if observed.kind is Kind.ERROR:
        raised = re.search(rf"\b{re.escape(observed.error_type or '?')}\b", done.stderr)
        return None if done.returncode == 1 and raised else (f"not {observed.describe()}", *said)
    if observed.kind is Kind.CRASH:
        return None if done.returncode != 0 else ("did not crash", *said)
    return None


def check_issue_texts(report_folder: Path, tmp_path: Path) -> set[str]:
    """Every issue text's script of a report folder is the finding's short script (its own reproducer unchanged),
    at most :data:`MAX_LINES` lines, importing only its framework and NumPy (``ml_dtypes`` for bfloat16), and shows
    the finding run alone from another folder (:func:`_not_shown`); the frameworks seen."""
    findings = {finding_anchor(f): f for f in RunResult.load(report_folder / "findings.json").findings}
    failures, seen = [], set()
    for n, (anchor, finding) in enumerate(sorted(findings.items())):
        text = (report_folder / upstream_path(anchor)).read_text()
        script = text.split("```python\n", 1)[1].split("\n```", 1)[0]
        oracle = finding.signature.oracle
        assert script + "\n" == finding.upstream_scripts.get(oracle), anchor  # the short script, not the reproducer
        assert "REPRODUCED" in finding.scripts[oracle]  # which stays as it is
        framework = re.search(r"^- (\S+) ", text.split("## Environment", 1)[1], re.MULTILINE).group(1)  # type: ignore[union-attr]
        may = allowed(framework, script)
        assert imports(script) <= may, (anchor, imports(script) - may)
        assert len(script.splitlines()) <= MAX_LINES, (anchor, len(script.splitlines()))
        seen.add(framework)
        folder = tmp_path / f"elsewhere{n}"
        folder.mkdir()
        problem = _not_shown(finding, script, folder)
        if problem is not None:
            failures.append((anchor, oracle, str(finding.signature.outcome), *problem))
    assert failures == [], "\n".join(map(str, failures))
    return seen


def test_each_upstream_script_is_short_imports_only_its_framework_and_numpy_and_shows_the_finding_alone(
    report_folder: Path, tmp_path: Path
) -> None:
    """Issue 39, point 8: the upstream text's script is the call on literal arrays in a few lines (at most 30),
    imports only its framework and NumPy, and run alone from another folder shows what the finding observed (see
    :func:`_not_shown`); the suite's own reproducers stay as they are (each still in the report, printing
    REPRODUCED)."""
    seen = check_issue_texts(report_folder, tmp_path)
    assert seen == {"numpy", "torch"}, f"the campaign's findings showed only {sorted(seen)}"


WIDE_OPS = (
    "tensorflow.gather",
    "jax.numpy.take",
    "onnx.Gather-13",
    "paddle.gather",
    "mlx.take",
    "openvino.Gather-8",
)
WIDE_ORACLES = ("tensorflow", "jax", "onnxruntime", "onnx-reference", "paddle", "mlx", "openvino")


@pytest.mark.skipif(
    not os.environ.get("GATHER_CONFORMANCE_SLOW"), reason="a campaign on seven oracles (3 to 4 minutes on 2 cores)"
)
def test_the_issue_texts_of_a_campaign_on_the_other_frameworks_show_their_findings_alone(tmp_path: Path) -> None:
    """The same on one op of each other framework (GATHER_CONFORMANCE_SLOW=1, ``make test-slow``): real findings
    (errors, crashes, stray reads, strings, NaN payloads) of TensorFlow, JAX, onnxruntime, onnx.reference, Paddle,
    MLX and OpenVINO, each script run alone; an oracle that is not here is left out, saying which."""
    from conformance.campaign.dispatch import close_all
    from conformance.campaign.runner import run_campaign
    from conformance.campaign.settings import Settings
    from conformance.execution import registry

    here = registry.available()
    names = [n for n in WIDE_ORACLES if n in here]
    if not names:
        pytest.skip(f"none of {', '.join(WIDE_ORACLES)} is available here")
    oracles = [registry.get(n) for n in names]
    frameworks = {o.info().framework for o in oracles}
    out = tmp_path / "run"
    try:
        result = run_campaign(oracles, Settings(seed=0, max_examples=4, ops=WIDE_OPS, atlas=True), out_dir=out)  # type: ignore[arg-type]
    finally:
        close_all(oracles)
    build_report([result], out, atlases=[Atlas.load(out / "atlas.json")])
    seen = check_issue_texts(out, tmp_path)
    assert seen == frameworks, f"the findings showed only {sorted(seen)} of {sorted(frameworks)}"
