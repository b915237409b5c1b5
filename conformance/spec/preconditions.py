"""Shape preconditions and plan builders: for each kind of op, a function of
``(data shape, index shape, attributes)`` that checks the op's documented
preconditions (raising with the op's own error type, naming the argument and
the rule) and returns the reshape :class:`~conformance.spec.plans.Plan` onto
:func:`~conformance.spec.multiaxis.gather_multiaxis`. The catalog
(:mod:`conformance.spec.catalog`) says which op uses which, with which options.

>>> gather_block("onnx.Gather")((4, 3), (2,), {"axis": 1}).output_shape
(4, 2)
>>> gather_block("onnx.Gather")((4, 3), (2,), {"axis": 2})
Traceback (most recent call last):
conformance.spec.errors.PreconditionValueError: onnx.Gather: axis = 2 is out of range for a rank-2 input (valid: ...)

Each error is a :class:`~conformance.spec.errors.PreconditionError` of the
op's documented type (a ``ValueError`` here) that carries the rule it states
and the argument it blames, the message unchanged:

>>> try:
...     gather_block("onnx.Gather")((4, 3), (2,), {"axis": 2})
... except ValueError as e:
...     print(e.rule, e.argument)
axis out of range axis
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from conformance.core.blame import Operand, Rule
from conformance.core.word import Word
from conformance.spec.errors import IndexOutOfRangeError, precondition_error
from conformance.spec.multiaxis import Shape, as_int, multiaxis_shapes
from conformance.spec.plans import Plan, block_plan, element_plan, flat_plan, nd_plan, whole_plan

Attrs = Mapping[str, Any]
PlanFn = Callable[[Shape, Shape, Attrs], Plan]


def _axis(
    value: Any, rank: int, op: str, name: str = "axis", negative: bool = True, error: type[Exception] = ValueError
) -> int:
    """A checked, non-negative axis: an integer of any type (else a TypeError,
    see :func:`~conformance.spec.multiaxis.as_int`), in range (else ``error``,
    blaming ``name``: ``axis out of range``).

    >>> import numpy as np
    >>> _axis(-1, 3, "onnx.Gather"), _axis(np.int8(1), 3, "torch.gather", "dim")
    (2, 1)
    """
    value = as_int(value, name, op=op)
    low = -rank if negative else 0
    if not low <= value < rank:
        message = f"{op}: {name} = {value} is out of range for a rank-{rank} input (valid: [{low}, {rank - 1}])"
        raise precondition_error(error, message, Rule.AXIS_RANGE, name)
    return value % rank


def _require(
    condition: bool, op: str, text: str, rule: Rule, argument: str, error: type[Exception] = ValueError
) -> None:
    """Unless ``condition``, raise ``error`` (as a :class:`~conformance.spec.errors.PreconditionError`)
    saying ``text`` of ``op``, with the ``rule`` it states and the ``argument`` it blames."""
    if not condition:
        raise precondition_error(error, f"{op}: {text}", rule, argument)


class NoneAxis(Word):
    """Where ``axis=None`` means axis 0 in a block gather."""

    ALWAYS = "always"
    """Whatever the data's rank (paddle.gather)."""
    ONE_D = "1-D"
    """Only for 1-D data: an axis is required otherwise (the array API's take)."""


