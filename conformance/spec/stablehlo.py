"""``stablehlo.gather`` as the StableHLO specification states it (issue 40, point 1): its whole attribute space,
its constraints as preconditions (each quoted with its number), and its result by the spec's own formula.

The spec (``docs/spec.md``, section "gather", openxla/stablehlo) defines ``result[result_index] =
operand[operand_index]`` with ``operand_index = full_start_index + full_batching_index + full_offset_index``, where
every start index is **clamped** into ``[0, dim(operand, d) - slice_sizes[d]]`` (openxla/stablehlo PR 1541): a
window never reads past the operand, whatever the start indices. :func:`stablehlo_gather` computes exactly that,
vectorized: the operand position each result element reads is built for all elements at once, and the one
reference (:func:`~conformance.spec.multiaxis.gather_multiaxis`) reads them from the flattened operand.

What the spec leaves to the implementation is said, not demanded: ``indices_are_sorted`` set on indices that are not
sorted is undefined behaviour (:func:`undefined_behaviour`). ``unique_indices`` is not a StableHLO attribute (it is
XLA's and ``jax.lax.gather``'s); :class:`GatherAttributes` refuses it by name.

The issue's hand-found case (IREE returned stray values here): operand [4,2] holding 1..8, start indices -1, 7, 2,
windows of one row:

>>> import numpy as np
>>> g = GatherAttributes.of(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], index_vector_dim=1,
...                         slice_sizes=[1, 2])
>>> stablehlo_gather(np.arange(1, 9).reshape(4, 2), np.array([[-1], [7], [2]]), g).tolist()
[[1, 2], [7, 8], [5, 6]]
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from conformance.core.blame import Operand, Rule
from conformance.spec.errors import PreconditionTypeError, PreconditionValueError
from conformance.spec.multiaxis import as_int, gather_multiaxis
from conformance.spec.policy import CLIP

SPEC = "https://github.com/openxla/stablehlo/blob/main/docs/spec.md#gather"

SORTED_UNDEFINED = (
    "If `indices_are_sorted` is `true` then the implementation can assume that `start_indices` are sorted with "
    "respect to `start_index_map`, otherwise the behavior is undefined."
)
"""The spec's sentence on ``indices_are_sorted`` (quoted whole)."""

INTEGER_INDICES = "(I2) `start_indices`: tensor of integer type"
"""The spec's input table on the start indices' type."""

DIMENSION_LISTS = (
    "offset_dims",
    "collapsed_slice_dims",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "start_index_map",
    "slice_sizes",
)


@dataclass(frozen=True)
class GatherAttributes:
    """Every attribute of ``stablehlo.gather`` (spec inputs I3-I10), parsed once (:meth:`of`): the dimension lists
    as tuples of Python ints, ``index_vector_dim`` an int, ``indices_are_sorted`` a bool.

    >>> GatherAttributes.of(start_index_map=[0], index_vector_dim=1, slice_sizes=[1]).collapsed_slice_dims
    ()
    """

    offset_dims: tuple[int, ...] = ()
    collapsed_slice_dims: tuple[int, ...] = ()
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()
    start_index_map: tuple[int, ...] = ()
    index_vector_dim: int = 0
    slice_sizes: tuple[int, ...] = ()
    indices_are_sorted: bool = False

    @classmethod
    def of(cls, **attrs: Any) -> GatherAttributes:
        """The attributes from keywords, each checked for its type (a clear error naming it, never a cast).

        >>> GatherAttributes.of(slice_sizes=[1.5])
        Traceback (most recent call last):
        ...
        conformance.spec.errors.PreconditionTypeError: stablehlo.gather: slice_sizes must be a 1-dimensional \
tensor constant of type si64 (a sequence of integers), got [1.5]
        >>> GatherAttributes.of(unique_indices=True)
        Traceback (most recent call last):
        ...
        conformance.spec.errors.PreconditionTypeError: stablehlo.gather has no attribute unique_indices (it is \
XLA's and jax.lax.gather's, not the StableHLO spec's)
        """
        known = {f.name for f in fields(cls)}
        for name in attrs:
            if name not in known:
                where = (
                    " (it is XLA's and jax.lax.gather's, not the StableHLO spec's)" if name == "unique_indices" else ""
                )
                raise PreconditionTypeError(
                    f"stablehlo.gather has no attribute {name}{where}", Rule.ATTRIBUTE_VALUE, name
                )
        parsed: dict[str, Any] = {}
        for name, value in attrs.items():
            if name in DIMENSION_LISTS:
                parsed[name] = _int_list(name, value)
            elif name == "index_vector_dim":
                parsed[name] = _int(name, value)
            else:
                if not isinstance(value, bool | np.bool_):
                    raise PreconditionTypeError(
                        f"stablehlo.gather: {name} must be a constant of type i1 (a bool), got {value!r}",
                        Rule.ATTRIBUTE_TYPE,
                        name,
                    )
                parsed[name] = bool(value)
        return cls(**parsed)


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise PreconditionTypeError(
            f"stablehlo.gather: {name} must be a constant of type si64 (an integer), got {value!r}",
            Rule.ATTRIBUTE_TYPE,
            name,
        )
    return operator.index(value)


