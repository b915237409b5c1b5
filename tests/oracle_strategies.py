"""Hypothesis strategies for *valid, in-range* gather cases of one catalog op,
one equivalence class at a time (block, element, flattened, ND).

Shapes have rank 1 to 4 and at most 64 elements; every index is in range for
the op's documented policy (negatives in ``[-size, -1]`` only where the
policy wraps them and the index dtype is signed). Data values are distinct
where the dtype allows, and floats carry ``-0.0`` and a NaN with a payload,
so that a wrong gather or a converted value shows in the bits.

>>> from hypothesis import given, settings
>>> @settings(max_examples=3, derandomize=True)
... @given(valid_cases("onnx.GatherND-12", ("float32",), ("int64",)))
... def check(case):
...     data, indices, attrs = case
...     assert indices.shape[-1] <= data.ndim - attrs["batch_dims"]
>>> check()
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance.core.arrays import BFLOAT16, as_dtype
from conformance.spec.catalog import spec, specs
from conformance.spec.plans import EqClass

Shape = tuple[int, ...]
Case = tuple[np.ndarray, np.ndarray, dict[str, Any]]

AXIS_NONE_OPS = frozenset(
    {
        "numpy.take",
        "numpy.take_along_axis",
        "jax.numpy.take",
        "jax.numpy.take_along_axis",
        "torch.take_along_dim",
        "tensorflow.experimental.numpy.take",
        "tensorflow.experimental.numpy.take_along_axis",
        "mlx.take",
        "mlx.take_along_axis",
    }
)
INDEX_RANKS: dict[str, tuple[int, int]] = {
    "torch.index_select": (0, 1),
    "paddle.gather": (0, 1),
    "paddle.index_select": (1, 1),
    "array_api.take": (1, 1),
}
"""Block ops that document the index ranks they take (the others take 0 to 3)."""
MIN_ND_INDEX_RANK = {"paddle.gather_nd": 2}
"""ND ops that document a least index rank (the others take 1)."""
WINDOW_OPS = frozenset({"torch.gather", "onnx.GatherElements"})
EQUAL_OPS = frozenset({"openvino.GatherElements"})
"""Element ops whose indices equal the data outside the axis (OpenVINO's GatherElements-6)."""
BATCHED_GATHERS = frozenset({"tensorflow.gather", "openvino.Gather"})
"""Block ops with ``batch_dims``."""
MODES: dict[str, tuple[Any, ...]] = {s.name: tuple(s.mode_policies) for s in specs() if s.mode_attr}
"""Each op's index modes, as the catalog lists them."""
MAX_SIZE = 64


def data_array(dtype: str, shape: Shape, seed: int) -> np.ndarray:
    """Distinct-as-possible values of ``dtype``; floats get ``-0.0`` and a NaN
    with payload ``0x5`` when there is room.

    >>> data_array("int8", (2, 2), 0).dtype, sorted(set(data_array("int16", (5,), 1).tolist())).__len__()
    (dtype('int8'), 5)
    """
    n = math.prod(shape)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    dt = as_dtype(dtype)
    if dtype == "bool":
        return (order % 2 == 0).reshape(shape)
    if dtype == "str":
        return np.array([f"v{k}" + "é" * (k % 3) for k in order], dtype=str).reshape(shape)
    if dtype == "object":
        return np.array([int(k) for k in order] or [], dtype=object).reshape(shape)
    if dt.kind in "iu":
        return (order + (1 if dt.kind == "u" else -n // 2)).astype(dt).reshape(shape)
    values = (order - n / 2) * 0.75
    if dt.kind == "c":
        return (values + 1j * values[::-1]).astype(dt).reshape(shape)
    flat = values.astype(np.float32 if dt == BFLOAT16 else dt).astype(dt)
    if n >= 3:
        flat[order[0]], flat[order[1]] = -0.0, np.nan
        if dt in (np.float32, np.float64):
            bits = flat.view(np.uint32 if dt == np.float32 else np.uint64)
            bits[order[1]] |= 0x5  # a NaN payload must survive the gather
    return flat.reshape(shape)


def index_array(dtype: str, shape: Shape, size: int, negatives: bool, seed: int) -> np.ndarray:
    """In-range indices for an axis of ``size``: ``[-size, size)`` with
    ``negatives`` (and a signed dtype), else ``[0, size)``.

    >>> index_array("uint8", (4,), 3, True, 0).dtype.name
    'uint8'
    """
    dt = as_dtype(dtype)
    low = -size if negatives and dt.kind == "i" else 0
    return np.random.default_rng(seed).integers(low, size, size=shape).astype(dt)


def _dims(draw: st.DrawFn, rank: int, low: int = 1, high: int = 4) -> Shape:
    return tuple(draw(st.integers(low, high)) for _ in range(rank))


def _data_shape(draw: st.DrawFn, min_rank: int = 1) -> Shape:
    shape = _dims(draw, draw(st.integers(min_rank, 4)))
    while math.prod(shape) > MAX_SIZE:
        shape = shape[:-1]
    return shape if len(shape) >= min_rank else (1,) * min_rank


def _negatives(op: str, attrs: dict[str, Any]) -> bool:
    """Whether the op's docs say negatives wrap (not where they say nothing of them: Paddle's gathers)."""
    return spec(op).policy_for(attrs).negative == "wrap" and "negative" not in spec(op).unspecified


def _base(op: str) -> str:
    return spec(op).name


def _block(draw: st.DrawFn, op: str) -> tuple[Shape, Shape, dict[str, Any], int]:
    name = _base(op)
    data = _data_shape(draw)
    r = len(data)
    b = draw(st.integers(0, r - 1)) if name in BATCHED_GATHERS else 0
    axis: int | None = draw(st.integers(b, r - 1))
    if draw(st.booleans()):
        axis -= r  # the same axis, counted from the back
    if name in AXIS_NONE_OPS and draw(st.integers(0, 4)) == 0:
        axis = None
    q = draw(st.integers(*INDEX_RANKS.get(name, (0, 3)))) if b == 0 else draw(st.integers(0, 2))
    idx = data[:b] + _dims(draw, q, 0, 3)
    size = math.prod(data) if axis is None else data[axis]
    attr = "dim" if name == "torch.index_select" else "axis"
    attrs: dict[str, Any] = {attr: axis}
    if name in BATCHED_GATHERS:
        attrs["batch_dims"] = b
    return data, idx, attrs, size


def _element(draw: st.DrawFn, op: str) -> tuple[Shape, Shape, dict[str, Any], int]:
    name = _base(op)
    attr = "dim" if name.startswith("torch") else "axis"
    data = _data_shape(draw)
    if name in AXIS_NONE_OPS and draw(st.integers(0, 4)) == 0:
        rank = draw(st.integers(1, 3)) if name == "torch.take_along_dim" else 1  # torch flattens the indices too
        return data, _dims(draw, rank, 0, 4), {attr: None}, math.prod(data)
    r = len(data)
    axis = draw(st.integers(-r, r - 1))
    idx = []
    for d, n in enumerate(data):
        if d == axis % r:
            idx.append(draw(st.integers(0, 4)))
        elif name in WINDOW_OPS:
            idx.append(draw(st.integers(1, n)))
        elif name in EQUAL_OPS:
            idx.append(n)
        else:
            idx.append(draw(st.sampled_from((n, 1) if n > 1 else (1, 2, 3))))
    return data, tuple(idx), {attr: axis}, data[axis]


NO_EMPTY_DIMENSION = ("tosa.gather",)
"""Ops whose tensors have no dimension of size 0 (TOSA's): their valid cases are never empty."""


def _flat(draw: st.DrawFn, op: str) -> tuple[Shape, Shape, dict[str, Any], int]:
    data = _data_shape(draw)
    least = 1 if _base(op) in NO_EMPTY_DIMENSION else 0
    data = tuple(max(n, least) for n in data)
    return data, _dims(draw, draw(st.integers(0, 3)), least, 4), {}, math.prod(data)


def _nd(draw: st.DrawFn, op: str) -> tuple[Shape, Shape, dict[str, Any], list[int]]:
    has_b = any(a.name == "batch_dims" for a in spec(op).attrs)
    data = _data_shape(draw)
    r = len(data)
    b = draw(st.integers(0, r - 1)) if has_b else 0
    k = draw(st.integers(1, r - b))
    middle = _dims(draw, draw(st.integers(MIN_ND_INDEX_RANK.get(_base(op), 1) - 1, 3 - b)), 0, 3)
    attrs = {"batch_dims": b} if has_b else {}
    return data, data[:b] + middle + (k,), attrs, list(data[b : b + k])


@st.composite
def valid_cases(draw: st.DrawFn, op: str, data_dtypes: tuple[str, ...], index_dtypes: tuple[str, ...]) -> Case:
    """``(data, indices, attrs)``: a valid, in-range case of catalog key ``op``."""
    eq = spec(op).eq_class
    shapes = {EqClass.BLOCK: _block, EqClass.ELEMENT: _element, EqClass.FLAT: _flat, EqClass.ND: _nd}[eq]
    data_shape, idx_shape, attrs, sizes = shapes(draw, op)
    name = _base(op)
    if name in MODES:
        attrs["mode"] = draw(st.sampled_from(MODES[name]))
    if any(a.name == "fill_value" for a in spec(op).attrs):
        attrs["fill_value"] = draw(st.sampled_from((None, 1)))
    seed = draw(st.integers(0, 2**16))
    data = data_array(draw(st.sampled_from(data_dtypes)), data_shape, seed)
    idt = draw(st.sampled_from(index_dtypes))
    neg = _negatives(op, attrs)
    if isinstance(sizes, list):  # ND: one column per indexed axis
        cols = [index_array(idt, idx_shape[:-1], s, neg, seed + j) for j, s in enumerate(sizes)]
        indices = np.stack(cols, axis=-1).astype(as_dtype(idt)) if cols else np.zeros(idx_shape, as_dtype(idt))
    else:
        indices = index_array(idt, idx_shape, sizes, neg, seed)
    return data, indices, attrs
