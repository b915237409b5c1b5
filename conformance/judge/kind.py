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

from dataclasses import replace

import numpy as np

from conformance.core.behaviour import Behaviour
from conformance.core.blame import Rule
from conformance.core.case import Case
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import BasisStatus, ConditionKind, FindingKind, MismatchKind
from conformance.judge.shape_evidence import waived_for_empty
from conformance.judge.signature import Signature
from conformance.judge.verdict import STRAY, DtypeStatus, made_of
from conformance.spec.basis import Basis, Ground, Silent, departed, dtype_requirement, index_ground, rule_ground
from conformance.spec.catalog import TYPE_CONSTRAINED, spec

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


INTERNAL_FOR_ERROR = Silent(
    "the docs want the call to fail, and it fails: that its error reads as the framework's own fault (a division by "
    "zero, an assertion) is a question of its class, which the docs do not rule on"
)
"""An internal error where the reference raises too (Paddle's take, mode='wrap', on an empty axis: "Integer division
by zero"): no sentence is departed from. Where the rule the reference names is one the docs only require ("3) b <
min(q, r) is to be honored."), that sentence is quoted instead: the docs do not want such a call to fail, they only
leave it invalid (audit of stop 47, 9B n=126 and n=129)."""

ANSWERED_INSTEAD = frozenset(
    {
        MismatchKind.VALUE_INSTEAD_OF_ERROR,
        MismatchKind.CRASH,
        MismatchKind.TIMEOUT,
        MismatchKind.INTERNAL,
        MismatchKind.SPEC_SILENT,
        MismatchKind.PROTOCOL,
    }
)
"""What a framework may answer where the reference raised: the finding rests on the rule the reference's error
states (its typed fields), not on the condition the generator drew."""


def finding_basis(
    sig: Signature, reference: Outcome | None = None, case: Case | None = None, observed: Outcome | None = None
) -> Ground:
    """The doc sentence (or the silence) a finding rests on, except where no doc speaks (:data:`NO_SENTENCE`):
    where the reference raised and the framework answered otherwise (:data:`ANSWERED_INSTEAD`), the sentence of the
    rule the reference's typed error names (:func:`~conformance.spec.basis.rule_ground`, with the argument it
    blames), or of the index policy where it raised for an index it cannot place
    (:func:`~conformance.spec.basis.index_ground`: an empty axis too); else the ground of the decision the
    condition departs from (:func:`~conformance.spec.basis.departed`); a hang of a call the docs define through a
    mode (``numpy.take(..., mode='wrap')``), the mode's sentence. ``case`` is the finding's own case where known: its
    op key (``onnx.Gather-1``, whose docs, unlike Gather-13's, do not say whether a negative index is in bounds; the
    signature names the family) and its attributes. A value ``observed`` read from an empty input
    (:func:`reads_from_nothing`) rests on the index policy's sentence, whatever rule the reference names first: no
    index can be placed there (Paddle's gather_nd on data (0,), indices [1] read stray bytes, and its finding quoted
    the 1-D index's "rank > 1" rule, which Paddle waives on data that has elements: audit of stop 46, 7A n=78).

    >>> from conformance.core.blame import Rule
    >>> from conformance.core.outcome import ErrorClass, Kind
    >>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "NaN payload not kept", "", ("data:float32",))
    >>> finding_basis(sig).status.value
    'silent'
    >>> torch = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "",
    ...     ("empty data",))
    >>> error = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID, rule=Rule.RANK_MISMATCH, argument="indices")
    >>> finding_basis(torch, error).quote
    'input and index must have the same number of dimensions.'
    """
    quiet = (
        NO_SENTENCE.get(sig.outcome.kind)
        or NO_SENTENCE.get(sig.condition.kind)
        or (NO_SENTENCE.get(Rule(sig.condition.detail)) if sig.condition.kind is ConditionKind.PRECONDITION else None)
        or (NO_SENTENCE.get(reference.rule) if reference is not None and reference.rule is not None else None)
    )
    key = case.op if case is not None else sig.op
    if quiet is not None and sig.outcome.kind is MismatchKind.WRONG_ERROR and reference is not None and reference.rule:
        required = rule_ground(key, Rule(reference.rule), reference.argument or "")
        return required if required.status is BasisStatus.SILENT else quiet  # nor do they say that the call fails
    if quiet is not None:
        return quiet
    if sig.outcome.kind is MismatchKind.INTERNAL and reference is not None and reference.kind is Kind.ERROR:
        only = rule_ground(key, Rule(reference.rule), reference.argument or "") if reference.rule else None
        return only if isinstance(only, Basis) and only.status is BasisStatus.SILENT else INTERNAL_FOR_ERROR
    try:
        mode_attr = spec(key).mode_attr
        hang = sig.outcome.kind is MismatchKind.TIMEOUT and reference is not None and reference.kind is Kind.VALUE
        if hang and case is not None and mode_attr in case.attrs:
            return departed(key, ConditionKind.ATTRIBUTE, mode_attr or "")
        if reference is not None and reference.kind is Kind.ERROR and sig.outcome.kind in ANSWERED_INSTEAD:
            attrs = case.attrs if case is not None else {}
            if case is not None and reads_from_nothing(case, observed):
                return index_ground(key, attrs)
            if reference.rule is not None:
                return rule_ground(key, Rule(reference.rule), reference.argument or "")
            if reference.error_class is ErrorClass.INDEX_OUT_OF_RANGE and sig.condition.kind in SHAPE_CONDITIONS:
                return index_ground(key, attrs)
        given = numpy_valued(case) if reference is not None and reference.kind is Kind.VALUE else None
        if given is not None and spec(key).framework != NUMPY:
            return rule_ground(key, Rule.ATTRIBUTE_TYPE, given)  # the type the docs give it: a requirement
        valued = reference is not None and reference.kind is Kind.VALUE
        if valued and given is None and case is not None and _undocumented_dtype(case):
            index = not DtypeStatus.of(case).index  # Paddle's int8 indices: the docs list int32 and int64, no more
            return dtype_requirement(key, index=index)
        ground = departed(key, sig.condition.kind, sig.condition.detail)
        if sig.condition.kind is not ConditionKind.SHAPES_REFUSED or not valued:
            return ground
        waived = waived_for_empty(case) if case is not None else None
        return _valid_call_refused(ground) if waived is None else _required_only(rule_ground(key, waived, "indices"))
    except (KeyError, ValueError):
        return Silent(f"{sig.op} is not in the catalog")


