"""Property tests of the reference against an oracle the tests own
(``tests/strategies_reference.oracle_gather``), against NumPy's own ops, and
across array namespaces."""

from __future__ import annotations

import math

import array_api_strict
import numpy as np
import pytest

try:
    import torch
except ImportError:  # tox -e core: the torch-namespace test skips
    torch = None
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import gather_multiaxis, reference
from conformance.core.arrays import same_bits, to_numpy
from conformance.spec.blocked import scaled_positions
from conformance.spec.policy import (
    CLIP,
    MODULO,
    NONNEGATIVE,
    ONNX,
    POLICIES,
    WRAP_THEN_CLAMP,
    WRAP_THEN_FILL,
    WRAP_THEN_ZERO,
    ZERO_FILL,
    OutOfRange,
    place_indices,
)
from tests.strategies_reference import (
    INDEX_DTYPES,
    Case,
    data_array,
    index_values,
    multiaxis_cases,
    np_dtype,
    oracle_gather,
)


def _outcome(f, *args, **kwargs) -> np.ndarray | type[BaseException]:
    """The result, or the type of the error raised."""
    try:
        return f(*args, **kwargs)
    except IndexError:
        return IndexError


def _assert_same_outcome(got: np.ndarray | type, want: np.ndarray | type) -> None:
    if want is IndexError or got is IndexError:
        assert got is want, f"got {got!r}, want {want!r}"
        return
    got = to_numpy(got)
    assert same_bits(got, want), f"\ngot  {got!r}\nwant {want!r}"


# -- (i) the multiaxis operator equals the per-element oracle -----------------


@settings(max_examples=300)
@given(multiaxis_cases())
def test_gather_multiaxis_equals_per_element_oracle_bit_for_bit(case: Case) -> None:
    want = _outcome(oracle_gather, case.input, case.indices, case.axes, case.policy)
    got = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
    _assert_same_outcome(got, want)


@settings(max_examples=60)
@given(multiaxis_cases(policies=(ONNX, NONNEGATIVE)))
def test_error_policies_raise_index_error_exactly_when_an_index_is_out_of_range(case: Case) -> None:
    want = _outcome(oracle_gather, case.input, case.indices, case.axes, case.policy)
    got = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
    _assert_same_outcome(got, want)


def test_gather_multiaxis_does_not_modify_its_arguments() -> None:
    x, i = np.arange(12).reshape(3, 4), np.array([[3, -1]])
    x0, i0 = x.copy(), i.copy()
    gather_multiaxis(x, i, [1], policy=WRAP_THEN_FILL)
    assert same_bits(x, x0) and same_bits(i, i0)


# -- (ii) the NumPy catalog ops equal NumPy ------------------------------------

NATIVE_TAKE_INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")  # np.take refuses uint64


def _valid_indices(dtype: np.dtype, size: int) -> st.SearchStrategy[int]:
    """Indices in ``[-size, size)`` that fit ``dtype`` (nothing is drawn when ``size == 0``)."""
    lo, hi = max(-size, int(np.iinfo(dtype).min)), min(size - 1, int(np.iinfo(dtype).max))
    return st.integers(lo, hi) if size else st.just(0)


@st.composite
def take_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int | None, str]:
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    axis = draw(st.one_of(st.none(), st.integers(-rank, rank - 1)))
    size = math.prod(shape) if axis is None else shape[axis]
    mode = draw(st.sampled_from(("raise", "wrap", "clip")))
    if mode != "raise" and size == 0:
        mode = "raise"  # np.take: "cannot do a non-empty take from an empty axes"
    dtype = np.dtype(draw(st.sampled_from(NATIVE_TAKE_INDEX_DTYPES)))
    idx_shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    if mode == "raise":
        values = _valid_indices(dtype, size)
    elif mode == "wrap":
        # np.take(mode="wrap") wraps by repeated subtraction: a huge index runs
        # for minutes natively (the oracles isolate that; extremes of our own
        # modulo are pinned in test_extreme_index_values_*). Several wraps only.
        info = np.iinfo(dtype)
        values = st.integers(max(int(info.min), -4 * size - 3), min(int(info.max), 4 * size + 3))
    else:
        values = index_values(dtype, size)
    n = math.prod(idx_shape)
    if mode == "raise" and size == 0:
        n, idx_shape = 0, idx_shape + (0,)
    indices = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype).reshape(idx_shape)
    data = draw(data_array(draw(st.sampled_from(("float32", "int16", "complex64", "str"))), shape))
    return data, indices, axis, mode


