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
    broken (``precondition: rank mismatch``...), read off the reference's
    error, whatever the indices;
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
>>> case = Case("onnx.Gather-13", np.zeros((2, 0)), np.array([5]), {"axis": 0}, CaseTags("oob-above", "int64", "float"))
>>> condition(case, Verdict(False, "value instead of error", Behaviour.UNCHECKED), Outcome.returned(np.zeros(0)), None)
('empty output',)
>>> family("onnx.Gather-13"), family("torch.gather")
('onnx.Gather', 'torch.gather')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

import numpy as np

from conformance.cases.class_case import POLICY_REGIMES
from conformance.core.arrays import dtype_family, dtype_name
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, OpKey
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.judge.signature import Signature
from conformance.judge.verdict import (
    DTYPE_REJECTED,
    INTERNAL,
    NAN_PAYLOAD,
    SPEC_SILENT,
    UNDOCUMENTED_DTYPE,
    PolicyValues,
    Verdict,
    fitting_words,
    observed_policy,
)

STRUCTURAL_FLAGS = ("0-d", "batch_dims>0")
"""Case flags that enter a condition where the regime alone does not decide."""

PRECONDITION_RULES: tuple[tuple[str, str], ...] = (
    ("dimensions of params", "batch mismatch"),
    ("dimensions of data", "batch mismatch"),
    ("batch_dims", "batch_dims out of range"),
    ("must equal indices.ndim", "rank mismatch"),
    ("same rank", "rank mismatch"),
    ("indices must have rank", "0-d indices"),
    ("rank >= 1", "0-d input"),
    ("must not exceed", "index larger than input"),
    ("not broadcastable", "not broadcastable"),
    ("must equal input.shape", "shapes differ"),
    ("indices.shape[-1]", "index tuple length"),
    ("must be 1-d", "index rank"),
    ("0-d or 1-d", "index rank"),
    ("is out of range for a rank", "axis out of range"),
    ("must be an int", "attribute type"),
)
"""The rule a precondition error of the reference names (first match of a
fragment of its message), as a short condition."""

BAD_INDEX = "bad index"
BEYOND_INT32 = "index beyond int32"
"""The two conditions of an index policy: ordinary bad indices, and indices
that do not fit in int32 (where a framework that narrows them answers
whatever the narrowed value reads)."""

INDEX_WORDS = ("index", "indices", "tindices", "out_type")
"""Words by which a dtype error speaks of the index argument (TF names its
index dtype attribute ``Tindices`` or ``out_type``)."""
ATTRIBUTE_REFUSED = "attribute refused"
"""The outcome of a root cause whose error quotes an attribute: one finding
whatever the reference expected there (a value, or another error)."""
SHAPES_REFUSED = "shapes refused"
"""The outcome and condition of a shape error where the docs accept the
shapes: one finding whatever the index values (``empty data`` apart)."""
EMPTY_AXIS = "empty axis"
"""The condition of a value for an index into an empty gathered axis: no
policy places it, so what comes back (a fill, zeros of another shape) is one
finding, its words the variants."""

_INDEX_ERRORS = (ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.NEGATIVE_INDEX)
_POLICY_WORDS = frozenset(
    {
        Behaviour.WRAPS,
        Behaviour.CLAMPS,
        Behaviour.CLAMPS_RAW,
        Behaviour.ZERO_FILLS,
        Behaviour.FILLS,
        Behaviour.AMBIGUOUS,
        Behaviour.GARBAGE,
    }
)


def beyond_int32(indices: object) -> bool:
    """Whether some index does not fit in int32.

    >>> beyond_int32(np.array([3, -2**31])), beyond_int32(np.array([2**31])), beyond_int32(np.array(2**64 - 1, np.uint64))
    (False, True, True)
    """
    wide = np.asarray(indices).astype(object)
    return bool(wide.size) and bool(np.any((wide >= 2**31) | (wide < -(2**31))))


