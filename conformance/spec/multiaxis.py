"""``gather_multiaxis``: the one gather every framework op is mapped onto.

Semantics (design draft "Gather Multiaxis Operator", D. Robinson, 2025-02-19,
``shared/seeds/004``), stated once:

* ``input.ndim == indices.ndim == output.ndim``;
* the coordinates for ``len(axes)`` axes are folded into the last dimension of
  ``indices``: its *logical* shape is its shape with the last dimension divided
  by ``max(len(axes), 1)``, and coordinate ``k`` of a tuple is element
  ``[..., j * len(axes) + k]``;
* dimensions not in ``axes`` broadcast bidirectionally between ``input`` and
  the logical indices; dimensions in ``axes`` take their size from the logical
  indices;
* ``output[o] = input[c]`` with ``c[d] = o[d]`` (masked to 0 where
  ``input.shape[d] == 1``) for ``d`` not in ``axes`` and
  ``c[axes[k]] = indices[o masked, k-th coordinate]``.

The implementation is vectorized and never materializes a broadcast of
``input``. It is array-namespace generic (NumPy, CuPy, torch, any array-API
namespace through ``array-api-compat``), one code path for all: the indices
are folded into flat offsets and ``xp.take`` reads the output from ``input``
viewed as ``(lead, middle, block)``, a block of :data:`~conformance.spec.policy.CHUNK`
output positions at a time, each block's indices checked as its offsets are
built (:mod:`conformance.spec.blocked`), so the extra memory stays near the size of
the output whatever its size.

>>> import numpy as np
>>> x = np.arange(8).reshape(2, 2, 2)
>>> gather_multiaxis(x, np.array([[[0, 1], [1, 0]]]), axes=[0, 1]).tolist()
[[[2, 3], [4, 5]]]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from typing import Any, Literal, overload

import array_api_compat
import numpy as np

from conformance.core.blame import Operand, Rule
from conformance.spec.blocked import Coordinate, check_all, fetch
from conformance.spec.errors import PreconditionTypeError, PreconditionValueError
from conformance.spec.policy import ONNX, IndexPolicy, default_fill_value, policy_named

Shape = tuple[int, ...]


def gather_multiaxis(
    input: Any,
    indices: Any,
    axes: Sequence[int],
    *,
    policy: IndexPolicy | str = ONNX,
) -> Any:
    """Gather ``input`` at the coordinates in ``indices`` along ``axes``.

    ``policy`` says what negative and out-of-range indices do (default: the
    ONNX one, negatives wrap once and out of range raises ``IndexError``).
    Returns an array of the caller's namespace and device, of ``input``'s dtype.
    Besides its output it allocates a few blocks of :data:`~conformance.spec.policy.CHUNK`
    elements, whatever the size of the gather.

    The seed's own example: input ``[4,2,1,2]``, indices ``[1,3,2,2]``, axes
    ``[1]`` gives an output of shape ``[4,3,2,2]``.

    >>> import numpy as np
    >>> gather_multiaxis(np.zeros((4, 2, 1, 2)), np.zeros((1, 3, 2, 2), int), [1]).shape
    (4, 3, 2, 2)
    >>> x = np.array([[0, 1, 2], [10, 11, 12]])
    >>> gather_multiaxis(x, np.array([[2, 0]]), [1]).tolist()   # broadcast over dim 0
    [[2, 0], [12, 10]]
    """
    policy = policy_named(policy)
    _check_array(input, "input")
    _check_array(indices, "indices")
    xp = namespace(input, indices)
    _check_index_dtype(indices, xp)
    axes = normalize_axes(axes, input.ndim, "axes")
    in_shape, idx_shape = tuple(input.shape), tuple(indices.shape)
    if len(in_shape) != len(idx_shape):
        raise PreconditionValueError(
            f"input.ndim ({len(in_shape)}) must equal indices.ndim ({len(idx_shape)}): "
            "gather_multiaxis keeps the rank (pad with size-1 dimensions)",
            Rule.RANK_MISMATCH,
            Operand.INDICES,
        )
    if not in_shape:
        return xp.asarray(input, copy=True)
    logical, out_shape = multiaxis_shapes(in_shape, idx_shape, axes)
    tuples = xp.reshape(indices, logical + (max(len(axes), 1),))  # coordinate k of each tuple at [..., k]
    coords = [Coordinate(tuples[..., k], in_shape[a], a) for k, a in enumerate(axes)]
    empty = math.prod(out_shape) == 0
    if empty or any(c.size == 0 for c in coords):
        # Nothing is read (an empty output) or nothing can be (an empty gathered axis): every index is
        # checked first (errors in axes order); what is left is an empty output or, under a fill policy,
        # only the fill value (every index into an empty axis is out of range).
        check_all(coords, policy, xp, empty)
        if empty:
            return xp.zeros(out_shape, dtype=input.dtype)
        return xp.asarray(xp.broadcast_to(_fill_array(policy, input, xp), out_shape), copy=True)
    return fetch(input, coords, logical, out_shape, policy, xp, lambda: _fill_array(policy, input, xp))


def _fill_array(policy: IndexPolicy, input: Any, xp: Any) -> Any:
    """The policy's fill value as a 0-d array of ``input``'s dtype, or the
    dtype's default (see :func:`default_fill_value`).

    >>> from conformance.spec.policy import WRAP_THEN_FILL, ZERO_FILL
    >>> _fill_array(WRAP_THEN_FILL, np.zeros(2, np.int8), np), _fill_array(ZERO_FILL, np.ones(2), np)
    (array(-128, dtype=int8), array(0.))
    """
    value = policy.fill_value if policy.fill_value is not None else default_fill_value(np_dtype(input))
    return xp.asarray(value, dtype=input.dtype)


def multiaxis_shapes(in_shape: Shape, idx_shape: Shape, axes: Sequence[int]) -> tuple[Shape, Shape]:
    """``(logical indices shape, output shape)``, checking every shape rule.

    >>> multiaxis_shapes((10, 9, 8), (1, 5, 12), [1, 2])
    ((1, 5, 6), (10, 5, 6))
    >>> multiaxis_shapes((2, 3, 1), (1, 1, 4), [1])
    ((1, 1, 4), (2, 1, 4))
    """
    ncoord = max(len(axes), 1)
    if idx_shape[-1] % ncoord:
        raise PreconditionValueError(
            f"indices.shape[-1] = {idx_shape[-1]} must be a multiple of len(axes) = {len(axes)}: "
            "the coordinates of each index tuple are folded into the last dimension",
            Rule.TUPLE_LENGTH,
            Operand.INDICES,
        )
    logical = idx_shape[:-1] + (idx_shape[-1] // ncoord,)
    out = []
    for d, (i, n) in enumerate(zip(in_shape, logical)):
        if d in axes:
            out.append(n)
        elif i == n or n == 1:
            out.append(i)
        elif i == 1:
            out.append(n)
        else:
            raise PreconditionValueError(
                f"input.shape[{d}] = {i} and the logical indices shape[{d}] = {n} are not broadcastable: "
                f"dimension {d} is not in axes, so the sizes must match or one must be 1",
                Rule.NOT_BROADCASTABLE,
                Operand.INDICES,
            )
    return logical, tuple(out)


@overload
def as_int(value: Any, name: str, *, op: str = "", none: Literal[False] = False) -> int: ...


@overload
def as_int(value: Any, name: str, *, op: str = "", none: bool) -> int | None: ...


def as_int(value: Any, name: str, *, op: str = "", none: bool = False) -> int | None:
    """``value`` as a Python int: an integer of any type (``int``, NumPy's
    ``int8`` to ``uint64``, a 0-d integer array), never a bool or a float. With
    ``none``, None passes through. Otherwise a TypeError naming ``name``
    (prefixed with ``op``), a :class:`~conformance.spec.errors.PreconditionTypeError`
    that blames ``name`` (``attribute type``). The one check behind every
    integer argument and attribute (``axes`` items, ``axis``, ``dim``, ``batch_dims``).

    >>> as_int(np.int8(-1), "axis"), as_int(None, "axis", none=True)
    (-1, None)
    >>> as_int(0.0, "batch_dims", op="onnx.GatherND")
    Traceback (most recent call last):
    conformance.spec.errors.PreconditionTypeError: onnx.GatherND: batch_dims must be an integer, got float 0.0
    >>> as_int(True, "dim", none=True)
    Traceback (most recent call last):
    conformance.spec.errors.PreconditionTypeError: dim must be an integer or None, got bool True
    """
    if value is None and none:
        return None
    dtype = str(getattr(value, "dtype", ""))
    if not isinstance(value, bool) and not dtype.endswith("bool"):
        try:
            return operator.index(value)
        except TypeError:
            pass
    prefix, rule = f"{op}: " if op else "", "an integer or None" if none else "an integer"
    message = f"{prefix}{name} must be {rule}, got {type(value).__name__} {value!r}"
    is_bool = isinstance(value, bool) or dtype.endswith("bool")
    raise PreconditionTypeError(message, Rule.ATTRIBUTE_BOOL if is_bool else Rule.ATTRIBUTE_TYPE, name)


def normalize_axes(axes: Sequence[int], ndim: int, argname: str = "axes") -> tuple[int, ...]:
    """Axes as non-negative ints, each in range and none repeated; each item
    an integer of any type (see :func:`as_int`).

    >>> normalize_axes([-1, np.int8(0)], 3)
    (2, 0)
    """
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        message = f"{argname} must be a sequence of ints, got the int {axes!r} (write [{axes}])"
        raise PreconditionTypeError(message, Rule.ATTRIBUTE_TYPE, argname)
    if isinstance(axes, str) or not isinstance(axes, Iterable):
        message = f"{argname} must be a sequence of ints, got {type(axes).__name__} {axes!r}"
        raise PreconditionTypeError(message, Rule.ATTRIBUTE_TYPE, argname)
    out: list[int] = []
    for k, a in enumerate(axes):
        a = as_int(a, f"{argname}[{k}]")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"{argname}[{k}] = {a} is out of range for rank {ndim} (valid: [{-ndim}, {ndim - 1}])"
                if ndim
                else f"{argname}[{k}] = {a}: a 0-d input has no axes to gather along"
            )
        a %= ndim
        if a in out:
            message = f"{argname} names axis {a} twice: each axis can be gathered along once"
            raise PreconditionValueError(message, Rule.ATTRIBUTE_VALUE, argname)
        out.append(a)
    return tuple(out)


def namespace(*arrays: Any) -> Any:
    """The array-API namespace of ``arrays`` (see ``array_api_compat.array_namespace``),
    NumPy's found without a search where every one is a plain ``ndarray``.

    >>> namespace(np.zeros(2), np.zeros(1, int)).__name__
    'array_api_compat.numpy'
    """
    if all(type(a) is np.ndarray for a in arrays):
        return _NUMPY
    return array_api_compat.array_namespace(*arrays)


_NUMPY = array_api_compat.array_namespace(np.empty(0))


def _check_array(a: Any, name: str) -> None:
    if not array_api_compat.is_array_api_obj(a):
        raise TypeError(
            f"gather_multiaxis: {name} must be an array (numpy ndarray or array-API array), got {type(a).__name__}"
        )


def _check_index_dtype(indices: Any, xp: Any) -> None:
    ok = xp.isdtype(indices.dtype, "integral") if not isinstance(indices, np.ndarray) else indices.dtype.kind in "iu"
    if not ok:
        raise TypeError(f"indices must have an integer dtype (int8 to uint64), got {indices.dtype}")


def np_dtype(a: Any) -> np.dtype:
    if isinstance(a, np.ndarray):
        return a.dtype
    name = str(a.dtype).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 and friends

        return np.dtype(getattr(ml_dtypes, name))
