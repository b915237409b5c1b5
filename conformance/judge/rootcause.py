"""What makes two discrepancies one finding: the root-cause rule, stated once.

A finding is one root cause (a :class:`~conformance.judge.signature.Signature`):

* the **oracle**: framework, version, device and execution mode;
* the **op family**: ONNX opsets merged (``onnx.Gather`` for Gather-1, -11
  and -13; the opsets seen are listed among the variants);
* **what happened**: the outcome class of the judge (``value instead of
  error``, ``wrong error (...)``, ``dtype rejected``...) and the observed
  behaviour (wraps, clamps, ...; only where the judge names one);
* the **condition** that triggers it (:func:`condition`). Tags enter only
  where they change the behaviour:

  - a dtype the framework cannot run is one finding per argument (data or
    index dtype; which dtypes: the variants), whatever the index regime,
    shapes or opset; so is a result in another dtype (``data dtype``);
  - an error that quotes an attribute (``mode='raise'``) is one finding per
    attribute value; an error of another class for bad indices is one
    (``bad index``), whatever the regime;
  - an index never checked because the output is empty is one finding per
    oracle and op family (``empty output``), whatever the regime;
  - a precondition accepted that the docs reject is one finding per rule
    broken (``precondition: rank mismatch``...), the rule the reference's
    error carries (a field, never read off its message), whatever the indices;
  - a policy seen on bad indices is one finding per behaviour (wraps, on
    ``bad index``), whatever the regime (negative, above, below, at the
    dtype's limits: the regimes are variants) and the shapes; indices
    beyond int32 are their own condition (``index beyond int32``: where a
    framework narrows them, the word depends on the value drawn), and
    :func:`merged_into` settles them once drawing ends;
  - an internal error is one finding per oracle and op family, whatever the
    input (the regimes are variants), as a hang is; so is a shape error where
    the docs accept the shapes (``shapes refused``; on empty data apart);
  - a NaN payload not kept is one finding per data dtype; an error where
    the reference gives a value, on empty data, is one (``empty data``);
  - a timeout is one finding per oracle and op family (``hangs``): where a
    slow case turns into a hang depends on the machine, so the regime would
    make the gate flaky;
  - anything else (wrong shape, wrong dtype, an error instead of a value, a
    crash) keeps the regime and the structural flags ``0-d`` and
    ``batch_dims>0``, where those decide what the framework does.

Execution modes are variants of one fact: findings whose signatures differ
only in the oracle's execution mode (``torch`` and ``torch-compile``, the
three onnxruntime sessions) are one finding (:func:`fact`), listing the modes
in which it shows; a behaviour that shows in one mode and not another keeps
its own identity (its signature differs in outcome, policy or condition).

What is merged is kept as variants (:func:`variant`): op keys (opsets),
regimes, data and index dtypes and the behaviour words, each with a count.
Behaviours one example cannot name settle once drawing ends
(:func:`settled_forms`): an ``ambiguous`` sighting joins the root cause
named elsewhere with a word that fits it; the same rule judges a baseline
reproducer replayed alone.

>>> import numpy as np
>>> from conformance.core.behaviour import Behaviour
>>> from conformance.judge.verdict import Verdict
>>> from conformance.core.case import Case, CaseTags
>>> from conformance.core.outcome import Outcome
>>> from conformance.core.vocabulary import Mismatch, MismatchKind
>>> case = Case("onnx.Gather-13", np.zeros((2, 0)), np.array([5]), {"axis": 0}, CaseTags("oob-above", "int64", "float"))
>>> unchecked = Verdict(False, Mismatch(MismatchKind.VALUE_INSTEAD_OF_ERROR), Behaviour.UNCHECKED)
>>> condition(case, unchecked, Outcome.returned(np.zeros(0)), None).words()
('empty output',)
>>> family("onnx.Gather-13"), family("torch.gather")
('onnx.Gather', 'torch.gather')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace

import numpy as np

from conformance.core.arrays import dtype_family, dtype_name, same_bits
from conformance.core.behaviour import Behaviour
from conformance.core.blame import Rule
from conformance.core.case import Case, OpKey
from conformance.core.judgement import says
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import (
    INDEX_ERRORS,
    POLICY_REGIMES,
    PRECONDITION_ERRORS,
    Condition,
    ConditionKind,
    DtypeArg,
    Flag,
    Mismatch,
    MismatchKind,
)
from conformance.judge.signature import Signature
from conformance.judge.verdict import (
    PolicyValues,
    Verdict,
    as_int_reading,
    fitting_words,
    observed_policy,
)

UNNAMED_RULE = Rule.UNNAMED
"""The rule of a reference error that carries none (:attr:`~conformance.core.outcome.Outcome.rule`)."""

BAD_INDEX = Condition.of(ConditionKind.BAD_INDEX)
BEYOND_INT32 = Condition.of(ConditionKind.BEYOND_INT32)
"""The two conditions of an index policy: ordinary bad indices, and indices
that do not fit in int32 (where a framework that narrows them answers
whatever the narrowed value reads)."""

INDEX_WORDS = ("index", "indices", "tindices", "out_type")
"""Whole words by which a dtype error speaks of the index argument (TF names its
index dtype attribute ``Tindices`` or ``out_type``), read only where the oracle
could not tell which argument it refused (:func:`rejected_dtype`)."""

POLICY_WORDS = frozenset(
    {
        Behaviour.WRAPS,
        Behaviour.CLAMPS,
        Behaviour.CLAMPS_RAW,
        Behaviour.FILLS,
        Behaviour.FILLS_OR_GARBAGE,
        Behaviour.LOW_32_BITS,
        Behaviour.SIGNED,
        Behaviour.AMBIGUOUS,
        Behaviour.GARBAGE,
    }
)
"""The behaviours that name (or fail to name) an index policy."""
NARROWING = frozenset({Behaviour.LOW_32_BITS, Behaviour.SIGNED})
"""Words only indices beyond int32 can earn (what the framework reads of them, whatever its policy): they stay named."""
NOT_ABOUT_INDICES = frozenset(
    {
        ConditionKind.PRECONDITION,
        ConditionKind.ARGUMENT_DTYPE,
        ConditionKind.DATA_DTYPE_VALUES,
        ConditionKind.EMPTY_DATA,
        ConditionKind.EMPTY_AXIS,
        ConditionKind.SHAPES_REFUSED,
    }
)
"""Conditions whose root cause is no index policy, whatever the judge named."""


def beyond_int32(indices: object) -> bool:
    """Whether some index does not fit in int32.

    >>> beyond_int32(np.array([3, -2**31])), beyond_int32(np.array([2**31])), beyond_int32(np.array(2**64 - 1,
    ...     np.uint64))
    (False, True, True)
    """
    wide = np.asarray(indices).astype(object)
    return bool(wide.size) and bool(np.any((wide >= 2**31) | (wide < -(2**31))))


def settled_forms(sig: Signature, fits: Collection[Behaviour]) -> list[Signature]:
    """The root causes a sighting may belong to once drawing ends, given the
    words that fit its example (``fits``), in the order :func:`merged_into`
    tries them; the sighting's own signature last. The rule for behaviours
    that one example cannot name:

    - an ``ambiguous`` example joins the root cause named, on evidence from
      another example, for the same oracle, op family and outcome, with a
      word that fits it (ordinary bad indices first; where the docs are
      silent, under the same condition);
    - a word seen beyond int32 joins the same word on ordinary bad indices
      (one policy); where it is not seen there, the words beyond int32 are
      one finding without a policy (what the narrowed index reads: variants);
    - a word of how the index is read (``reads the low 32 bits``, ``reads
      unsigned as signed``) is named on its own example and stays.

    >>> s = Signature("jax.numpy.take", "jax", "0.8", "cpu", "x64", "wrong value", "garbage", BEYOND_INT32)
    >>> [(str(f.policy), f.tags) for f in settled_forms(s, {Behaviour.GARBAGE})]
    [('garbage', ('bad index',)), ('None', ('index beyond int32',)), ('garbage', ('index beyond int32',))]
    """
    cond = sig.condition
    if sig.policy is Behaviour.AMBIGUOUS and cond not in (BAD_INDEX, BEYOND_INT32):  # where the docs are silent
        return [replace(sig, policy=w) for w in sorted(fits) if w is not Behaviour.AMBIGUOUS] + [sig]
    if cond not in (BAD_INDEX, BEYOND_INT32) or sig.policy is None and cond != BEYOND_INT32 or sig.policy in NARROWING:
        return [sig]
    unnamed = sig.policy in (Behaviour.AMBIGUOUS, None)  # ambiguous, or the words beyond int32 already settled
    words = [w for w in sorted(fits) if w is not Behaviour.AMBIGUOUS] if unnamed else [sig.policy]
    forms = [replace(sig, policy=word, condition=c) for c in dict.fromkeys([BAD_INDEX, cond]) for word in words]
    forms += [replace(sig, policy=None)] if cond == BEYOND_INT32 else []
    return [f for f in dict.fromkeys(forms) if f != sig] + [sig]


def merged_into(sig: Signature, fits: Collection[Behaviour], seen: Collection[Signature]) -> Signature | None:
    """Where a root cause's sightings move once drawing ends (the first of
    its :func:`settled_forms` seen; beyond int32, the one without a policy),
    given every root cause seen; ``None`` where it stays.

    >>> s = Signature("jax.numpy.take", "jax", "0.8", "cpu", "x64", "wrong value", "garbage", BEYOND_INT32)
    >>> merged_into(s, {Behaviour.GARBAGE}, [s]).policy is None
    True
    >>> named = Signature("torch.take_along_dim", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
    ...     BAD_INDEX)
    >>> merged_into(replace(named, policy=Behaviour.AMBIGUOUS), {Behaviour.WRAPS, Behaviour.CLAMPS}, [named]) == named
    True
    """
    forms = settled_forms(sig, fits)[:-1]
    seen_form = next((f for f in forms if f in seen), None)
    stays = sig.policy is None or sig.policy in NARROWING
    return seen_form or (replace(sig, policy=None) if sig.condition == BEYOND_INT32 and not stays else None)


def fact(sig: Signature, framework: str) -> Signature:
    """The identity of ``sig`` across the execution modes of one framework:
    the oracle's name becomes its framework's, the mode is dropped. Two
    sightings are one finding when their facts are equal.

    >>> eager = Signature("torch.take_along_dim", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
    ...     BAD_INDEX)
    >>> fact(eager, "torch") == fact(replace(eager, oracle="torch-compile", mode="compile"), "torch")
    True
    >>> fact(eager, "torch") == fact(replace(eager, oracle="torch-compile", policy=Behaviour.CLAMPS), "torch")
    False
    """
    return replace(sig, oracle=framework, mode="")


def still_shows(seen: Signature, root: Signature) -> bool:
    """Whether a shrink candidate judged ``seen`` still shows the root cause
    ``root``: the same signature (a named behaviour stays named, so the
    example stays discriminating), or, for the policy-less finding beyond
    int32, any word beyond int32.

    >>> root = Signature("jax.numpy.take", "jax", "0.8", "cpu", "x64", "wrong value", "", BEYOND_INT32)
    >>> fills = replace(root, policy=Behaviour.FILLS_OR_GARBAGE)
    >>> still_shows(fills, root), still_shows(fills, replace(root, policy=Behaviour.GARBAGE))
    (True, False)
    """
    policy_less = root.condition == BEYOND_INT32 and root.policy is None
    return seen == root or (policy_less and replace(seen, policy=None) == root)


def example_words(case: Case, got: Outcome) -> frozenset[Behaviour]:
    """The behaviour words that fit ``got`` on ``case``: the one the judge
    names, or every candidate's that explains it where it is ambiguous
    (:func:`~conformance.judge.verdict.fitting_words`), and ``garbage``: a
    read past the data may hold what a policy would give (OpenVINO's GatherND
    garbage-read entry replayed as "ambiguous" once and failed the gate).

    >>> one = Case("numpy.take", np.array([7]), np.array([1]), {"axis": 0, "mode": "raise"})
    >>> sorted(str(w) for w in example_words(one, Outcome.returned(np.array([7]))))
    ['clamps', 'garbage', 'wraps']
    """
    if got.kind is not Kind.VALUE or got.value is None:
        return frozenset()
    values = PolicyValues(case)
    named = observed_policy(got, values)
    if named is not Behaviour.AMBIGUOUS:
        return frozenset({named})
    # an unchecked read can return anything, what a policy gives included: garbage fits every ambiguous value
    return fitting_words(np.asarray(got.value), values) | {Behaviour.GARBAGE}


def family(op: str) -> str:
    """The op family of a catalog key: ONNX opsets merged."""
    return OpKey.parse(op).family


def dtype_word(name: str) -> str:
    """A dtype as a variant: complex (both widths) as one, others by name.

    >>> dtype_word("complex64"), dtype_word("int8")
    ('complex', 'int8')
    """
    return "complex" if dtype_family(name) == "complex" else name


def rejected_dtype(case: Case, got: Outcome) -> tuple[DtypeArg, str]:
    """Which of the case's dtypes a ``dtype rejected`` error blames, and the
    dtype (:func:`dtype_word`): the argument the oracle was converting when it
    raised (:attr:`~conformance.core.outcome.Outcome.dtype_argument`), where it
    says; else, as a last resort, the message's whole words
    (:func:`~conformance.core.judgement.says`): the index dtype when the message
    names it or speaks of the index (and does not name the data's dtype), else
    the data dtype.

    >>> complex_data = Case("t.g", np.zeros(2, np.complex64), np.zeros(1, np.int16), {})
    >>> rejected_dtype(complex_data, Outcome(Kind.ERROR, message="no kernel for complex64"))
    (<DtypeArg.DATA: 'data'>, 'complex')
    >>> tf = "Value for attr 'out_type' of int8 is not in the list of allowed values: int32, int64"
    >>> rejected_dtype(Case("t.g", np.zeros(2, np.int32), np.zeros(1, np.int8), {}), Outcome(Kind.ERROR, message=tf))
    (<DtypeArg.INDEX: 'index'>, 'int8')
    >>> rejected_dtype(complex_data, Outcome(Kind.ERROR, message="index error", dtype_argument=DtypeArg.DATA))
    (<DtypeArg.DATA: 'data'>, 'complex')
    """
    data, index = dtype_name(np.asarray(case.data).dtype), np.asarray(case.indices).dtype.name
    if got.dtype_argument is not None:  # the oracle knows which argument it refused: no message is read
        return got.dtype_argument, index if got.dtype_argument is DtypeArg.INDEX else dtype_word(data)
    text = (got.message or "").lower().split("allowed values")[0]  # the list of what is accepted names no culprit
    if (says(text, index) and not says(text, data)) or any(says(text, word) for word in INDEX_WORDS):
        return DtypeArg.INDEX, index
    return DtypeArg.DATA, dtype_word(data)


_TYPE_LEAKS: tuple[tuple[re.Pattern[str], Callable[[object], bool], str], ...] = (
    # JAX hashes a jitted function's static arguments: a 0-d array cannot be (jax.numpy.take_along_axis's axis)
    (
        re.compile(r"non-hashable static argument|unhashable type: 'numpy\.ndarray'"),
        lambda v: isinstance(v, np.ndarray),
        "<array>",
    ),
    # tf.experimental.numpy stacks a NumPy int64 axis with int32 shape values (tnp.take_along_axis)
    (
        re.compile(r"was expected to be a int32 tensor but is a int64 tensor"),
        lambda v: isinstance(v, np.ndarray | np.integer) and np.asarray(v).dtype == np.int64,
        "<numpy.int64>",
    ),
    # OpenVINO makes a constant of np.array(value): None has no element type (Gather-8's axis input)
    (re.compile(r"unidentified data type %s', dtype\('o'\)"), lambda v: v is None, "None"),
)
"""Error messages that say a framework refused an attribute for its Python type
(an implementation detail leaking), whatever the attribute holds: (the
message, which attribute values it is about, what the condition calls their value)."""


def attribute_blamed(case: Case, got: Outcome) -> str | None:
    """``name=value`` of the case's first attribute that the error message
    names and whose value it quotes (``The 'raise' mode to take is not
    supported``) or gives right after the name (``axis 5 is out of bounds``,
    ``axis=5``, ``got 5``). A digit somewhere in a message about the axis is
    no quote: OpenVINO's shape error "... except for the dimension at axis
    index.1" blames the shapes, not ``axis=1``.

    >>> attribute_blamed(Case("t.t", np.zeros(1), np.zeros(1, int), {"axis": 0, "mode": "raise"}),
    ...                  Outcome(Kind.ERROR, message="The 'raise' mode to take is not supported."))
    "mode='raise'"
    >>> axis = Case("t.t", np.zeros((2, 2)), np.zeros(1, int), {"axis": 5})
    >>> attribute_blamed(axis, Outcome(Kind.ERROR, message="axis 5 is out of bounds for array of dimension 2"))
    'axis=5'
    >>> shapes = "Shapes {3,5} and {2,3} are not consistent, except for the dimension at axis index.1"
    >>> attribute_blamed(replace(axis, attrs={"axis": 1}), Outcome(Kind.ERROR, message=shapes))

    An attribute given as a 0-d array where the framework hashes it as a
    compiled function's static argument (``jax.numpy.take_along_axis``) is
    blamed by its type, whatever it holds:

    >>> jit = "Non-hashable static arguments are not supported. ... TypeError: unhashable type: 'numpy.ndarray'"
    >>> attribute_blamed(replace(axis, attrs={"axis": np.array(1)}), Outcome(Kind.ERROR, message=jit))
    'axis=<array>'
    """
    text = (got.message or "").lower()
    for message, about, called in _TYPE_LEAKS:  # whatever the attribute holds and whatever the indices
        typed = [name for name, value in case.attrs.items() if about(value)]
        if len(typed) == 1 and message.search(text):
            return f"{typed[0]}={called}"  # name=value, as every attribute condition is written
    for name, value in case.attrs.items():
        if value is None or not re.search(rf"\b{re.escape(name.lower())}\b", text):
            continue
        quoted = re.escape(str(value).lower())
        after_name = rf"\b(?:{re.escape(name.lower())}|got)\W{{0,3}}{quoted}(?![\w.])"
        if re.search(rf"'{quoted}'|\"{quoted}\"|{after_name}", text):
            return f"{name}={value!r}"
    return None


_FIXED = {
    MismatchKind.PROTOCOL: Condition.any(),  # the oracle broke its contract: one fault, whatever the input
    MismatchKind.TIMEOUT: Condition.of(ConditionKind.HANGS),  # how slow is "hung" depends on the machine
    MismatchKind.INTERNAL: Condition.any(),  # one fault inside the framework, whatever input reaches it
    MismatchKind.UNDOCUMENTED_DTYPE: Condition.of(ConditionKind.UNDOCUMENTED_DTYPE),
    MismatchKind.WRONG_DTYPE: Condition.dtype(DtypeArg.DATA),
}
"""Mismatches whose condition is the same whatever the input."""


def condition(case: Case, verdict: Verdict, got: Outcome, reference: Outcome | None) -> Condition:
    """The condition of a discrepancy (the rule in the module docstring)."""
    tags = case.tags
    assert tags is not None, "campaign cases are always tagged"
    outcome = verdict.outcome.kind
    if outcome is MismatchKind.INTERNAL and reference is not None and reference.rule is not None:
        return Condition.precondition(reference.rule)  # torch.compile's list index error for dim=3: the axis rule's
    if outcome in _FIXED:
        return _FIXED[outcome]
    if outcome is MismatchKind.DTYPE_REJECTED:
        return Condition.dtype(rejected_dtype(case, got)[0])  # which dtypes: the variants
    errs = got.kind is Kind.ERROR and outcome in (MismatchKind.ERROR_INSTEAD_OF_VALUE, MismatchKind.WRONG_ERROR)
    named = attribute_blamed(case, got) if errs else None
    if named:
        return Condition.attribute(named)
    if outcome is MismatchKind.NAN_PAYLOAD:
        return Condition.data_values(dtype_name(np.asarray(case.data).dtype))
    if verdict.behaviour is Behaviour.UNCHECKED:
        return Condition.of(ConditionKind.EMPTY_OUTPUT)
    broken_rule = reference is not None and reference.error_class in PRECONDITION_ERRORS
    if broken_rule and outcome in (MismatchKind.VALUE_INSTEAD_OF_ERROR, MismatchKind.WRONG_ERROR):
        assert reference is not None
        return Condition.precondition(reference.rule or UNNAMED_RULE)  # the reference's own field, not its message
    silent = outcome is MismatchKind.SPEC_SILENT
    if tags.regime in POLICY_REGIMES and (verdict.behaviour in POLICY_WORDS or silent):
        if np.asarray(case.data).size == 0:  # from empty data: the gathered axis is empty, whatever the index held
            return Condition.of(ConditionKind.EMPTY_AXIS)
        if silent:
            return Condition.regime(tags.regime)  # where the docs are silent, and no further
        return BEYOND_INT32 if beyond_int32(case.indices) else BAD_INDEX
    if _shapes_refused(got, reference, case):  # a shape error whatever the indices hold: the regime changes nothing
        return Condition.shapes_refused(Flag.EMPTY_DATA in tags.flags)
    if outcome is MismatchKind.WRONG_ERROR and reference is not None and reference.error_class in INDEX_ERRORS:
        return BAD_INDEX
    if outcome is MismatchKind.ERROR_INSTEAD_OF_VALUE and Flag.EMPTY_DATA in tags.flags:
        return Condition.of(ConditionKind.EMPTY_DATA)
    return Condition.regime(tags.regime, tags.flags)


def _shapes_refused(got: Outcome, reference: Outcome | None, case: Case) -> bool:
    """The framework raised a shape error where the reference gives a value,
    or raises only for the indices' values on data that has elements (an index could be in range, and the
    trigger's counterfactuals bring it there): it refuses shapes its docs accept. On empty data every index is out
    of range, so the call fails either way and a shape error is only another error (audit of stop 46, 7B n=37:
    onnx.reference's GatherElements refusing data (2, 0), indices [[7]] for its shapes was no departure, the same
    refusal with data (2, 1), indices [[0]] is).

    >>> shape = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID)
    >>> index = Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE)
    >>> empty = Case("onnx.GatherElements-13", np.zeros((2, 0)), np.array([[7]]), {"axis": 1})
    >>> _shapes_refused(shape, index, empty), _shapes_refused(shape, index, replace(empty, data=np.zeros((2, 1))))
    (False, True)
    """
    if got.kind is not Kind.ERROR or got.error_class is not ErrorClass.SHAPE_INVALID or reference is None:
        return False
    return reference.kind is Kind.VALUE or (reference.error_class in INDEX_ERRORS and np.size(case.data) > 0)


READINGS = frozenset({Behaviour.WRAPS, Behaviour.CLAMPS, Behaviour.CLAMPS_RAW, Behaviour.FILLS})
"""Index policies that read an element of the input whatever the index dtype: an undocumented dtype accepted and
read so is the dtype's fact alone (onnx.reference's GatherElements wraps index 4 given as int8 as it does given as
int64, a finding of its own; "undocumented dtype accepted, observed policy wraps" was the two at once, audit of
stop 46). A word of how the dtype itself is read (its low 32 bits, unsigned as signed) or of a read outside the input
stays."""


def _answers_as_documented(got: Outcome, reference: Outcome | None) -> bool:
    """Whether ``got`` is the reference's own value, bit for bit (an
    undocumented dtype accepted and read as the docs say for a documented one).

    >>> _answers_as_documented(Outcome.returned(np.array([3])), Outcome.returned(np.array([3])))
    True
    >>> _answers_as_documented(Outcome.returned(np.array([3])), Outcome.returned(np.array([0])))
    False
    """
    if reference is None or got.kind is not Kind.VALUE or reference.kind is not Kind.VALUE:
        return False
    return same_bits(np.asarray(got.value), np.asarray(reference.value))  # dtype and shape included


def signature(case: Case, info: OracleInfo, verdict: Verdict, got: Outcome, reference: Outcome | None) -> Signature:
    """The root cause of one non-conforming judgement.

    >>> from conformance.core.case import CaseTags
    >>> case = Case("onnx.Gather-11", np.zeros(3), np.array([-1]), {"axis": 0}, CaseTags("negative", "int64", "float"))
    >>> info = OracleInfo("ort", "onnxruntime", "1.31.1", "cpu", "session", ("onnx.Gather-11",))
    >>> verdict = Verdict(False, Mismatch(MismatchKind.WRONG_VALUE), Behaviour.CLAMPS_RAW)
    >>> signature(case, info, verdict, Outcome.returned(np.zeros(1)), None).words()
    'onnx.Gather on ort 1.31.1 (cpu, session): wrong value, observed policy clamps (raw), for bad index'
    """
    read = as_int_reading(case, reference) if reference is not None else None
    if read is not None:  # judged on the int a bool stands for (verdict._verdict): named on it too
        case, reference = read
    cond = condition(case, verdict, got, reference)
    refused = cond.kind is ConditionKind.ATTRIBUTE
    in_regime = case.tags is not None and case.tags.regime in POLICY_REGIMES
    named = verdict.behaviour in POLICY_WORDS or verdict.behaviour is Behaviour.RAISES
    kind = verdict.outcome.kind
    about_indices = cond.kind not in NOT_ABOUT_INDICES and kind not in (MismatchKind.PROTOCOL, MismatchKind.WRONG_DTYPE)
    policy = verdict.behaviour if in_regime and named and about_indices and not refused else None
    if kind is MismatchKind.UNDOCUMENTED_DTYPE and (_answers_as_documented(got, reference) or policy in READINGS):
        policy = None  # the fact is the dtype accepted; the policy it then follows is no second fact of it
    if refused:
        outcome = Mismatch(MismatchKind.ATTRIBUTE_REFUSED)
    elif cond.kind is ConditionKind.SHAPES_REFUSED:
        outcome = Mismatch(MismatchKind.SHAPES_REFUSED)
    else:
        outcome = verdict.outcome
    return Signature(family(case.op), info.name, info.version, info.device, info.mode, outcome, policy, cond)


def variant(case: Case, behaviour: Behaviour) -> Mapping[str, str]:
    """What a finding merges, for one example: its op key, regime, dtypes and
    the behaviour the judge named on it.

    >>> from conformance.core.case import CaseTags
    >>> tags = CaseTags("oob-above", "int64", "float")
    >>> dict(variant(Case("onnx.Gather-11", np.zeros(3, np.float32), np.array([5]), {"axis": 0}, tags),
    ...     Behaviour.WRAPS))
    {'op': 'onnx.Gather-11', 'regime': 'oob-above', 'data dtype': 'float32', 'index dtype': 'int64', 'behaviour':
    'wraps'}
    """
    regime = case.tags.regime.value if case.tags else ""
    return {
        "op": case.op,
        "regime": regime,
        "data dtype": dtype_name(np.asarray(case.data).dtype),
        "index dtype": np.asarray(case.indices).dtype.name,
        "behaviour": behaviour.value,
    }