def _required_only(ground: Ground) -> Ground:
    """A rule's ground where a call keeps the rule only because its indices are empty (:func:`waived_for_empty`):
    the sentence (if any) states the rule for indices that read, and what empty ones must keep it does not say, so
    refusing them departs from nothing written (status silent).

    >>> from conformance.spec.basis import op_basis
    >>> _required_only(op_basis("torch.gather").shapes).status.value
    'silent'
    """
    return replace(ground, status=BasisStatus.SILENT) if isinstance(ground, Basis) else ground


def _valid_call_refused(ground: Ground) -> Ground:
    """The ground of shapes refused where the reference answers: a shape sentence the docs state as a requirement
    (status silent, quoted) is met by the call, so refusing it departs from the docs (tnp.take_along_axis refusing
    data (3, 0), indices (0, 1), which broadcast as NumPy's "This must match the dimension of arr, but dimensions Ni
    and Nj only need to broadcast against arr." allows: audit of stop 47, 8B n=117).

    >>> from conformance.spec.basis import op_basis
    >>> _valid_call_refused(op_basis("numpy.take_along_axis").shapes).status.value
    'documented'
    """
    if isinstance(ground, Basis) and ground.status is BasisStatus.SILENT:
        return replace(ground, status=BasisStatus.DOCUMENTED)
    return ground


NUMPY = "numpy"
"""The framework whose docs' "int" a NumPy integer is (its own scalars and 0-d arrays are its ints)."""


def _undocumented_dtype(case: Case) -> bool:
    """Whether ``case``'s dtypes are outside its op's docs where those do not constrain the types a call may take
    (ONNX's type constraints do: accepting another is a finding of its own, ``undocumented dtype accepted``)."""
    return not DtypeStatus.of(case).documented and spec(case.op).framework not in TYPE_CONSTRAINED