def _int_list(name: str, value: Any) -> tuple[int, ...]:
    items = value.tolist() if isinstance(value, np.ndarray) and value.ndim == 1 else value
    if (
        not isinstance(items, Sequence)
        or isinstance(items, str)
        or any(isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer) for v in items)
    ):
        raise PreconditionTypeError(
            f"stablehlo.gather: {name} must be a 1-dimensional tensor constant of type si64 (a sequence of integers), "
            f"got {value!r}",
            Rule.ATTRIBUTE_TYPE,
            name,
        )
    return tuple(operator.index(v) for v in items)


@dataclass(frozen=True)
class Shapes:
    """What the constraints are stated over: the operand's and the start indices' shapes and the attributes."""

    operand: tuple[int, ...]
    indices: tuple[int, ...]
    g: GatherAttributes

    @property
    def batch_rank(self) -> int:
        """How many result dimensions come from the start indices (all of theirs but ``index_vector_dim``)."""
        return len(self.indices) - (1 if self.g.index_vector_dim < len(self.indices) else 0)

    @property
    def result_rank(self) -> int:
        return self.batch_rank + len(self.g.offset_dims)


def _in(values: Sequence[int], rank: int) -> bool:
    return all(0 <= v < rank for v in values)


def _unique(values: Sequence[int]) -> bool:
    return len(set(values)) == len(values)


def _sorted(values: Sequence[int]) -> bool:
    return list(values) == sorted(values)


def _c3(s: Shapes) -> bool:
    g = s.g
    return len(g.start_index_map) == (s.indices[g.index_vector_dim] if g.index_vector_dim < len(s.indices) else 1)


def _c9(s: Shapes, dims: Sequence[int]) -> bool:
    return all(s.g.slice_sizes[d] <= 1 for d in dims if 0 <= d < len(s.g.slice_sizes))


def _c17(s: Shapes) -> bool:
    pairs = zip(s.g.operand_batching_dims, s.g.start_indices_batching_dims, strict=False)
    return all(s.operand[o] == s.indices[i] for o, i in pairs)


@dataclass(frozen=True)
class Constraint:
    """One of the spec's constraints on ``stablehlo.gather``: its number, its text as the spec writes it, the
    argument a break of it blames, the :class:`~conformance.core.blame.Rule` it is an instance of, and whether it
    holds for given shapes (checked in the spec's order, so each may rely on the ones before it)."""

    number: str
    text: str
    argument: str
    rule: Rule
    holds: Callable[[Shapes], bool]

    def error(self) -> PreconditionValueError:
        """The error a break of it raises, quoting it.

        >>> CONSTRAINTS[1].error()
        PreconditionValueError('stablehlo.gather: (C2) `0 <= index_vector_dim <= rank(start_indices)` does not hold')
        """
        return PreconditionValueError(
            f"stablehlo.gather: ({self.number}) {self.text} does not hold", self.rule, self.argument
        )


