"""The reference's Python API: what it says and returns where it used to say
or return something wrong (each test failed before its fix), and the catalog
defaults checked against each framework's own signature."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from conformance import plan, reference
from conformance.spec.catalog import spec

# -- the range an error states is the range of the policy in force --------------


def test_nonnegative_policy_error_states_its_own_range_and_that_negatives_are_not_allowed() -> None:
    msg = (
        r"indices\[0\] = -1 is out of range for axis 0 of size 4 "
        r"\(valid: \[0, 3\]; negative indices are not allowed\)"
    )
    with pytest.raises(IndexError, match=msg):
        reference("torch.gather", np.arange(4), np.array([-1]), dim=0)
    with pytest.raises(IndexError, match=r"indices\[1\] = 7 is out of range .*\(valid: \[0, 3\]; negative"):
        reference("tensorflow.gather", np.arange(4), np.array([0, 7]), axis=0)


def test_wrapping_policy_error_still_states_the_negative_range() -> None:
    msg = r"indices\[0\] = -5 is out of range for axis 0 of size 4 \(valid: \[-4, 3\]\)$"
    with pytest.raises(IndexError, match=msg):
        reference("onnx.Gather", np.arange(4), np.array([-5]))


# -- JAX's mode="clip": take clamps the raw value, take_along_axis wraps first ---
# Checked by hand on jax 0.10.2 (x64): jnp.take_along_axis([5, 6, 7], [-1], axis=0,
# mode="clip") is [7] ([-4] -> [5], [5] -> [7]); jnp.take(..., mode="clip") is [5]
# for [-1] and for [-4].

ABC = np.array([5, 6, 7])


@pytest.mark.parametrize(("index", "want"), [(-1, 7), (-3, 5), (-4, 5), (-100, 5), (3, 7), (100, 7)])
def test_jax_take_along_axis_clip_wraps_a_negative_index_once_then_clamps(index: int, want: int) -> None:
    got = reference("jax.numpy.take_along_axis", ABC, np.array([index]), axis=0, mode="clip")
    assert got.tolist() == [want]
    assert spec("jax.numpy.take_along_axis").policy_for({"mode": "clip"}).name == "wrap-then-clamp"


@pytest.mark.parametrize(("index", "want"), [(-1, 5), (-4, 5), (3, 7)])
def test_jax_take_clip_clamps_the_raw_index_like_numpy_take(index: int, want: int) -> None:
    assert reference("jax.numpy.take", ABC, np.array([index]), axis=0, mode="clip").tolist() == [want]


@pytest.mark.parametrize("mode", [None, "fill"])
def test_jax_fill_modes_wrap_a_negative_index_once_then_fill(mode: str | None) -> None:
    for op in ("jax.numpy.take", "jax.numpy.take_along_axis"):
        got = reference(op, ABC, np.array([-1, -4, 3]), axis=0, mode=mode)
        assert got.tolist() == [7, np.iinfo(np.int64).min, np.iinfo(np.int64).min], op


def test_jax_modes_agree_with_jax_itself() -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    idx = np.array([-100, -4, -3, -1, 0, 2, 3, 100])
    for op, fn, modes in [
        ("jax.numpy.take", jnp.take, ("fill", "clip", "wrap")),
        ("jax.numpy.take_along_axis", jnp.take_along_axis, ("fill", "clip")),
    ]:
        for mode in modes:
            want = np.asarray(fn(jnp.asarray(ABC), jnp.asarray(idx), axis=0, mode=mode))
            assert reference(op, ABC, idx, axis=0, mode=mode).tolist() == want.tolist(), (op, mode)


# -- numpy.advanced_indexing with an index tuple of length 0 is data itself -------


@pytest.mark.parametrize("index_shape", [(2, 0), (0,), (5, 2, 0), (0, 0)])
def test_numpy_advanced_indexing_with_empty_tuples_is_data_itself_unbroadcast(index_shape: tuple[int, ...]) -> None:
    x = np.arange(12).reshape(3, 4)
    indices = np.zeros(index_shape, np.int64)
    want = x[tuple(np.moveaxis(indices, -1, 0))]  # x[()]: shape (3, 4) whatever the index dimensions
    assert want.shape == (3, 4)
    got = reference("numpy.advanced_indexing", x, indices)
    assert got.shape == (3, 4) and np.array_equal(got, want)
    assert plan("numpy.advanced_indexing", x.shape, index_shape).final_shape == (3, 4)


def test_tensorflow_gather_nd_with_empty_tuples_still_broadcasts_whole_slices() -> None:
    x = np.arange(12).reshape(3, 4)
    assert reference("tensorflow.gather_nd", x, np.zeros((2, 0), np.int64)).shape == (2, 3, 4)


def test_onnx_gather_nd_still_rejects_empty_tuples() -> None:
    with pytest.raises(ValueError, match=r"indices\.shape\[-1\] must be at least 1"):
        reference("onnx.GatherND", np.arange(12).reshape(3, 4), np.zeros((2, 0), np.int64))


# -- arguments are checked before any work ---------------------------------------


def test_data_that_is_not_an_array_is_named() -> None:
    msg = r"^reference: data must be an array \(numpy ndarray or array-API array\), got list$"
    with pytest.raises(TypeError, match=msg):
        reference("onnx.Gather", [[0, 1], [2, 3]], np.array([0]))


@pytest.mark.parametrize("value", [1.0, 0.0, True])
def test_tensorflow_gather_batch_dims_must_be_an_integer(value: object) -> None:
    """None is TF's own default (its generated wrapper reads it as 0: tests/test_tf_kernel_vectors.py)."""
    x, i = np.arange(12).reshape(3, 4), np.zeros((3, 2), np.int64)
    msg = rf"tensorflow\.gather: batch_dims must be an integer or None, got {type(value).__name__}"
    with pytest.raises(TypeError, match=msg):
        reference("tensorflow.gather", x, i, axis=1, batch_dims=value)


