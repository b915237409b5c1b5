"""What a finding is to its framework's maintainer: its :class:`~conformance.core.vocabulary.FindingKind`
and the doc sentence it rests on (its basis, :mod:`conformance.spec.basis`).

* a **bug** departs from a documented sentence;
* a **hazard** is an outcome the docs permit (undefined, implementation-defined) or say nothing of, where the
  framework reads outside its input (``garbage``, ``fills or garbage``), crashes or hangs: permitted or not, a
  user needs to know; so is an oracle that answers what is no array (a protocol error);
* a **question** is what the docs are silent on, or leave to the framework, where nothing worse happened: what
  the framework does is reported beside what the others do, and fails the gate only when asked to.

Some conditions rest on no sentence whatever the op: no gather's docs say what happens to a NaN's payload bits,
nor which exception class a refusal raises, nor whether ``True`` is an integer attribute (Python says it is 1), so
those are questions. (An index out of range on an empty output is not one of them: where the docs say "it is an
error if any index is out of bounds", any means any.)

>>> from conformance.judge.signature import Signature
>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "wraps",
...     ("bad index",))
>>> finding_kind(sig).value
'bug'
>>> mlx = Signature("mlx.take", "mlx", "0.32.4", "cpu", "eager", "spec silent", "fills or garbage", ("oob-above",))
>>> finding_kind(mlx).value, finding_basis(mlx).status.value
('hazard', 'undefined')
>>> paddle = Signature("paddle.take_along_axis", "paddle", "3.3.1", "cpu", "dygraph", "spec silent", "clamps (raw)",
...     ("negative",))
>>> finding_kind(paddle).value
'question'
"""

from __future__ import annotations

from conformance.core.blame import Rule
from conformance.core.vocabulary import BasisStatus, ConditionKind, FindingKind, MismatchKind
from conformance.judge.signature import Signature
from conformance.judge.verdict import STRAY
from conformance.spec.basis import Ground, Silent, departed

FAULTS = frozenset({MismatchKind.CRASH, MismatchKind.TIMEOUT, MismatchKind.PROTOCOL})
"""Outcomes no doc permits a user to meet unwarned."""

NO_SENTENCE: dict[object, Silent] = {
    Rule.ATTRIBUTE_BOOL: Silent(
        "the docs type the attribute as an integer, and Python's bool is one (True == 1): whether True is refused or "
        "read as 1, they do not say"
    ),
    MismatchKind.NAN_PAYLOAD: Silent(
        "no gather's docs promise to copy a NaN's payload bits: the value is a NaN either way"
    ),
    MismatchKind.WRONG_ERROR: Silent(
        "the docs say that the call fails, not which exception it raises: another class of error is what the "
        "framework chose"
    ),
    MismatchKind.UNDOCUMENTED_DTYPE: Silent(
        "the spec constrains the dtypes of a valid model; what a runtime does with a model outside them is its own"
    ),
}
"""What rests on no doc sentence, whatever the op (by outcome, or by condition)."""


def finding_basis(sig: Signature) -> Ground:
    """The doc sentence (or the silence) a finding rests on: the ground of the decision its condition departs
    from (:func:`~conformance.spec.basis.departed`), except where no doc speaks (:data:`NO_SENTENCE`).

    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "NaN payload not kept", "", ("data:float32",))
    >>> finding_basis(sig).status.value
    'silent'
    """
    quiet = (
        NO_SENTENCE.get(sig.outcome.kind)
        or NO_SENTENCE.get(sig.condition.kind)
        or (NO_SENTENCE.get(Rule(sig.condition.detail)) if sig.condition.kind is ConditionKind.PRECONDITION else None)
    )
    if quiet is not None:
        return quiet
    try:
        return departed(sig.op, sig.condition.kind, sig.condition.detail)
    except (KeyError, ValueError):
        return Silent(f"{sig.op} is not in the catalog")


def finding_kind(sig: Signature, basis: Ground | None = None) -> FindingKind:
    """The kind of the finding ``sig`` (the module docstring's rule), on its ``basis`` (:func:`finding_basis`)."""
    status, outcome = (basis or finding_basis(sig)).status, sig.outcome.kind
    if outcome is MismatchKind.PROTOCOL:
        return FindingKind.HAZARD
    if status is BasisStatus.DOCUMENTED and outcome is not MismatchKind.SPEC_SILENT:
        return FindingKind.BUG
    if status.permits:  # any answer read from the input, and any error, conforms there: what is left read outside it,
        return FindingKind.QUESTION if outcome is MismatchKind.INTERNAL else FindingKind.HAZARD  # crashed or hung
    worst = sig.policy in STRAY or outcome in FAULTS
    return FindingKind.HAZARD if worst else FindingKind.QUESTION


BUG_SEVERITY: dict[MismatchKind, int] = {
    MismatchKind.WRONG_VALUE: 1,
    MismatchKind.WRONG_SHAPE: 1,
    MismatchKind.WRONG_DTYPE: 1,
    MismatchKind.NAN_PAYLOAD: 1,
    MismatchKind.CRASH: 2,
    MismatchKind.TIMEOUT: 2,
    MismatchKind.VALUE_INSTEAD_OF_ERROR: 3,
    MismatchKind.ERROR_INSTEAD_OF_VALUE: 4,
    MismatchKind.DTYPE_REJECTED: 4,
    MismatchKind.SHAPES_REFUSED: 4,
    MismatchKind.ATTRIBUTE_REFUSED: 4,
    MismatchKind.INTERNAL: 4,
    MismatchKind.WRONG_ERROR: 5,
}
"""How much a bug costs a user, 1 the most: a silent wrong value where the docs define one; a stray read, crash or
hang where they promise an error; a value where an error is documented; a refusal of documented input (an internal
error included); an error of the wrong class."""


def severity(sig: Signature) -> int:
    """A bug's severity (:data:`BUG_SEVERITY`; a value instead of an error that reads outside the input counts as a
    stray read, 2).

    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "value instead of error", "garbage", ("bad index",))
    >>> severity(sig), severity(Signature("t.g", "t", "1", "cpu", "eager", "wrong error", "", ("bad index",)))
    (2, 5)
    """
    kind = sig.outcome.kind
    if kind is MismatchKind.VALUE_INSTEAD_OF_ERROR and sig.policy in STRAY:
        return 2
    return BUG_SEVERITY.get(kind, max(BUG_SEVERITY.values()) + 1)


KIND_ORDER = (FindingKind.BUG, FindingKind.HAZARD, FindingKind.QUESTION)


def rank(sig: Signature) -> tuple[int, int]:
    """Where a finding is listed: bugs first by :func:`severity`, then hazards (stray reads first), then questions.

    >>> from conformance.judge.signature import Signature
    >>> bug = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "dtype rejected", "", ("data dtype",))
    >>> hazard = Signature("mlx.take", "mlx", "0.32.4", "cpu", "eager", "crash", "", ("extreme",))
    >>> rank(bug) < rank(hazard)
    True
    """
    kind = finding_kind(sig)
    stray_first = 0 if kind is FindingKind.HAZARD and sig.policy in STRAY else severity(sig)
    return KIND_ORDER.index(kind), stray_first