CONSTRAINTS: tuple[Constraint, ...] = (
    Constraint(
        "C1",
        "`rank(operand) = size(offset_dims) + size(collapsed_slice_dims) + size(operand_batching_dims)`",
        "offset_dims",
        Rule.RANK_MISMATCH,
        lambda s: (
            len(s.operand) == len(s.g.offset_dims) + len(s.g.collapsed_slice_dims) + len(s.g.operand_batching_dims)
        ),
    ),
    Constraint(
        "C2",
        "`0 <= index_vector_dim <= rank(start_indices)`",
        "index_vector_dim",
        Rule.AXIS_RANGE,
        lambda s: 0 <= s.g.index_vector_dim <= len(s.indices),
    ),
    Constraint(
        "C3",
        "`size(start_index_map) = index_vector_dim < rank(start_indices) ? dim(start_indices, index_vector_dim) : 1`",
        "start_index_map",
        Rule.TUPLE_LENGTH,
        _c3,
    ),
    Constraint(
        "C4",
        "`is_unique(offset_dims) and is_sorted(offset_dims)`",
        "offset_dims",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _unique(s.g.offset_dims) and _sorted(s.g.offset_dims),
    ),
    Constraint(
        "C5",
        "`0 <= offset_dims < rank(result)`",
        "offset_dims",
        Rule.AXIS_RANGE,
        lambda s: _in(s.g.offset_dims, s.result_rank),
    ),
    Constraint(
        "C6",
        "`is_unique(concatenate(collapsed_slice_dims, operand_batching_dims))`",
        "collapsed_slice_dims",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _unique(s.g.collapsed_slice_dims + s.g.operand_batching_dims),
    ),
    Constraint(
        "C7",
        "`is_sorted(collapsed_slice_dims)`",
        "collapsed_slice_dims",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _sorted(s.g.collapsed_slice_dims),
    ),
    Constraint(
        "C8",
        "`0 <= collapsed_slice_dims < rank(operand)`",
        "collapsed_slice_dims",
        Rule.AXIS_RANGE,
        lambda s: _in(s.g.collapsed_slice_dims, len(s.operand)),
    ),
    Constraint(
        "C9",
        "`slice_sizes[collapsed_slice_dims...] <= 1`",
        "slice_sizes",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _c9(s, s.g.collapsed_slice_dims),
    ),
    Constraint(
        "C10",
        "`is_sorted(operand_batching_dims)`",
        "operand_batching_dims",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _sorted(s.g.operand_batching_dims),
    ),
    Constraint(
        "C11",
        "`0 <= operand_batching_dims < rank(operand)`",
        "operand_batching_dims",
        Rule.AXIS_RANGE,
        lambda s: _in(s.g.operand_batching_dims, len(s.operand)),
    ),
    Constraint(
        "C12",
        "`slice_sizes[operand_batching_dims...] <= 1`",
        "slice_sizes",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _c9(s, s.g.operand_batching_dims),
    ),
    Constraint(
        "C13",
        "`is_unique(start_indices_batching_dims)`",
        "start_indices_batching_dims",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _unique(s.g.start_indices_batching_dims),
    ),
    Constraint(
        "C14",
        "`0 <= start_indices_batching_dims < rank(start_indices)`",
        "start_indices_batching_dims",
        Rule.AXIS_RANGE,
        lambda s: _in(s.g.start_indices_batching_dims, len(s.indices)),
    ),
    Constraint(
        "C15",
        "`index_vector_dim not in start_indices_batching_dims`",
        "index_vector_dim",
        Rule.ATTRIBUTE_VALUE,
        lambda s: s.g.index_vector_dim not in s.g.start_indices_batching_dims,
    ),
    Constraint(
        "C16",
        "`size(operand_batching_dims) == size(start_indices_batching_dims)`",
        "start_indices_batching_dims",
        Rule.ATTRIBUTE_VALUE,
        lambda s: len(s.g.operand_batching_dims) == len(s.g.start_indices_batching_dims),
    ),
    Constraint(
        "C17",
        "`dim(operand, operand_batching_dims...) = dim(start_indices, start_indices_batching_dims...)`",
        Operand.INDICES,
        Rule.BATCH_MISMATCH,
        _c17,
    ),
    Constraint(
        "C18",
        "`is_unique(concatenate(start_index_map, operand_batching_dims))`",
        "start_index_map",
        Rule.ATTRIBUTE_VALUE,
        lambda s: _unique(s.g.start_index_map + s.g.operand_batching_dims),
    ),
    Constraint(
        "C19",
        "`0 <= start_index_map < rank(operand)`",
        "start_index_map",
        Rule.AXIS_RANGE,
        lambda s: _in(s.g.start_index_map, len(s.operand)),
    ),
    Constraint(
        "C20",
        "`size(slice_sizes) = rank(operand)`",
        "slice_sizes",
        Rule.RANK_MISMATCH,
        lambda s: len(s.g.slice_sizes) == len(s.operand),
    ),
    Constraint(
        "C21",
        "`0 <= slice_sizes <= shape(operand)`",
        "slice_sizes",
        Rule.INDEX_LARGER,
        lambda s: all(0 <= z <= n for z, n in zip(s.g.slice_sizes, s.operand, strict=True)),
    ),
)
"""The spec's constraints C1-C21 (C22 defines the result's shape, :func:`result_shape`; C23 its element type, the
operand's, which :func:`stablehlo_gather` keeps), verbatim, in the spec's order."""


