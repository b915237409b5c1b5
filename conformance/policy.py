"""Index policies: what a gather does with a negative or out-of-range index.

A policy is two independent choices plus a fill value:

* ``negative``: ``"wrap"`` reads ``-1`` as the last element (Python style, once,
  so only ``[-size, -1]`` wrap); ``"reject"`` treats every negative index as
  out of range.
* ``out_of_range``: what happens to an index still outside ``[0, size)`` after
  that: ``"error"`` raises :class:`IndexError`, ``"clamp"`` clamps into
  ``[0, size - 1]``, ``"wrap"`` takes it modulo ``size`` (and then ``negative``
  does not matter), ``"fill"`` writes ``fill_value`` instead of reading.

The two "clamp" flavours found in the wild are then

* ``CLIP`` (``np.take(mode="clip")``): clamp the raw value, so ``-1 -> 0``;
* ``WRAP_THEN_CLAMP`` (``jnp.take(mode="clip")``, WebNN in Chromium): wrap
  negatives first, so ``-1 -> size - 1``, then clamp.

Every policy is evaluated with whole-array arithmetic on the index's own dtype
(or int64), so it answers at once for any index value, ``2**63 - 1`` included,
and never overflows: an unsigned index is never cast to a signed one before it
is known to be in range.

>>> import numpy as np
>>> normalize_indices(np.array([-1, 5]), 4, CLIP, axis=0)[0]
array([0, 3])
>>> normalize_indices(np.array([-1, 5]), 4, WRAP_THEN_CLAMP, axis=0)[0]
array([3, 3])
>>> normalize_indices(np.array([-1, 5]), 4, MODULO, axis=0)[0]
array([3, 1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import array_api_compat
import numpy as np

from conformance.arrays import size_of, to_numpy

Negative = Literal["wrap", "reject"]
OutOfRange = Literal["error", "clamp", "wrap", "fill"]


@dataclass(frozen=True)
class IndexPolicy:
    """How indices are interpreted; see the module docstring.

    >>> ONNX.describe()
    'negatives wrap once; out of range raises IndexError'
    """

    name: str
    negative: Negative = "wrap"
    out_of_range: OutOfRange = "error"
    fill_value: Any = 0

    def __post_init__(self) -> None:
        if self.negative not in ("wrap", "reject"):
            raise ValueError(f"IndexPolicy.negative must be 'wrap' or 'reject', got {self.negative!r}")
        if self.out_of_range not in ("error", "clamp", "wrap", "fill"):
            raise ValueError(
                "IndexPolicy.out_of_range must be 'error', 'clamp', 'wrap' or 'fill', "
                f"got {self.out_of_range!r}"
            )

    def describe(self) -> str:
        """One line a human can read in a report."""
        neg = "negatives wrap once" if self.negative == "wrap" else "negatives are out of range"
        oor = {
            "error": "out of range raises IndexError",
            "clamp": "out of range clamps to [0, size-1]",
            "wrap": "every index is taken modulo size",
            "fill": f"out of range reads as {self.fill_value!r}",
        }[self.out_of_range]
        if self.out_of_range == "wrap":
            return oor
        return f"{neg}; {oor}"

    def with_fill(self, value: Any) -> "IndexPolicy":
        """The same policy filling ``value``: ``ZERO_FILL.with_fill(7).fill_value == 7``."""
        return IndexPolicy(f"{self.name}({value!r})", self.negative, self.out_of_range, value)


ONNX = IndexPolicy("error", "wrap", "error")
"""The default: ONNX Gather-11+, NumPy indexing, ``np.take(mode="raise")``."""
NONNEGATIVE = IndexPolicy("error-nonnegative", "reject", "error")
"""torch.gather, tf.gather: an index must lie in ``[0, size)``."""
CLIP = IndexPolicy("clip", "reject", "clamp")
"""``np.take(mode="clip")``: clamp the raw value (``-1 -> 0``)."""
WRAP_THEN_CLAMP = IndexPolicy("wrap-then-clamp", "wrap", "clamp")
"""Wrap negatives in ``[-size, -1]`` first, then clamp (``-1 -> size-1``)."""
MODULO = IndexPolicy("wrap", "wrap", "wrap")
"""``np.take(mode="wrap")``: every index modulo ``size``."""
ZERO_FILL = IndexPolicy("zero-fill", "reject", "fill", 0)
"""Out of range (negatives included) reads as zero (tf.gather on GPU)."""
WRAP_THEN_FILL = IndexPolicy("wrap-then-fill", "wrap", "fill", None)
"""``jnp.take(mode="fill")``: wrap negatives once, fill the rest (``None`` = dtype default)."""

POLICIES: dict[str, IndexPolicy] = {
    p.name: p for p in (ONNX, NONNEGATIVE, CLIP, WRAP_THEN_CLAMP, MODULO, ZERO_FILL, WRAP_THEN_FILL)
}


def policy_named(name: str | IndexPolicy) -> IndexPolicy:
    """Look a policy up by name (an :class:`IndexPolicy` passes through).

    >>> policy_named("clip") is CLIP
    True
    """
    if isinstance(name, IndexPolicy):
        return name
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"policy must be one of {sorted(POLICIES)}, got {name!r}") from None


def default_fill_value(dtype: np.dtype) -> Any:
    """JAX's documented fill for ``mode="fill"``: NaN for inexact types, the most
    negative value for signed, the largest for unsigned, True for bool.

    >>> default_fill_value(np.dtype("int8")), default_fill_value(np.dtype("uint8"))
    (-128, 255)
    """
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return True
    if np.issubdtype(dtype, np.signedinteger):
        return np.iinfo(dtype).min
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.iinfo(dtype).max
    if dtype.kind in "fcV":  # ml_dtypes' bfloat16 is kind "V"
        return np.nan
    if dtype.kind in "US":
        return dtype.type()
    return None


def _position(flat_index: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat_index, shape)) if shape else ()


def out_of_range_error(
    indices: np.ndarray, bad: np.ndarray, size: int, axis: int, argname: str = "indices"
) -> IndexError:
    """The error for the first index where ``bad`` is true, with its position.

    >>> str(out_of_range_error(np.array([0, 9]), np.array([False, True]), 4, 1))
    'indices[1] = 9 is out of range for axis 1 of size 4 (valid: [-4, 3])'
    """
    first = int(np.argmax(bad.reshape(-1)))
    where = _position(first, bad.shape)
    value = indices.reshape(-1)[first] if indices.ndim else indices
    pos = ", ".join(str(i) for i in where)
    valid = f"[-{size}, {size - 1}]" if size else "none: the axis is empty"
    return IndexError(
        f"{argname}[{pos}] = {int(value)} is out of range for axis {axis} of size {size} (valid: {valid})"
    )


def normalize_indices(
    indices: Any,
    size: int,
    policy: IndexPolicy,
    axis: int,
    xp: Any = np,
    argname: str = "indices",
) -> tuple[Any, Any]:
    """Map raw integer ``indices`` for an axis of ``size`` to int64 positions in
    ``[0, size)`` under ``policy``.

    Returns ``(positions, fill_mask)``: ``fill_mask`` is None unless the policy
    fills, in which case it marks the elements to overwrite (their position is 0).
    Raises :class:`IndexError` under an ``"error"`` policy, naming the axis, its
    size and the first offending value with its position in ``indices``.

    >>> normalize_indices(np.array([1, -2], dtype=np.int8), 3, ONNX, axis=0)[0]
    array([1, 1])
    >>> normalize_indices(np.array([2**64 - 1], dtype=np.uint64), 3, MODULO, 0)[0]
    array([0])
    """
    if size == 0 and size_of(indices) and policy.out_of_range in ("wrap", "clamp"):
        raise IndexError(
            f"{argname}: policy {policy.name!r} cannot place an index into axis {axis}, which has size 0"
        )
    if _all_within(indices, size, xp):  # the common case: one min and one max
        return xp.astype(indices, xp.int64, copy=False), None
    if _is_unsigned(indices, xp):
        # value == low + high * 2**63, both parts exact in int64: 2**63 is never
        # cast into a negative int64, and no namespace needs uint64 arithmetic.
        low, high = _split_unsigned(indices, xp)
        if policy.out_of_range == "wrap":
            s = max(size, 1)
            return (low % s + xp.astype(high, xp.int64) * (2**63 % s)) % s, None
        raw, in_range = low, ~high & (low < size)
    else:
        raw = xp.astype(indices, xp.int64, copy=False)
        if policy.out_of_range == "wrap":
            return raw % max(size, 1), None
        if policy.negative == "wrap":
            raw = raw + xp.where(raw < 0, xp.asarray(size, dtype=xp.int64), xp.asarray(0, dtype=xp.int64))
        in_range = (raw >= 0) & (raw < size)
    if policy.out_of_range == "error":
        if not bool(xp.all(in_range)):
            raise out_of_range_error(to_numpy(indices), ~to_numpy(in_range), size, axis, argname)
        return raw, None
    if policy.out_of_range == "fill":
        return xp.where(in_range, raw, xp.zeros_like(raw)), ~in_range
    # clamp: below the range -> 0, above it (every unsigned one) -> size - 1
    top, zero = xp.asarray(max(size - 1, 0), dtype=xp.int64), xp.asarray(0, dtype=xp.int64)
    return xp.where(in_range, raw, xp.where(raw < 0, zero, top)), None


def _split_unsigned(indices: Any, xp: Any) -> tuple[Any, Any]:
    """``(low 63 bits as int64, high bit as bool)`` of an unsigned index array.

    >>> _split_unsigned(np.array([2**63 + 5], dtype=np.uint64), np)
    (array([5]), array([ True]))
    """
    if array_api_compat.is_torch_array(indices):
        # torch has almost no uint64 kernels: reinterpret the bits instead.
        import torch

        signed = indices.view(torch.int64) if indices.dtype == torch.uint64 else indices.to(torch.int64)
        return signed & (2**63 - 1), signed < 0
    wide = xp.astype(indices, xp.uint64)
    return xp.astype(wide & xp.asarray(2**63 - 1, dtype=xp.uint64), xp.int64), wide >= xp.asarray(2**63, dtype=xp.uint64)


def _all_within(indices: Any, size: int, xp: Any) -> bool:
    """Whether every index already lies in ``[0, size)`` (True when empty).

    >>> _all_within(np.array([0, 2], dtype=np.uint8), 3, np), _all_within(np.array([-1]), 3, np)
    (True, False)
    """
    if size_of(indices) == 0:
        return True
    if array_api_compat.is_torch_array(indices) and _is_unsigned(indices, xp):
        return False  # torch has no min/max for uint16/32/64: its unsigned indices take the split path
    return bool(xp.min(indices) >= 0) and bool(xp.max(indices) < size)


def _is_unsigned(a: Any, xp: Any) -> bool:
    return any(a.dtype == getattr(xp, n, None) for n in ("uint8", "uint16", "uint32", "uint64"))


