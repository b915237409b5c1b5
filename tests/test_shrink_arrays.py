"""Shrinking explicit arrays (:mod:`conformance.campaign.array_shrinker`): what the
candidates are, where the greedy walk ends, and what it costs."""

from __future__ import annotations

import time
from dataclasses import replace

import ml_dtypes
import numpy as np

from conformance.campaign.array_shrinker import shrink_arrays, slimmer
from conformance.cases.class_case import ClassCase
from conformance.spec.plans import EqClass


def _case(
    data: np.ndarray, indices: np.ndarray, eq_class: EqClass = EqClass.ELEMENT, axis: int | None = 1
) -> ClassCase:
    d, i = data.dtype.name, indices.dtype.name
    return ClassCase(eq_class, data.shape, indices.shape, axis, 0, d, i, "oob-above", False, "contiguous", 0, 7)


def _probe() -> tuple[ClassCase, np.ndarray, np.ndarray]:
    """Element gather along axis 1: data (2, 5, 2) float32, indices (2, 3, 2) int64 with one bad index, 7."""
    data = np.arange(20, dtype=np.float32).reshape(2, 5, 2)
    indices = np.array([[[0, 1], [2, 3], [4, 0]], [[1, 2], [3, 7], [0, 4]]], dtype=np.int64)
    return _case(data, indices), data, indices


def _has_bad_index(cc: ClassCase, data: np.ndarray, indices: np.ndarray) -> bool:
    return bool((indices >= 5).any())


def test_shrinks_to_the_one_bad_index_and_keeps_its_value() -> None:
    cc, data, indices = _probe()
    small, d, i = shrink_arrays(cc, data, indices, _has_bad_index)
    assert i.size == 1 and i.ravel().tolist() == [7]
    assert d.size <= 5
    assert (small.data_shape, small.index_shape) == (d.shape, i.shape)
    assert d.ndim == data.ndim and i.ndim == indices.ndim


def test_an_axis_that_must_be_three_long_stays_three_long() -> None:
    cc, data, indices = _probe()
    small, d, i = shrink_arrays(cc, data, indices, lambda c, d, i: d.shape[1] >= 3, max_evals=200)
    assert small.data_shape == d.shape == (1, 3, 1) and i.size == 1
    assert d.ravel().tolist() == data[0, :3, 0].tolist()


def test_candidates_are_strictly_smaller_and_sorted_smallest_first() -> None:
    cc, data, indices = _probe()
    sizes = [d.size + i.size for _, d, i in slimmer(cc, data, indices)]
    assert sizes and all(s < data.size + indices.size for s in sizes)
    assert sizes == sorted(sizes)


def test_candidates_keep_rank_dtypes_attributes_and_class_case_shapes() -> None:
    data = np.arange(12).astype(ml_dtypes.bfloat16).reshape(3, 4)
    indices = np.array([[0, 3], [1, 2]], dtype=np.uint16)
    cc = _case(data, indices, EqClass.BLOCK, axis=-1)
    for small, d, i in slimmer(cc, data, indices):
        assert (small.data_shape, small.index_shape) == (d.shape, i.shape)
        assert small == replace(cc, data_shape=d.shape, index_shape=i.shape)
        assert (d.dtype, i.dtype) == (data.dtype, indices.dtype)
        assert (d.ndim, i.ndim) == (2, 2)


def test_candidates_are_fresh_c_contiguous_copies() -> None:
    data = np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2]  # strided input
    indices = np.asfortranarray(np.array([[0, 1], [2, 0]], dtype=np.int64))
    for _, d, i in slimmer(_case(data, indices), data, indices):
        assert d.flags.c_contiguous and i.flags.c_contiguous
        assert not np.shares_memory(d, data) and not np.shares_memory(i, indices)


def test_single_slices_come_from_the_first_five_and_prefixes_along_data_are_two_and_three() -> None:
    data = np.arange(7, dtype=np.int64)
    indices = np.array([0], dtype=np.int64)
    got = [d.tolist() for _, d, _ in slimmer(_case(data, indices, EqClass.FLAT, None), data, indices)]
    assert got == [[0], [1], [2], [3], [4], [0, 1], [0, 1, 2]]


def test_index_candidates_are_single_slices_and_the_first_two() -> None:
    data = np.array([5], dtype=np.int64)
    indices = np.array([10, 11, 12], dtype=np.int64)
    got = [i.tolist() for _, _, i in slimmer(_case(data, indices, EqClass.FLAT, None), data, indices)]
    assert got == [[10], [11], [12], [10, 11]]