_BY_NUMBER = {c.number: c.text for c in CONSTRAINTS}


def check(operand_shape: Sequence[int], indices_shape: Sequence[int], g: GatherAttributes) -> None:
    """Raise the first constraint (in the spec's order) these shapes and attributes break, quoting it.

    >>> check((4, 2), (3, 1), GatherAttributes.of(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0],
    ...                                          index_vector_dim=1, slice_sizes=[1, 3]))
    Traceback (most recent call last):
    ...
    conformance.spec.errors.PreconditionValueError: stablehlo.gather: (C21) `0 <= slice_sizes <= shape(operand)` \
does not hold
    """
    shapes = Shapes(tuple(operand_shape), tuple(indices_shape), g)
    for c in CONSTRAINTS:
        if not c.holds(shapes):
            raise c.error()


def result_shape(operand_shape: Sequence[int], indices_shape: Sequence[int], g: GatherAttributes) -> tuple[int, ...]:
    """(C22): the start indices' dimensions but ``index_vector_dim`` at the batch dimensions, the slice sizes but the
    collapsed and batching ones at ``offset_dims``.

    >>> result_shape((2, 3, 4, 2), (2, 2, 3, 2), GatherAttributes.of(offset_dims=[3, 4], collapsed_slice_dims=[1],
    ...     operand_batching_dims=[0], start_indices_batching_dims=[1], start_index_map=[2, 1], index_vector_dim=3,
    ...     slice_sizes=[1, 1, 2, 2]))
    (2, 2, 3, 2, 2)
    """
    batch = [n for d, n in enumerate(indices_shape) if d != g.index_vector_dim]
    dropped = set(g.collapsed_slice_dims) | set(g.operand_batching_dims)
    offsets = [z for d, z in enumerate(g.slice_sizes) if d not in dropped]
    rank = len(batch) + len(offsets)
    shape, batch_sizes, offset_sizes = [], iter(batch), iter(offsets)
    for d in range(rank):
        shape.append(next(offset_sizes) if d in g.offset_dims else next(batch_sizes))
    return tuple(shape)