def settled_forms(sig: Signature, fits: Collection[str]) -> list[Signature]:
    """The root causes a sighting may belong to once drawing ends, given the
    words that fit its example (``fits``), in the order :func:`merged_into`
    tries them; the sighting's own signature last. The rule for behaviours
    that one example cannot name:

    - an ``ambiguous`` example joins the root cause named, on evidence from
      another example, for the same oracle, op family and outcome, with a
      word that fits it (ordinary bad indices first);
    - a word seen beyond int32 joins the same word on ordinary bad indices
      (one policy); where it is not seen there, the words beyond int32 are
      one finding without a policy (what the narrowed index reads: variants).

    >>> s = Signature("jax.numpy.take", "jax", "0.8", "cpu", "x64", "wrong value", "garbage", (BEYOND_INT32,))
    >>> [(f.policy, f.tags) for f in settled_forms(s, {"garbage"})]
    [('garbage', ('bad index',)), ('', ('index beyond int32',)), ('garbage', ('index beyond int32',))]
    """
    cond = sig.tags
    if cond not in ((BAD_INDEX,), (BEYOND_INT32,)) or sig.policy == "" and cond != (BEYOND_INT32,):
        return [sig]
    unnamed = sig.policy in (Behaviour.AMBIGUOUS.value, "")  # ambiguous, or the words beyond int32 already settled
    words = [w for w in sorted(fits) if w != Behaviour.AMBIGUOUS.value] if unnamed else [sig.policy]
    forms = [replace(sig, policy=word, tags=tags) for tags in dict.fromkeys([(BAD_INDEX,), cond]) for word in words]
    forms += [replace(sig, policy="")] if cond == (BEYOND_INT32,) else []
    return [f for f in dict.fromkeys(forms) if f != sig] + [sig]


def merged_into(sig: Signature, fits: Collection[str], seen: Collection[Signature]) -> Signature | None:
    """Where a root cause's sightings move once drawing ends (the first of
    its :func:`settled_forms` seen; beyond int32, the one without a policy),
    given every root cause seen; ``None`` where it stays.

    >>> s = Signature("jax.numpy.take", "jax", "0.8", "cpu", "x64", "wrong value", "garbage", (BEYOND_INT32,))
    >>> merged_into(s, {"garbage"}, [s]).policy
    ''
    >>> named = Signature("torch.take_along_dim", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps", (BAD_INDEX,))
    >>> merged_into(replace(named, policy="ambiguous"), {"wraps", "clamps"}, [named]) == named
    True
    """
    forms = settled_forms(sig, fits)[:-1]
    seen_form = next((f for f in forms if f in seen), None)
    return seen_form or (replace(sig, policy="") if sig.tags == (BEYOND_INT32,) and sig.policy else None)


def still_shows(seen: Signature, root: Signature) -> bool:
    """Whether a shrink candidate judged ``seen`` still shows the root cause
    ``root``: the same signature (a named behaviour stays named, so the
    example stays discriminating), or, for the policy-less finding beyond
    int32, any word beyond int32.

    >>> root = Signature("jax.numpy.take", "jax", "0.8", "cpu", "x64", "wrong value", "", (BEYOND_INT32,))
    >>> still_shows(replace(root, policy="fills"), root), still_shows(replace(root, policy="fills"), replace(root, policy="garbage"))
    (True, False)
    """
    return seen == root or (root.tags == (BEYOND_INT32,) and root.policy == "" and replace(seen, policy="") == root)


def example_words(case: Case, got: Outcome) -> frozenset[str]:
    """The behaviour words that fit ``got`` on ``case``: the one the judge
    names, or every candidate's that explains it where it is ambiguous
    (:func:`~conformance.judge.verdict.fitting_words`).

    >>> sorted(example_words(Case("numpy.take", np.array([7]), np.array([1]), {"axis": 0, "mode": "raise"}), Outcome.returned(np.array([7]))))
    ['clamps', 'wraps']
    """
    if got.kind is not Kind.VALUE or got.value is None:
        return frozenset()
    values = PolicyValues(case)
    named = observed_policy(got, values)
    if named is not Behaviour.AMBIGUOUS:
        return frozenset({named.value})
    return frozenset(b.value for b in fitting_words(np.asarray(got.value), values))