def numpy_valued(case: Case | None) -> str | None:
    """The first attribute of ``case`` given as a NumPy scalar or array (``axis=np.array(1)``), or None. The
    reference reads one as the integer it holds; another framework's docs type the attribute ("axis
    (Tensor|int|None, optional)") without saying whether a NumPy value is one, so a departure there rests on that
    type as a requirement (Paddle's gather crashed on ``axis=np.array(1)``: a hazard, not a bug; audit of stop 46).

    >>> numpy_valued(Case("paddle.gather", np.zeros(2), np.array([0]), {"axis": np.array(1)}))
    'axis'
    >>> numpy_valued(Case("paddle.gather", np.zeros(2), np.array([0]), {"axis": 1})) is None
    True
    """
    attrs = case.attrs if case is not None else {}
    return next((name for name, v in attrs.items() if isinstance(v, (np.generic, np.ndarray))), None)


SHAPE_CONDITIONS = frozenset(
    {
        ConditionKind.EMPTY_DATA,
        ConditionKind.EMPTY_OUTPUT,
        ConditionKind.PRECONDITION,
        ConditionKind.ANY,
        ConditionKind.HANGS,
        ConditionKind.SHAPES_REFUSED,
    }
)
"""Conditions whose decision is the shape rule's (:data:`~conformance.spec.basis.DECIDED_BY`): where the reference's
error under one of them is an index out of range, the index policy is the ground."""


def reads_from_nothing(case: Case, observed: Outcome | None) -> bool:
    """Whether ``observed`` holds elements read from an empty input: nothing there to read, so each is a fill or
    whatever memory held (Paddle's gather_nd on data of shape (0,): -1.5e16, then 3.6e-44).

    >>> import numpy as np
    >>> empty = Case("paddle.gather_nd", np.zeros(0, np.float32), np.array([0]))
    >>> reads_from_nothing(empty, Outcome.returned(np.array(7.0)))
    True
    >>> reads_from_nothing(empty, Outcome.returned(np.zeros(0)))
    False
    """
    value = observed.value if observed is not None and observed.kind is Kind.VALUE else None
    return value is not None and np.size(case.data) == 0 and np.size(value) > 0


def foreign_values(sig: Signature, case: Case, reference: Outcome, observed: Outcome | None) -> bool:
    """Whether a value named by no policy word, a wrong value or one given where the reference raised, holds
    numbers neither the data nor the reference's value holds, nor zero (a fill's): read from outside the input
    (OpenVINO's GatherND-8 for a 0-length index tuple; Paddle's take_along_axis reading int8 indices as wider ones:
    a stray read, a hazard where the docs are silent, audit of stop 48, 10A n=69 and n=111); strings, bools and
    bfloat16 never are.

    >>> sig = Signature("openvino.GatherND", "openvino", "1", "cpu", "opset", "value instead of error", "", ("empty",))
    >>> case = Case("onnx.GatherND-11", np.array([[-2.5]], np.float32), np.zeros((3, 0), np.int64))
    >>> error = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID)
    >>> foreign_values(sig, case, error, Outcome.returned(np.array([1e18, 3e-41, -2.5], np.float32)))
    True
    >>> foreign_values(sig, case, error, Outcome.returned(np.array([0.0, -2.5], np.float32)))
    False
    """
    kinds = (MismatchKind.WRONG_VALUE, MismatchKind.VALUE_INSTEAD_OF_ERROR)
    if sig.outcome.kind not in kinds or sig.policy is not None or observed is None or observed.value is None:
        return False
    value, data = np.asarray(observed.value), np.asarray(case.data)
    theirs = [np.asarray(reference.value).reshape(-1)] if reference.value is not None else []
    held = np.concatenate([data.reshape(-1), *theirs])
    numeric = value.dtype.kind in "iufc" and held.dtype == value.dtype
    held = np.append(held, held.dtype.type(0))  # a fill's value: zeros prove no garbage (audit of stop 47, 8A n=10)
    return numeric and value.size > 0 and data.size > 0 and not made_of(value, held)


