"""Where an op's docs define it by an equivalent, the reference follows the equivalent: two false findings of a hand
audit, each pinned against the framework itself.

* NumPy's ops read an index as NumPy's indexing does: numpy.take_along_axis 'Equivalently, eliminating the inner
  loop, the last two lines would be:: out_1d[:] = a_1d[indices_1d]' (fancy indexing), numpy.take defines
  ``out[jj] = a[(indices[jj],)]``. Indexing casts an index array to intp, so a uint64 index of 2**63 or more reads
  as its two's complement (2**64 - 1 is -1, which wraps once): checked by hand on NumPy 2.4.6, where
  np.take_along_axis, np.take (mode 'raise') and ``a[idx]`` on [10, 20, 30] give [30] for uint64 2**64 - 1 and
  raise 'index -9223372036854775808 is out of bounds' for 2**63; mode 'clip' gives [10] for both (-1 and -2**63
  clip to 0: 'clip' 'disables negative indices'), mode 'wrap' [30] for 2**64 - 1.
* jax.numpy.take / take_along_axis: 'fill_value: The fill value to return for out-of-bounds slices when mode is
  'fill'. Ignored otherwise.' Checked by hand on jax 0.10.2: jnp.take([10, 20, 30], [4, -1], mode='wrap',
  fill_value='1') is [20, 30], mode='clip' [30, 10]; mode='fill' (or None) raises TypeError "data type '' not
  understood". A 0-d array fill_value is refused in every mode ('Non-hashable static arguments are not supported':
  fill_value is a static argument of the compiled function).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from conformance.core.case import Case
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.judge.verdict import PolicyValues, judge, reference_outcome
from conformance.spec.catalog import spec, specs
from conformance.spec.policy import IndexReading
from conformance.spec.reference import reference

DATA = np.array([10, 20, 30], np.int32)
UINT64_VALUES = (2**64 - 1, 2**64 - 3, 2**64 - 4, 2**63, 2**63 + 1, 2**63 - 1, 2**64 - 10**6, 2)
"""uint64 index values: -1 and -3 as intp (in range once wrapped), -4 and -10**6 (out of range), -2**63 and
-2**63 + 1, the largest int64 (unchanged by the cast) and an ordinary 2."""


def _intp(value: int) -> int:
    """``value`` as NumPy's cast of a uint64 index to intp reads it (two's complement)."""
    return value - 2**64 if value >= 2**63 else value


def _framework(call: Callable[[], Any]) -> Any:
    """What the framework returns (as a list), or ``"IndexError"`` where it raises one."""
    try:
        return np.asarray(call()).tolist()
    except IndexError:
        return "IndexError"


def _reference(case: Case) -> Any:
    """What the reference says for ``case``, in :func:`_framework`'s terms."""
    ref = reference_outcome(case)
    if ref.kind is Kind.ERROR:
        assert ref.error_class is ErrorClass.INDEX_OUT_OF_RANGE, ref
        return "IndexError"
    return np.asarray(ref.value).tolist()


def _u64(*values: int) -> np.ndarray:
    return np.array(values, np.uint64)


# -- 1. NumPy's ops read a uint64 index as intp, as its indexing does ------------------------------------------


@pytest.mark.parametrize("value", UINT64_VALUES)
def test_numpy_take_along_axis_reads_a_uint64_index_as_intp_as_fancy_indexing_does(value: int) -> None:
    idx = _u64(value)
    fancy = _framework(lambda: DATA[idx])  # the docs' 'out_1d[:] = a_1d[indices_1d]'
    assert _framework(lambda: np.take_along_axis(DATA, idx, axis=0)) == fancy
    assert _reference(Case("numpy.take_along_axis", DATA, idx, {"axis": 0})) == fancy
    in_range = -3 <= _intp(value) < 3
    assert fancy == ([int(DATA[_intp(value)])] if in_range else "IndexError")


@pytest.mark.parametrize("value", UINT64_VALUES)
def test_numpy_take_reads_a_uint64_index_as_intp_in_mode_raise_as_its_definition_does(value: int) -> None:
    idx = _u64(value)
    defined = _framework(lambda: DATA[(idx,)])  # 'out[jj] = a[(indices[jj],)]'
    assert _framework(lambda: np.take(DATA, idx, mode="raise")) == defined
    assert _reference(Case("numpy.take", DATA, idx, {"axis": 0, "mode": "raise"})) == defined


