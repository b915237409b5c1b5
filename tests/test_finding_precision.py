"""Issue 39 on a small real campaign: every finding has a kind, a basis and a trigger that replays; the misnamed and
false findings of the audit are named by what triggers them, or are no findings; no value equal to the reference's
is called garbage. One campaign (atlas and drawing) over the ops the audit named, on the real frameworks installed
here; a framework that is not installed is left out, saying so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from conformance.campaign.dispatch import evaluate_cases
from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.cases.counterfactual import counterfactuals
from conformance.core.arrays import same_bits
from conformance.core.behaviour import Behaviour
from conformance.core.encoding import decode_array
from conformance.core.vocabulary import POLICY_REGIMES, BasisStatus, Feature, FindingKind, MismatchKind, Regime
from conformance.results.atlas import Atlas
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult
from conformance.spec.basis import MLX_OOB, Basis

ORACLES = ("paddle", "tensorflow", "openvino-onnx", "mlx", "array-api-strict", "jax", "onnxruntime")
OPS = (
    "paddle.take_along_axis",
    "paddle.gather_nd",
    "tensorflow.gather",
    "onnx.GatherND-13",
    "onnx.Gather-13",
    "mlx.take_along_axis",
    "array_api.take",
    "jax.numpy.take_along_axis",
)
STRAY = (Behaviour.GARBAGE, Behaviour.FILLS_OR_GARBAGE)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunResult, Atlas, dict]]:
    import oracles

    names = [n for n in ORACLES if n in oracles.available()]
    if len(names) < 2:
        pytest.skip(f"needs at least two of {', '.join(ORACLES)}; installed here: {', '.join(names) or 'none'}")
    started = {n: oracles.get(n) for n in names}
    out = tmp_path_factory.mktemp("precision")
    try:
        result = run_campaign(
            list(started.values()), Settings(seed=0, max_examples=8, ops=OPS, atlas=True), out_dir=out
        )
        yield result, Atlas.load(Path(out) / "atlas.json"), started
    finally:
        for o in started.values():
            o.close()


def _of(result: RunResult, op: str, framework: str) -> list[Finding]:
    found = [f for f in result.findings if f.signature.op == op and (f.framework or f.signature.oracle) == framework]
    return found


def test_every_finding_has_a_kind_a_basis_with_its_quote_and_tried_counterfactuals(campaign) -> None:
    result, _, _ = campaign
    assert result.findings
    for f in result.findings:
        assert f.kind in set(FindingKind), f.title()
        assert f.basis.status in set(BasisStatus)
        assert isinstance(f.basis, Basis) and f.basis.quote or f.basis.status is BasisStatus.SILENT, f.title()
        assert f.tried or not counterfactuals(f.case), f"{f.title()}: no counterfactual run"
        d = f.to_json()
        assert {"kind", "basis", "trigger", "title"} <= set(d)


def test_changing_each_trigger_feature_removes_the_behaviour_when_replayed(campaign) -> None:
    result, _, started = campaign
    replayed = 0
    for f in result.findings:
        oracle = started.get(f.signature.oracle)
        if not f.trigger or oracle is None or f.signature.outcome.kind in (MismatchKind.CRASH, MismatchKind.TIMEOUT):
            continue
        shown = {(t.feature, t.detail) for t in f.trigger}
        cases = [c for c in counterfactuals(f.case) if (c.feature, c.detail) in shown]
        assert len(cases) == len(shown), f.title()
        for c, j in zip(cases, evaluate_cases([c.case for c in cases], oracle, oracle.info())):
            assert j.verdict.conforms or not j.signature().shows_behaviour_of(f.signature), (f.title(), c.words())
            replayed += 1
    assert replayed > 0


def test_paddle_take_along_axis_int8_indices_are_the_trigger_not_bad_indices(campaign) -> None:
    result, _, _ = campaign
    int8 = [f for f in _of(result, "paddle.take_along_axis", "paddle") if f.case.indices.dtype == np.int8]
    if not int8:
        pytest.skip("paddle not installed or no int8 finding drawn")
    for f in int8:
        assert "int8 indices" in f.trigger_words(), f.title()
        assert "bad index" not in f.title()


def test_tf_gather_crash_is_triggered_by_its_axis_not_by_in_range_indices(campaign) -> None:
    result, _, _ = campaign
    crashes = [
        f for f in _of(result, "tensorflow.gather", "tensorflow") if f.signature.outcome.kind is MismatchKind.CRASH
    ]
    if not crashes:
        pytest.skip("tensorflow not installed here")
    assert any(t.feature is Feature.ATTRIBUTE and t.detail == "axis" for f in crashes for t in f.trigger), [
        f.title() for f in crashes
    ]
    assert not any(f.title().endswith("for in-range") for f in crashes)


def test_openvino_onnx_gathernd_stray_reads_are_its_missing_bounds_check_not_an_undocumented_dtype(campaign) -> None:
    result, _, _ = campaign
    stray = [f for f in _of(result, "onnx.GatherND", "openvino") if f.signature.policy in STRAY]
    if not stray:
        pytest.skip("openvino not installed here")
    for f in stray:
        assert any(t.feature is Feature.OUT_OF_RANGE for t in f.trigger), f.title()
        assert not f.title().endswith("for undocumented dtype"), f.title()


def test_paddle_gather_nd_1d_indices_never_break_a_0d_rule(campaign) -> None:
    result, _, _ = campaign
    for f in _of(result, "paddle.gather_nd", "paddle"):
        if "precondition: 0-d indices" in f.signature.tags:
            assert np.ndim(f.case.indices) == 0, f.title()


def test_mlx_out_of_bounds_reads_are_hazards_resting_on_its_undefined_behaviour_never_bugs(campaign) -> None:
    result, _, _ = campaign
    mlx = _of(result, "mlx.take_along_axis", "mlx")
    oob = [f for f in mlx if f.case.tags is not None and f.case.tags.regime in POLICY_REGIMES - {Regime.NEGATIVE}]
    for f in oob:
        assert f.kind is not FindingKind.BUG, f.title()
        if f.signature.outcome.kind is MismatchKind.SPEC_SILENT:
            assert f.kind is FindingKind.HAZARD and f.basis.quote == MLX_OOB, f.title()
            assert "undefined by the docs" in f.title()


def test_take_on_0d_data_is_left_to_the_array_api_implementation(campaign) -> None:
    result, _, _ = campaign
    for f in _of(result, "array_api.take", "array-api-strict"):
        faults = (MismatchKind.CRASH, MismatchKind.TIMEOUT)
        assert np.ndim(f.case.data) > 0 or f.signature.outcome.kind in faults, f.title()


def test_jax_refusing_an_array_fill_value_is_documented_not_a_finding(campaign) -> None:
    result, _, _ = campaign
    for f in result.findings:
        assert not any(t.startswith("fill_value=") for t in f.signature.tags), f.title()


def test_onnxruntime_refusing_complex_gather_data_is_its_documented_kernel_table(campaign) -> None:
    result, _, _ = campaign
    for f in _of(result, "onnx.Gather", "onnxruntime"):
        if f.signature.outcome.kind is MismatchKind.DTYPE_REJECTED:
            assert np.asarray(f.case.data).dtype.kind != "c", f.title()


def test_no_atlas_cell_whose_observed_value_equals_the_reference_is_named_garbage(campaign) -> None:
    _, atlas, _ = campaign
    named = [c for c in atlas.cells if c.behaviour in STRAY]
    for c in named:
        ref, seen = c.example.get("reference_value"), c.example.get("observed_value")
        if ref and seen:
            r, o = decode_array(ref), decode_array(seen)
            assert not (r.shape == o.shape and r.dtype == o.dtype and same_bits(r, o)), (c.key, c.behaviour)