@settings(max_examples=150)
@given(take_cases())
def test_reference_numpy_take_equals_numpy_take_in_every_mode(args: tuple) -> None:
    data, indices, axis, mode = args
    # np.take returns a NumPy scalar for 0-d indices: compare as a 0-d array of data's dtype
    want = np.asarray(np.take(data, indices, axis=axis, mode=mode), dtype=data.dtype)
    got = reference("numpy.take", data, indices, axis=axis, mode=mode)
    _assert_same_outcome(got, want)


@st.composite
def take_along_axis_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int | None]:
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    axis = draw(st.one_of(st.none(), st.integers(-rank, rank - 1)))
    if axis is None:
        size, idx_shape = math.prod(shape), (draw(st.integers(0, 5)),)
    else:
        size = shape[axis]
        idx_shape = tuple(
            draw(st.integers(0, 4)) if d == axis % rank else draw(st.sampled_from((n, 1))) for d, n in enumerate(shape)
        )
        # the other way round too: size-1 data dimensions broadcast against the indices
        shape = tuple(1 if d != axis % rank and draw(st.booleans()) else n for d, n in enumerate(shape))
        idx_shape = tuple(
            draw(st.integers(0, 3)) if shape[d] == 1 and d != axis % rank else n for d, n in enumerate(idx_shape)
        )
    if size == 0:  # nothing to index: the indices must be empty along the axis
        idx_shape = (0,) if axis is None else tuple(0 if d == axis % rank else n for d, n in enumerate(idx_shape))
    n = math.prod(idx_shape)
    dtype = np.dtype(draw(st.sampled_from(INDEX_DTYPES)))
    indices = np.array(draw(st.lists(_valid_indices(dtype, size), min_size=n, max_size=n)), dtype=dtype).reshape(
        idx_shape
    )
    data = draw(data_array(draw(st.sampled_from(("float64", "uint8", "bool", "object"))), shape))
    return data, indices, axis


@settings(max_examples=150)
@given(take_along_axis_cases())
def test_reference_numpy_take_along_axis_equals_numpy_including_broadcasting(args: tuple) -> None:
    data, indices, axis = args
    want = np.take_along_axis(data, indices, axis=axis)
    got = reference("numpy.take_along_axis", data, indices, axis=axis)
    _assert_same_outcome(got, want)


# -- (iii) other namespaces give the NumPy result, in their own namespace -----

STRICT_DTYPES = ("bool", "int8", "int64", "uint8", "uint64", "float32", "float64", "complex64")
TORCH_DTYPES = ("bool", "int8", "int32", "uint8", "float16", "bfloat16", "float64", "complex128")
TORCH_INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _to_torch(a: np.ndarray) -> torch.Tensor:
    a = np.asarray(a, order="C")
    if a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    if a.dtype.kind == "u" and a.dtype.itemsize > 1:
        signed = np.dtype(f"int{8 * a.dtype.itemsize}")
        return torch.from_numpy(a.view(signed).copy()).view(getattr(torch, a.dtype.name))
    return torch.from_numpy(a.copy())


@settings(max_examples=60)
@given(multiaxis_cases(dtypes=STRICT_DTYPES, layouts=("C",)))
def test_gather_multiaxis_on_array_api_strict_equals_numpy_and_stays_in_its_namespace(case: Case) -> None:
    want = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
    x, i = array_api_strict.asarray(case.input), array_api_strict.asarray(case.indices)
    got = _outcome(gather_multiaxis, x, i, case.axes, policy=case.policy)
    if got is not IndexError:
        assert type(got) is type(x)
    _assert_same_outcome(got, want)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@settings(max_examples=60)
@given(multiaxis_cases(dtypes=TORCH_DTYPES, index_dtypes=TORCH_INDEX_DTYPES, layouts=("C",)))
def test_gather_multiaxis_on_torch_equals_numpy_and_returns_a_tensor(case: Case) -> None:
    want = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
    got = _outcome(gather_multiaxis, _to_torch(case.input), _to_torch(case.indices), case.axes, policy=case.policy)
    if got is not IndexError:
        assert isinstance(got, torch.Tensor)
    _assert_same_outcome(got, want)


