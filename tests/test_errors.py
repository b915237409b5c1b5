"""Each bad argument gives the right exception type and a message naming the
argument and the rule it breaks."""

from __future__ import annotations

import numpy as np
import pytest

from conformance import gather_multiaxis, reference

X = np.arange(12).reshape(3, 4)
I = np.array([[0, 1]])


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((X, np.array([0, 1]), [1]), ValueError, r"input\.ndim \(2\) must equal indices\.ndim \(1\)"),
        ((X, I, [2]), IndexError, r"axes\[0\] = 2 is out of range for rank 2"),  # AxisError is an IndexError
        ((X, I, [-3]), ValueError, r"axes\[0\] = -3 is out of range for rank 2"),  # ... and a ValueError
        ((X, I, [1, -1]), ValueError, r"axes names axis 1 twice"),
        ((X, I, [1.0]), TypeError, r"axes\[0\] must be an int, got float"),
        ((X, I, [True]), TypeError, r"axes\[0\] must be an int, got bool"),
        ((X, I, 1), TypeError, r"axes must be a sequence of ints"),
        ((X, np.zeros((1, 3), int), [0, 1]), ValueError, r"indices\.shape\[-1\] = 3 must be a multiple of len\(axes\) = 2"),
        ((X, np.zeros((2, 2), int), [1]), ValueError, r"input\.shape\[0\] = 3 and the logical indices shape\[0\] = 2 are not broadcastable: dimension 0"),
        ((X, np.zeros((1, 2), np.float32), [1]), TypeError, r"indices must have an integer dtype.*float32"),
        ((X, np.zeros((1, 2), bool), [1]), TypeError, r"indices must have an integer dtype.*bool"),
    ],
)
def test_gather_multiaxis_rejects_bad_arguments_naming_them(args, error, match) -> None:
    with pytest.raises(error, match=match):
        gather_multiaxis(*args)


def test_out_of_range_index_error_names_axis_size_value_and_position() -> None:
    bad = np.array([[0, 1], [2, 9], [-5, 3]])
    with pytest.raises(IndexError, match=r"indices\[1, 1\] = 9 is out of range for axis 1 of size 4 \(valid: \[-4, 3\]\)"):
        gather_multiaxis(X, bad, [1])
    with pytest.raises(IndexError, match=r"indices\[0, 0\] = -1 is out of range for axis 0 of size 3"):
        gather_multiaxis(X, np.array([[-1]]), [0], policy="error-nonnegative")


@pytest.mark.parametrize("policy", ["clip", "wrap-then-clamp", "wrap"])
def test_clamp_or_wrap_into_an_empty_axis_is_an_index_error(policy: str) -> None:
    with pytest.raises(IndexError, match=rf"policy '{policy}' cannot place an index into axis 1, which has size 0"):
        gather_multiaxis(np.zeros((3, 0)), np.array([[0]]), [1], policy=policy)


def test_unknown_policy_is_named() -> None:
    with pytest.raises(ValueError, match=r"policy must be one of .*got 'nope'"):
        gather_multiaxis(X, I, [1], policy="nope")


@pytest.mark.parametrize(
    ("op", "data", "indices", "attrs", "error", "match"),
    [
        ("onnx.Scatter", X, I, {}, ValueError, r"unknown op 'onnx\.Scatter'"),
        ("onnx.Gather", X, I, {"dim": 0}, TypeError, r"unknown attribute\(s\) \['dim'\]"),
        ("onnx.Gather", X, I, {"axis": 2}, ValueError, r"onnx\.Gather: axis = 2 is out of range for a rank-2 input"),
        ("onnx.GatherND", X, np.zeros((2, 0), np.int64), {}, ValueError, r"indices\.shape\[-1\] must be at least 1"),
        ("onnx.GatherND", X, np.zeros((2, 3), np.int64), {}, ValueError, r"indices\.shape\[-1\] = 3 must be <= rank\(data\)"),
        ("onnx.GatherND", X, np.zeros((2, 1), np.int64), {"batch_dims": 1}, ValueError, r"first batch_dims = 1 dimensions of data \(3,\) and indices \(2,\) must be equal"),
        ("torch.gather", X, np.zeros((4, 1), np.int64), {"dim": 1}, ValueError, r"index\.shape\[0\] must not exceed the input's in dimensions other than dim=1"),
        ("torch.gather", X, np.zeros((3, 1), np.int32), {"dim": 1}, TypeError, r"torch\.gather: indices dtype int32 is not supported \(documented: int64\)"),
        ("onnx.GatherND", X, np.zeros((3, 1), np.int32), {}, TypeError, r"indices dtype int32 is not supported"),
        ("webnn.gatherElements", X.astype(np.float32), np.zeros((2, 4), np.int32), {"axis": 1}, TypeError, r"indices\.shape must equal input\.shape except along axis 1"),
        ("tensorflow.gather", X, np.zeros((3, 1), np.int32), {"axis": 0, "batch_dims": 1}, ValueError, r"batch_dims \(1\) must be less than or equal to axis \(0\)"),
        ("numpy.take", X, I, {"mode": "nope"}, ValueError, r"mode must be one of .*got 'nope'"),
        ("numpy.take_along_axis", X, np.zeros(2, np.int64), {"axis": 0}, ValueError, r"same rank, got 2 and 1"),
    ],
)  # fmt: skip
def test_catalog_preconditions_raise_naming_the_argument_and_rule(op, data, indices, attrs, error, match) -> None:
    with pytest.raises(error, match=match):
        reference(op, data, indices, **attrs)
