"""The pytest plugin a framework team adopts: ``pytest --gather-conformance``
collects the suite's items only, reports per item, runs under xdist, and
turns baseline entries into strict xfails."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

ARGS = [
    "--gather-conformance",
    "--gc-oracles",
    "numpy",
    "--gc-ops",
    "numpy.take_along_axis,numpy.advanced_indexing",
    "-q",
    "-p",
    "no:cacheprovider",
]


def _pytest(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], ET.Element]:
    junit = tmp_path / "junit.xml"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *ARGS, f"--junitxml={junit}", *extra],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return run, ET.parse(junit).getroot()


def _cases(root: ET.Element) -> list[ET.Element]:
    return list(root.iter("testcase"))


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_suite_runs_as_pytest_items_and_passes_on_the_pinned_versions(tmp_path, workers) -> None:
    # numpy.take for the baseline's NumPy entries (numpy.take_along_axis's only one, axis=True, conforms since stop
    # 48), without its atlas items
    ops = "numpy.take_along_axis,numpy.take,numpy.advanced_indexing"
    run, root = _pytest(tmp_path, *workers, "--gc-ops", ops, "-k", "take_along_axis or advanced_indexing or baseline")
    assert run.returncode == 0, run.stdout[-3000:]
    names = [c.get("name", "") for c in _cases(root)]
    assert any(n.startswith("atlas[numpy-numpy.take_along_axis-") for n in names)
    assert any(n.startswith("baseline[numpy-") for n in names)  # the baseline's reproducers, as strict xfails
    assert re.search(r"\d+ passed", run.stdout) and "xfailed" in run.stdout


def test_k_selects_items_by_condition(tmp_path) -> None:
    run, root = _pytest(tmp_path, "-k", "take_along_axis and beyond")
    assert run.returncode == 0 and [c.get("name") for c in _cases(root)] == [
        "atlas[numpy-numpy.take_along_axis-beyond-int32]"
    ]


def test_a_baseline_entry_fixed_upstream_fails_as_a_strict_xpass(tmp_path) -> None:
    import json

    from conformance.core.case import Case, CaseTags

    case = Case("numpy.take_along_axis", np.arange(4), np.array([1]), {"axis": 0}, CaseTags("in-range", "int64", "int"))
    entry = {
        "op": "numpy.take_along_axis",
        "oracle": "numpy",
        "device": "*",
        "mode": "*",
        "outcome": "wrong value",
        "policy": "*",
        "condition": ["in-range"],
        "versions": ">=0",
        "note": "pretend numpy gets this wrong",
        "at_fault": "framework",
        "link": "l",
        "reproducers": [case.to_json()],
    }
    (tmp_path / "b.json").write_text(json.dumps({"format": 2, "entries": [entry]}))
    run, _ = _pytest(tmp_path, "--gc-baseline", str(tmp_path / "b.json"), "-k", "baseline")
    assert run.returncode == 1 and "XPASS(strict)" in run.stdout and "pretend numpy gets this wrong" in run.stdout
