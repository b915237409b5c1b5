"""``reference(op, data, indices, **attrs)``: what a catalog op must return.

>>> import numpy as np
>>> x = np.array([[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]])
>>> reference("onnx.Gather", x, np.array([3, 1])).tolist()
[[30, 31, 32], [10, 11, 12]]
>>> reference("numpy.take", x, np.array([-1, 99]), axis=1, mode="clip").tolist()
[[0, 2], [10, 12], [20, 22], [30, 32]]
"""

from __future__ import annotations

import functools
from typing import Any

import array_api_compat

from conformance.core.arrays import data_dtype_name, dtype_name
from conformance.spec.catalog import OpSpec, spec
from conformance.spec.multiaxis import namespace, np_dtype
from conformance.spec.plans import Plan
from conformance.spec.policy import IndexPolicy, policy_named, read_indices


def plan(
    op: str, data_shape: tuple[int, ...], indices_shape: tuple[int, ...], *, opset: int | None = None, **attrs: Any
) -> Plan:
    """The reshape plan ``op`` uses for these shapes, after checking the op's
    shape preconditions.

    >>> p = plan("onnx.GatherND", (2, 2, 2), (2, 1), batch_dims=1)
    >>> p.input_shape, p.indices_shape, p.output_shape, p.axes
    ((2, 2, 2), (2, 1, 1), (2, 1, 2), (1,))
    """
    s = spec(op, opset)
    return s.plan(tuple(data_shape), tuple(indices_shape), s.bind(attrs))


def reference(
    op: str,
    data: Any,
    indices: Any,
    *,
    opset: int | None = None,
    policy: IndexPolicy | str | None = None,
    check_dtypes: bool = True,
    **attrs: Any,
) -> Any:
    """Compute ``op`` on ``data`` and ``indices`` through the multiaxis operator.

    ``policy`` defaults to the policy ``op``'s documentation specifies (for
    ops with a ``mode``, the one that mode names); pass another to ask what the
    op would return under it. ``check_dtypes`` rejects, with a TypeError, a
    dtype the op does not document. The index values are those the op reads
    (its :attr:`~conformance.spec.catalog.OpSpec.index_reading`), whatever the policy.

    >>> import numpy as np
    >>> u64 = np.array([2**64 - 1], np.uint64)   # NumPy's ops read it as intp: -1
    >>> reference("numpy.take", np.array([10, 20, 30]), u64).tolist()
    [30]
    >>> reference("jax.numpy.take", np.array([10, 20, 30]), u64, mode="clip").tolist()
    [30]
    """
    s = spec(op, opset)
    _check_array("data", data)
    _check_array("indices", indices)
    bound = s.bind(attrs)
    s.check_attrs(bound)
    if check_dtypes:
        _check_dtype(s, "data", _data_name(data), s.data_dtypes)
        _check_dtype(s, "indices", _dtype_name(np_dtype(indices)), s.index_dtypes)
    chosen = s.policy_for(bound) if policy is None else policy_named(policy)
    indices = read_indices(indices, s.index_reading, namespace(indices))
    return s.plan(tuple(data.shape), tuple(indices.shape), bound).run(data, indices, chosen)


def _check_array(arg: str, value: Any) -> None:
    """A TypeError unless ``value`` is an array of some namespace (a list is not).

    >>> _check_array("data", [1, 2])
    Traceback (most recent call last):
    TypeError: reference: data must be an array (numpy ndarray or array-API array), got list
    """
    if not array_api_compat.is_array_api_obj(value):
        kind = type(value).__name__
        raise TypeError(f"reference: {arg} must be an array (numpy ndarray or array-API array), got {kind}")


_dtype_name = functools.cache(dtype_name)
""":func:`~conformance.core.arrays.dtype_name`, remembered per dtype (a dtype's
``name`` is built anew at each call)."""


def _data_name(data: Any) -> str:
    """The data's dtype name; an object array of only bytes/str is string data (``"str"``, :func:`data_dtype_name`)."""
    dtype = np_dtype(data)
    return data_dtype_name(data) if dtype.kind == "O" else _dtype_name(dtype)


def _check_dtype(op: OpSpec, arg: str, name: str, allowed: tuple[str, ...]) -> None:
    """A TypeError naming ``op`` (its key, built only then) unless ``allowed`` has ``name``.

    >>> _check_dtype(spec("onnx.Gather"), "indices", "uint8", ("int32", "int64"))
    Traceback (most recent call last):
    TypeError: onnx.Gather-13: indices dtype uint8 is not supported (documented: int32, int64)
    """
    if name not in allowed:
        raise TypeError(f"{op.key}: {arg} dtype {name} is not supported (documented: {', '.join(allowed)})")