def stablehlo_gather(operand: Any, start_indices: Any, g: GatherAttributes) -> np.ndarray:
    """The spec's ``result``: the constraints checked first (:func:`check`), then ``result[result_index] =
    operand[full_start_index + full_batching_index + full_offset_index]`` for every result element at once, the
    start indices clamped so that every window lies inside the operand.

    The spec's own example (batching dims, a window of 2x2, the start index 9 clamped to 2):

    >>> operand = np.arange(1, 49).reshape(2, 3, 4, 2)
    >>> start = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
    ...                   [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]])
    >>> g = GatherAttributes.of(offset_dims=[3, 4], collapsed_slice_dims=[1], operand_batching_dims=[0],
    ...     start_indices_batching_dims=[1], start_index_map=[2, 1], index_vector_dim=3, slice_sizes=[1, 1, 2, 2])
    >>> stablehlo_gather(operand, start, g)[0, 1].tolist()
    [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]
    """
    operand, start_indices = np.asarray(operand), np.asarray(start_indices)
    if start_indices.dtype.kind not in "iu":
        raise PreconditionTypeError(
            f"stablehlo.gather: start_indices must be of integer type, got {start_indices.dtype} ({INTEGER_INDICES})",
            Rule.UNNAMED,
            Operand.INDICES,
        )
    check(operand.shape, start_indices.shape, g)
    shape = result_shape(operand.shape, start_indices.shape, g)
    if math.prod(shape) == 0:
        return np.zeros(shape, dtype=operand.dtype)
    if (reason := unspecified(g)) is not None:
        raise Unspecified(reason)
    positions = tuple(np.broadcast_to(i, shape) for i in _operand_index(operand.shape, start_indices, g, shape))
    flat = np.ravel_multi_index(positions, operand.shape) if positions else np.zeros(shape, np.int64)  # 0-d operand
    read = gather_multiaxis(operand.reshape(-1), flat.reshape(-1), [0], policy=CLIP)  # every position lies inside
    return np.asarray(read).reshape(shape)


def gather_nd_attributes(
    operand_shape: Sequence[int], indices_shape: Sequence[int], batch_dims: Any = 0
) -> GatherAttributes:
    """The attributes that make ``stablehlo.gather`` the ND gather (ONNX's GatherND, ``x[i0, ..., ik-1]``): the
    last dimension of the start indices holds index vectors of length ``k`` addressing the operand's dimensions
    ``b .. b+k-1``, which collapse; the first ``b`` dimensions of both are batching dimensions; the operand's other
    dimensions come whole, after the indices' own.

    >>> g = gather_nd_attributes((2, 3, 4), (2, 5, 1), batch_dims=1)
    >>> g.offset_dims, g.collapsed_slice_dims, g.operand_batching_dims, g.start_index_map, g.slice_sizes
    ((2,), (1,), (0,), (1,), (1, 1, 4))
    >>> result_shape((2, 3, 4), (2, 5, 1), g)
    (2, 5, 4)
    >>> gather_nd_attributes((2, 3), (2, 1), batch_dims=2**63 - 1)
    Traceback (most recent call last):
    ...
    conformance.spec.errors.PreconditionValueError: stablehlo.gather: batch_dims = 9223372036854775807 ...
    """
    r, q = len(operand_shape), len(indices_shape)
    b = as_int(batch_dims, "batch_dims", op="stablehlo.gather")
    if not 0 <= b <= min(r, q - 1):
        raise PreconditionValueError(
            f"stablehlo.gather: batch_dims = {b} makes batching dims that are not dims of the operand or of the start "
            f"indices but index_vector_dim ((C11) {_BY_NUMBER['C11']}, (C14) {_BY_NUMBER['C14']}, (C15) "
            f"{_BY_NUMBER['C15']})",
            Rule.BATCH_DIMS_RANGE,
            "batch_dims",
        )
    k = indices_shape[-1] if q else 0
    return GatherAttributes.of(
        offset_dims=list(range(q - 1, q - 1 + r - b - k)),
        collapsed_slice_dims=list(range(b, b + k)),
        operand_batching_dims=list(range(b)),
        start_indices_batching_dims=list(range(b)),
        start_index_map=list(range(b, b + k)),
        index_vector_dim=q - 1,
        slice_sizes=[1 if d < b + k else n for d, n in enumerate(operand_shape)],
    )


class Unspecified(ValueError):
    """A gather the constraints allow whose result the spec's formula does not define (:func:`unspecified`)."""


def unspecified(g: GatherAttributes) -> str | None:
    """Why the spec's formula does not define a result (with at least one element) under ``g``, else None: a
    collapsed or batching dimension whose slice size is 0 (C9 and C12 allow it) gives every result element an
    empty window in that dimension, yet the formula still reads one operand element there, at an offset the clamp
    puts past the end (``clamp(start, 0, dim - 0)``). Found drawing: the StableHLO interpreter aborts on it
    ("LLVM ERROR: Incompatible index and shape found while flattening index").

    >>> print(unspecified(GatherAttributes.of(collapsed_slice_dims=[0], start_index_map=[0], slice_sizes=[0])))
    collapsed or batching dimension 0 has a slice of size 0: the spec's formula reads an element of an empty window
    """
    for d in sorted(set(g.collapsed_slice_dims) | set(g.operand_batching_dims)):
        if 0 <= d < len(g.slice_sizes) and g.slice_sizes[d] == 0:
            return (
                f"collapsed or batching dimension {d} has a slice of size 0: the spec's formula reads an element of an "
                "empty window"
            )
    return None