# -- (iv) CuPy ---------------------------------------------------------------------


def _cupy_or_skip():
    try:
        import cupy
    except ImportError:
        pytest.skip("CuPy is not installed (needs a CUDA device)")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"no usable CUDA device: {e}")
    return cupy


@pytest.mark.needs_gpu
@settings(max_examples=40)
@given(case=multiaxis_cases(dtypes=("bool", "int32", "uint64", "float16", "float64", "complex64"), layouts=("C",)))
def test_gather_multiaxis_on_cupy_equals_numpy_and_returns_a_cupy_array(case: Case) -> None:
    cupy = _cupy_or_skip()
    want = _outcome(gather_multiaxis, case.input, case.indices, case.axes, policy=case.policy)
    got = _outcome(
        gather_multiaxis, cupy.asarray(case.input), cupy.asarray(case.indices), case.axes, policy=case.policy
    )
    if got is not IndexError:
        assert isinstance(got, cupy.ndarray)
    _assert_same_outcome(got, want)


# -- (v) index extremes --------------------------------------------------------------

EXTREMES = [
    ("uint64", 2**63),
    ("uint64", 2**64 - 1),
    ("int64", 2**63 - 1),
    ("int64", -(2**63)),
    ("uint32", 2**32 - 1),
    ("int8", -128),
]
SIZE = 7
DATA = np.arange(10, 10 + SIZE, dtype=np.int32)


def _exact(value: int, policy) -> int | None:
    """Where ``value`` reads in DATA (Python big-int arithmetic), None = fill
    (or, under an error policy, raise)."""
    if policy.out_of_range == "wrap":
        return value % SIZE
    if policy.negative == "wrap" and -SIZE <= value < 0:
        value += SIZE
    if policy.out_of_range == "clamp":
        return min(max(value, 0), SIZE - 1)
    return value if 0 <= value < SIZE else None


@pytest.mark.parametrize(("dtype", "value"), EXTREMES)
@pytest.mark.parametrize("policy", [ONNX, NONNEGATIVE], ids=lambda p: p.name)
def test_extreme_index_values_are_out_of_range_under_error_policies(dtype: str, value: int, policy) -> None:
    with pytest.raises(IndexError, match=str(value)):
        gather_multiaxis(DATA, np.array([value], dtype=dtype), [0], policy=policy)


@pytest.mark.parametrize(("dtype", "value"), EXTREMES)
@pytest.mark.parametrize(
    "policy", [CLIP, WRAP_THEN_CLAMP, MODULO, ZERO_FILL, WRAP_THEN_FILL, WRAP_THEN_ZERO], ids=lambda p: p.name
)
@pytest.mark.parametrize("namespace", ["numpy", "torch", "array_api_strict"])
def test_extreme_index_values_give_exact_results_under_clamp_wrap_and_fill(dtype, value, policy, namespace) -> None:
    indices = np.array([value, 3], dtype=dtype)
    pos = _exact(value, policy)
    want = np.array(
        [
            DATA[pos] if pos is not None else (0 if policy in (ZERO_FILL, WRAP_THEN_ZERO) else np.iinfo(np.int32).min),
            13,
        ],
        np.int32,
    )
    x, i = {
        "numpy": (DATA, indices),
        "torch": (_to_torch(DATA), _to_torch(indices)),
        "array_api_strict": (array_api_strict.asarray(DATA), array_api_strict.asarray(indices)),
    }[namespace]
    assert same_bits(to_numpy(gather_multiaxis(x, i, [0], policy=policy)), want)


@pytest.mark.parametrize(("dtype", "value"), EXTREMES)
@pytest.mark.parametrize("policy", list(POLICIES.values()), ids=lambda p: p.name)
def test_extreme_index_values_are_exact_where_offsets_sum_several_terms(dtype: str, value: int, policy) -> None:
    """An element gather along axis 0 of 2-D data sums two offset terms (the
    index and the column), which NumPy does in place in int64 buffers: an
    extreme index is checked and placed there exactly as alone, in every
    policy, whatever its dtype (a uint64 above 2**63 is not a negative)."""
    data = np.stack([DATA, DATA + 100], axis=1)
    indices = np.array([[value, 3], [3, value], [-1 if dtype[0] == "i" else 6, 0]], dtype=dtype)
    if policy.out_of_range is OutOfRange.ERROR:
        with pytest.raises(IndexError, match=str(value)):
            gather_multiaxis(data, indices, [0], policy=policy)
        return
    fill = 0 if policy.fill_value == 0 else np.iinfo(np.int32).min
    want = [
        [fill if (pos := _exact(int(i), policy)) is None else int(data[pos, col]) for col, i in enumerate(row)]
        for row in indices.tolist()
    ]
    assert gather_multiaxis(data, indices, [0], policy=policy).tolist() == want


