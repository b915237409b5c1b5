"""The tables EXTENDING.md relies on agree: every catalog op has an oracle
unit here or is declared spec-only; every oracle op is in the catalog and
renders a reproducer; and every reproducer of a small real campaign, run
alone in a fresh process from another directory, reproduces its finding."""

from __future__ import annotations

import base64
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.cases.class_case import ClassCase
from conformance.cases.translate import translate
from conformance.core.case import OpKey
from conformance.core.oracle import Reproducer
from conformance.execution import registry
from conformance.execution.scripts import save
from conformance.judge.verdict import reference_outcome
from conformance.results.finding import Finding
from conformance.spec.catalog import SPEC_ONLY, specs
from conformance.spec.plans import EqClass

KEYS = {s.key for s in specs()}


@pytest.fixture(scope="module")
def in_process():
    return {n: registry.get(n, isolated=False) for n in registry.available()}


def _frameworks_here(in_process) -> set[str]:
    return {OpKey.parse(op).framework for o in in_process.values() for op in o.info().ops}


def test_every_catalog_op_has_an_oracle_unit_or_is_spec_only(in_process) -> None:
    implemented = {op for o in in_process.values() for op in o.info().ops}
    here = _frameworks_here(in_process)
    missing = sorted(
        k
        for k in KEYS
        if k not in implemented and OpKey.parse(k).framework not in SPEC_ONLY and OpKey.parse(k).framework in here
    )
    assert missing == []
    assert not [k for k in KEYS if OpKey.parse(k).framework in SPEC_ONLY and k in implemented], (
        "a spec-only op with an oracle: drop it from SPEC_ONLY"
    )


def _sample(op: str):
    """An in-range case of ``op`` from the catalog's own translation."""
    eq = next(s.eq_class for s in specs() if s.key == op)
    cc = ClassCase(
        eq,
        (3, 4),
        (2, 2) if eq is not EqClass.ND else (2, 1),
        0 if eq is not EqClass.FLAT else None,
        0,
        "float32",
        "int64",
        "in-range",
        False,
        "contiguous",
        0,
        1,
    )
    return next(c for c in translate(cc) if c.op == op)


def test_every_oracle_op_is_in_the_catalog_and_renders_a_reproducer(in_process) -> None:
    for name, oracle in in_process.items():
        for op in oracle.info().ops:
            assert op in KEYS, f"{name} lists {op}, which the catalog does not have"
            case = _sample(op)
            repro = oracle.reproducer(case, reference_outcome(case))
            assert repro.oracle == name and "REPRODUCED" in repro.text and "def call" in repro.text


def _run_script(path: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(path)], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def _one_per_kind(findings: list[Finding]) -> list[Finding]:
    """The first finding of each (oracle, outcome, behaviour word): every kind
    of verdict a script prints, on every oracle, without a fresh interpreter
    (seconds of framework import) for each of a campaign's two hundred findings."""
    kinds = {(f.signature.oracle, f.signature.outcome.kind, f.signature.policy): f for f in reversed(findings)}
    return [f for f in findings if kinds[(f.signature.oracle, f.signature.outcome.kind, f.signature.policy)] is f]


DEFAULT_MODES = (
    "array-api-strict",
    "jax",
    "mlx",
    "numpy",
    "onnx-reference",
    "onnxruntime",
    "openvino",
    "paddle",
    "tensorflow",
    "tensorflow-numpy",
    "torch",
)
"""The oracle of each framework's default mode (ONNX: its reference and its runtime; TensorFlow: its
NumPy API too)."""


@pytest.mark.timeout(900)
def test_every_reproducer_of_a_small_real_campaign_reproduces_alone(tmp_path) -> None:
    """A small campaign over every oracle here; the own oracle's script of
    one finding of each kind (:func:`_one_per_kind`), saved and run in a fresh
    interpreter from another directory, prints REPRODUCED and exits 1, a
    value that may be a stray read too (``fills or garbage`` names what the
    script sees again, whatever the bytes). The internal errors, wrong error
    classes and shape refusals the atlas meets have their own test
    (tests/test_finding_reproducers.py). One oracle per
    framework, in its default mode (:data:`DEFAULT_MODES`): a compiling mode
    costs minutes of compilation here, and its scripts are the same program
    with another runner (tests/test_execution_modes.py runs the modes). Those installed here: every framework
    is an optional extra (without MLX, Paddle and OpenVINO this test raised OracleUnavailable, stop 39)."""
    here = registry.available()
    oracles = [registry.get(name) for name in DEFAULT_MODES if name in here]
    try:
        result = run_campaign(oracles, Settings(seed=0, max_examples=8, shrink_evals=10))
    finally:
        for o in oracles:
            o.close()
    jobs = []
    for n, f in enumerate(_one_per_kind(result.findings)):
        script = f.scripts.get(f.signature.oracle, "")
        assert script and not script.startswith("# no reproducer"), f.signature.words()
        model = {"model.onnx": base64.b64decode(f.onnx_model_b64)} if f.onnx_model_b64 else {}
        jobs.append((f, save(Reproducer(f.signature.oracle, script, model), tmp_path / f"f{n}")))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda job: _run_script(job[1], elsewhere), jobs))
    failures = [
        (f.signature.words(), r.returncode, r.stdout[-400:] + r.stderr[-400:])
        for (f, _), r in zip(jobs, runs)
        if r.returncode != 1 or "REPRODUCED" not in r.stdout
    ]
    assert not failures, "\n\n".join(f"{words} (exit {code}):\n{out}" for words, code, out in failures)
    frameworks = {result.facts["oracles"][f.signature.oracle]["framework"] for f, _ in jobs}
    assert len(frameworks) >= 3, frameworks
