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

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np

from conformance.core.arrays import size_of, to_numpy
from conformance.core.word import Word
from conformance.spec.errors import IndexOutOfRangeError


class Negative(Word):
    """What a negative index does before the range check."""

    WRAP = "wrap"
    """``-1`` reads the last element (once: only ``[-size, -1]`` wrap)."""
    REJECT = "reject"
    """Every negative index is out of range."""


class OutOfRange(Word):
    """What an index still outside ``[0, size)`` does."""

    ERROR = "error"
    CLAMP = "clamp"
    WRAP = "wrap"
    FILL = "fill"


class IndexReading(Word):
    """How an op reads an index's value, before its :class:`IndexPolicy` applies: the one place where an index
    dtype, not only its value, decides what the op does (:func:`read_indices`)."""

    VALUE = "value"
    """Every integer index is its own value: a uint64 index of ``2**64 - 1`` is ``2**64 - 1``, beyond every axis."""
    INTP = "intp"
    """As NumPy's indexing reads it: an index array is cast to ``intp`` (int64 here), so a uint64 index of ``2**63``
    or more is read in two's complement, as its value ``- 2**64`` (``2**64 - 1`` is ``-1``, which wraps once under a
    wrapping policy); every other integer dtype fits ``intp`` and keeps its value. numpy.take_along_axis's docs
    give fancy indexing as its equivalent ('out_1d[:] = a_1d[indices_1d]'), numpy.take's define
    ``out[jj] = a[(indices[jj],)]``: both read an index as indexing does."""


Key = tuple[int | slice, ...]

CHUNK = 1 << 17
"""Positions per block when indices (and the output) are walked in blocks: the
int64 temporaries of a gather are a few blocks of 1 MiB (an L2 cache's worth)
whatever its size. Measured on the benchmark's cases (``benchmarks/bench_reference.py``):
blocks of 16K to 64K positions were slower (Python's share per block, and NumPy's
``take`` itself is slower on short runs), 256K no faster."""


@dataclass(frozen=True)
class IndexPolicy:
    """How indices are interpreted; see the module docstring.

    >>> ONNX.describe()
    'negatives wrap once; out of range raises IndexError'
    """

    name: str
    negative: Negative = Negative.WRAP
    out_of_range: OutOfRange = OutOfRange.ERROR
    fill_value: Any = 0

    def __post_init__(self) -> None:
        """The choices given as words become members; an unknown word is a ValueError naming the field."""
        for name, kind in (("negative", Negative), ("out_of_range", OutOfRange)):
            word = getattr(self, name)
            try:
                object.__setattr__(self, name, kind(word))
            except ValueError:
                known = ", ".join(repr(m.value) for m in kind)
                raise ValueError(f"IndexPolicy.{name} must be one of {known}, got {word!r}") from None

    def describe(self) -> str:
        """One line a human can read in a report."""
        neg = "negatives wrap once" if self.negative is Negative.WRAP else "negatives are out of range"
        oor = {
            OutOfRange.ERROR: "out of range raises IndexError",
            OutOfRange.CLAMP: "out of range clamps to [0, size-1]",
            OutOfRange.WRAP: "every index is taken modulo size",
            OutOfRange.FILL: f"out of range reads as {self.fill_value!r}",
        }[self.out_of_range]
        if self.out_of_range is OutOfRange.WRAP:
            return oor
        return f"{neg}; {oor}"

    def with_fill(self, value: Any) -> IndexPolicy:
        """The same policy filling ``value``: ``ZERO_FILL.with_fill(7).fill_value == 7``."""
        return IndexPolicy(f"{self.name}({value!r})", self.negative, self.out_of_range, value)


ONNX = IndexPolicy("error", Negative.WRAP, OutOfRange.ERROR)
"""The default: ONNX Gather-11+, NumPy indexing, ``np.take(mode="raise")``."""
NONNEGATIVE = IndexPolicy("error-nonnegative", Negative.REJECT, OutOfRange.ERROR)
"""torch.gather, tf.gather: an index must lie in ``[0, size)``."""
CLIP = IndexPolicy("clip", Negative.REJECT, OutOfRange.CLAMP)
"""``np.take(mode="clip")``: clamp the raw value (``-1 -> 0``)."""
WRAP_THEN_CLAMP = IndexPolicy("wrap-then-clamp", Negative.WRAP, OutOfRange.CLAMP)
"""Wrap negatives in ``[-size, -1]`` first, then clamp (``-1 -> size-1``)."""
MODULO = IndexPolicy("wrap", Negative.WRAP, OutOfRange.WRAP)
"""``np.take(mode="wrap")``: every index modulo ``size``."""
ZERO_FILL = IndexPolicy("zero-fill", Negative.REJECT, OutOfRange.FILL, 0)
"""Out of range (negatives included) reads as zero (tf.gather on GPU)."""
WRAP_THEN_FILL = IndexPolicy("wrap-then-fill", Negative.WRAP, OutOfRange.FILL, None)
"""``jnp.take(mode="fill")``: wrap negatives once, fill the rest (``None`` = dtype default)."""
WRAP_THEN_ZERO = IndexPolicy("wrap-then-zero", Negative.WRAP, OutOfRange.FILL, 0)
"""OpenVINO's Gather-8: wrap negatives once, read the rest as zero."""

