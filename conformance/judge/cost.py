"""What a finding costs a user, as a rank (0: the worst): the order in which
findings are listed (the summary's "the worst", the report's default order).

From the worst: reads outside the data (``garbage``, ``fills or garbage``: a
fill and a stray read look alike, so the worse is assumed) and silent wrong
values; a value where an error is documented; a crash; a hang; a wrong
shape (or dtype); an error where a value is documented; an error of the
wrong class; a dtype not supported (or accepted undocumented); what the
docs leave open (``spec silent``) and a broken oracle protocol last.

>>> from conformance.judge.signature import Signature
>>> garbage = Signature("j.t", "j", "1", "cpu", "eager", "value instead of error", "garbage", ("bad index",))
>>> crash = Signature("t.g", "t", "1", "cpu", "eager", "crash", "", ())
>>> dtype = Signature("t.g", "t", "1", "cpu", "eager", "dtype rejected", "", ("index dtype",))
>>> [user_cost(s) for s in (garbage, crash, dtype)]
[0, 2, 7]
"""

from __future__ import annotations

from conformance.core.behaviour import Behaviour
from conformance.core.vocabulary import MismatchKind
from conformance.judge.signature import Signature

COST: dict[MismatchKind, int] = {
    MismatchKind.WRONG_VALUE: 0,
    MismatchKind.NAN_PAYLOAD: 0,
    MismatchKind.VALUE_INSTEAD_OF_ERROR: 1,
    MismatchKind.CRASH: 2,
    MismatchKind.TIMEOUT: 3,
    MismatchKind.WRONG_SHAPE: 4,
    MismatchKind.WRONG_DTYPE: 4,
    MismatchKind.ERROR_INSTEAD_OF_VALUE: 5,
    MismatchKind.SHAPES_REFUSED: 5,
    MismatchKind.ATTRIBUTE_REFUSED: 5,
    MismatchKind.INTERNAL: 5,
    MismatchKind.WRONG_ERROR: 6,
    MismatchKind.DTYPE_REJECTED: 7,
    MismatchKind.UNDOCUMENTED_DTYPE: 7,
    MismatchKind.SPEC_SILENT: 8,
    MismatchKind.PROTOCOL: 8,
}
"""The rank of each outcome (the module docstring's order); unknown ones rank last."""
GARBAGE_COST = 0
"""A read outside the data (or what may be one) costs the most, whatever the outcome class."""
OUTSIDE = frozenset({Behaviour.GARBAGE, Behaviour.FILLS_OR_GARBAGE})


def user_cost(sig: Signature) -> int:
    """The rank of a root cause by what it costs a user (0: the worst)."""
    if sig.policy in OUTSIDE:
        return GARBAGE_COST
    return COST.get(sig.outcome.kind, max(COST.values()) + 1)