@pytest.mark.parametrize("value", UINT64_VALUES)
def test_numpy_take_clip_clips_a_uint64_index_read_as_intp_so_a_negative_one_reads_the_first_element(
    value: int,
) -> None:
    """'clip' 'clips to the range (and so disables negative indices)': the intp value is clamped, -1 to 0."""
    idx = _u64(value)
    want = [int(DATA[min(max(_intp(value), 0), 2)])]
    assert _framework(lambda: np.take(DATA, idx, mode="clip")) == want
    assert _reference(Case("numpy.take", DATA, idx, {"axis": 0, "mode": "clip"})) == want


@pytest.mark.parametrize("value", UINT64_VALUES)
def test_numpy_take_wrap_wraps_a_uint64_index_read_as_intp(value: int) -> None:
    """'wrap' wraps the intp value around (modulo the size). NumPy's own loop steps one size at a time, so an index
    of magnitude near 2**63 never returns there (a baseline finding of its own): those are held to the modulo."""
    idx = _u64(value)
    want = [int(DATA[_intp(value) % 3])]
    if abs(_intp(value)) < 2**40:
        assert _framework(lambda: np.take(DATA, idx, mode="wrap")) == want
    assert _reference(Case("numpy.take", DATA, idx, {"axis": 0, "mode": "wrap"})) == want


@pytest.mark.parametrize("values", [(2**64 - 1, 2**64 - 2), (2**64 - 2, 1), (2**63, 0), (1, 2**64 - 4)])
def test_numpy_advanced_indexing_reads_uint64_indices_as_intp(values: tuple[int, int]) -> None:
    data = np.arange(6, dtype=np.int32).reshape(2, 3)
    idx = _u64(*values).reshape(1, 2)  # one index tuple: data[(idx[..., 0], idx[..., 1])]
    want = _framework(lambda: data[tuple(np.moveaxis(idx, -1, 0))])
    assert _reference(Case("numpy.advanced_indexing", data, idx, {})) == want
    rows, cols = (_intp(v) for v in values)
    assert want == ([int(data[rows, cols])] if -2 <= rows < 2 and -3 <= cols < 3 else "IndexError")


def test_a_uint64_index_of_2_63_is_reported_as_numpy_reports_it() -> None:
    with pytest.raises(IndexError, match=r"index -9223372036854775808 is out of bounds"):
        np.take_along_axis(DATA, _u64(2**63), axis=0)
    with pytest.raises(IndexError, match=r"indices\[0\] = -9223372036854775808 is out of range for axis 0 of size 3"):
        reference("numpy.take_along_axis", DATA, _u64(2**63), axis=0)


def test_the_in_process_numpy_oracle_conforms_on_uint64_indices_read_as_intp() -> None:
    oracles = pytest.importorskip("oracles")
    oracle = oracles.get("numpy", isolated=False)
    try:
        cases = [
            Case("numpy.take_along_axis", DATA, _u64(2**64 - 1), {"axis": 0}),
            Case("numpy.take", DATA, _u64(2**64 - 1), {"axis": 0, "mode": "raise"}),
            Case("numpy.take", DATA, _u64(2**63), {"axis": 0, "mode": "clip"}),
            Case("numpy.advanced_indexing", DATA, _u64(2**64 - 1).reshape(1, 1), {}),
        ]
        for case in cases:
            got = oracle.run(case.op, case.data, case.indices, **case.attrs)
            verdict = judge(case, reference_outcome(case), got, PolicyValues(case), framework="numpy")
            assert verdict.conforms, (case.op, case.attrs, got.describe(), verdict)
    finally:
        oracle.close()