POLICIES: dict[str, IndexPolicy] = {
    p.name: p for p in (ONNX, NONNEGATIVE, CLIP, WRAP_THEN_CLAMP, MODULO, ZERO_FILL, WRAP_THEN_FILL, WRAP_THEN_ZERO)
}


def policy_named(name: str | IndexPolicy) -> IndexPolicy:
    """Look a policy up by name (an :class:`IndexPolicy` passes through).

    >>> policy_named("clip") is CLIP
    True
    """
    if isinstance(name, IndexPolicy):
        return name
    if not isinstance(name, str):
        known = sorted(POLICIES)
        raise TypeError(f"policy must be an IndexPolicy or one of {known}, got {type(name).__name__} {name!r}")
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


def valid_range(size: int, policy: IndexPolicy) -> str:
    """The index values ``policy`` accepts for an axis of ``size``, in words.

    >>> valid_range(4, ONNX), valid_range(4, NONNEGATIVE), valid_range(0, ONNX)
    ('[-4, 3]', '[0, 3]; negative indices are not allowed', 'none: the axis is empty')
    """
    if not size:
        return "none: the axis is empty"
    if policy.negative is Negative.WRAP:
        return f"[-{size}, {size - 1}]"
    return f"[0, {size - 1}]; negative indices are not allowed"


def out_of_range_error(
    value: int, where: tuple[int, ...], size: int, axis: int, policy: IndexPolicy = ONNX, argname: str = "indices"
) -> IndexOutOfRangeError:
    """The error for an index ``value`` at position ``where`` that ``policy`` rejects (an
    :class:`~conformance.spec.errors.IndexOutOfRangeError`: its fields say the same).

    >>> str(out_of_range_error(9, (1,), 4, 1))
    'indices[1] = 9 is out of range for axis 1 of size 4 (valid: [-4, 3])'
    >>> str(out_of_range_error(-1, (0, 2), 4, 0, NONNEGATIVE))
    'indices[0, 2] = -1 is out of range for axis 0 of size 4 (valid: [0, 3]; negative indices are not allowed)'
    """
    pos = ", ".join(str(i) for i in where)
    return IndexOutOfRangeError(
        f"{argname}[{pos}] = {int(value)} is out of range for axis {axis} of size {size} "
        f"(valid: {valid_range(size, policy)})",
        axis=axis,
        size=size,
        value=int(value),
        position=tuple(int(i) for i in where),
    )


