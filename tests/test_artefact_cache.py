"""The cache of compiled artefacts across runs (issue 42): a warm run compiles less and finds the same; a changed
framework version misses it.

A small real campaign over JAX (its own persistent compilation cache) and OpenVINO (the suite's cache of exported
models) runs twice on one empty cache folder: the first compiles cold and fills it, the second, in fresh workers,
takes its compilations from it. Their matrix, cases and findings must be the same, and the second must count, for
each oracle, fewer cold compilations (``facts["timing"]["oracles"][name]["compiles_cold"]``) and more warm ones (the
first may have some too: a worker started again after a crash finds what the one before it compiled).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.cli.selection import select_ops
from conformance.execution import registry
from conformance.execution.artefact_cache import (
    CACHE_VARIABLE,
    COMPILED_OFF_VARIABLE,
    cache_sections,
    compiled_folder,
    host_cpu,
)
from conformance.results.run_result import RunResult

ORACLES = ("jax", "openvino")
OPS = ("jax.numpy.take", "openvino.Gather-8")


def _campaign() -> RunResult:
    oracles = [registry.get(n) for n in ORACLES]
    try:
        return run_campaign(
            oracles, Settings(seed=0, max_examples=12, shrink_evals=5, ops=select_ops(OPS), atlas=False)
        )
    finally:
        for o in oracles:
            o.close()


def _seen(result: RunResult) -> dict[str, Any]:
    """What a run found: its findings' keys and words, its matrix, its atlas cells' outcomes."""
    return {
        "findings": sorted((f.signature.key(), f.signature.words()) for f in result.findings),
        "matrix": result.matrix,
        "cases": result.cases,
    }


def _compiles(result: RunResult, kind: str) -> dict[str, int]:
    return {name: figures[f"compiles_{kind}"] for name, figures in result.facts["timing"]["oracles"].items()}


@pytest.mark.skipif(not set(ORACLES) <= set(registry.available()), reason="needs JAX and OpenVINO")
def test_a_warm_run_compiles_less_and_finds_what_the_cold_run_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path))
    monkeypatch.delenv(COMPILED_OFF_VARIABLE, raising=False)  # the suite's tests keep nothing; this one must
    cold = _campaign()
    folders = {s.name: s.files for s in cache_sections() if s.name.startswith("compiled/")}
    versions = {info["framework"]: info["version"] for info in cold.facts["oracles"].values()}
    assert sorted(folders) == [f"compiled/{f}-{versions[f]}-cpu-{host_cpu()}" for f in ("jax", "openvino")], folders
    assert all(folders.values()), folders
    warm = _campaign()
    assert _seen(warm) == _seen(cold)
    figures = (cold.facts["timing"], warm.facts["timing"])
    for name in ORACLES:
        assert _compiles(warm, "cold")[name] < _compiles(cold, "cold")[name], figures
        assert _compiles(warm, "warm")[name] > _compiles(cold, "warm")[name], figures
    for figures in warm.facts["timing"]["oracles"].values():  # where the time went: start-up, compilations, runs
        assert figures["workers"] >= 1 and figures["start_s"] > 0 and figures["runs"] > 0 < figures["run_s"], figures
        assert figures["compile_warm_s"] > 0, figures
    phases = list(warm.facts["timing"]["phases_s"])
    assert phases[:2] == ["starting", "drawing"] and "shrinking" in phases, phases


@pytest.mark.parametrize("name", ["iree", "tvm"])
def test_a_changed_framework_version_misses_the_cache(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """IREE's modules and TVM's libraries (the suite's own cache) kept for its version are read back by the same
    version and never by another: the folder is keyed by the version, whatever the model."""
    if name not in registry.available():
        pytest.skip(f"needs {name}")
    from oracles.iree_oracle import IreeOracle
    from oracles.tvm_oracle import TvmOracle

    make = {"iree": IreeOracle, "tvm": TvmOracle}[name]
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path))
    monkeypatch.delenv(COMPILED_OFF_VARIABLE, raising=False)
    version = make().info().version
    case = ("onnx.Gather-13", np.arange(6.0).reshape(2, 3), np.array([-1]), {"axis": 1})

    def compiled(version: str) -> tuple[int, int] | None:
        oracle = make()  # a fresh one: nothing compiled in this process's memory
        folder = compiled_folder(name, version, "cpu")
        assert folder is not None
        oracle.keep_compilations(folder)
        assert oracle.run_in_process(*case).value.tolist() == [[2.0], [5.0]]
        return oracle.compilations()  # (compiled afresh, read back from the cache)

    assert (compiled(version), compiled(version)) == ((1, 0), (0, 1))  # compiled, then read back
    assert compiled(version + ".post1") == (1, 0)  # another version compiles its own
    assert sorted(s.files for s in cache_sections()) == [1, 1]