def gather_block(
    op: str,
    *,
    negative_axis: bool = True,
    none_flattens: bool = False,
    none_is_0: NoneAxis | None = None,
    index_ranks: tuple[int, ...] = (),
    empty_axis_raises: bool = False,
    error: type[Exception] = ValueError,
) -> PlanFn:
    """ONNX Gather / np.take / jnp.take / WebNN gather (block class). ``error``
    is the exception the op's docs name for bad arguments (WebNN: TypeError);
    ``none_flattens``: ``axis=None`` gathers from the flattened input (NumPy, JAX);
    ``none_is_0``: where ``axis=None`` is axis 0 (:class:`NoneAxis`);
    ``index_ranks``: the index ranks the docs allow (empty: any);
    ``empty_axis_raises``: taking any index from an empty axis is an IndexError
    whatever the mode (numpy.take's rule, which jnp.take keeps even in "fill").

    >>> gather_block("jax.numpy.take", empty_axis_raises=True)((0,), (1,), {"axis": 0})
    Traceback (most recent call last):
    conformance.spec.errors.IndexOutOfRangeError: jax.numpy.take: cannot place an index into axis 0, which has size 0
    (a non-empty take from an empty axis)
    >>> take = gather_block("array_api.take", none_is_0=NoneAxis.ONE_D, index_ranks=(1,))
    >>> take((4,), (2,), {"axis": None}).output_shape
    (2,)
    >>> take((2, 4), (2,), {"axis": None})
    Traceback (most recent call last):
    conformance.spec.errors.PreconditionValueError: array_api.take: axis=None needs 1-D data (an axis is required for
    rank 2)
    """

    def plan(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
        _require(
            not index_ranks or len(idx) in index_ranks,
            op,
            f"index must be {' or '.join(f'{r}-D' for r in index_ranks).replace('0-D', '0-d')}, got shape {idx}",
            Rule.INDEX_RANK,
            Operand.INDICES,
            error,
        )
        axis_attr = attrs["axis"]
        if none_is_0 is not None and as_int(axis_attr, "axis", op=op, none=True) is None:
            _require(
                none_is_0 is NoneAxis.ALWAYS or len(data) == 1,
                op,
                f"axis=None needs 1-D data (an axis is required for rank {len(data)})",
                Rule.AXIS_REQUIRED,
                "axis",
                error,
            )
            axis_attr = 0
        flat = as_int(axis_attr, "axis", op=op, none=none_flattens) is None
        if not flat:
            text = "data must have rank >= 1, got a rank-0 input"
            _require(len(data) >= 1, op, text, Rule.ZERO_D_INPUT, Operand.DATA, error)
        axis = None if flat else _axis(axis_attr, len(data), op, negative=negative_axis, error=error)
        size: int = math.prod(data) if axis is None else data[axis]
        if empty_axis_raises and size == 0 and 0 not in idx:
            raise IndexOutOfRangeError(
                f"{op}: cannot place an index into axis {axis or 0}, which has size 0 (a non-empty take from an empty "
                f"axis)",
                axis=axis or 0,
                size=0,
            )
        return flat_plan(data, idx) if axis is None else block_plan(data, idx, axis)

    return plan


def batched_gather(op: str, *, none_is_0: bool = False) -> PlanFn:
    """A block gather with ``batch_dims`` (tf.gather, OpenVINO's Gather-8): ``batch_dims`` in ``[-q, q]``
    (a negative one counts from the indices' rank; with ``none_is_0``, None is 0), at most the axis
    (``axis=None`` is ``batch_dims``), the first ``batch_dims`` dimensions of data and indices equal.

    >>> batched_gather("openvino.Gather")((2, 5), (3, 1), {"axis": 1, "batch_dims": 1})
    Traceback (most recent call last):
    conformance.spec.errors.PreconditionValueError: openvino.Gather: the first batch_dims = 1 dimensions of params
    (2,) and indices (3,) must be equal
    """

    def plan(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
        given = as_int(attrs["batch_dims"], "batch_dims", op=op, none=none_is_0)
        b = 0 if given is None else given
        if b < 0:
            b += len(idx)
        _require(
            0 <= b <= len(idx),
            op,
            f"batch_dims = {attrs['batch_dims']} must be in [-{len(idx)}, {len(idx)}] (the rank of indices)",
            Rule.BATCH_DIMS_RANGE,
            "batch_dims",
        )
        axis = b if as_int(attrs["axis"], "axis", op=op, none=True) is None else _axis(attrs["axis"], len(data), op)
        text = f"batch_dims ({b}) must be less than or equal to axis ({axis})"
        _require(b <= axis, op, text, Rule.BATCH_DIMS_ABOVE_AXIS, "batch_dims")
        _require(
            data[:b] == idx[:b],
            op,
            f"the first batch_dims = {b} dimensions of params {data[:b]} and indices {idx[:b]} must be equal",
            Rule.BATCH_MISMATCH,
            Operand.INDICES,
        )
        _require(
            axis < len(data),  # axis=None: batch_dims, which the checks above hold to the indices' rank only
            op,
            f"axis=None is batch_dims = {b}, which is out of range for a rank-{len(data)} input (params must have "
            f"rank >= axis + 1)",
            Rule.AXIS_RANGE,
            "axis",
        )
        return block_plan(data, idx, axis, b)

    return plan


tf_gather = batched_gather("tensorflow.gather", none_is_0=True)
"""tf.gather: TF's generated wrapper (gen_array_ops.gather_v2) reads batch_dims=None as its default 0."""


def index_select(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
    """torch.index_select's plan; ``dim`` checked before the index's rank, in torch's own order (eager torch 2.13 on
    data (1,), dim=2, a 2-D index: "Dimension out of range"; torch.compile's internal error on that case was keyed
    by the index rank while dim=2 broke it: audit of stop 46, 7A n=136).

    >>> index_select((1,), (1, 1), {"dim": 2})
    Traceback (most recent call last):
    ...
    conformance.spec.errors.PreconditionValueError: torch.index_select: dim = 2 is out of range for a rank-1 input
    (valid: [-1, 0])
    """
    op = "torch.index_select"
    rank = max(len(data), 1)
    dim = _axis(attrs["dim"], rank, op, "dim")
    text = f"index must be 0-d or 1-D, got shape {idx}"
    _require(len(idx) <= 1, op, text, Rule.INDEX_RANK, Operand.INDICES, IndexError)
    if not data:  # a 0-d input behaves as shape (1,) and stays 0-d: one index, no more, no fewer
        n = idx[0] if idx else 1
        text = f"a 0-d input takes exactly one index (its output is 0-d too), got {n}"
        _require(n == 1, op, text, Rule.ZERO_D_INPUT, Operand.DATA)
        return replace(block_plan((1,), (1,), 0), final_shape=())
    return block_plan(data, (idx[0] if idx else 1,), dim)


class OtherDims(Word):
    """How an element gather's non-axis dimensions must relate."""

    BROADCAST = "broadcast"
    """They broadcast (numpy, jax, torch.take_along_dim)."""
    WINDOW = "window"
    """The index is no larger than the data (torch.gather, ONNX GatherElements)."""
    EQUAL = "equal"
    """They are equal (WebNN)."""


class EmptyTuple(Word):
    """What an index tuple of length 0 (``indices.shape[-1] == 0``) does in an ND gather."""

    ERROR = "error"
    """It is refused (ONNX, WebNN)."""
    SLICES = "slices"
    """Whole slices, broadcast over the index dimensions (tf.gather_nd, lax.gather)."""
    DATA = "data"
    """``data`` itself, whatever the index dimensions (NumPy's ``x[()]``)."""


def elements(
    op: str,
    attr: str,
    rule: OtherDims,
    *,
    none_flattens: bool = False,
    flatten_both: bool = False,
    zero_d: bool = False,
    negative_axis: bool = True,
    error: type[Exception] = ValueError,
    empty_index_unchecked: bool = False,
) -> PlanFn:
    """Element gather. ``rule`` says how the non-axis dimensions relate (:class:`OtherDims`).
    With ``none_flattens``, ``attr=None`` flattens the data and wants 1-D indices, or with ``flatten_both``
    flattens the indices too (torch: a 1-D result); otherwise None is a TypeError like any non-integer.
    ``zero_d``: a 0-d input with 0-d indices behaves as 1-D (torch.gather).
    ``empty_index_unchecked``: empty indices skip the shape rule (torch.gather:
    "When index is empty, we always return an empty output with the same
    shape without further error checking")."""

    def plan(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
        axis = as_int(attrs[attr], attr, op=op, none=none_flattens or flatten_both)
        if axis is None:
            if flatten_both:  # input.view(-1).gather(0, indices.view(-1))
                return replace(flat_plan(data, idx), final_shape=(math.prod(idx),))
            text = f"with {attr}=None, indices must be 1-D, got shape {idx}"
            _require(len(idx) == 1, op, text, Rule.INDEX_RANK, Operand.INDICES)
            return flat_plan(data, idx)
        if zero_d and not data and not idx:
            _axis(axis, 1, op, attr)
            return element_plan((), (), 0)
        _require(
            len(data) == len(idx),
            op,
            f"data and indices must have the same rank, got {len(data)} and {len(idx)}",
            Rule.RANK_MISMATCH,
            Operand.INDICES,
            error,
        )
        _require(len(data) >= 1, op, "data must have rank >= 1", Rule.ZERO_D_INPUT, Operand.DATA, error)
        axis = _axis(axis, len(data), op, attr, negative=negative_axis, error=error)
        others = [d for d in range(len(data)) if d != axis]
        if rule is OtherDims.WINDOW:
            unchecked = empty_index_unchecked and math.prod(idx) == 0
            bad = [d for d in others if idx[d] > data[d]] if not unchecked else []
            where = f"index.shape[{bad[0] if bad else 0}]"
            rule_text = f"must not exceed the input's in dimensions other than {attr}={axis}"
            text = f"{where} {rule_text}: got index {idx}, input {data}"
            _require(not bad, op, text, Rule.INDEX_LARGER, Operand.INDICES)
        elif rule is OtherDims.EQUAL:
            bad = [d for d in others if idx[d] != data[d]]
            _require(
                not bad,
                op,
                f"indices.shape must equal input.shape except along axis {axis}: got {idx} and {data}",
                Rule.SHAPES_DIFFER,
                Operand.INDICES,
                error,
            )
        else:
            multiaxis_shapes(data, idx, (axis,))  # raises if not broadcastable
        return element_plan(data, idx, axis, window=rule is OtherDims.WINDOW)

    return plan


def gather_nd(
    op: str,
    *,
    empty_tuple: EmptyTuple = EmptyTuple.ERROR,
    min_index_rank: int = 1,
    error: type[Exception] = ValueError,
    operand_bounds: bool = False,
) -> PlanFn:
    """ND block gather. ``empty_tuple``: what ``indices.shape[-1] == 0`` does (:class:`EmptyTuple`);
    ``min_index_rank``: the least rank the docs allow the indices (paddle.gather_nd: 'rank > 1');
    ``operand_bounds``: ``batch_dims`` is bounded by the operand's rank and the indices' rank less one, each on its
    own, so a 0-d operand is valid with an empty index tuple (StableHLO's C11, C14 and C15 on the batching dims);
    elsewhere data has rank >= 1 and ``batch_dims < min(rank(data), rank(indices))``.

    >>> gather_nd("paddle.gather_nd", min_index_rank=2)((4,), (1,), {})
    Traceback (most recent call last):
    conformance.spec.errors.PreconditionValueError: paddle.gather_nd: indices must have rank >= 2, got shape (1,)
    >>> gather_nd("stablehlo.gather", empty_tuple=EmptyTuple.SLICES, operand_bounds=True)((), (3, 0), {}).final_shape
    (3,)
    """

    def plan(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
        b = as_int(attrs.get("batch_dims", 0), "batch_dims", op=op)
        _require(
            len(data) >= 1 or operand_bounds, op, "data must have rank >= 1", Rule.ZERO_D_INPUT, Operand.DATA, error
        )
        _require(
            len(idx) >= min_index_rank,
            op,
            f"indices must have rank >= {min_index_rank}, got shape {idx}",
            Rule.INDEX_RANK if idx else Rule.ZERO_D_INDICES,  # 1-D indices where the docs want rank >= 2 are not 0-d
            Operand.INDICES,
            error,
        )
        top = min(len(data), len(idx) - 1) if operand_bounds else min(len(data), len(idx)) - 1
        bound = "min(rank(data), rank(indices) - 1)" if operand_bounds else "min(rank(data), rank(indices)) - 1"
        text = f"batch_dims = {b} must be in [0, {bound}] = [0, {top}]"
        _require(0 <= b, op, text, Rule.BATCH_DIMS_NEGATIVE, "batch_dims", error)
        _require(b <= top, op, text, Rule.BATCH_DIMS_RANGE, "batch_dims", error)
        k = idx[-1]
        _require(
            k <= len(data) - b,
            op,
            f"indices.shape[-1] = {k} must be <= rank(data) - batch_dims = {len(data) - b}",
            Rule.TUPLE_TOO_LONG,
            Operand.INDICES,
            error,
        )
        _require(
            k >= 1 or empty_tuple is not EmptyTuple.ERROR,
            op,
            "indices.shape[-1] must be at least 1 (an index tuple of length 0 is not allowed)",
            Rule.TUPLE_LENGTH,
            Operand.INDICES,
            error,
        )
        _require(
            data[:b] == idx[:b],
            op,
            f"the first batch_dims = {b} dimensions of data {data[:b]} and indices {idx[:b]} must be equal",
            Rule.BATCH_MISMATCH,
            Operand.INDICES,
            error,
        )
        if k == 0 and empty_tuple is EmptyTuple.DATA:
            return whole_plan(data)
        return nd_plan(data, idx, b)

    return plan