def test_modulo_of_int64_max_is_exact_and_not_proportional_to_the_value() -> None:
    """2**63 - 1 = 7 * 1317624576693539401, so it is 0 modulo 7 and 1 modulo 3
    (a loop that subtracted the size would never finish)."""
    big = np.array([2**63 - 1, -(2**63), 2**63 - 2], dtype=np.int64)
    assert gather_multiaxis(DATA, big, [0], policy=MODULO).tolist() == [
        DATA[(2**63 - 1) % 7],
        DATA[(-(2**63)) % 7],
        DATA[(2**63 - 2) % 7],
    ]
    assert gather_multiaxis(np.arange(3), big, [0], policy=MODULO).tolist() == [1, (-(2**63)) % 3, 0]
    huge = np.array([2**64 - 1, 2**63], dtype=np.uint64)
    assert gather_multiaxis(np.arange(3), huge, [0], policy=MODULO).tolist() == [(2**64 - 1) % 3, 2**63 % 3]


@settings(max_examples=300)
@given(
    st.sampled_from(INDEX_DTYPES).flatmap(
        lambda d: st.tuples(st.just(d), st.integers(1, 300)).flatmap(
            lambda ds: st.tuples(
                st.just(ds[0]),
                st.just(ds[1]),
                st.lists(index_values(np.dtype(ds[0]), ds[1]), min_size=1, max_size=8),
            )
        )
    ),
    st.sampled_from(list(POLICIES.values())),
    st.sampled_from([1, 7, 2**40]),
    st.sampled_from(["numpy", "array_api_strict"]),
)
def test_scaled_positions_are_the_placed_positions_times_the_stride_where_it_answers(args, policy, stride, namespace):
    """The fast path of a block (one reduction, a wrap once at most) answers
    exactly what the general one does, or leaves the block to it: never for
    an index the policy rejects, fills or clamps."""
    dtype, size, values = args
    indices = np.array(values, dtype=dtype)
    xp = array_api_strict if namespace == "array_api_strict" else np
    got = scaled_positions(xp.asarray(indices), size, policy, stride, xp)
    low = -size if "wrap" in (policy.negative, policy.out_of_range) else 0
    fits = all(low <= int(v) < size for v in values)
    assert (got is not None) == fits
    if got is not None:
        want, mask = place_indices(indices, size, policy)
        assert mask is None or not mask.any()
        assert to_numpy(got).dtype == np.int64 and to_numpy(got).tolist() == [int(p) * stride for p in want]


# -- (vi) GatherND with an empty index tuple --------------------------------------


@st.composite
def whole_slice_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
    batch_dims = draw(st.integers(0, rank - 1))
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    indices = np.zeros(shape[:batch_dims] + lead + (0,), dtype=draw(st.sampled_from(("int32", "int64"))))
    return draw(data_array("float32", shape)), indices, batch_dims


@settings(max_examples=60)
@given(whole_slice_cases())
def test_tensorflow_gather_nd_with_empty_index_tuples_returns_whole_slices(args: tuple) -> None:
    data, indices, b = args
    lead = indices.shape[b:-1]
    want = np.broadcast_to(
        data.reshape(data.shape[:b] + (1,) * len(lead) + data.shape[b:]), data.shape[:b] + lead + data.shape[b:]
    )
    got = reference("tensorflow.gather_nd", data, indices, batch_dims=b)
    assert same_bits(np.asarray(got), np.asarray(want, order="C"))


def test_policies_under_test_are_all_the_catalog_policies() -> None:
    assert set(POLICIES.values()) == {
        ONNX,
        NONNEGATIVE,
        CLIP,
        WRAP_THEN_CLAMP,
        MODULO,
        ZERO_FILL,
        WRAP_THEN_FILL,
        WRAP_THEN_ZERO,
    }