def blocks(shape: tuple[int, ...], limit: int | None = None) -> Iterator[tuple[Key, int]]:
    """Split an array of ``shape`` into consecutive blocks of its C order, each
    of at most ``max(limit, 1)`` elements (default :data:`CHUNK`): ``(key, start)`` with ``key`` a basic
    index (ints, then one slice, then full slices) that every namespace
    accepts, and ``start`` the flat position of the block's first element.
    A 0-d shape is one block; an empty shape none. Fewer than
    ``2 * size / limit + 1`` blocks.

    >>> [(k, s) for k, s in blocks((2, 3), 4)]
    [((slice(0, 1, None), slice(None, None, None)), 0), ((slice(1, 2, None), slice(None, None, None)), 3)]
    >>> [k for k, _ in blocks((2, 5), 2)][:3]
    [(0, slice(0, 2, None)), (0, slice(2, 4, None)), (0, slice(4, 5, None))]
    """
    if not shape:
        yield (), 0
        return
    if math.prod(shape) == 0:
        return
    limit = CHUNK if limit is None else limit
    j, inner = len(shape) - 1, 1  # j: the first dimension whose trailing block fits
    while j > 0 and inner * shape[j] <= limit:
        inner *= shape[j]
        j -= 1
    rows = max(limit // inner, 1)
    rest = (slice(None),) * (len(shape) - j - 1)
    start = 0
    for outer in itertools.product(*(range(n) for n in shape[:j])):
        for r in range(0, shape[j], rows):
            stop = min(r + rows, shape[j])
            yield outer + (slice(r, stop),) + rest, start
            start += (stop - r) * inner


def check_indices(
    indices: Any,
    size: int,
    policy: IndexPolicy,
    axis: int,
    xp: Any = np,
    argname: str = "indices",
    *,
    empty_output: bool = False,
) -> bool:
    """Raise what ``policy`` raises for ``indices`` (an index outside the range
    of an ``"error"`` policy, the first in C order with its position, even
    where the output is empty; or any index at all into an empty axis under a
    clamping or wrapping one, unless the output is empty: nothing is read
    there, so nothing needs placing), walking them in :func:`blocks`. Returns
    True when every index already lies in ``[0, size)``, so that the indices
    are their own positions.

    >>> check_indices(np.array([0, 2]), 3, ONNX, 0), check_indices(np.array([-1]), 3, ONNX, 0)
    (True, False)
    >>> check_indices(np.array([[0, 1], [-1, 0]]), 3, NONNEGATIVE, 0)
    Traceback (most recent call last):
    conformance.spec.errors.IndexOutOfRangeError: indices[1, 0] = -1 is out of range for axis 0 of size 3 (valid: ...)
    """
    if (
        size == 0
        and size_of(indices)
        and policy.out_of_range in (OutOfRange.WRAP, OutOfRange.CLAMP)
        and not empty_output
    ):
        message = f"{argname}: policy {policy.name!r} cannot place an index into axis {axis}, which has size 0"
        raise IndexOutOfRangeError(message, axis=axis, size=0)
    if size_of(indices) == 0:
        return True
    bounds = extremes(indices, xp)  # the common case: one min and one max
    if bounds is not None and 0 <= bounds[0] and bounds[1] < size:
        return True
    low = -size if policy.negative is Negative.WRAP else 0
    if policy.out_of_range is OutOfRange.ERROR and (bounds is None or bounds[0] < low or bounds[1] >= size):
        shape = tuple(indices.shape)
        for key, start in blocks(shape):
            part = indices[key]
            in_range = _raw_and_in_range(part, size, policy, xp)[1]
            if not bool(xp.all(in_range)):
                first = int(np.argmax(~to_numpy(in_range).reshape(-1)))
                value = to_numpy(part).reshape(-1)[first]
                where = tuple(int(i) for i in np.unravel_index(start + first, shape)) if shape else ()
                raise out_of_range_error(value, where, size, axis, policy, argname)
    return False


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

    Memory: the result and a few blocks (:data:`CHUNK`) of temporaries; the
    indices are checked by :func:`check_indices` and mapped by
    :func:`place_indices` block by block.

    >>> normalize_indices(np.array([1, -2], dtype=np.int8), 3, ONNX, axis=0)[0]
    array([1, 1])
    >>> normalize_indices(np.array([2**64 - 1], dtype=np.uint64), 3, MODULO, 0)[0]
    array([0])
    """
    if check_indices(indices, size, policy, axis, xp, argname):
        return xp.astype(indices, xp.int64, copy=False), None
    if size_of(indices) <= CHUNK:
        return place_indices(indices, size, policy, xp)
    shape, device = tuple(indices.shape), array_api_compat.device(indices)
    positions = xp.empty(shape, dtype=xp.int64, device=device)
    mask = xp.empty(shape, dtype=xp.bool, device=device) if policy.out_of_range is OutOfRange.FILL else None
    for key, _ in blocks(shape):
        pos, fill = place_indices(indices[key], size, policy, xp)
        positions[key] = pos
        if mask is not None:
            mask[key] = fill
    return positions, mask


def place_indices(indices: Any, size: int, policy: IndexPolicy, xp: Any = np) -> tuple[Any, Any]:
    """``(positions, fill_mask)`` as :func:`normalize_indices` returns them, for
    indices that :func:`check_indices` has passed: element by element, so a
    block of indices maps on its own (its temporaries are the block's size).

    >>> place_indices(np.array([-1, 5]), 4, WRAP_THEN_CLAMP)[0], place_indices(np.array([-1, 5]), 4, ZERO_FILL)[1]
    (array([3, 3]), array([ True,  True]))
    """
    if policy.out_of_range is OutOfRange.WRAP:
        if _is_unsigned(indices, xp):
            # value == low + high * 2**63, both parts exact in int64: 2**63 is never
            # cast into a negative int64, and no namespace needs uint64 arithmetic.
            low, high = _split_unsigned(indices, xp)
            s = max(size, 1)
            return (low % s + xp.astype(high, xp.int64) * (2**63 % s)) % s, None
        return xp.astype(indices, xp.int64, copy=False) % max(size, 1), None
    if policy.out_of_range is OutOfRange.ERROR:  # checked: every index is in range
        return _wrapped(indices, size, policy, xp), None
    raw, in_range = _raw_and_in_range(indices, size, policy, xp)
    if policy.out_of_range is OutOfRange.FILL:
        return xp.where(in_range, raw, xp.zeros_like(raw)), ~in_range
    # clamp: below the range -> 0, above it (every unsigned one) -> size - 1
    top, zero = xp.asarray(max(size - 1, 0), dtype=xp.int64), xp.asarray(0, dtype=xp.int64)
    return xp.where(in_range, raw, xp.where(raw < 0, zero, top)), None


def _raw_and_in_range(indices: Any, size: int, policy: IndexPolicy, xp: Any) -> tuple[Any, Any]:
    """``(int64 values, in range)``: negatives wrapped once where ``policy``
    wraps them, and whether each value then lies in ``[0, size)`` (an unsigned
    index of 2**63 or more never does). Not for the modulo policy.

    >>> _raw_and_in_range(np.array([-1, 3], np.int8), 3, ONNX, np)
    (array([2, 3]), array([ True, False]))
    """
    if _is_unsigned(indices, xp):
        low, high = _split_unsigned(indices, xp)
        return low, ~high & (low < size)
    raw = _wrapped(indices, size, policy, xp)
    return raw, (raw >= 0) & (raw < size)


def _wrapped(indices: Any, size: int, policy: IndexPolicy, xp: Any) -> Any:
    """int64 values, negatives plus ``size`` where ``policy`` wraps them (an
    unsigned index keeps its low 63 bits: it is only used once checked in range)."""
    if _is_unsigned(indices, xp):
        return _split_unsigned(indices, xp)[0]
    raw = xp.astype(indices, xp.int64, copy=False)
    if policy.negative is Negative.WRAP:
        raw = raw + xp.where(raw < 0, xp.asarray(size, dtype=xp.int64), xp.asarray(0, dtype=xp.int64))
    return raw


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
    return xp.astype(wide & xp.asarray(2**63 - 1, dtype=xp.uint64), xp.int64), wide >= xp.asarray(
        2**63, dtype=xp.uint64
    )


def read_indices(indices: Any, reading: IndexReading, xp: Any = np) -> Any:
    """``indices`` as an op that reads them ``reading`` sees their values (see :class:`IndexReading`): unchanged
    unless it is :attr:`IndexReading.INTP` and they are uint64, which are then reinterpreted as int64 (a view for
    NumPy and torch; built from their low 63 bits and their high bit elsewhere, never through a cast that
    overflows). The policy then applies to what this returns.

    >>> read_indices(np.array([2**64 - 1, 2**63, 5], np.uint64), IndexReading.INTP).tolist()
    [-1, -9223372036854775808, 5]
    >>> read_indices(np.array([2**64 - 1], np.uint64), IndexReading.VALUE).tolist()
    [18446744073709551615]
    """
    if IndexReading(reading) is IndexReading.VALUE:
        return indices
    if isinstance(indices, np.ndarray):
        kind = indices.dtype
        return indices.view(kind.str.replace("u", "i")) if kind.kind == "u" and kind.itemsize == 8 else indices
    if indices.dtype != getattr(xp, "uint64", None):
        return indices
    if array_api_compat.is_torch_array(indices):
        import torch

        return indices.view(torch.int64)
    low, high = _split_unsigned(indices, xp)
    zero, lowest = xp.asarray(0, dtype=xp.int64), xp.asarray(-(2**63), dtype=xp.int64)
    return low + xp.where(high, lowest, zero)


def extremes(indices: Any, xp: Any) -> tuple[int, int] | None:
    """``(min, max)`` of non-empty indices as Python ints, or None where the
    namespace cannot reduce them (torch has no min/max for uint16/32/64).

    >>> extremes(np.array([3, -1, 2], dtype=np.int8), np), extremes(np.array([2**64 - 1], dtype=np.uint64), np)
    ((-1, 3), (18446744073709551615, 18446744073709551615))
    """
    if array_api_compat.is_torch_array(indices) and _is_unsigned(indices, xp):
        return None
    return int(xp.min(indices)), int(xp.max(indices))


def _is_unsigned(a: Any, xp: Any) -> bool:
    return any(a.dtype == getattr(xp, n, None) for n in ("uint8", "uint16", "uint32", "uint64"))
