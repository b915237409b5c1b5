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
        ((X, I, [1.0]), TypeError, r"axes\[0\] must be an integer, got float 1\.0"),
        ((X, I, [0.0]), TypeError, r"axes\[0\] must be an integer, got float 0\.0"),
        ((X, I, [True]), TypeError, r"axes\[0\] must be an integer, got bool"),
        ((X, I, [np.True_]), TypeError, r"axes\[0\] must be an integer, got bool"),
        ((X, I, [None]), TypeError, r"axes\[0\] must be an integer, got NoneType"),
        ((X, I, "1"), TypeError, r"axes must be a sequence of ints, got str"),
        (
            (X.tolist(), I, [1]),
            TypeError,
            r"gather_multiaxis: input must be an array \(numpy ndarray or array-API array\), got list",
        ),
        ((X, [[0, 1]], [1]), TypeError, r"gather_multiaxis: indices must be an array .*got list"),
        ((X, I, 1), TypeError, r"axes must be a sequence of ints"),
        (
            (X, np.zeros((1, 3), int), [0, 1]),
            ValueError,
            r"indices\.shape\[-1\] = 3 must be a multiple of len\(axes\) = 2",
        ),
        (
            (X, np.zeros((2, 2), int), [1]),
            ValueError,
            r"input\.shape\[0\] = 3 and the logical indices shape\[0\] = 2 are not broadcastable: dimension 0",
        ),
        ((X, np.zeros((1, 2), np.float32), [1]), TypeError, r"indices must have an integer dtype.*float32"),
        ((X, np.zeros((1, 2), bool), [1]), TypeError, r"indices must have an integer dtype.*bool"),
    ],
)
def test_gather_multiaxis_rejects_bad_arguments_naming_them(args, error, match) -> None:
    with pytest.raises(error, match=match):
        gather_multiaxis(*args)


def test_out_of_range_index_error_names_axis_size_value_and_position() -> None:
    bad = np.array([[0, 1], [2, 9], [-5, 3]])
    with pytest.raises(
        IndexError, match=r"indices\[1, 1\] = 9 is out of range for axis 1 of size 4 \(valid: \[-4, 3\]\)"
    ):
        gather_multiaxis(X, bad, [1])
    with pytest.raises(IndexError, match=r"indices\[0, 0\] = -1 is out of range for axis 0 of size 3"):
        gather_multiaxis(X, np.array([[-1]]), [0], policy="error-nonnegative")


@pytest.mark.parametrize("policy", ["clip", "wrap-then-clamp", "wrap"])
def test_clamp_or_wrap_into_an_empty_axis_is_an_index_error(policy: str) -> None:
    with pytest.raises(IndexError, match=rf"policy '{policy}' cannot place an index into axis 1, which has size 0"):
        gather_multiaxis(np.zeros((3, 0)), np.array([[0]]), [1], policy=policy)


def test_unknown_policy_is_named() -> None:
    with pytest.raises(ValueError, match=r"policy must be one of \['clip', 'error', .*got 'nope'"):
        gather_multiaxis(X, I, [1], policy="nope")
    with pytest.raises(TypeError, match=r"policy must be an IndexPolicy or one of \['clip', .*got int 3"):
        gather_multiaxis(X, I, [1], policy=3)


@pytest.mark.parametrize("axis", [1, -1, np.int64(1), np.int8(-1), np.uint8(1), np.array(1)])
def test_axes_items_of_any_integer_type_are_accepted(axis) -> None:
    assert gather_multiaxis(X, I, [axis]).tolist() == [[0, 1], [4, 5], [8, 9]]


