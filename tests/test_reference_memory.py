"""The reference's extra memory stays near the size of its output: offsets and
index checks are computed a block of :data:`conformance.spec.policy.CHUNK` positions
at a time (the code before this bound built int64 buffers of the whole output:
about 17x the output for int8 data with int8 indices). And the blocked code
computes what the unblocked one does, block boundaries anywhere."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

import conformance.spec.policy as policy_module
from conformance import gather_multiaxis, reference
from conformance.spec.policy import CLIP, MODULO, ONNX, WRAP_THEN_FILL, ZERO_FILL, normalize_indices
from tests.strategies_reference import Case, multiaxis_cases, oracle_gather
from tests.test_multiaxis_properties import _assert_same_outcome, _outcome

SHAPE = (2048, 2048)  # 4 Mi int8 elements: a 4 MiB output


def _peak(fn: Callable[[], Any]) -> tuple[int, Any]:
    """``(peak bytes traced during fn(), its result)``."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        out = fn()
        return tracemalloc.get_traced_memory()[1] - before, out
    finally:
        tracemalloc.stop()


def _slack() -> int:
    """The constant: a handful of int64 blocks."""
    return 6 * policy_module.CHUNK * 8


@pytest.fixture(scope="module")
def int8_case() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    data = rng.integers(-128, 128, size=SHAPE, dtype=np.int8)
    indices = rng.integers(-128, 128, size=SHAPE, dtype=np.int8)  # negatives: the policies have work to do
    return data, indices


@pytest.mark.parametrize("policy", [ONNX, CLIP, WRAP_THEN_FILL, MODULO], ids=lambda p: p.name)
def test_peak_extra_memory_is_a_small_multiple_of_the_output(int8_case, policy) -> None:
    data, indices = int8_case
    peak, out = _peak(lambda: gather_multiaxis(data, indices, [0], policy=policy))
    assert out.shape == SHAPE and out.dtype == np.int8
    assert peak <= 3 * out.nbytes + _slack(), f"peak {peak / 2**20:.1f} MiB for a {out.nbytes / 2**20:.1f} MiB output"


def test_reference_take_along_axis_stays_near_numpys_own_memory(int8_case) -> None:
    data, indices = int8_case
    want = np.take_along_axis(data, indices, axis=0)
    peak, got = _peak(lambda: reference("numpy.take_along_axis", data, indices, axis=0))
    assert np.array_equal(got, want)
    assert peak <= 3 * want.nbytes + _slack()


@pytest.mark.parametrize("policy", [ONNX, ZERO_FILL], ids=lambda p: p.name)
def test_normalize_indices_holds_one_int64_result_not_several(int8_case, policy) -> None:
    indices = int8_case[1]
    peak, (positions, mask) = _peak(lambda: normalize_indices(indices, SHAPE[0], policy, 0))
    kept = positions.nbytes + (mask.nbytes if mask is not None else 0)
    assert peak <= kept + _slack(), f"peak {peak / 2**20:.1f} MiB for {kept / 2**20:.1f} MiB of result"
    wide = indices.astype(np.int64)
    if policy is ONNX:  # negatives wrap once
        assert mask is None and np.array_equal(positions, wide % SHAPE[0])
    else:  # negatives are out of range: filled, read at position 0
        assert np.array_equal(mask, wide < 0) and np.array_equal(positions, np.where(wide < 0, 0, wide))


def test_the_error_of_an_index_found_in_a_later_block_names_its_position(monkeypatch) -> None:
    monkeypatch.setattr(policy_module, "CHUNK", 5)
    indices = np.zeros((4, 6), np.int64)
    indices[2, 3] = 9
    with pytest.raises(IndexError, match=r"indices\[2, 3\] = 9 is out of range for axis 1 of size 6"):
        gather_multiaxis(np.zeros((4, 6)), indices, [1])


@pytest.mark.parametrize("chunk", [1, 5])
def test_blocked_gather_equals_the_per_element_oracle(monkeypatch, chunk: int) -> None:
    monkeypatch.setattr(policy_module, "CHUNK", chunk)

    @settings(max_examples=40)
    @given(multiaxis_cases())
    def check(case: Case) -> None:
        want = _outcome(oracle_gather, case.input, case.indices, case.axes, case.policy)
        got = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
        _assert_same_outcome(got, want)

    check()