def test_equal_rank_pairs_also_cut_the_same_dimension_of_both() -> None:
    cc, data, indices = _probe()
    both = [(d, i) for _, d, i in slimmer(cc, data, indices) if d.shape[0] == i.shape[0] == 1]
    assert [(d.shape, i.shape) for d, i in both] == [((1, 5, 2), (1, 3, 2))] * 2
    assert [d[0, 0, 0] for d, _ in both] == [data[0, 0, 0], data[1, 0, 0]]


def test_unequal_ranks_get_no_coordinated_cuts() -> None:
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    indices = np.array([0, 2], dtype=np.int64)
    for _, d, i in slimmer(_case(data, indices, EqClass.BLOCK), data, indices):
        assert d.shape == data.shape or i.shape == indices.shape


def test_duplicate_candidates_appear_once() -> None:
    data = np.zeros((3, 2), dtype=np.float32)  # every row the same
    indices = np.zeros((1,), dtype=np.int64)
    got = [(d.shape, d.tobytes(), i.tobytes()) for _, d, i in slimmer(_case(data, indices), data, indices)]
    assert len(got) == len(set(got))
    assert [s for s, _, _ in got].count((1, 2)) == 1


def test_a_zero_size_dimension_is_left_alone() -> None:
    data = np.zeros((0, 4), dtype=np.float32)
    indices = np.array([[0, 1, 2]], dtype=np.int64)
    candidates = slimmer(_case(data, indices), data, indices)
    assert candidates and all(d.shape == (0, 4) for _, d, _ in candidates)
    small, d, i = shrink_arrays(_case(data, indices), data, indices, lambda c, d, i: True)
    assert small.data_shape == d.shape == (0, 4) and i.shape == (1, 1)


def test_nothing_kept_returns_the_input() -> None:
    cc, data, indices = _probe()
    small, d, i = shrink_arrays(cc, data, indices, lambda c, d, i: False)
    assert small is cc and d is data and i is indices


def test_equal_candidates_are_evaluated_once() -> None:
    cc, data, indices = _probe()
    calls: list[tuple[object, ...]] = []

    def counting(c: ClassCase, d: np.ndarray, i: np.ndarray) -> bool:
        calls.append((d.shape, i.shape, d.tobytes(), i.tobytes()))
        return _has_bad_index(c, d, i)

    shrink_arrays(cc, data, indices, counting, max_evals=1000)
    assert calls and len(calls) == len(set(calls))


def test_max_evals_caps_the_evaluations() -> None:
    cc, data, indices = _probe()
    calls: list[int] = []

    def counting(c: ClassCase, d: np.ndarray, i: np.ndarray) -> bool:
        calls.append(1)
        return False

    shrink_arrays(cc, data, indices, counting, max_evals=3)
    assert len(calls) == 3


def test_a_past_deadline_evaluates_nothing() -> None:
    cc, data, indices = _probe()
    calls: list[int] = []

    def counting(c: ClassCase, d: np.ndarray, i: np.ndarray) -> bool:
        calls.append(1)
        return True

    small, d, i = shrink_arrays(cc, data, indices, counting, deadline=time.monotonic() - 1)
    assert calls == [] and small is cc and d is data and i is indices


def test_a_shrink_of_a_stray_read_rejects_a_candidate_whose_right_answer_stray_bytes_can_pass_for() -> None:
    """Regression (stop 45, 46): OpenVINO's GatherND finding, shrunk to bool ``[[False]]``, read memory that held
    zeros in 20 of 20 fresh runs, and shrunk to bool ``[True, False]`` it read the input it had just copied: the
    right answer both times, so its script said "not reproduced" and test_consistency failed. A candidate whose
    reference value is all zero bytes, or bool, no longer keeps a stray read; a nonzero float one still does."""
    from conformance.campaign.finding_builder import _shows
    from conformance.core.case import Case, CaseTags
    from conformance.core.oracle import OracleInfo
    from conformance.core.outcome import Outcome
    from conformance.judge.judged import Judged, judged_alone

    info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
    attrs, tags = {"axis": 0, "mode": "raise"}, CaseTags("in-range", "int64", "float")

    def judged(data: np.ndarray, answer: np.ndarray) -> Judged:
        return judged_alone(Case("numpy.take", data, np.array([1]), attrs, tags), info, Outcome.returned(answer))

    ones = judged(np.ones(3), np.array([7.0]))
    zeros = judged(np.zeros(3), np.array([7.0]))
    bools = judged(np.array([True, True, False]), np.array([False]))
    assert str(ones.verdict.behaviour) == str(bools.verdict.behaviour) == "garbage"
    assert ones.signature() == zeros.signature()
    assert _shows(ones, ones.signature()) and not _shows(zeros, ones.signature())
    assert not _shows(bools, bools.signature())
