"""``gather-conformance upgrade`` for real: two NumPy releases from the package
registry, each in its own environment, with the numpy oracle.

Slow (two environments to build the first time, a minute or two each; under
a minute once cached), so it runs only with ``GATHER_CONFORMANCE_SLOW=1``
(``make test-slow``: a CI job of its own, not part of ``make test``); skipped,
saying why, when the package registry cannot be reached."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conformance.cli.main import main

REGISTRY = "https://pypi.org/simple/numpy/"
VERSIONS = ("2.3.5", "2.4.6")

pytestmark = pytest.mark.skipif(
    not os.environ.get("GATHER_CONFORMANCE_SLOW"),
    reason="slow: builds two environments from the package registry; run it with GATHER_CONFORMANCE_SLOW=1 "
    "(make test-slow)",
)


def registry_unreachable() -> str | None:
    """Why the package registry cannot be reached, or None."""
    try:
        with urllib.request.urlopen(urllib.request.Request(REGISTRY, method="HEAD"), timeout=10):
            return None
    except (urllib.error.URLError, OSError) as exc:
        return f"{REGISTRY}: {getattr(exc, 'reason', exc)}"


def test_upgrade_runs_for_real_on_two_numpy_releases(tmp_path: Path, capsys) -> None:
    why = registry_unreachable()
    if why:
        pytest.skip(f"the package registry cannot be reached ({why})")
    out = tmp_path / "up"
    versions = [f"numpy=={v}" for v in VERSIONS]
    code = main(["upgrade", *versions, "--ops", "numpy.take", "--max-examples", "2", "--out", str(out)])
    printed = capsys.readouterr()
    report = json.loads((out / "upgrade.json").read_text())
    assert code == report["exit_status"] and code in (0, 1), printed.err[-3000:]
    assert [v["installed"] for v in report["versions"]] == list(VERSIONS), "read inside each environment"
    assert report["oracles"] == ["numpy"]
    for v in VERSIONS:
        atlas = json.loads((out / "versions" / v / "atlas.json").read_text())
        assert {c["version"] for c in atlas["cells"]} == {v}, "each environment ran its own NumPy"
    assert (out / "index.html").is_file() and (out / "steps" / "2.3.5_to_2.4.6" / "index.html").is_file()
