"""TOSA's ``GATHER`` as its specification states it (issue 40, point 3): values ``[N,K,C]`` and indices ``[N,W]`` give
an output ``[N,W,C]``, ``output[n,w,c] = values[n, indices[n,w], c]``.

The operation function (the spec's pseudocode, chapter "Scatter/Gather Operators")::

    for_each(0 <= n < N, 0 <= w < W, 0 <= c < C) {
        index_t k = tensor_read<index_t>(indices, [N,W], [n,w]);
        REQUIRE(0 <= k && k < K);
        in_out_t value = tensor_read<in_out_t>(values, [N,K,C], [n,k,c]);
        tensor_write<in_out_t>(output, [N,W,C], [n,w,c], value);
    }

An index outside ``[0, K)`` breaks a ``REQUIRE``, which the spec defines (chapter "TOSA Pseudocode", "Operator
Validation Helpers") as :data:`REQUIRE_MEANS`: the graph's result is unpredictable, and no output is required of an
implementation (:data:`UNPREDICTABLE_MEANS`). So an out-of-range index is no bug whatever an implementation does:
:func:`tosa_gather` raises :class:`Unpredictable` saying so, never demanding an error or a value.

>>> import numpy as np
>>> values = np.arange(1, 9, dtype=np.float32).reshape(1, 4, 2)
>>> tosa_gather(values, np.array([[0, 3, 1]], np.int32)).tolist()
[[[1.0, 2.0], [7.0, 8.0], [3.0, 4.0]]]
>>> tosa_gather(values, np.array([[-1, 3, 1]], np.int32))
Traceback (most recent call last):
...
conformance.spec.tosa.Unpredictable: GATHER: indices[0, 0] = -1 breaks REQUIRE(0 <= k && k < K) with K = 4: ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.core.blame import Operand, Rule
from conformance.spec.errors import PreconditionTypeError, PreconditionValueError
from conformance.spec.multiaxis import gather_multiaxis

SPEC = "https://www.mlplatform.org/tosa/tosa_spec.html#_gather"

REQUIRE_MEANS = (
    "The REQUIRE function defines the conditions required by the TOSA operator. If the conditions are not met then "
    "the result of the TOSA graph is marked as unpredictable."
)
"""The spec's definition of ``REQUIRE`` (chapter "TOSA Pseudocode", "Operator Validation Helpers"), quoted."""

UNPREDICTABLE_MEANS = (
    "An implementation is not required to detect unpredictable behavior. If tosa_execute_graph() returns "
    "tosa_unpredictable then the tosa_test_compliance() function does not require any specific output from an "
    "implementation."
)
"""The spec's implementation note on an unpredictable result, quoted."""

INDEX_TYPES = ("int32", "int64")
"""``index_t``: int32 in the spec's type table; MLIR's TOSA dialect also takes int64 (llvm-project PR 167894)."""


NO_EMPTY_DIMENSION = "tensor has a dimension with size zero. Each dimension of a tensor must have size >= 1"
"""What MLIR's TOSA dialect says of a tensor with a dimension of size 0 (``TosaOps.cpp``, since llvm-project D154569:
'As TOSA does not support the tensor with zero dimensions'): the spec's shapes have no empty dimension."""


class Unpredictable(ValueError):
    """A case whose TOSA result is unpredictable (a ``REQUIRE`` broken): no output is required of an
    implementation, an error included."""


def check_shapes(values_shape: tuple[int, ...], indices_shape: tuple[int, ...]) -> None:
    """The argument table's shapes: values ``[N,K,C]`` (rank 3), indices ``[N,W]`` (rank 2), one ``N``.

    >>> check_shapes((2, 4, 3), (1, 5))
    Traceback (most recent call last):
    ...
    conformance.spec.errors.PreconditionValueError: GATHER: values [N,K,C] and indices [N,W] must have one N, ...
    """
    if len(values_shape) != 3:
        raise PreconditionValueError(
            f"GATHER: values must have shape [N,K,C] (rank 3), got rank {len(values_shape)}", Rule.INDEX_RANK, "data"
        )
    if len(indices_shape) != 2:
        raise PreconditionValueError(
            f"GATHER: indices must have shape [N,W] (rank 2), got rank {len(indices_shape)}",
            Rule.INDEX_RANK,
            Operand.INDICES,
        )
    for name, shape in (("values", values_shape), (Operand.INDICES, indices_shape)):
        if 0 in shape:
            raise PreconditionValueError(
                f"GATHER: {name} of shape {list(shape)}: {NO_EMPTY_DIMENSION}", Rule.EMPTY_DIMENSION, name
            )
    if values_shape[0] != indices_shape[0]:
        raise PreconditionValueError(
            f"GATHER: values [N,K,C] and indices [N,W] must have one N, got {values_shape[0]} and {indices_shape[0]}",
            Rule.BATCH_MISMATCH,
            Operand.INDICES,
        )


def tosa_gather(values: Any, indices: Any) -> np.ndarray:
    """The spec's output, or :class:`Unpredictable` where an index breaks the ``REQUIRE`` (the first such, in the
    pseudocode's order), after the shapes and the index type are checked.

    >>> tosa_gather(np.zeros((1, 2, 1)), np.array([[0]], np.int16))
    Traceback (most recent call last):
    ...
    conformance.spec.errors.PreconditionTypeError: GATHER: index_t must be int32 or int64, got int16
    """
    values, indices = np.asarray(values), np.asarray(indices)
    check_shapes(values.shape, indices.shape)
    if indices.dtype.name not in INDEX_TYPES:
        raise PreconditionTypeError(
            f"GATHER: index_t must be {' or '.join(INDEX_TYPES)}, got {indices.dtype}", Rule.UNNAMED, Operand.INDICES
        )
    k = values.shape[1]
    outside = np.argwhere((indices < 0) | (indices >= k))
    if outside.size:
        n, w = (int(i) for i in outside[0])
        raise Unpredictable(
            f"GATHER: indices[{n}, {w}] = {int(indices[n, w])} breaks REQUIRE(0 <= k && k < K) with K = {k}: "
            f"{REQUIRE_MEANS} {UNPREDICTABLE_MEANS}"
        )
    return np.asarray(gather_multiaxis(values, indices[:, :, np.newaxis], [1]))  # [N,W,1] broadcasts over C