def family(op: str) -> str:
    """The op family of a catalog key: ONNX opsets merged."""
    return OpKey.parse(op).family


def precondition_rule(message: str) -> str:
    """The rule a reference precondition error names.

    >>> precondition_rule("torch.gather: data and indices must have the same rank, got 2 and 1")
    'rank mismatch'
    """
    text = message.lower()
    return next((rule for needle, rule in PRECONDITION_RULES if needle in text), "precondition")


def _dtype_word(name: str) -> str:
    """A dtype as a condition: complex (both widths) as one, others by name."""
    return "complex" if dtype_family(name) == "complex" else name


def rejected_dtype(case: Case, got: Outcome) -> str:
    """Which of the case's dtypes a ``dtype rejected`` error blames: the index
    dtype when the message names it or speaks of the index (and does not name
    the data's dtype), else the data dtype.

    >>> rejected_dtype(Case("t.g", np.zeros(2, np.complex64), np.zeros(1, np.int16), {}), Outcome(Kind.ERROR, message="no kernel for complex64"))
    'data:complex'
    >>> tf = "Value for attr 'out_type' of int8 is not in the list of allowed values: int32, int64"
    >>> rejected_dtype(Case("t.g", np.zeros(2, np.int32), np.zeros(1, np.int8), {}), Outcome(Kind.ERROR, message=tf))
    'index:int8'
    """
    data, index = dtype_name(np.asarray(case.data).dtype), np.asarray(case.indices).dtype.name
    text = (got.message or "").lower().split("allowed values")[0]  # the list of what is accepted names no culprit
    if (index in text and data not in text) or any(word in text for word in INDEX_WORDS):
        return f"index:{index}"
    return f"data:{_dtype_word(data)}"


def _attribute_blamed(case: Case, got: Outcome) -> str | None:
    """``name=value`` of the case's first attribute whose name and value the
    error message quotes (``The 'raise' mode to take is not supported``).

    >>> _attribute_blamed(Case("t.t", np.zeros(1), np.zeros(1, int), {"axis": 0, "mode": "raise"}),
    ...                   Outcome(Kind.ERROR, message="The 'raise' mode to take is not supported."))
    "mode='raise'"
    """
    text = (got.message or "").lower()
    for name, value in case.attrs.items():
        if value is not None and name.lower() in text and str(value).lower() in text:
            return f"{name}={value!r}"
    return None


def condition(case: Case, verdict: Verdict, got: Outcome, reference: Outcome | None) -> tuple[str, ...]:
    """The condition of a discrepancy (the rule in the module docstring)."""
    tags = case.tags
    assert tags is not None, "campaign cases are always tagged"
    outcome = verdict.outcome
    if outcome == "protocol error":  # the oracle broke its contract: one fault, whatever the input
        return ()
    if outcome == "timeout":  # how slow is "hung" depends on the machine: one hang per oracle and op family
        return ("hangs",)
    if outcome == INTERNAL:  # one fault inside the framework, whatever input reaches it
        return ()
    if outcome == DTYPE_REJECTED:
        return (f"{rejected_dtype(case, got).split(':')[0]} dtype",)  # which dtypes: the variants
    if outcome in (UNDOCUMENTED_DTYPE, "wrong dtype"):
        return ("data dtype",) if outcome == "wrong dtype" else ("undocumented dtype",)
    named = (
        _attribute_blamed(case, got)
        if got.kind is Kind.ERROR and outcome.startswith(("error instead of value", "wrong error"))
        else None
    )
    if named:
        return (named,)
    if outcome == NAN_PAYLOAD:
        return (f"data:{dtype_name(np.asarray(case.data).dtype)}",)
    if verdict.behaviour is Behaviour.UNCHECKED:
        return ("empty output",)
    broken_rule = reference is not None and reference.error_class in (
        ErrorClass.SHAPE_INVALID,
        ErrorClass.ATTRIBUTE_INVALID,
    )
    if broken_rule and (outcome == "value instead of error" or outcome.startswith("wrong error")):
        assert reference is not None
        return (f"precondition: {precondition_rule(reference.message or '')}",)
    if tags.regime in POLICY_REGIMES and verdict.behaviour in _POLICY_WORDS:
        if outcome == SPEC_SILENT:
            return (tags.regime,)  # where the docs are silent, and no further
        if np.asarray(case.data).size == 0:  # a non-empty output from empty data: the gathered axis is empty
            return (EMPTY_AXIS,)
        return (BEYOND_INT32,) if beyond_int32(case.indices) else (BAD_INDEX,)
    if _shapes_refused(got, reference):  # a shape error whatever the indices hold: the regime changes nothing
        return (SHAPES_REFUSED, *(["empty data"] if "empty-data" in tags.flags else []))
    if outcome.startswith("wrong error") and reference is not None and reference.error_class in _INDEX_ERRORS:
        return (BAD_INDEX,)
    if outcome.startswith("error instead of value") and "empty-data" in tags.flags:
        return ("empty data",)
    return (tags.regime, *(f for f in STRUCTURAL_FLAGS if f in tags.flags))