def test_numpy_integer_axis_is_accepted() -> None:
    x = np.arange(12).reshape(3, 4)
    assert reference("onnx.Gather", x, np.array([2]), axis=np.int64(0)).tolist() == [[8, 9, 10, 11]]
    assert reference("torch.gather", x, np.zeros((1, 4), np.int64), dim=np.int8(0)).tolist() == [[0, 1, 2, 3]]


# -- required attributes and the catalog's defaults -------------------------------


@pytest.mark.parametrize("op", ["torch.gather", "torch.index_select"])
def test_torch_dim_is_required(op: str) -> None:
    assert [a.name for a in spec(op).attrs if a.required] == ["dim"]
    with pytest.raises(TypeError, match=rf"^{op}: attribute 'dim' is required \(no default\)$"):
        spec(op).bind({})
    with pytest.raises(TypeError, match="is required"):
        plan(op, (3, 4), (3, 4))


CATALOG_DEFAULTS = {  # checked against each framework's documentation and signature ("REQUIRED": none)
    "onnx.Gather": {"axis": 0},
    "onnx.GatherElements": {"axis": 0},
    "onnx.GatherND": {"batch_dims": 0},
    "numpy.take": {"axis": None, "mode": "raise"},
    "numpy.take_along_axis": {"axis": -1},
    "numpy.advanced_indexing": {},
    "torch.gather": {"dim": "REQUIRED"},
    "torch.take": {},
    "torch.take_along_dim": {"dim": None},
    "torch.index_select": {"dim": "REQUIRED"},
    "tensorflow.gather": {"axis": None, "batch_dims": 0},
    "tensorflow.gather_nd": {"batch_dims": 0},
    "jax.numpy.take": {"axis": None, "mode": None, "fill_value": None},
    "jax.numpy.take_along_axis": {"axis": -1, "mode": None, "fill_value": None},
    "webnn.gather": {"axis": 0},
    "webnn.gatherElements": {"axis": 0},
    "webnn.gatherND": {},
}


def test_catalog_defaults_are_the_documented_ones() -> None:
    specs = map(spec, CATALOG_DEFAULTS)
    have = {s.name: {a.name: "REQUIRED" if a.required else a.default for a in s.attrs} for s in specs}
    assert have == CATALOG_DEFAULTS


def _defaults(fn: object) -> dict[str, object]:
    return {n: p.default for n, p in inspect.signature(fn).parameters.items()}


def test_numpy_defaults_match_numpy_signatures() -> None:
    assert _defaults(np.take)["axis"] is None and _defaults(np.take)["mode"] == "raise"
    assert _defaults(np.take_along_axis)["axis"] == -1  # NumPy >= 2.3: a default of -1


def test_jax_defaults_match_jax_signatures() -> None:
    jnp = pytest.importorskip("jax.numpy")
    for op, fn in [("jax.numpy.take", jnp.take), ("jax.numpy.take_along_axis", jnp.take_along_axis)]:
        have = _defaults(fn)
        assert {k: have[k] for k in CATALOG_DEFAULTS[op]} == CATALOG_DEFAULTS[op], op