def test_only_numpys_own_ops_read_a_uint64_index_as_intp() -> None:
    intp = {s.key for s in specs() if s.index_reading is IndexReading.INTP}
    assert intp == {"numpy.take", "numpy.take_along_axis", "numpy.advanced_indexing"}
    huge = _u64(2**64 - 1)
    with pytest.raises(IndexError, match="18446744073709551615 is out of range"):  # its value: out of range
        reference("tensorflow.experimental.numpy.take_along_axis", DATA, huge, axis=0, check_dtypes=False)
    assert reference("jax.numpy.take", DATA, huge, axis=0).tolist() == [np.iinfo(np.int32).min]  # filled
    assert reference("jax.numpy.take", DATA, huge, axis=0, mode="clip").tolist() == [30]  # clamped above


def test_a_policy_asked_for_applies_to_the_index_as_the_op_reads_it() -> None:
    """The reading comes before the policy, whichever policy the judge asks about."""
    assert reference("numpy.take", DATA, _u64(2**64 - 1), axis=0, policy="clip").tolist() == [10]
    assert reference("numpy.take", DATA, _u64(2**64 - 1), axis=0, policy="wrap-then-clamp").tolist() == [30]


# -- 2. JAX's fill_value is read only in mode 'fill' ----------------------------------------------------------

JAX_IDX = np.array([4, -1], np.int32)
IGNORING = [("jax.numpy.take", "wrap"), ("jax.numpy.take", "clip"), ("jax.numpy.take_along_axis", "clip")]
FILLING = [("jax.numpy.take", "fill"), ("jax.numpy.take", None), ("jax.numpy.take_along_axis", "fill")]


def _jax_call(op: str, mode: str | None, fill_value: Any) -> Callable[[], Any]:
    jnp = pytest.importorskip("jax.numpy")
    fn = jnp.take if op == "jax.numpy.take" else jnp.take_along_axis
    return lambda: fn(DATA, JAX_IDX, axis=0, mode=mode, fill_value=fill_value)


@pytest.mark.parametrize("fill_value", ["1", b"1"], ids=["str", "bytes"])
@pytest.mark.parametrize(("op", "mode"), IGNORING)
def test_jax_take_ignores_fill_value_unless_mode_is_fill(op: str, mode: str, fill_value: Any) -> None:
    got = np.asarray(_jax_call(op, mode, fill_value)()).tolist()
    assert got == reference(op, DATA, JAX_IDX, axis=0, mode=mode).tolist()  # as without a fill_value
    assert reference(op, DATA, JAX_IDX, axis=0, mode=mode, fill_value=fill_value).tolist() == got


@pytest.mark.parametrize(("op", "mode"), FILLING)
def test_jax_take_refuses_a_string_fill_value_where_mode_fills(op: str, mode: str | None) -> None:
    with pytest.raises(TypeError):
        _jax_call(op, mode, "1")()
    with pytest.raises(TypeError, match="fill_value must be a scalar"):
        reference(op, DATA, JAX_IDX, axis=0, mode=mode, fill_value="1")


@pytest.mark.parametrize(("op", "mode"), IGNORING + FILLING)
def test_jax_take_refuses_an_array_fill_value_in_every_mode_as_a_static_argument(op: str, mode: str | None) -> None:
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        _jax_call(op, mode, np.array(1))()
    with pytest.raises(TypeError, match="fill_value must be a static scalar"):
        reference(op, DATA, JAX_IDX, axis=0, mode=mode, fill_value=np.array(1))


def test_the_rule_is_stated_once_on_the_attribute() -> None:
    for key in ("jax.numpy.take", "jax.numpy.take_along_axis"):
        s = spec(key)
        (fill,) = [a for a in s.attrs if a.name == "fill_value"]
        assert fill.only_when_filling
        assert [m for m in s.mode_policies if s.reads(fill, s.bind({"mode": m}))] == [None, "fill"]
    assert not [a for s in specs() if not s.key.startswith("jax.numpy.") for a in s.attrs if a.only_when_filling]


def test_jax_string_fill_value_under_wrap_is_no_finding() -> None:
    """The audit's false finding: jnp.take(x, i, mode='wrap', fill_value='1') returning the wrapped value."""
    pytest.importorskip("jax")
    case = Case("jax.numpy.take", DATA, JAX_IDX, {"axis": 0, "mode": "wrap", "fill_value": "1"})
    got = Outcome.returned(np.asarray(_jax_call(case.op, "wrap", "1")()))
    assert judge(case, reference_outcome(case), got, PolicyValues(case), framework="jax").conforms
