"""The reference's extra memory stays near the size of its output: offsets and
index checks are computed a block of :data:`conformance.spec.policy.CHUNK` positions
at a time (the code before this bound built int64 buffers of the whole output:
about 17x the output for int8 data with int8 indices). And the blocked code
computes what the unblocked one does, block boundaries anywhere, blocks walked
in C order or in tiles, in every namespace; an index error found in a later
block is still the first bad index of the whole gather."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import array_api_strict
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

try:
    import torch
except ImportError:  # tox -e core: the torch-namespace test skips
    torch = None

import conformance.spec.policy as policy_module
from conformance import gather_multiaxis, reference
from conformance.spec.blocked import Coordinate, _keys, _term, _tile_width
from conformance.spec.policy import (
    CLIP,
    MODULO,
    NONNEGATIVE,
    ONNX,
    POLICIES,
    WRAP_THEN_FILL,
    ZERO_FILL,
    normalize_indices,
)
from tests.strategies_reference import Case, multiaxis_cases, oracle_gather
from tests.test_multiaxis_properties import _assert_same_outcome, _outcome, _to_torch

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


@pytest.mark.parametrize("namespace", ["array_api_strict", "torch"])
def test_blocked_gather_in_other_namespaces_equals_numpy(monkeypatch, namespace: str) -> None:
    """Outside NumPy the blocks are written into the output by ``__setitem__``."""
    if namespace == "torch" and torch is None:
        pytest.skip("torch is not installed")
    convert = array_api_strict.asarray if namespace == "array_api_strict" else _to_torch
    monkeypatch.setattr(policy_module, "CHUNK", 5)

    @settings(max_examples=40)
    @given(multiaxis_cases(dtypes=("int32", "float64")))
    def check(case: Case) -> None:
        want = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
        got = _outcome(gather_multiaxis, convert(case.input), convert(case.indices), case.axes, policy=case.policy)
        _assert_same_outcome(got, want)

    check()


@settings(max_examples=200)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.integers(1, 12), st.integers(0, 4))
def test_keys_cover_every_position_of_the_window_once(window: list[int], limit: int, width: int) -> None:
    seen = np.zeros(window, dtype=int)
    for key in _keys(tuple(window), limit, width):
        assert seen[key].size <= max(limit, width)
        seen[key] += 1
    assert (seen == 1).all()


def test_an_element_gather_along_a_leading_axis_walks_tiles() -> None:
    x = np.zeros((50, 300), np.float32)
    coordinate = Coordinate(np.zeros((50, 300), np.int64), 50, 0)
    rows, cols = (_term(x, {0: coordinate}, d, 0, (50, 300), stride, np) for d, stride in ((0, 300), (1, 1)))
    assert _tile_width([rows, cols], (50, 300), 4) == 64  # 256 bytes of float32
    assert _tile_width([rows, cols], (50, 300), 256) == 0  # each position reads a run of 256 bytes already
    assert _tile_width([cols], (50, 300), 4) == 0  # no index varies along the rows: C order reads runs


@pytest.mark.parametrize("policy", list(POLICIES.values()), ids=lambda p: p.name)
@pytest.mark.parametrize("chunk", [257, 4096])
def test_tiled_element_gather_equals_the_per_element_oracle(monkeypatch, policy, chunk: int) -> None:
    """A window of 40 x 300 positions, more than a block: tiles of 64 float32
    columns (256 bytes), each walked over the rows in blocks of ``chunk // 64``
    rows; indices in [-11, 11) for an axis of 9."""
    monkeypatch.setattr(policy_module, "CHUNK", chunk)
    rng = np.random.default_rng(1)
    x = rng.random((9, 300), dtype=np.float32)
    indices = rng.integers(-11, 11, size=(40, 300)).astype(np.int16)
    if policy.out_of_range == "error":  # in range for the policy, or it raises
        indices = indices % 9 - (9 if policy.negative == "wrap" else 0) * (indices < 0)
    want = _outcome(oracle_gather, x, indices, (0,), policy)
    got = _outcome(gather_multiaxis, x, indices, [0], policy=policy)
    _assert_same_outcome(got, want)


@pytest.mark.parametrize("chunk", [5, 600])
def test_the_first_bad_index_in_c_order_is_reported_whatever_tile_finds_one_first(monkeypatch, chunk: int) -> None:
    """Tiles walk the last dimension's tiles first: the bad index at [3, 0] is
    in the first tile, the one at [0, 250] (first in C order) in a later one."""
    monkeypatch.setattr(policy_module, "CHUNK", chunk)
    indices = np.zeros((4, 300), np.int64)
    indices[3, 0], indices[0, 250] = -1, 9
    with pytest.raises(IndexError, match=r"indices\[0, 250\] = 9 is out of range for axis 0 of size 4"):
        gather_multiaxis(np.zeros((4, 300), np.float32), indices, [0], policy=NONNEGATIVE)


def test_an_error_of_an_earlier_axis_in_a_later_block_is_reported_first(monkeypatch) -> None:
    """Axis 0's bad index lies in the last block, axis 1's in the first: the
    error is axis 0's, as if every index were checked before any reading."""
    monkeypatch.setattr(policy_module, "CHUNK", 2)
    indices = np.zeros((6, 2), np.int64)  # 6 pairs (i0, i1) into a (3, 4) input
    indices[0, 1], indices[5, 0] = 7, 5
    with pytest.raises(IndexError, match=r"indices\[5, 0\] = 5 is out of range for axis 0 of size 3"):
        gather_multiaxis(np.zeros((3, 4)), indices, [0, 1])


def test_a_block_gather_under_numpys_rule_is_one_numpy_take_of_the_callers_indices(monkeypatch) -> None:
    """An embedding lookup under the ONNX policy (NumPy's raise rule) is one
    ``np.take`` reading the caller's int64 indices themselves (no pass or
    copy of ours); negatives wrap as NumPy's do, and an index it rejects
    raises the reference's own error, naming its position."""
    calls: list[Any] = []
    real_take = np.take

    def spy(a: Any, indices: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append((indices, kwargs))
        return real_take(a, indices, *args, **kwargs)

    monkeypatch.setattr(np, "take", spy)
    table, ids = np.arange(12.0).reshape(4, 3), np.array([3, -1, 0, 2])
    assert reference("onnx.Gather", table, ids).tolist() == real_take(table, ids, axis=0).tolist()
    assert len(calls) == 1 and np.shares_memory(calls[0][0], ids) and calls[0][1].get("mode", "raise") == "raise"
    with pytest.raises(
        IndexError,
        match=r"indices\[2, 0\] = 10 is out of range for axis 0 of size 4 \(valid: \[-4, "
        r"3\]\)",
    ):
        reference("onnx.Gather", table, np.array([0, -1, 10]))