def _shapes_refused(got: Outcome, reference: Outcome | None) -> bool:
    """The framework raised a shape error where the reference gives a value,
    or raises only for the indices' values: it refuses shapes its docs accept."""
    if got.kind is not Kind.ERROR or got.error_class is not ErrorClass.SHAPE_INVALID or reference is None:
        return False
    return reference.kind is Kind.VALUE or reference.error_class in _INDEX_ERRORS


def signature(case: Case, info: OracleInfo, verdict: Verdict, got: Outcome, reference: Outcome | None) -> Signature:
    """The root cause of one non-conforming judgement.

    >>> from conformance.core.case import CaseTags
    >>> case = Case("onnx.Gather-11", np.zeros(3), np.array([-1]), {"axis": 0}, CaseTags("negative", "int64", "float"))
    >>> info = OracleInfo("ort", "onnxruntime", "1.31.1", "cpu", "session", ("onnx.Gather-11",))
    >>> signature(case, info, Verdict(False, "wrong value", Behaviour.CLAMPS_RAW), Outcome.returned(np.zeros(1)), None).words()
    'onnx.Gather on ort 1.31.1 (cpu, session): wrong value, observed policy clamps (raw), for bad index'
    """
    cond = condition(case, verdict, got, reference)
    blamed = _attribute_blamed(case, got) if got.kind is Kind.ERROR else None
    refused = blamed is not None and cond == (blamed,)
    in_regime = case.tags is not None and case.tags.regime in POLICY_REGIMES
    named = verdict.behaviour in _POLICY_WORDS or verdict.behaviour is Behaviour.RAISES
    about_indices = not (
        cond and cond[0].startswith(("precondition:", "data", EMPTY_AXIS, SHAPES_REFUSED))
    ) and verdict.outcome not in ("protocol error", "wrong dtype")
    policy = verdict.behaviour.value if in_regime and named and about_indices and not refused else ""
    outcome = ATTRIBUTE_REFUSED if refused else SHAPES_REFUSED if cond[:1] == (SHAPES_REFUSED,) else verdict.outcome
    return Signature(family(case.op), info.name, info.version, info.device, info.mode, outcome, policy, cond)


def variant(case: Case, behaviour: Behaviour) -> Mapping[str, str]:
    """What a finding merges, for one example: its op key, regime, dtypes and
    the behaviour the judge named on it.

    >>> from conformance.core.case import CaseTags
    >>> dict(variant(Case("onnx.Gather-11", np.zeros(3, np.float32), np.array([5]), {"axis": 0}, CaseTags("oob-above", "int64", "float")), Behaviour.WRAPS))
    {'op': 'onnx.Gather-11', 'regime': 'oob-above', 'data dtype': 'float32', 'index dtype': 'int64', 'behaviour': 'wraps'}
    """
    regime = case.tags.regime if case.tags else ""
    return {
        "op": case.op,
        "regime": regime,
        "data dtype": dtype_name(np.asarray(case.data).dtype),
        "index dtype": np.asarray(case.indices).dtype.name,
        "behaviour": behaviour.value,
    }
