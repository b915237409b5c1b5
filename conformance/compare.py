"""An oracle's outcome against the reference: a :class:`Verdict`.

The reference outcome of a case is what :func:`~conformance.reference.reference`
returns (bit-exact value, shape, dtype) or raises under the op's documented
policy. :func:`judge` compares an oracle's :class:`~oracles.base.Outcome` with
it: value vs value bit for bit, value vs error, error vs error (an error where
the reference raises conforms, unless it says "dtype unsupported"), crash,
timeout. Independently of conformance, in the policy regimes (negative, out of
range, extremes) it names the *observed* policy by comparing the oracle's
value with the reference under every policy (:func:`observed_policy`):
raises, wraps, clamps, clamps (raw), zero-fills, fills another value, or
garbage when none explains it.

>>> import numpy as np
>>> from conformance.model import CaseTags
>>> case = Case("numpy.take", np.array([10, 20, 30]), np.array([-1]), {"axis": 0, "mode": "raise"}, CaseTags("negative", "int64", "int"))
>>> v = judge(case, reference_outcome(case), Outcome.returned(np.array([10])), PolicyValues(case))
>>> v.conforms, v.outcome, v.behaviour.value
(False, 'wrong value', 'clamps (raw)')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from conformance.arrays import same_bits, unequal_elements
from conformance.behaviour import Behaviour
from conformance.model import Case, ErrorClass, Kind, Outcome
from conformance.policy import CLIP, MODULO, ONNX, WRAP_THEN_CLAMP, WRAP_THEN_FILL, ZERO_FILL, IndexPolicy
from conformance.reference import reference
from conformance.strategies import POLICY_REGIMES

CONFORMS = "ok"
CANDIDATES: tuple[tuple[IndexPolicy, Behaviour], ...] = (
    (ONNX, Behaviour.WRAPS),  # negatives wrap once (in the negative regime)
    (MODULO, Behaviour.WRAPS),
    (WRAP_THEN_CLAMP, Behaviour.CLAMPS),
    (CLIP, Behaviour.CLAMPS_RAW),
    (ZERO_FILL, Behaviour.ZERO_FILLS),
    (WRAP_THEN_FILL, Behaviour.FILLS),
)
"""Policies tried, in order, to explain a value; the first that matches names it."""


@dataclass(frozen=True)
class Verdict:
    """``conforms``; ``outcome``: ``"ok"`` or the mismatch class (the
    signature's outcome); ``behaviour``: the observed policy, CONFORMS for an
    in-range value that matches, or what went wrong."""

    conforms: bool
    outcome: str
    behaviour: Behaviour


def reference_outcome(case: Case) -> Outcome:
    """The reference's :class:`Outcome` for ``case``: an IndexError is an
    index error, anything else a precondition (shape or attribute) error.

    >>> reference_outcome(Case("torch.gather", np.arange(3), np.array([-1]), {"dim": 0})).error_class.name
    'INDEX_OUT_OF_RANGE'
    """
    try:
        value = reference(case.op, case.data, case.indices, check_dtypes=False, **case.attrs)
    except IndexError as exc:
        return Outcome.raised(exc, ErrorClass.INDEX_OUT_OF_RANGE)
    except (ValueError, TypeError) as exc:
        text = str(exc)
        error_class = ErrorClass.ATTRIBUTE_INVALID if any(w in text for w in ("axis", "dim ", "dim=", "batch_dims", "mode")) else ErrorClass.SHAPE_INVALID
        return Outcome.raised(exc, error_class)
    return Outcome.returned(np.asarray(value))


@dataclass
class PolicyValues:
    """The reference's value for ``case`` under each alternative policy,
    computed on first use and shared by every oracle judged on the case."""

    case: Case
    _cache: dict[str, np.ndarray | None] = field(default_factory=dict)

    def under(self, policy: IndexPolicy) -> np.ndarray | None:
        """The value under ``policy``, or None where it raises."""
        if policy.name not in self._cache:
            try:
                v = reference(self.case.op, self.case.data, self.case.indices, policy=policy, check_dtypes=False, **self.case.attrs)
                self._cache[policy.name] = np.asarray(v)
            except (IndexError, ValueError, TypeError):
                self._cache[policy.name] = None
        return self._cache[policy.name]


def _fills_another_value(got: np.ndarray, values: PolicyValues, base: IndexPolicy) -> bool:
    """True if ``got`` is ``base``'s (a fill policy) result with some other
    constant where it fills (the fill positions: where two fill values differ)."""
    zero = values.under(base.with_fill(False if got.dtype == np.bool_ else ("" if got.dtype.kind in "US" else 0)))
    ones = values.under(base.with_fill(True if got.dtype == np.bool_ else ("x" if got.dtype.kind in "US" else 1)))
    if zero is None or ones is None or zero.shape != got.shape or zero.dtype != got.dtype:
        return False
    mask = unequal_elements(zero, ones)  # the positions a fill policy writes
    if not mask.any():
        return False
    same_elsewhere = not unequal_elements(got, zero)[~mask].any()
    filled = got[mask]
    return same_elsewhere and not unequal_elements(filled, np.broadcast_to(filled[:1], filled.shape)).any()


def observed_policy(got: Outcome, values: PolicyValues) -> Behaviour:
    """Name what an oracle did with bad indices (see the module docstring).

    >>> case = Case("jax.numpy.take", np.array([1, 2, 3]), np.array([-1, 7]), {"axis": 0, "mode": "clip"})
    >>> observed_policy(Outcome.returned(np.array([3, 3])), PolicyValues(case)).value
    'clamps'
    >>> observed_policy(Outcome.returned(np.array([3, 9])), PolicyValues(case)).value
    'fills'
    >>> observed_policy(Outcome.returned(np.array([2, 5])), PolicyValues(case)).value
    'garbage'
    >>> observed_policy(Outcome.returned(np.zeros((2, 0))), PolicyValues(case)).value
    'unchecked (empty output)'
    """
    if got.kind is Kind.ERROR:
        return Behaviour.RAISES
    if got.kind is not Kind.VALUE:
        return _non_value_behaviour(got)
    assert got.value is not None
    if np.asarray(got.value).size == 0:
        return Behaviour.UNCHECKED  # nothing was read, so no policy shows
    for policy, behaviour in CANDIDATES:
        v = values.under(policy)
        if v is not None and same_bits(np.asarray(got.value), v):
            return behaviour
    if any(_fills_another_value(np.asarray(got.value), values, base) for base in (ZERO_FILL, WRAP_THEN_FILL)):
        return Behaviour.FILLS
    return Behaviour.GARBAGE


_KIND_BEHAVIOUR = {
    Kind.CRASH: Behaviour.CRASH, Kind.TIMEOUT: Behaviour.TIMEOUT, Kind.UNSUPPORTED: Behaviour.UNSUPPORTED,
    Kind.PROTOCOL: Behaviour.PROTOCOL, Kind.NOT_RUN: Behaviour.NOT_RUN,
}  # fmt: skip


def _non_value_behaviour(got: Outcome) -> Behaviour:
    return _KIND_BEHAVIOUR.get(got.kind, Behaviour.RAISES)


def _mismatch(ref: Outcome, got: Outcome) -> str:
    """``"ok"`` or the mismatch class of ``got`` against ``ref``."""
    if got.kind in (Kind.CRASH, Kind.TIMEOUT, Kind.PROTOCOL):
        return got.kind.value
    if ref.kind is Kind.ERROR:
        if got.kind is Kind.VALUE:
            return "value instead of error"
        if got.error_class is ErrorClass.DTYPE_UNSUPPORTED:
            return "wrong error (dtype unsupported)"
        return CONFORMS
    if got.kind is Kind.ERROR:
        return f"error instead of value ({got.error_class.value if got.error_class else 'other'})"
    assert ref.value is not None and got.value is not None
    g = np.asarray(got.value)
    if g.shape != ref.value.shape:
        return "wrong shape"
    if g.dtype != ref.value.dtype:
        return "wrong dtype"
    return CONFORMS if same_bits(g, ref.value) else "wrong value"


def judge(case: Case, ref: Outcome, got: Outcome, values: PolicyValues) -> Verdict:
    """The :class:`Verdict` on one oracle's outcome (see the module docstring).

    >>> from conformance.model import CaseTags
    >>> case = Case("torch.gather", np.array([1, 2, 3]), np.array([-1]), {"dim": 0}, CaseTags("negative", "int64", "int"))
    >>> judge(case, reference_outcome(case), Outcome.returned(np.array([3])), PolicyValues(case))
    Verdict(conforms=False, outcome='value instead of error', behaviour=<Behaviour.WRAPS: 'wraps'>)
    """
    if got.kind in (Kind.UNSUPPORTED, Kind.NOT_RUN):  # nothing was asked of the framework
        return Verdict(True, CONFORMS, _non_value_behaviour(got))
    outcome = _mismatch(ref, got)
    conforms = outcome == CONFORMS
    if case.tags and case.tags.regime in POLICY_REGIMES:
        behaviour = observed_policy(got, values)
    elif got.kind is Kind.VALUE and ref.kind is Kind.ERROR:
        behaviour = Behaviour.WRONG_ERROR  # a precondition violation accepted
    elif got.kind is Kind.VALUE:
        behaviour = Behaviour.CONFORMS if conforms else Behaviour.GARBAGE
    elif got.kind is Kind.ERROR:
        behaviour = Behaviour.RAISES if conforms or ref.kind is Kind.VALUE else Behaviour.WRONG_ERROR
    else:
        behaviour = _non_value_behaviour(got)
    if outcome.startswith("wrong error"):
        behaviour = Behaviour.WRONG_ERROR
    return Verdict(conforms, outcome, behaviour)
