"""The reference's errors, typed: what they blame travels as fields, never in
the message (the judge reads the fields, :func:`~conformance.judge.verdict.reference_outcome`).

* :class:`PreconditionError`: a documented precondition broken, with its
  :class:`~conformance.core.blame.Rule` and the argument it blames (``data``,
  ``indices`` or an attribute's name); raised as the op's own documented error
  type (:class:`PreconditionValueError`, :class:`PreconditionTypeError`,
  :class:`PreconditionIndexError` are a ``ValueError``, ``TypeError``,
  ``IndexError``), with the same message;
* :class:`IndexOutOfRangeError`: an index the policy cannot place (an
  ``IndexError``), with its axis, the axis's size, the value and its position.

>>> e = precondition_error(ValueError, "onnx.Gather: data must have rank >= 1", Rule.ZERO_D_INPUT, "data")
>>> isinstance(e, ValueError), e.rule, e.argument, e.blames_attribute, e.documented
(True, <Rule.ZERO_D_INPUT: '0-d input'>, 'data', False, 'ValueError')
"""

from __future__ import annotations

from typing import ClassVar

from conformance.core.blame import Rule, blames_attribute


class PreconditionError(Exception):
    """A documented precondition of an op broken: the :class:`Rule` and the blamed argument."""

    documented: ClassVar[str] = "Exception"
    """The name of the error type the op documents (what an :class:`~conformance.core.outcome.Outcome` records)."""

    def __init__(self, message: str, rule: Rule, argument: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.argument = str(argument)  # an attribute's name, or an Operand's word

    @property
    def blames_attribute(self) -> bool:
        """Whether the blamed argument is an attribute (not ``data`` or ``indices``)."""
        return blames_attribute(self.argument)

    def __reduce__(self) -> tuple[type[PreconditionError], tuple[str, Rule, str]]:
        return type(self), (str(self), self.rule, self.argument)


class PreconditionValueError(PreconditionError, ValueError):
    """A precondition broken, where the op documents a ``ValueError``."""

    documented = "ValueError"


class PreconditionTypeError(PreconditionError, TypeError):
    """A precondition broken, where the op documents a ``TypeError`` (an attribute's type; WebNN's errors)."""

    documented = "TypeError"


class PreconditionIndexError(PreconditionError, IndexError):
    """A precondition broken, where the op documents an ``IndexError`` (torch.index_select's index rank)."""

    documented = "IndexError"


_TYPED: dict[type[Exception], type[PreconditionError]] = {
    ValueError: PreconditionValueError,
    TypeError: PreconditionTypeError,
    IndexError: PreconditionIndexError,
}


def precondition_error(error: type[Exception], message: str, rule: Rule, argument: str) -> PreconditionError:
    """The :class:`PreconditionError` that is an ``error`` (``ValueError``, ``TypeError`` or ``IndexError``)."""
    return _TYPED[error](message, rule, argument)


class IndexOutOfRangeError(IndexError):
    """An index the policy cannot place into ``axis`` of ``size``: ``value`` at
    ``position`` of the indices (None for both: any index at all, into an empty axis).

    >>> e = IndexOutOfRangeError("indices[1] = 9 is out of range", axis=0, size=4, value=9, position=(1,))
    >>> isinstance(e, IndexError), e.axis, e.size, e.value, e.position
    (True, 0, 4, 9, (1,))
    """

    documented: ClassVar[str] = "IndexError"

    def __init__(
        self, message: str, *, axis: int, size: int, value: int | None = None, position: tuple[int, ...] | None = None
    ) -> None:
        super().__init__(message)
        self.axis, self.size, self.value, self.position = axis, size, value, position

    def __reduce__(self) -> tuple[object, ...]:
        fields = {"axis": self.axis, "size": self.size, "value": self.value, "position": self.position}
        return _index_error, (str(self), fields)


def _index_error(message: str, fields: dict[str, object]) -> IndexOutOfRangeError:
    """An :class:`IndexOutOfRangeError` rebuilt from its pickle (its fields are keywords)."""
    return IndexOutOfRangeError(message, **fields)  # type: ignore[arg-type]
