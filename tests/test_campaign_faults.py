"""Faults met by a real, isolated campaign stay faults, once: a hang met
only while shrinking becomes one timeout finding, confirmed once and never
retried after that; an
oracle whose worker cannot restart is broken once, with one finding, and the
rest of its cases are not run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.execution.isolation import IsolatedOracle

TESTS = str(Path(__file__).resolve().parent)

SMALL_HANGS = f'''
import hashlib, os, sys, time
sys.path.insert(0, {TESTS!r})
import numpy as np
from fake_oracles import FakeOracle
LOG = os.environ["HANG_LOG"]

class SmallHangs(FakeOracle):
    """Answers zeros (a wrong value) on big inputs; hangs on single-element data
    with a single index, which shrinking reaches; logs each hang's case."""
    def call(self, op, data, indices, attrs):
        if data.size == 1 and indices.size == 1:
            fields = (op, data.tobytes(), str(data.dtype), data.shape, indices.tobytes(), str(indices.dtype),
                      indices.shape, sorted(attrs.items()))
            key = hashlib.sha1(repr(fields).encode()).hexdigest()
            with open(LOG, "a") as f:
                f.write(key + "\\n")
            time.sleep(60)
        return np.zeros(np.asarray(np.take(data, indices, **attrs)).shape, data.dtype)

def oracles_here():
    return [SmallHangs("returns", "small-hangs")]
'''

CRASH_THEN_GONE = f"""
import os, sys, ctypes
MARKER = __file__ + ".imported"
if os.path.exists(MARKER):
    raise ImportError("its library is gone")
open(MARKER, "w").close()
sys.path.insert(0, {TESTS!r})
import numpy as np
from fake_oracles import FakeOracle

class CrashThenGone(FakeOracle):
    def call(self, op, data, indices, attrs):
        if data.size >= 4:
            ctypes.string_at(0)
        return np.asarray(np.take(data, indices, **attrs))

def oracles_here():
    return [CrashThenGone("returns", "crash-then-gone")]
"""


def _oracle(tmp_path: Path, name: str, source: str, timeout: float) -> IsolatedOracle:
    module = tmp_path / f"{name.replace('-', '_')}.py"
    module.write_text(source)
    oracle = IsolatedOracle(name, str(module), timeout=timeout)
    oracle.start()
    return oracle


def test_a_hang_met_while_shrinking_becomes_a_timeout_finding_and_no_case_hangs_twice(tmp_path, monkeypatch) -> None:
    log = tmp_path / "hangs.log"
    monkeypatch.setenv("HANG_LOG", str(log))
    oracle = _oracle(tmp_path, "small-hangs", SMALL_HANGS, timeout=1.0)
    settings = Settings(seed=0, max_examples=10, ops=("numpy.take",), shrink_evals=15)
    try:
        result = run_campaign([oracle], settings)
    finally:
        oracle.close()
    outcomes = {str(f.signature.outcome) for f in result.findings}
    assert "timeout" in outcomes and "wrong value" in outcomes and result.harness_errors == []
    hung = Counter(log.read_text().split())
    # a case hangs on its first try and once more, alone, when confirmed (a key may also be another case's
    # warm-up, which is that case with every index 0); never again after that: it is remembered
    assert hung and max(hung.values()) <= 3, hung
    timing = oracle.timing()
    assert timing["hangs"] >= 1 and timing["hangs"] == timing["confirmed"], timing


def test_an_oracle_that_cannot_restart_is_broken_once_and_its_cases_are_not_run(tmp_path) -> None:
    oracle = _oracle(tmp_path, "crash-then-gone", CRASH_THEN_GONE, timeout=5.0)
    try:
        result = run_campaign([oracle], Settings(seed=1, max_examples=30, ops=("numpy.take",), shrink_evals=5))
    finally:
        oracle.close()
    crashes = [f for f in result.findings if str(f.signature.outcome) == "crash"]
    assert len(crashes) == 1 and len(result.findings) == 1, [f.signature.words() for f in result.findings]
    assert "its library is gone" in result.facts["broken_oracles"]["crash-then-gone"]
    not_run = sum(cell.get("not run", 0) for row in result.matrix.values() for cell in row.values())
    assert not_run > 0 and result.harness_errors == []
