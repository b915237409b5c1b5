"""What an error blames, as fields that cross the layers (never read back
from a message): the documented :class:`Rule` a precondition states, the
:class:`Operand` (or attribute) it blames, and which argument's dtype a
framework refused (:class:`DtypeArg`).

The reference raises its precondition errors with a rule and an argument
(:mod:`conformance.spec.errors`); the judge reads them off the reference's
:class:`~conformance.core.outcome.Outcome` and names a root cause by the rule
(``precondition: rank mismatch``). The words are the conditions' words in
baseline entries, so they never change.

>>> Rule("rank mismatch") is Rule.RANK_MISMATCH, blames_attribute("axis"), blames_attribute(Operand.INDICES)
(True, True, False)
"""

from __future__ import annotations

from conformance.core.word import Word


class DtypeArg(Word):
    """Which argument a dtype belongs to."""

    DATA = "data"
    INDEX = "index"


class Operand(Word):
    """The two array arguments of a gather; any other argument a precondition blames is an attribute, by its name."""

    DATA = "data"
    INDICES = "indices"


def blames_attribute(argument: str) -> bool:
    """Whether ``argument`` (a precondition's blamed argument) is an attribute, not one of the arrays."""
    return argument not in set(Operand)


class Rule(Word):
    """A precondition of an op's docs, as the condition of a root cause names it (``precondition: <rule>``)."""

    ATTRIBUTE_TYPE = "attribute type"
    """An attribute of the wrong type (``batch_dims=1.5``, ``fill_value='1'``, an array for a static scalar)."""
    ATTRIBUTE_BOOL = "attribute bool"
    """A bool where the docs type an integer (``axis=True``): Python's bool is an int (``True == 1``), and no doc
    says whether it is refused or read as 0 and 1."""
    ATTRIBUTE_VALUE = "attribute value"
    """An attribute outside the values the docs list (``mode=None`` where it must be one of ...)."""
    AXIS_RANGE = "axis out of range"
    """An axis (``axis``, ``dim``; ``axis=None`` read as ``batch_dims``) outside ``[-r, r-1]``."""
    AXIS_REQUIRED = "axis required"
    """``axis=None`` on data that is not 1-D, where only 1-D data may omit the axis (the array API's take)."""
    BATCH_DIMS_RANGE = "batch_dims out of range"
    """``batch_dims`` outside its range (the indices' rank, the axis, ``min(q, r) - 1``)."""
    BATCH_DIMS_NEGATIVE = "batch_dims negative"
    """A negative ``batch_dims`` where it counts dimensions and no doc reads a negative one (ONNX's GatherND: "The
    number of batch dimensions."), apart from one past its top (``b < min(q, r)``)."""
    BATCH_DIMS_ABOVE_AXIS = "batch_dims above axis"
    """``batch_dims`` greater than the axis, where the axis must be at least ``batch_dims`` (TensorFlow's gather)."""
    BATCH_MISMATCH = "batch mismatch"
    """The first ``batch_dims`` dimensions of data and indices differ."""
    ZERO_D_INPUT = "0-d input"
    """A 0-d input where the op needs rank >= 1 (or, for a 0-d input, exactly one index)."""
    ZERO_D_INDICES = "0-d indices"
    """0-d indices where the op needs rank >= 1."""
    INDEX_RANK = "index rank"
    """Indices of a rank the docs do not allow (1-D only, 0-d or 1-D, rank >= 2)."""
    RANK_MISMATCH = "rank mismatch"
    """Data and indices of different ranks where they must be equal."""
    INDEX_LARGER = "index larger than input"
    """Indices larger than the data in a dimension other than the axis."""
    NOT_BROADCASTABLE = "not broadcastable"
    """Data and indices whose other dimensions do not broadcast."""
    SHAPES_DIFFER = "shapes differ"
    """Data and indices whose other dimensions differ where they must be equal."""
    TUPLE_LENGTH = "index tuple length"
    """An index tuple of length 0 (``indices.shape[-1] == 0``), or one the axes do not divide."""
    TUPLE_TOO_LONG = "index tuple too long"
    """An index tuple longer than the data's dimensions after the batch ones (``indices.shape[-1] > r - b``)."""
    EMPTY_DIMENSION = "empty dimension"
    """A dimension of size 0 where every dimension of a tensor must be at least 1 (TOSA)."""
    UNNAMED = "precondition"
    """No rule named (an error of the reference that carries none)."""
