"""Upstream-ready findings (issue 22): for every finding of a small real campaign, a Markdown issue
text in the report folder whose script imports only its framework, NumPy and the standard library
and reproduces when run alone from a folder outside the checkout."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.report import build_report
from conformance.report.upstream import UPSTREAM_DIR
from conformance.results.atlas import Atlas

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


def test_each_upstream_script_imports_only_its_framework_numpy_and_the_stdlib_and_reproduces_alone(
    report_folder: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    failures = []
    for n, path in enumerate(sorted((report_folder / UPSTREAM_DIR).glob("*.md"))):
        text = path.read_text()
        script = text.split("```python\n", 1)[1].split("\n```", 1)[0]
        framework = re.search(r"^- (\w+) ", text.split("## Environment", 1)[1], re.MULTILINE).group(1)  # type: ignore[union-attr]
        allowed = set(sys.stdlib_module_names) | {"numpy"} | FRAMEWORK_MODULES[framework]
        allowed |= {"ml_dtypes"} if "bfloat16" in script else set()
        assert _imports(script) <= allowed, (path.name, _imports(script) - allowed)
        (elsewhere / f"repro{n}.py").write_text(script)
        done = subprocess.run(
            [sys.executable, f"repro{n}.py"],
            check=False,
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 1 or "REPRODUCED" not in done.stdout:
            failures.append((path.name, done.returncode, done.stdout[-300:], done.stderr[-300:]))
    assert failures == []
