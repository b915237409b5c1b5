"""Upstream-ready findings (issue 22): for every finding of a small real campaign, a Markdown issue
text in the report folder whose script (issue 39, point 8: the call on literal arrays, at most 30 lines)
imports only its framework and NumPy and shows the finding when run alone from a folder outside the
checkout. tests/test_upstream_snippets.py runs every oracle's short script on every op it runs."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.core.outcome import Kind
from conformance.execution.glance import MAX_LINES, outcome_words
from conformance.report import build_report
from conformance.report.upstream import UPSTREAM_DIR, upstream_path
from conformance.report.views import finding_anchor
from conformance.results.atlas import Atlas
from conformance.results.run_result import RunResult

OPS = ("numpy.take_along_axis", "torch.gather", "torch.take_along_dim", "torch.index_select")
FRAMEWORK_MODULES = {"numpy": {"numpy"}, "torch": {"torch"}}


def _imports(script: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


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


def test_each_upstream_script_is_short_imports_only_its_framework_and_numpy_and_shows_the_finding_alone(
    report_folder: Path, tmp_path: Path
) -> None:
    """Issue 39, point 8: the upstream text's script is the call on literal arrays in a few lines (at most 30),
    imports only its framework and NumPy, and run alone from another folder prints what the finding observed (a
    value), raises the error it observed, or dies as it did (a crash); the suite's own reproducers stay as they
    are (each still in the report, printing REPRODUCED)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    findings = {finding_anchor(f): f for f in RunResult.load(report_folder / "findings.json").findings}
    failures, seen = [], set()
    for n, (anchor, finding) in enumerate(sorted(findings.items())):
        text = (report_folder / upstream_path(anchor)).read_text()
        script = text.split("```python\n", 1)[1].split("\n```", 1)[0]
        oracle = finding.signature.oracle
        assert script + "\n" == finding.upstream_scripts[oracle], anchor  # the short script, not the reproducer
        assert "REPRODUCED" in finding.scripts[oracle]  # which stays as it is
        framework = re.search(r"^- (\w+) ", text.split("## Environment", 1)[1], re.MULTILINE).group(1)  # type: ignore[union-attr]
        allowed = {"numpy"} | FRAMEWORK_MODULES[framework] | ({"ml_dtypes"} if "bfloat16" in script else set())
        assert _imports(script) <= allowed, (anchor, _imports(script) - allowed)
        assert len(script.splitlines()) <= MAX_LINES, (anchor, len(script.splitlines()))
        seen.add(framework)
        (elsewhere / f"repro{n}.py").write_text(script)
        observed = finding.outcomes[oracle]
        try:
            done = subprocess.run(
                [sys.executable, f"repro{n}.py"],
                check=False,
                cwd=elsewhere,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        except subprocess.TimeoutExpired:
            if observed.kind is not Kind.TIMEOUT:
                failures.append((anchor, "no answer in 120 s", observed.describe()))
            continue
        if not done.stdout.startswith("expected (the docs): "):
            failures.append((anchor, "no expected line", done.stdout[-300:], done.stderr[-300:]))
        if observed.kind is Kind.VALUE:
            shown = f"observed: {outcome_words(observed)}" in done.stdout.splitlines()
            if done.returncode != 0 or not shown:
                failures.append((anchor, done.returncode, done.stdout[-300:], done.stderr[-300:]))
        elif observed.kind is Kind.ERROR:
            last = (done.stderr.strip().splitlines() or [""])[-1]
            if done.returncode != 1 or (observed.error_type or "") not in last:
                failures.append((anchor, done.returncode, observed.describe(), done.stderr[-300:]))
        elif observed.kind is Kind.CRASH and done.returncode == 0:
            failures.append((anchor, "did not crash", done.stdout[-300:]))
    assert failures == []
    assert seen == set(FRAMEWORK_MODULES), f"the campaign's findings showed only {sorted(seen)}"
