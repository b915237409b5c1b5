"""An oracle's outcome against the reference: a :class:`Verdict`.

The reference outcome of a case is what :func:`~conformance.spec.reference.reference`
returns (bit-exact value, shape, dtype) or raises under the op's documented
policy. :func:`judge` compares an oracle's :class:`~oracles.base.Outcome` with
it: value vs value bit for bit; value vs error; error vs error by the group of
its class (:data:`~conformance.core.vocabulary.ERROR_GROUPS`: an index error where a shape rule is broken
is the wrong error); an internal error (an assert, an overflow) is always a
fault; crash and timeout are their own outcomes. Dtypes: rejecting a dtype
the docs promise is ``dtype rejected``; a dtype they do not promise may be
rejected freely, and if accepted its value is judged all the same (and for a
type-constrained spec, ONNX, accepting it is a finding). Where the op's docs
are silent (``OpSpec.unspecified``) the outcome is ``spec silent``.

In the policy regimes (negative, out of range, extremes) the judge also names
the *observed* policy (:func:`observed_policy`): raises, wraps, clamps,
clamps (raw), ``fills or garbage`` (a value no element-reading policy gives
where an index is out of range, and only there: a fill and a stray read of
memory look alike), ``ambiguous`` when the example cannot tell two of them
apart, or garbage when none explains it.

>>> import numpy as np
>>> from conformance.core.case import CaseTags
>>> case = Case("numpy.take", np.array([10, 20, 30]), np.array([-1]), {"axis": 0, "mode": "raise"},
...     CaseTags("negative", "int64", "int"))
>>> v = judge(case, reference_outcome(case), Outcome.returned(np.array([10])), PolicyValues(case))
>>> v.conforms, str(v.outcome), str(v.behaviour)
(False, 'wrong value', 'clamps (raw)')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from conformance.core.arrays import data_dtype_name, same_bits, unequal_elements
from conformance.core.behaviour import Behaviour
from conformance.core.blame import Rule
from conformance.core.case import Case, OpKey, int_reading
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import POLICY_REGIMES, PRECONDITION_ERRORS, ErrorGroup, Mismatch, MismatchKind
from conformance.spec.basis import refused_by_shape_limit, regime_permitted, runtime_limit, zero_d_permitted
from conformance.spec.catalog import TYPE_CONSTRAINED, spec
from conformance.spec.errors import IndexOutOfRangeError, PreconditionError
from conformance.spec.policy import (
    CLIP,
    MODULO,
    ONNX,
    WRAP_THEN_CLAMP,
    WRAP_THEN_FILL,
    WRAP_THEN_ZERO,
    ZERO_FILL,
    IndexPolicy,
    OutOfRange,
)
from conformance.spec.reference import reference

CANDIDATES: tuple[tuple[IndexPolicy, Behaviour], ...] = (
    (ONNX, Behaviour.WRAPS),  # negatives wrap once (in the negative regime)
    (MODULO, Behaviour.WRAPS),
    (WRAP_THEN_CLAMP, Behaviour.CLAMPS),
    (CLIP, Behaviour.CLAMPS_RAW),
    (ZERO_FILL, Behaviour.FILLS_OR_GARBAGE),
    (WRAP_THEN_ZERO, Behaviour.FILLS_OR_GARBAGE),  # OpenVINO's Gather-8: negatives wrap, the rest reads zero
    (WRAP_THEN_FILL, Behaviour.FILLS_OR_GARBAGE),
)
"""Every policy tried to explain a value, with its word where the example
holds both in-range negatives and out-of-range indices (see :func:`candidates`)."""

NEGATIVES_ONLY: tuple[tuple[IndexPolicy, Behaviour], ...] = (
    (ONNX, Behaviour.WRAPS),  # MODULO, WRAP_THEN_CLAMP and WRAP_THEN_FILL read [-size, -1] the same way
    (CLIP, Behaviour.CLAMPS_RAW),
    (ZERO_FILL, Behaviour.FILLS_OR_GARBAGE),
)
OUT_OF_RANGE_ONLY: tuple[tuple[IndexPolicy, Behaviour], ...] = (
    (MODULO, Behaviour.WRAPS),
    (WRAP_THEN_CLAMP, Behaviour.CLAMPS),  # CLIP clamps the same way when no index lies in [-size, -1]
    (CLIP, Behaviour.CLAMPS),
    (ZERO_FILL, Behaviour.FILLS_OR_GARBAGE),
    (WRAP_THEN_FILL, Behaviour.FILLS_OR_GARBAGE),
)


NARROWING: tuple[Behaviour, ...] = (Behaviour.LOW_32_BITS, Behaviour.SIGNED)
"""What a framework may make of an index its policy never sees as drawn
(:func:`reread`): each word is named when the op's own policy, or any
candidate policy, on the re-read indices gives the value."""


def reread(indices: np.ndarray, how: Behaviour) -> np.ndarray | None:
    """``indices`` as a framework reads them that keeps only the low 32 bits
    of a 64-bit index (``LOW_32_BITS``, a C cast to int32 or uint32) or reads
    an unsigned index as the signed integer of its width (``SIGNED``); None
    where that reads every index as drawn (nothing to tell apart).

    >>> reread(np.array([2**32 + 1, 3]), Behaviour.LOW_32_BITS).tolist()
    [1, 3]
    >>> reread(np.array([2**64 - 1], np.uint64), Behaviour.SIGNED).tolist(), reread(np.array([5]), Behaviour.SIGNED)
    ([-1], None)
    >>> reread(np.array([2**64 - 2], np.uint64), Behaviour.LOW_32_BITS).tolist()
    [4294967294]
    """
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        return None
    if how is Behaviour.LOW_32_BITS:
        out = idx.astype(np.int32 if idx.dtype.kind == "i" else np.uint32) if idx.dtype.itemsize == 8 else None
    else:
        out = idx.view(idx.dtype.str.replace("u", "i")) if idx.dtype.kind == "u" else None
    return out if out is not None and not np.array_equal(out.astype(object), idx.astype(object)) else None


BATCH_READS: tuple[Behaviour, ...] = (Behaviour.BATCH_DIVIDED, Behaviour.BATCH_BROADCAST)
"""What a framework may make of batch dimensions that differ (``batch_dims``
> 0, data batch ``n``, index batch ``m``): index batch ``b`` reads data batch
``b // (m // n)``, or a data batch of 1 serves every index batch
(:func:`batch_mapped`)."""


def batch_mapped(case: Case, how: Behaviour) -> np.ndarray | None:
    """The reference's answer for ``case`` with its data's batch dimensions
    read ``how`` (one of :data:`BATCH_READS`): the data batch each index batch
    reads, then the op's own rule; None where ``how`` cannot read these
    shapes (no ``batch_dims``, a batch that does not divide, no batch of 1)
    or reads every batch as it is.

    >>> case = Case("onnx.GatherND-12", np.arange(6).reshape(2, 3), np.array([[0], [1], [2], [0]]), {"batch_dims": 1})
    >>> batch_mapped(case, Behaviour.BATCH_DIVIDED).tolist()   # batches 0, 1 read data batch 0; 2, 3 data batch 1
    [0, 1, 5, 3]
    >>> batch_mapped(case, Behaviour.BATCH_BROADCAST) is None   # no batch of 1
    True
    """
    data, idx = np.asarray(case.data), np.asarray(case.indices)
    b = case.attrs.get("batch_dims", 0)
    if not isinstance(b, int) or b <= 0 or data.ndim < b or idx.ndim < b:
        return None
    rows: list[np.ndarray] = []
    for n, m in zip(data.shape[:b], idx.shape[:b], strict=True):
        if how is Behaviour.BATCH_DIVIDED and n > 0 and m % n == 0:
            rows.append(np.arange(m) // (m // n))
        elif how is Behaviour.BATCH_BROADCAST and n in (1, m):
            rows.append(np.arange(m) if n == m else np.zeros(m, np.intp))
        else:
            return None
    if data.shape[:b] == idx.shape[:b]:
        return None
    try:
        value = reference(case.op, data[np.ix_(*rows)], idx, check_dtypes=False, **case.attrs)
    except (IndexError, ValueError, TypeError):
        return None
    return np.asarray(value)


def batch_reading(case: Case, value: np.ndarray) -> Behaviour | None:
    """The one word of :data:`BATCH_READS` whose reading gives ``value``,
    ``ambiguous`` where both do (a data batch of 1), None where none does.

    >>> data, idx = np.arange(6).reshape(2, 3) * 10, np.array([[0], [1], [2], [0]])
    >>> batch_reading(Case("onnx.GatherND-12", data, idx, {"batch_dims": 1}), np.array([0, 10, 50, 30])).value
    'reads data batch b // k'
    >>> batch_reading(Case("onnx.GatherND-12", data[:1], idx, {"batch_dims": 1}), np.array([0, 10, 20, 0])).value
    'ambiguous'
    """
    words = [how for how in BATCH_READS if (v := batch_mapped(case, how)) is not None and same_bits(value, v)]
    return words[0] if len(words) == 1 else (Behaviour.AMBIGUOUS if words else None)


def candidates(values: PolicyValues) -> tuple[tuple[IndexPolicy, Behaviour], ...]:
    """The candidate policies for ``values``' case, each with the word it earns
    *on this example*. Policies that cannot differ on it share a word: with
    only negative indices in ``[-size, -1]`` every wrapping policy "wraps";
    with no such negative index the two clamps are one "clamps". Which case
    holds is read off the policies themselves: the default policy raises only
    for an index out of range, and the clamps differ only on an in-range negative.

    >>> c = Case("numpy.take", np.arange(4), np.array([5]), {"axis": 0, "mode": "raise"})
    >>> [b.value for _, b in candidates(PolicyValues(c))][:3]
    ['wraps', 'clamps', 'clamps']
    """
    out_of_range = values.under(ONNX) is None
    clip, wrap_clamp = values.under(CLIP), values.under(WRAP_THEN_CLAMP)
    negative = clip is None or wrap_clamp is None or not same_bits(clip, wrap_clamp)
    if not out_of_range:
        return NEGATIVES_ONLY
    return CANDIDATES if negative else OUT_OF_RANGE_ONLY


@dataclass(frozen=True)
class Verdict:
    """``conforms``; ``outcome``: ``ok`` or the :class:`~conformance.core.vocabulary.Mismatch`
    (the signature's outcome); ``behaviour``: the observed policy, CONFORMS for
    an in-range value that matches, or what went wrong."""

    conforms: bool
    outcome: Mismatch
    behaviour: Behaviour


def reference_outcome(case: Case) -> Outcome:
    """The reference's :class:`Outcome` for ``case``, from its error's type and
    fields (:mod:`conformance.spec.errors`), never its message: an index the
    policy cannot place is an index error; a precondition is an attribute error
    where it blames an attribute, else a shape error, and the outcome carries
    its rule and argument. The error's type is the one the op documents.

    >>> reference_outcome(Case("torch.gather", np.arange(3), np.array([-1]), {"dim": 0})).error_class.name
    'INDEX_OUT_OF_RANGE'
    >>> ref = reference_outcome(Case("torch.gather", np.arange(3), np.array([[0]]), {"dim": 0}))
    >>> ref.error_type, str(ref.error_class), str(ref.rule), ref.argument
    ('ValueError', 'shape invalid', 'rank mismatch', 'indices')
    """
    try:
        value = reference(case.op, case.data, case.indices, check_dtypes=False, **case.attrs)
    except IndexOutOfRangeError as exc:
        return replace(Outcome.raised(exc, ErrorClass.INDEX_OUT_OF_RANGE), error_type=exc.documented)
    except PreconditionError as exc:
        error_class = ErrorClass.ATTRIBUTE_INVALID if exc.blames_attribute else ErrorClass.SHAPE_INVALID
        outcome = Outcome.raised(exc, error_class)
        return replace(outcome, error_type=exc.documented, rule=exc.rule, argument=exc.argument)
    except (IndexError, ValueError, TypeError) as exc:  # no rule of the docs: the reference's own call refused
        return Outcome.raised(exc, ErrorClass.SHAPE_INVALID)
    return Outcome.returned(np.asarray(value))


@dataclass
class PolicyValues:
    """The reference's value for ``case`` under each alternative policy,
    computed on first use and shared by every oracle judged on the case."""

    case: Case
    _cache: dict[str, np.ndarray | None] = field(default_factory=dict)
    _reread: dict[str, PolicyValues | None] = field(default_factory=dict)

    def under(self, policy: IndexPolicy) -> np.ndarray | None:
        """The value under ``policy``, or None where it raises."""
        if policy.name not in self._cache:
            try:
                v = reference(
                    self.case.op,
                    self.case.data,
                    self.case.indices,
                    policy=policy,
                    check_dtypes=False,
                    **self.case.attrs,
                )
                self._cache[policy.name] = np.asarray(v)
            except (IndexError, ValueError, TypeError):
                self._cache[policy.name] = None
        return self._cache[policy.name]

    def own(self) -> np.ndarray | None:
        """The value under the op's own documented policy, or None where it raises."""
        ref = reference_outcome(self.case)
        return None if ref.value is None else np.asarray(ref.value)

    def reread(self, how: Behaviour) -> PolicyValues:
        """The values of the case with its indices re-read ``how`` (:func:`reread`);
        an empty set of values where that changes no index."""
        if how.value not in self._reread:
            idx = reread(np.asarray(self.case.indices), how)
            self._reread[how.value] = PolicyValues(replace(self.case, indices=idx)) if idx is not None else None
        return self._reread[how.value] or NO_VALUES

    def explains(self, value: np.ndarray) -> bool:
        """Whether the op's own policy or a candidate policy gives exactly ``value``."""
        if self is NO_VALUES:
            return False
        values = [self.own(), *(self.under(p) for p, _ in CANDIDATES)]
        return any(v is not None and same_bits(value, v) for v in values)


NO_VALUES = PolicyValues(Case("numpy.take", np.zeros(0), np.zeros(0, np.int64), {}))
"""The values of no re-reading (:meth:`PolicyValues.reread` where it changes no index): explains nothing."""


def _wrong_only_where_out_of_range(got: np.ndarray, values: PolicyValues, base: IndexPolicy) -> bool:
    """True if ``got`` is ``base``'s (a fill policy) result everywhere but
    where it fills (the fill positions: where two fill values differ), and
    differs there: what a fill of another value and a stray read both give."""
    zero = values.under(base.with_fill(False if got.dtype == np.bool_ else ("" if got.dtype.kind in "US" else 0)))
    ones = values.under(base.with_fill(True if got.dtype == np.bool_ else ("x" if got.dtype.kind in "US" else 1)))
    if zero is None or ones is None or zero.shape != got.shape or zero.dtype != got.dtype:
        return False
    mask = unequal_elements(zero, ones)  # the positions a fill policy writes
    return bool(mask.any()) and not unequal_elements(got, zero)[~mask].any()


def fitting_words(value: np.ndarray, values: PolicyValues) -> frozenset[Behaviour]:
    """The words of every candidate policy (:func:`candidates`) that gives
    exactly ``value``: one word names the behaviour, several leave it ambiguous.

    >>> one = Case("numpy.take", np.array([7, 8, 9]), np.array([-1]), {"axis": 0, "mode": "raise"})
    >>> sorted(b.value for b in fitting_words(np.array([9]), PolicyValues(one)))
    ['wraps']
    >>> wide = Case("numpy.take", np.arange(5) * 10, np.array([2**32 + 1]), {"axis": 0, "mode": "clip"})
    >>> sorted(b.value for b in fitting_words(np.array([10]), PolicyValues(wide)))   # clamp reads 40, wrap 20
    ['reads the low 32 bits']
    """
    words = {b for p, b in candidates(values) if (v := values.under(p)) is not None and same_bits(value, v)}
    return frozenset(words | {how for how in NARROWING if values.reread(how).explains(value)})


def observed_policy(got: Outcome, values: PolicyValues) -> Behaviour:
    """Name what an oracle did with bad indices (see the module docstring):
    the one word among :func:`candidates` whose policy gives exactly ``got``;
    ``ambiguous`` when candidates with different words all give it (an axis
    too short to tell them apart), ``fills or garbage`` when the value is
    right but where an index is out of range, ``garbage`` when none of these.

    >>> case = Case("jax.numpy.take", np.array([1, 2, 3]), np.array([-1, 7]), {"axis": 0, "mode": "clip"})
    >>> observed_policy(Outcome.returned(np.array([3, 3])), PolicyValues(case)).value
    'clamps'
    >>> [observed_policy(Outcome.returned(np.array([3, v])), PolicyValues(case)).value for v in (0, 9)]
    ['fills or garbage', 'fills or garbage']
    >>> in_range = replace(case, indices=np.array([0, 7]))   # index 0 reads 1, not 2
    >>> observed_policy(Outcome.returned(np.array([2, 5])), PolicyValues(in_range)).value
    'garbage'
    >>> observed_policy(Outcome.returned(np.zeros((2, 0))), PolicyValues(case)).value
    'unchecked (empty output)'
    >>> one = Case("numpy.take", np.array([7]), np.array([1]),
    ...     {"axis": 0, "mode": "raise"})   # wrap and clamp both read 7
    >>> observed_policy(Outcome.returned(np.array([7])), PolicyValues(one)).value
    'ambiguous'
    """
    if got.kind is Kind.ERROR:
        return Behaviour.RAISES
    if got.kind is not Kind.VALUE:
        return _non_value_behaviour(got)
    assert got.value is not None
    value = np.asarray(got.value)
    if value.size == 0:
        return Behaviour.UNCHECKED  # nothing was read, so no policy shows
    own = values.own()
    if own is not None and same_bits(value, own) and _documented_fill(values.case):
        return Behaviour.FILLS  # the fill the docs name, where a fill and a stray read could look alike
    words = fitting_words(value, values)
    if len(words) == 1:
        return next(iter(words))
    if words:
        return Behaviour.AMBIGUOUS
    if any(_wrong_only_where_out_of_range(value, values, base) for base in (ZERO_FILL, WRAP_THEN_FILL)):
        return Behaviour.FILLS_OR_GARBAGE
    if all(values.under(p) is None for p, _ in candidates(values)) and made_of(value, np.asarray(values.case.data)):
        return Behaviour.AMBIGUOUS  # no policy reads this case (0-d data), and each element is one of the data's
    return Behaviour.GARBAGE


def made_of(value: np.ndarray, data: np.ndarray) -> bool:
    """Whether every element of ``value`` is, bit for bit, an element of ``data`` (of the same dtype): what some
    read of the data may give, never ``garbage``.

    >>> made_of(np.array([-1, -1], np.int32), np.array(-1, np.int32)), made_of(np.array([5]), np.array([1, 2]))
    (True, False)
    """
    if value.dtype != data.dtype or data.size == 0 or value.dtype.kind in "OUSV":
        return False
    seen = {np.ascontiguousarray(data).reshape(-1)[i : i + 1].tobytes() for i in range(data.size)}
    flat = np.ascontiguousarray(value).reshape(-1)
    return all(flat[i : i + 1].tobytes() in seen for i in range(flat.size))


def _documented_fill(case: Case) -> bool:
    """Whether the op's docs fill an out-of-range index (under the case's mode).

    >>> _documented_fill(Case("jax.numpy.take", np.zeros(2), np.array([5]), {"mode": "fill"}))
    True
    >>> _documented_fill(Case("jax.numpy.take", np.zeros(2), np.array([5]), {"mode": "clip"}))
    False
    """
    try:
        return spec(case.op).policy_for(case.attrs).out_of_range is OutOfRange.FILL
    except (ValueError, TypeError):
        return False


_KIND_BEHAVIOUR = {
    Kind.CRASH: Behaviour.CRASH,
    Kind.TIMEOUT: Behaviour.TIMEOUT,
    Kind.UNSUPPORTED: Behaviour.UNSUPPORTED,
    Kind.PROTOCOL: Behaviour.PROTOCOL,
    Kind.NOT_RUN: Behaviour.NOT_RUN,
}


def _non_value_behaviour(got: Outcome) -> Behaviour:
    return _KIND_BEHAVIOUR.get(got.kind, Behaviour.RAISES)


@dataclass(frozen=True)
class DtypeStatus:
    """Whether a case's dtypes are documented for its op: the data dtype, the
    index dtype, and whether the op's spec is type-constrained (ONNX, WebNN:
    another dtype is an invalid model, not an extension).

    >>> DtypeStatus.of(Case("torch.gather", np.zeros(2), np.zeros(1, np.int32), {"dim": 0}))
    DtypeStatus(data=True, index=False, closed=False)
    """

    data: bool
    index: bool
    closed: bool

    @property
    def documented(self) -> bool:
        return self.data and self.index

    @classmethod
    def of(cls, case: Case, framework: str = "", mode: str = "") -> DtypeStatus:
        """The case's dtypes against the op's docs and, where ``framework``'s runtime (in ``mode``) documents that
        it runs fewer (:func:`~conformance.spec.basis.runtime_limit`), against those: its refusal of another is its
        right.

        >>> complex_data = Case("onnx.Gather-13", np.zeros(2, np.complex64), np.zeros(1, np.int64), {"axis": 0})
        >>> DtypeStatus.of(complex_data).documented, DtypeStatus.of(complex_data, "onnxruntime").documented
        (True, False)
        """
        s = spec(case.op)
        data_dtype, index_dtype = data_dtype_name(case.data), np.asarray(case.indices).dtype.name
        data, index = data_dtype in s.data_dtypes, index_dtype in s.index_dtypes
        limit = runtime_limit(framework, mode, OpKey.parse(case.op).family)
        if limit is not None:
            data, index = data and data_dtype in limit.data, index and index_dtype in limit.index
        return cls(data, index, s.framework in TYPE_CONSTRAINED)


def _error_mismatch(case: Case, ref: Outcome, got: Outcome) -> Mismatch:
    """``ok`` or the mismatch of an error where the reference raises too: the
    same :class:`~conformance.core.vocabulary.ErrorGroup` conforms; so does an
    index error where the preconditions fail (the case also has bad indices,
    and the framework checked those first). A shape error where the reference refuses only an attribute's type
    (its int reading makes the case valid: :func:`int_read`) is the wrong error: the framework read the value.

    >>> case = Case("tensorflow.gather_nd", np.zeros((2, 4)), np.array([[1], [0]]), {"batch_dims": "1"})
    >>> shape = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID)
    >>> str(_error_mismatch(case, reference_outcome(case), shape))
    'wrong error (shape or attribute error, expected attribute type error)'
    >>> str(_error_mismatch(case, reference_outcome(case), replace(shape, error_class=ErrorClass.ATTRIBUTE_INVALID)))
    'ok'
    """
    read_then_refused = _read_then_refused(case, ref, got)
    if read_then_refused is not None:
        return read_then_refused
    want, have = ErrorGroup.of(ref.error_class), ErrorGroup.of(got.error_class)
    if have is None or want is None or have is want:
        return Mismatch.OK
    regime = case.tags.regime if case.tags is not None else None
    both_bad = want is ErrorGroup.SHAPE and have is ErrorGroup.INDEX and regime in POLICY_REGIMES
    return Mismatch.OK if both_bad else Mismatch.wrong_error(have, want)


_KIND_MISMATCH = {
    Kind.CRASH: MismatchKind.CRASH,
    Kind.TIMEOUT: MismatchKind.TIMEOUT,
    Kind.PROTOCOL: MismatchKind.PROTOCOL,
}


def _mismatch(case: Case, ref: Outcome, got: Outcome, dtypes: DtypeStatus) -> Mismatch:
    """``ok`` or the mismatch of ``got`` against ``ref``."""
    if got.kind in _KIND_MISMATCH:
        return Mismatch(_KIND_MISMATCH[got.kind])
    if got.kind is Kind.ERROR and got.error_class is ErrorClass.INTERNAL:
        return Mismatch(MismatchKind.INTERNAL)  # always a fault, whatever the reference says
    if not dtypes.documented:  # rejecting is the framework's right; a value is judged as any other (below)
        if got.kind is Kind.ERROR:
            return Mismatch.OK
        if dtypes.closed:
            return Mismatch(MismatchKind.UNDOCUMENTED_DTYPE)
        index_dtype = np.asarray(case.indices).dtype
        if index_dtype.kind not in "iu" or index_dtype.name in spec(case.op).mask_dtypes:
            # bool or float indices, or a documented mask: no integer semantics to hold a value to (the dtype table says
            # so)
            return Mismatch.OK
    if got.kind is Kind.ERROR and got.error_class is ErrorClass.DTYPE_UNSUPPORTED:
        return Mismatch.OK if _attribute_type_refused(ref) else Mismatch(MismatchKind.DTYPE_REJECTED)
    if ref.kind is Kind.ERROR:
        return (
            Mismatch(MismatchKind.VALUE_INSTEAD_OF_ERROR) if got.kind is Kind.VALUE else _error_mismatch(case, ref, got)
        )
    if got.kind is Kind.ERROR and (_refused_empty_axis(case, ref, got) or _array_attribute(case)):
        return Mismatch.OK
    if got.kind is Kind.ERROR:
        return Mismatch.error_instead_of_value(got.error_class)
    assert ref.value is not None and got.value is not None
    g = np.asarray(got.value)
    if g.shape != ref.value.shape:
        return Mismatch(MismatchKind.WRONG_SHAPE)
    if g.dtype != ref.value.dtype:
        return Mismatch(MismatchKind.WRONG_DTYPE)
    if same_bits(g, ref.value):
        return Mismatch.OK
    return Mismatch(MismatchKind.NAN_PAYLOAD if _only_nan_payloads(g, ref.value) else MismatchKind.WRONG_VALUE)


def _attribute_type_refused(ref: Outcome) -> bool:
    """Whether the reference refuses an argument of the wrong type (its
    TypeError: ``axis must be an integer, got bool True``, ``fill_value must
    be a scalar``): a framework's
    type error then speaks of the attribute, in the words of a dtype error
    (JAX: "data type '' not understood" for ``fill_value='1'``; TF and Paddle
    for ``axis=True``), and refuses what the docs refuse: no dtype is rejected.

    >>> bad = reference_outcome(Case("numpy.take", np.arange(3), np.array([0]), {"axis": True}))
    >>> _attribute_type_refused(bad), _attribute_type_refused(Outcome.returned(np.zeros(1)))
    (True, False)
    """
    return ref.kind is Kind.ERROR and ref.error_type == "TypeError"


def _array_attribute(case: Case) -> bool:
    """Whether an attribute is given as a NumPy array or scalar (``axis=np.array(1)``, ``np.int64(1)``): the docs
    type a Python int (``axis (int)``), and whether an int-like array is one they do not say, so refusing it is the
    framework's right (Paddle's "argument (position 3) must be int, but got numpy.ndarray"); a value is judged.

    >>> _array_attribute(Case("paddle.index_select", np.zeros(2), np.array([1]), {"axis": np.array(0)}))
    True
    >>> _array_attribute(Case("paddle.index_select", np.zeros(2), np.array([1]), {"axis": 0}))
    False
    """
    return any(isinstance(v, (np.ndarray, np.generic)) for v in case.attrs.values())


def _refused_empty_axis(case: Case, ref: Outcome, got: Outcome) -> bool:
    """An index error for a bad index into empty data where the reference's
    output is empty too: a clamping or wrapping policy has nothing to place
    the index on, and refusing it is as good as the empty answer (the docs of
    such ops say nothing of empty axes)."""
    regime = case.tags.regime if case.tags else None
    empty = ref.value is not None and np.asarray(ref.value).size == 0 and np.asarray(case.data).size == 0
    return empty and regime in POLICY_REGIMES and got.error_class is ErrorClass.INDEX_OUT_OF_RANGE


STRAY = frozenset({Behaviour.GARBAGE, Behaviour.FILLS_OR_GARBAGE})
"""The words of a value that may hold memory the input does not (a read outside it): never what a doc that leaves
out-of-bounds indices undefined permits, since no index policy reads it."""

NEVER_SILENT = frozenset(
    {
        MismatchKind.INTERNAL,
        MismatchKind.CRASH,
        MismatchKind.TIMEOUT,
        MismatchKind.PROTOCOL,
        MismatchKind.DTYPE_REJECTED,
    }
)
"""Mismatches that are findings even where the docs are silent about the case."""


def _only_nan_payloads(got: np.ndarray, want: np.ndarray) -> bool:
    """True if every differing element is a NaN in both (only the payload bits differ).

    >>> a = np.array([1.0, np.nan], np.float32)
    >>> _only_nan_payloads(a, np.array([1.0, -np.nan], np.float32)), _only_nan_payloads(a,
    ...     np.array([2.0, np.nan], np.float32))
    (True, False)
    """
    if got.dtype.kind not in "fcV" or got.dtype.kind == "V" and got.dtype.name != "bfloat16":
        return False
    differ = unequal_elements(got, want)
    g, w = (
        got.astype(np.complex128 if got.dtype.kind == "c" else np.float64),
        want.astype(np.complex128 if got.dtype.kind == "c" else np.float64),
    )
    return bool(differ.any()) and bool((np.isnan(g) & np.isnan(w))[differ].all())


NARROWED = {"int64": np.int32, "uint64": np.uint32, "float64": np.float32, "complex128": np.complex64}
"""What a framework that keeps no 64-bit types makes of a 64-bit array (a C cast)."""


def narrowed(case: Case) -> Case | None:
    """``case`` as a framework without 64-bit types receives it (JAX with x64
    off documents it: each 64-bit array becomes 32-bit, values cast as C
    casts them); None where nothing is 64-bit.

    >>> narrowed(Case("jax.numpy.take", np.array([2**40, 7]), np.array([2**31]), {})).indices.tolist()
    [-2147483648]
    """
    data, idx = np.asarray(case.data), np.asarray(case.indices)
    if data.dtype.name not in NARROWED and idx.dtype.name not in NARROWED:
        return None
    cast = [a.astype(NARROWED[a.dtype.name]) if a.dtype.name in NARROWED else a for a in (data, idx)]
    return replace(case, data=cast[0], indices=cast[1])


def judge(
    case: Case,
    ref: Outcome,
    got: Outcome,
    values: PolicyValues,
    *,
    bits: int = 64,
    framework: str = "",
    mode: str = "",
) -> Verdict:
    """The :class:`Verdict` on one oracle's outcome (see the module docstring).
    For an oracle whose framework documents that 64-bit inputs become 32-bit
    (``bits`` 32), the answer is judged on the inputs as it received them
    (:func:`narrowed`): what departs there is the finding.

    >>> from conformance.core.case import CaseTags
    >>> case = Case("torch.gather", np.array([1, 2, 3]), np.array([-1]), {"dim": 0},
    ...     CaseTags("negative", "int64", "int"))
    >>> v = judge(case, reference_outcome(case), Outcome.returned(np.array([3])), PolicyValues(case))
    >>> v.conforms, str(v.outcome), str(v.behaviour)
    (False, 'value instead of error', 'wraps')
    >>> wide = Case("jax.numpy.take", np.array([2**40, 7]), np.array([1]), {"axis": 0, "mode": None},
    ...     CaseTags("in-range", "int64", "int"))
    >>> judge(wide, reference_outcome(wide), Outcome.returned(np.array([7], np.int32)), PolicyValues(wide),
    ...     bits=32).conforms
    True
    """
    verdict = _verdict(case, ref, got, values, framework, mode)
    received = narrowed(case) if bits == 32 and not verdict.conforms else None
    if received is None:
        return verdict
    return _verdict(received, reference_outcome(received), got, PolicyValues(received), framework, mode)


def _runtime_shape_limit(case: Case, got: Outcome, framework: str) -> bool:
    """A shape error for shapes the framework's runtime documents it does not take
    (:data:`~conformance.spec.basis.RUNTIME_SHAPE_LIMITS`): its refusal is its right, an atlas fact.

    >>> case = Case("onnx.GatherElements-13", np.zeros((2, 1, 1)), np.zeros((1, 1, 1), np.int64), {"axis": 1})
    >>> refused = Outcome(Kind.ERROR, error_type="RuntimeError", error_class=ErrorClass.SHAPE_INVALID)
    >>> _runtime_shape_limit(case, refused, "openvino"), _runtime_shape_limit(case, refused, "onnxruntime")
    (True, False)
    """
    if got.kind is not Kind.ERROR or got.error_class is not ErrorClass.SHAPE_INVALID:
        return False
    axis = case.attrs.get("axis", 0)
    if not isinstance(axis, int) or isinstance(axis, bool):
        return False
    family = OpKey.parse(case.op).family
    return refused_by_shape_limit(framework, family, np.shape(case.data), np.shape(case.indices), axis) is not None


def _zero_d_left_open(case: Case) -> bool:
    """A call on 0-d data, where the op's docs leave such a call to the implementation (the array API's take).

    >>> _zero_d_left_open(Case("array_api.take", np.float32(1), np.array([0]), {"axis": 0}))
    True
    """
    return np.ndim(case.data) == 0 and zero_d_permitted(case.op)


def _value_word(got: Outcome, ref: Outcome) -> Behaviour:
    """The word of a value that departs outside the policy regimes: the reference's own value (bits, shape and
    dtype) is never garbage; it departs only in what it was given (an undocumented dtype accepted).

    >>> _value_word(Outcome.returned(np.array([1, 2])), Outcome.returned(np.array([1, 2]))).value
    'value as documented'
    >>> _value_word(Outcome.returned(np.array([1, 9])), Outcome.returned(np.array([1, 2]))).value
    'garbage'
    """
    same = ref.value is not None and same_bits(np.asarray(got.value), np.asarray(ref.value))
    return Behaviour.AS_DOCUMENTED if same else Behaviour.GARBAGE


def int_read(case: Case, ref: Outcome) -> tuple[Case, Outcome] | None:
    """``case`` with the attribute the reference refused for its type (rule ``attribute type`` or ``attribute
    bool``) given as the int it reads as (:func:`~conformance.cases.translate.int_reading`: ``'1'``, ``1.5`` and
    ``True`` read as 1), and the reference's outcome for it; None where the reference refused no attribute's type,
    or the value reads as no int. Where that outcome is a value, the case is valid but for the type: a framework
    that answers the int's value read it (:attr:`~conformance.core.behaviour.Behaviour.READS_AS_INT`), and one
    that fails on the shapes read it too (a wrong error: issue 44, TensorFlow's "Input to reshape is a tensor with
    3 values" for ``batch_dims='1'``).

    >>> case = Case("tensorflow.gather_nd", np.arange(8.0).reshape(2, 4), np.array([[1], [0]]), {"batch_dims": "1"})
    >>> as_int, its_ref = int_read(case, reference_outcome(case))
    >>> as_int.attrs, its_ref.value.tolist()
    ({'batch_dims': 1}, [1.0, 4.0])
    """
    name = ref.argument
    if ref.kind is not Kind.ERROR or ref.rule not in (Rule.ATTRIBUTE_TYPE, Rule.ATTRIBUTE_BOOL) or name is None:
        return None
    read = int_reading(case.attrs.get(name))
    if read is None:
        return None
    as_int = replace(case, attrs={**case.attrs, name: read})
    return as_int, reference_outcome(as_int)


def _read_then_refused(case: Case, ref: Outcome, got: Outcome) -> Mismatch | None:
    """The wrong error of a shape error where the reference refused only an attribute's type (the int it reads as
    makes the case valid: :func:`int_read`): the framework read the value, then failed on the shapes; None
    otherwise (issue 44)."""
    if got.error_class is not ErrorClass.SHAPE_INVALID:
        return None
    read = int_read(case, ref)
    valid = read is not None and read[1].kind is Kind.VALUE
    return Mismatch.wrong_error(ErrorGroup.SHAPE, ErrorGroup.ATTRIBUTE_TYPE) if valid else None


def read_as(case: Case, ref: Outcome, value: np.ndarray) -> int | None:
    """The int the attribute the reference refused for its type was read as, where ``value`` is, bit for bit, the
    answer that int gives (:func:`int_read`); None otherwise.

    >>> case = Case("tensorflow.gather_nd", np.arange(8.0).reshape(2, 4), np.array([[1], [0]]), {"batch_dims": 1.5})
    >>> ref = reference_outcome(case)
    >>> read_as(case, ref, np.array([1.0, 4.0])), read_as(case, ref, np.zeros(2))
    (1, None)
    """
    read = int_read(case, ref)
    answer = read[1].value if read is not None and read[1].kind is Kind.VALUE else None
    if read is None or answer is None or not same_bits(value, answer):
        return None
    name = ref.argument
    return int(read[0].attrs[name]) if name is not None else None


def _reads_as_int(case: Case, ref: Outcome, value: np.ndarray) -> Behaviour | None:
    """:attr:`~conformance.core.behaviour.Behaviour.READS_AS_INT` where ``value`` is the answer of the int the
    refused attribute reads as (:func:`read_as`); None otherwise."""
    return Behaviour.READS_AS_INT if read_as(case, ref, value) is not None else None


def as_int_reading(case: Case, ref: Outcome) -> tuple[Case, Outcome] | None:
    """``case`` with the bool attribute the reference refused (its typed error: rule ``attribute bool``) given as
    the int it is in Python (``True == 1``), and the reference's outcome for it (:func:`int_read`); None where the
    reference refused no bool. The docs type such an
    attribute as an int and do not say whether a bool is one: a framework that reads ``axis=True`` as ``axis=1``
    follows Python, one that refuses it is strict, and both conform; only what departs from the int's answer is a
    finding (NumPy, JAX, MLX and OpenVINO reading ``axis=True`` as 1 were filed as findings: audit of stop 48, 10A
    n=79, 83, 102).

    >>> case = Case("numpy.take", np.arange(4.0).reshape(2, 2), np.array([1]), {"axis": True})
    >>> as_int, its_ref = as_int_reading(case, reference_outcome(case))
    >>> as_int.attrs, its_ref.value.tolist()
    ({'axis': 1}, [[1.0], [3.0]])
    """
    return int_read(case, ref) if ref.rule == Rule.ATTRIBUTE_BOOL else None


def judged_reference(case: Case) -> Outcome:
    """What ``case`` is judged against: the reference's outcome, or, where the reference refused a bool given for
    an int (:func:`as_int_reading`), the int's; a finding's expected answer and its name rest on it.

    >>> case = Case("numpy.take", np.arange(4.0).reshape(2, 2), np.array([1]), {"axis": True})
    >>> judged_reference(case).value.tolist()
    [[1.0], [3.0]]
    """
    ref = reference_outcome(case)
    read = as_int_reading(case, ref)
    return ref if read is None else read[1]


def _verdict(case: Case, ref: Outcome, got: Outcome, values: PolicyValues, framework: str, mode: str = "") -> Verdict:
    if got.kind in (Kind.UNSUPPORTED, Kind.NOT_RUN):  # nothing was asked of the framework
        return Verdict(True, Mismatch.OK, _non_value_behaviour(got))
    read = as_int_reading(case, ref)
    if read is not None and got.kind is Kind.ERROR and got.error_class is not ErrorClass.INTERNAL:
        read_then_refused = _read_then_refused(case, ref, got)  # read, as something else
        if read_then_refused is not None:
            return Verdict(False, read_then_refused, Behaviour.WRONG_ERROR)
        return Verdict(True, Mismatch.OK, Behaviour.RAISES)  # a bool refused where an int is asked for: strict
    if read is not None:  # read as the int it is, or not: judged on the int's answer
        return _verdict(read[0], read[1], got, PolicyValues(read[0]), framework, mode)
    dtypes = DtypeStatus.of(case, framework, mode)
    outcome = Mismatch.OK if _runtime_shape_limit(case, got, framework) else _mismatch(case, ref, got, dtypes)
    regime = case.tags.regime if case.tags else None
    broken_rule = ref.kind is Kind.ERROR and ref.error_class in PRECONDITION_ERRORS
    dtype_refused = not dtypes.documented and got.kind is Kind.ERROR  # the dtype rule decides: refusing is its right
    silent = (
        regime in spec(case.op).unspecified
        and not broken_rule
        and not dtype_refused
        and outcome.kind not in NEVER_SILENT
    )
    if silent:  # the docs do not say: what it does is recorded, never a violation (and an empty output shows nothing)
        empty = got.kind is Kind.VALUE and np.asarray(got.value).size == 0
        permitted = regime_permitted(case.op, regime) and observed_policy(got, values) not in STRAY
        outcome = Mismatch.OK if empty or permitted else Mismatch(MismatchKind.SPEC_SILENT)
    if broken_rule and outcome.kind not in NEVER_SILENT and _zero_d_left_open(case):
        outcome = Mismatch.OK  # the docs leave a call on 0-d data to the framework: any answer is its own
    conforms = outcome.conforms
    if outcome.kind is MismatchKind.INTERNAL:
        behaviour = Behaviour.INTERNAL
    elif (
        got.kind is Kind.ERROR and got.error_class is ErrorClass.DTYPE_UNSUPPORTED and not _attribute_type_refused(ref)
    ):
        behaviour = Behaviour.DTYPE_REJECTED
    elif regime in POLICY_REGIMES:
        behaviour = observed_policy(got, values)
    elif got.kind is Kind.VALUE and ref.kind is Kind.ERROR and conforms:  # the docs leave the call open
        behaviour = Behaviour.CONFORMS
    elif got.kind is Kind.VALUE and ref.kind is Kind.ERROR:  # a precondition violation accepted
        value = np.asarray(got.value)
        behaviour = batch_reading(case, value) or _reads_as_int(case, ref, value) or Behaviour.WRONG_ERROR
    elif got.kind is Kind.VALUE:
        behaviour = Behaviour.CONFORMS if conforms else _value_word(got, ref)
    elif got.kind is Kind.ERROR:
        behaviour = Behaviour.RAISES if conforms or ref.kind is Kind.VALUE else Behaviour.WRONG_ERROR
    else:
        behaviour = _non_value_behaviour(got)
    if outcome.kind is MismatchKind.WRONG_ERROR:
        behaviour = Behaviour.WRONG_ERROR
    return Verdict(conforms, outcome, behaviour)