def _grid(shape: tuple[int, ...], d: int) -> np.ndarray:
    """``result_index[d]`` for every result element, broadcastable to ``shape``."""
    return np.arange(shape[d], dtype=np.int64).reshape([-1 if k == d else 1 for k in range(len(shape))])


def _vectors(start_indices: np.ndarray, g: GatherAttributes) -> np.ndarray:
    """The start indices with their index vectors along the last axis (one of length 1 where ``index_vector_dim``
    is their rank)."""
    if g.index_vector_dim < start_indices.ndim:
        return np.moveaxis(start_indices, g.index_vector_dim, -1)
    return start_indices[..., np.newaxis]


def _full_start_index(
    operand_shape: tuple[int, ...], start_indices: np.ndarray, g: GatherAttributes, shape: tuple[int, ...]
) -> list[np.ndarray]:
    """``full_start_index`` for every result element, per operand dimension (broadcastable to ``shape``): each
    start index clamped into ``[0, dim(operand, d) - slice_sizes[d]]``, 0 in the dimensions no index addresses."""
    vectors = _vectors(start_indices, g)
    index = [np.zeros((1,) * len(shape), np.int64) for _ in operand_shape]
    for k, d in enumerate(g.start_index_map):
        clamped = np.clip(vectors[..., k], 0, operand_shape[d] - g.slice_sizes[d]).astype(np.int64)
        index[d] = np.expand_dims(clamped, tuple(g.offset_dims))
    return index


def _operand_index(
    operand_shape: tuple[int, ...], start_indices: np.ndarray, g: GatherAttributes, shape: tuple[int, ...]
) -> list[np.ndarray]:
    """``operand_index = full_start_index + full_batching_index + full_offset_index`` for every result element, per
    operand dimension (broadcastable to ``shape``)."""
    batch_dims = [d for d in range(len(shape)) if d not in g.offset_dims]
    index = _full_start_index(operand_shape, start_indices, g, shape)
    for o, s in zip(g.operand_batching_dims, g.start_indices_batching_dims, strict=True):  # full_batching_index
        index[o] = index[o] + _grid(shape, batch_dims[s - (0 if s < g.index_vector_dim else 1)])
    dropped = set(g.collapsed_slice_dims) | set(g.operand_batching_dims)
    kept = [d for d in range(len(operand_shape)) if d not in dropped]
    for d, r in zip(kept, g.offset_dims, strict=True):  # full_offset_index
        index[d] = index[d] + _grid(shape, r)
    return index


def undefined_behaviour(operand_shape: Sequence[int], start_indices: Any, g: GatherAttributes) -> str | None:
    """The spec's sentence where it leaves this case's result undefined (``indices_are_sorted`` set, and the full
    start indices not sorted in the result's order), else None.

    >>> g = GatherAttributes.of(start_index_map=[0], index_vector_dim=1, collapsed_slice_dims=[0], slice_sizes=[1],
    ...                         indices_are_sorted=True)
    >>> undefined_behaviour((5,), np.array([[3], [1]]), g) == SORTED_UNDEFINED
    True
    >>> undefined_behaviour((5,), np.array([[1], [3]]), g) is None
    True
    """
    if not g.indices_are_sorted:
        return None
    start_indices = np.asarray(start_indices)
    shape = result_shape(operand_shape, start_indices.shape, g)
    starts = [
        np.broadcast_to(i, shape).reshape(-1) for i in _full_start_index(tuple(operand_shape), start_indices, g, shape)
    ]
    rows = list(zip(*starts, strict=True)) if starts else []
    return None if all(a <= b for a, b in itertools.pairwise(rows)) else SORTED_UNDEFINED