@pytest.mark.parametrize(
    ("op", "data", "indices", "attrs", "error", "match"),
    [
        ("onnx.Scatter", X, I, {}, ValueError, r"unknown op 'onnx\.Scatter'"),
        ("onnx.Gather", X, I, {"dim": 0}, TypeError, r"unknown attribute\(s\) \['dim'\]"),
        ("onnx.Gather", X, I, {"axis": 2}, ValueError, r"onnx\.Gather: axis = 2 is out of range for a rank-2 input"),
        ("onnx.GatherND", X, np.zeros((2, 0), np.int64), {}, ValueError, r"indices\.shape\[-1\] must be at least 1"),
        (
            "onnx.GatherND",
            X,
            np.zeros((2, 3), np.int64),
            {},
            ValueError,
            r"indices\.shape\[-1\] = 3 must be <= rank\(data\)",
        ),
        (
            "onnx.GatherND",
            X,
            np.zeros((2, 1), np.int64),
            {"batch_dims": 1},
            ValueError,
            r"first batch_dims = 1 dimensions of data \(3,\) and indices \(2,\) must be equal",
        ),
        (
            "torch.gather",
            X,
            np.zeros((4, 1), np.int64),
            {"dim": 1},
            ValueError,
            r"index\.shape\[0\] must not exceed the input's in dimensions other than dim=1",
        ),
        (
            "torch.gather",
            X,
            np.zeros((3, 1), np.int32),
            {"dim": 1},
            TypeError,
            r"torch\.gather: indices dtype int32 is not supported \(documented: int64\)",
        ),
        ("onnx.GatherND", X, np.zeros((3, 1), np.int32), {}, TypeError, r"indices dtype int32 is not supported"),
        (
            "webnn.gatherElements",
            X.astype(np.float32),
            np.zeros((2, 4), np.int32),
            {"axis": 1},
            TypeError,
            r"indices\.shape must equal input\.shape except along axis 1",
        ),
        (
            "tensorflow.gather",
            X,
            np.zeros((3, 1), np.int32),
            {"axis": 0, "batch_dims": 1},
            ValueError,
            r"batch_dims \(1\) must be less than or equal to axis \(0\)",
        ),
        ("numpy.take", X, I, {"mode": "nope"}, ValueError, r"mode must be one of .*got 'nope'"),
        ("numpy.take_along_axis", X, np.zeros(2, np.int64), {"axis": 0}, ValueError, r"same rank, got 2 and 1"),
        (
            "onnx.Gather",
            X.tolist(),
            I,
            {},
            TypeError,
            r"reference: data must be an array \(numpy ndarray or array-API array\), got list",
        ),
        (
            "onnx.Gather",
            X,
            [[0, 1]],
            {},
            TypeError,
            r"reference: indices must be an array \(numpy ndarray or array-API array\), got list",
        ),
        (
            "torch.gather",
            X,
            np.zeros((3, 1), np.int64),
            {},
            TypeError,
            r"torch\.gather: attribute 'dim' is required \(no default\)",
        ),
        (
            "torch.index_select",
            X,
            np.zeros(2, np.int64),
            {},
            TypeError,
            r"torch\.index_select: attribute 'dim' is required",
        ),
        (
            "webnn.gather",
            X.astype(np.float32),
            np.zeros(2, np.int32),
            {"axis": 2},
            TypeError,
            r"webnn\.gather: axis = 2 is out of range",
        ),
        (
            "webnn.gather",
            X.astype(np.float32),
            np.zeros(2, np.int32),
            {"axis": -1},
            TypeError,
            r"axis = -1 is out of range .*valid: \[0, 1\]",
        ),
        (
            "webnn.gatherND",
            X.astype(np.float32),
            np.zeros((2, 3), np.int32),
            {},
            TypeError,
            r"indices\.shape\[-1\] = 3 must be <= rank",
        ),
        ("onnx.Gather", X, I, {"axis": None}, TypeError, r"onnx\.Gather: axis must be an integer, got NoneType None"),
        (
            "onnx.GatherElements",
            X,
            I,
            {"axis": None},
            TypeError,
            r"onnx\.GatherElements: axis must be an integer, got NoneType",
        ),
    ],
)
def test_catalog_preconditions_raise_naming_the_argument_and_rule(op, data, indices, attrs, error, match) -> None:
    with pytest.raises(error, match=match):
        reference(op, data, indices, **attrs)


INT_ATTR_CASES = [  # (op, data, indices, the attribute, other attributes)
    ("onnx.Gather", X, np.zeros(2, np.int64), "axis", {}),
    ("numpy.take", X, np.zeros(2, np.int64), "axis", {}),
    ("jax.numpy.take", X, np.zeros(2, np.int64), "axis", {}),
    ("webnn.gather", X.astype(np.float32), np.zeros(2, np.int32), "axis", {}),
    ("onnx.GatherElements", X, np.zeros((3, 4), np.int64), "axis", {}),
    ("numpy.take_along_axis", X, np.zeros((3, 4), np.int64), "axis", {}),
    ("torch.gather", X, np.zeros((3, 4), np.int64), "dim", {}),
    ("torch.take_along_dim", X, np.zeros((3, 4), np.int64), "dim", {}),
    ("torch.index_select", X, np.zeros(2, np.int64), "dim", {}),
    ("tensorflow.gather", X, np.zeros(2, np.int64), "axis", {}),
    ("tensorflow.gather", X, np.zeros((3, 2), np.int64), "batch_dims", {"axis": 1}),
    ("onnx.GatherND", X, np.zeros((3, 1), np.int64), "batch_dims", {}),
    ("tensorflow.gather_nd", X, np.zeros((3, 1), np.int64), "batch_dims", {}),
]
NONE_ALLOWED = {
    ("numpy.take", "axis"),
    ("jax.numpy.take", "axis"),
    ("numpy.take_along_axis", "axis"),
    ("torch.take_along_dim", "dim"),
    ("tensorflow.gather", "axis"),
    ("tensorflow.gather", "batch_dims"),  # TF's generated wrapper reads None as the default 0 (issue 22)
}


@pytest.mark.parametrize(("op", "data", "indices", "attr", "others"), INT_ATTR_CASES)
@pytest.mark.parametrize("value", [1.0, 0.0, True, False, np.True_, "0", None])
def test_integer_attributes_reject_floats_bools_and_none_naming_them(op, data, indices, attr, others, value) -> None:
    if value is None and (op, attr) in NONE_ALLOWED:
        pytest.skip("None is in this attribute's domain")
    rule = "an integer or None" if (op, attr) in NONE_ALLOWED else "an integer"
    with pytest.raises(TypeError, match=rf"{op}: {attr} must be {rule}, got {type(value).__name__} "):
        reference(op, data, indices, **others, **{attr: value})


@pytest.mark.parametrize(("op", "data", "indices", "attr", "others"), INT_ATTR_CASES)
@pytest.mark.parametrize("make", [int, np.int64, np.int8, np.uint8, np.int32, np.array], ids=lambda f: f.__name__)
def test_integer_attributes_accept_any_integer_type(op, data, indices, attr, others, make) -> None:
    value = 1 if attr == "batch_dims" else 0
    want = reference(op, data, indices, **others, **{attr: value})
    got = reference(op, data, indices, **others, **{attr: make(value)})
    assert np.array_equal(np.asarray(got), np.asarray(want))