def reads_past_index_batch(case: Case, observed: Outcome | None, policy: Behaviour | None = None) -> bool:
    """Whether ``observed`` holds values for data batches its indices lack: under ``batch_dims`` b, an index batch
    dimension shorter than the data's, and an answer as long as the data's there, each extra batch's index read from
    past the indices' buffer (OpenVINO's Gather-8, data (2, 1, 1), indices (1, 1): [0.0, 0.0] on one call, [0.0,
    -0.5] on the next); not where the answer broadcasts an index batch of 1 (``policy``), a reading of its own.

    >>> case = Case("openvino.Gather-8", np.zeros((2, 1, 1)), np.zeros((1, 1), int), {"axis": 1, "batch_dims": 1})
    >>> reads_past_index_batch(case, Outcome.returned(np.zeros((2, 1, 1))))
    True
    >>> reads_past_index_batch(case, Outcome.returned(np.zeros((2, 1, 1))), Behaviour.BATCH_BROADCAST)
    False
    """
    b = case.attrs.get("batch_dims")
    value = observed.value if observed is not None and observed.kind is Kind.VALUE else None
    if value is None or policy is Behaviour.BATCH_BROADCAST or type(b) is not int or b <= 0:
        return False
    data, indices = np.shape(case.data), np.shape(case.indices)
    if b > min(len(data), len(indices), np.ndim(value)):
        return False
    shorter = any(i < d for i, d in zip(indices[:b], data[:b]))
    return shorter and np.shape(value)[:b] == data[:b]


def finding_kind(sig: Signature, basis: Ground | None = None, stray: bool = False) -> FindingKind:
    """The kind of the finding ``sig`` (the module docstring's rule), on its ``basis`` (:func:`finding_basis`);
    ``stray``: its value was read from nothing (:func:`reads_from_nothing`), a stray read whatever its word."""
    status, outcome = (basis or finding_basis(sig)).status, sig.outcome.kind
    if outcome is MismatchKind.PROTOCOL:
        return FindingKind.HAZARD
    if status is BasisStatus.DOCUMENTED and outcome is not MismatchKind.SPEC_SILENT:
        return FindingKind.BUG
    if status.permits:  # any answer read from the input, and any error, conforms there: what is left read outside it,
        return FindingKind.QUESTION if outcome is MismatchKind.INTERNAL else FindingKind.HAZARD  # crashed or hung
    worst = stray or sig.policy in STRAY or outcome in FAULTS
    return FindingKind.HAZARD if worst else FindingKind.QUESTION


def observed_kind(
    sig: Signature, reference: Outcome, case: Case, observed: Outcome | None, basis: Ground | None = None
) -> FindingKind:
    """The kind of a finding as its own example shows it: on the basis its reference's error and case give
    (:func:`finding_basis`; ``basis``, where its counterfactuals proved another: a finding's dtype misread in range
    too), a value read from nothing (:func:`reads_from_nothing`; zeros too: MLX's read from an empty axis gave
    zeros in the campaign and other bytes in a fresh process, audit of stop 48, 11A n=67) or past the indices'
    batch
    (:func:`reads_past_index_batch`) counting as a stray read. The
    one rule by which a finding and a pytest plugin item are classed."""
    stray = reads_from_nothing(case, observed) or reads_past_index_batch(case, observed, sig.policy)
    stray = stray or foreign_values(sig, case, reference, observed)
    return finding_kind(sig, basis or finding_basis(sig, reference, case, observed), stray)


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


def rank(sig: Signature, kind: FindingKind | None = None) -> tuple[int, int]:
    """Where a finding is listed: bugs first by :func:`severity`, then hazards (stray reads first), then questions
    (its ``kind``, where the finding knows it from its reference's error: :func:`finding_basis`).

    >>> from conformance.judge.signature import Signature
    >>> bug = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "dtype rejected", "", ("data dtype",))
    >>> hazard = Signature("mlx.take", "mlx", "0.32.4", "cpu", "eager", "crash", "", ("extreme",))
    >>> rank(bug) < rank(hazard)
    True
    """
    kind = kind or finding_kind(sig)
    stray_first = 0 if kind is FindingKind.HAZARD and sig.policy in STRAY else severity(sig)
    return KIND_ORDER.index(kind), stray_first
