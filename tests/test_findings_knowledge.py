"""Findings as knowledge (issue 11): one finding per root cause, behaviour
named only on evidence, errors compared with errors, dtypes as users pass
them, spec-silent conditions, and a regression test per false finding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from conformance.campaign.dispatch import evaluate
from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.campaign.sightings import Sightings
from conformance.cases.class_case import ClassCase
from conformance.cases.translate import translate
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import ErrorClass, Outcome
from conformance.judge.judged import Judged
from conformance.judge.rootcause import signature
from conformance.judge.verdict import CANDIDATES, PolicyValues, candidates, judge, observed_policy, reference_outcome
from conformance.spec.plans import EqClass
from conformance.spec.reference import reference
from oracles.base import classify_message, internal_or

INFO = OracleInfo("fw", "fw", "1.0", "cpu", "eager", ())


def _judge(op: str, data: np.ndarray, idx: np.ndarray, got: Outcome, regime: str, **attrs: object):
    case = Case(op, data, idx, attrs, CaseTags(regime, idx.dtype.name, "int"))
    ref = reference_outcome(case)
    return case, ref, judge(case, ref, got, PolicyValues(case))


class Fixed:
    """A fake in-process oracle answering every case with ``answer(case)``."""

    def __init__(self, name: str, ops: Sequence[str], answer) -> None:
        self.name, self._ops, self._answer = name, tuple(ops), answer

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, "fake", "1.0", "cpu", "eager", self._ops)

    def run_many(self, cases, *, timeout=None):
        return [self._answer(c) for c in cases]

    def reproducer(self, case, reference, observed=None):
        raise NotImplementedError


# -- behaviour named only on evidence --------------------------------------------


def test_a_one_element_axis_cannot_name_wrap_or_clamp() -> None:
    case = Case(
        "numpy.take", np.array([7]), np.array([1]), {"axis": 0, "mode": "raise"}, CaseTags("oob-above", "int64", "int")
    )
    assert observed_policy(Outcome.returned(np.array([7])), PolicyValues(case)) is Behaviour.AMBIGUOUS


def test_negatives_only_wraps_is_named_whatever_the_out_of_range_policy() -> None:
    # every wrapping policy reads [-size, -1] alike: "wraps", not ambiguous between wrap-then-clamp and wrap-then-fill
    case = Case("torch.gather", np.array([1, 2, 3]), np.array([-1]), {"dim": 0}, CaseTags("negative", "int64", "int"))
    assert observed_policy(Outcome.returned(np.array([3])), PolicyValues(case)) is Behaviour.WRAPS


def test_candidates_disagree_on_a_discriminating_example() -> None:
    for idx in ([-1, 1], [5, 0], [-6, 0]):
        case = Case("numpy.take", np.array([10, 20, 30, 40]), np.array(idx), {"axis": 0, "mode": "raise"})
        values = PolicyValues(case)
        outputs = {b: values.under(p) for p, b in candidates(values)}
        named = [b for b, v in outputs.items() if v is not None]
        for i, a in enumerate(named):
            for b in named[i + 1 :]:
                assert not np.array_equal(outputs[a], outputs[b]), (idx, a, b)
    assert {p.name for p, _ in CANDIDATES} >= {"wrap", "clip", "wrap-then-clamp", "zero-fill", "wrap-then-fill"}


# -- errors compared ----------------------------------------------------------------


def test_an_internal_error_is_a_finding_even_where_the_reference_raises() -> None:
    exc = RuntimeError("ZeroDivisionError: integer division or modulo by zero")
    got = Outcome.raised(exc, internal_or(exc, ErrorClass.OTHER))
    _, _, v = _judge("numpy.take", np.arange(3), np.array([9]), got, "oob-above", axis=0, mode="raise")
    assert (v.conforms, str(v.outcome), v.behaviour) == (False, "internal error", Behaviour.INTERNAL)


def test_an_error_of_another_class_for_the_same_condition_is_a_finding() -> None:
    got = Outcome.raised(ValueError("shape mismatch"), ErrorClass.SHAPE_INVALID)
    _, _, v = _judge("numpy.take", np.arange(3), np.array([9]), got, "oob-above", axis=0, mode="raise")
    assert not v.conforms and str(v.outcome) == "wrong error (shape or attribute error, expected index error)"


def test_an_index_error_where_a_shape_rule_and_an_index_are_both_bad_conforms() -> None:
    got = Outcome.raised(IndexError("index 9 out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE)
    _, ref, v = _judge("torch.gather", np.zeros((2, 2)), np.full((3, 3), 9), got, "oob-above", dim=0)
    assert ref.error_class in (ErrorClass.SHAPE_INVALID, ErrorClass.ATTRIBUTE_INVALID) and v.conforms


def test_fake_oracles_raising_internal_and_wrong_class_errors_become_findings() -> None:
    def internal(case: Case) -> Outcome:
        exc = AssertionError("internal assert failed")
        return Outcome.raised(exc, internal_or(exc, ErrorClass.OTHER))

    def wrong_class(case: Case) -> Outcome:
        if np.asarray(case.indices).size and case.tags and case.tags.regime != "in-range":
            return Outcome.raised(ValueError("bad shape"), ErrorClass.SHAPE_INVALID)
        return Outcome.returned(np.asarray(np.take(case.data, case.indices, axis=case.attrs["axis"])))

    fakes = [Fixed("internal", ["numpy.take"], internal), Fixed("wrongclass", ["numpy.take"], wrong_class)]
    result = run_campaign(fakes, Settings(seed=1, max_examples=30, ops=("numpy.take",)))
    outcomes = {(f.signature.oracle, str(f.signature.outcome)) for f in result.findings}
    assert ("internal", "internal error") in outcomes
    # a shape error where the reference raises an index error: the shapes were fine, so it is "shapes refused"
    # (rootcause: one finding whatever the index values), still a finding
    assert ("wrongclass", "shapes refused") in outcomes


def test_an_empty_axis_message_is_an_index_error_not_an_attribute_error() -> None:
    assert classify_message("Cannot do a non-empty jnp.take() from an empty axis.") is ErrorClass.INDEX_OUT_OF_RANGE
    assert classify_message("cannot do a non-empty take from an empty axes.") is ErrorClass.INDEX_OUT_OF_RANGE


# -- dtypes as users pass them -----------------------------------------------------------


def test_indices_reach_every_op_in_their_drawn_dtype() -> None:
    cc = ClassCase(EqClass.ELEMENT, (3,), (2,), 0, 0, "float32", "uint16", "in-range", False, "contiguous", 0, 0)
    cases = translate(cc)
    assert cases and {c.indices.dtype.name for c in cases} == {"uint16"}
    assert "torch.gather" in {c.op for c in cases}  # documented int64 only, run all the same


def test_rejecting_an_undocumented_index_dtype_is_behaviour_not_a_finding() -> None:
    got = Outcome.raised(RuntimeError("gather(): Expected dtype int64 for index"), ErrorClass.DTYPE_UNSUPPORTED)
    case, ref, v = _judge("torch.gather", np.arange(3), np.array([1], np.int32), got, "in-range", dim=0)
    assert v.conforms and v.behaviour is Behaviour.DTYPE_REJECTED
    sightings = Sightings(0.0)
    sightings.dtypes.add(Judged(case, "torch", INFO, ref, got, v))
    assert sightings.dtypes.to_json()[0]["statuses"] == {"rejected (dtype unsupported)": 1}


def test_rejecting_a_documented_dtype_is_one_finding_whatever_the_regime() -> None:
    got = Outcome.raised(
        TypeError("could not find an implementation for Gather(13) node with name ''"), ErrorClass.DTYPE_UNSUPPORTED
    )
    sigs = set()
    for idx, regime in (([0], "in-range"), ([7], "oob-above"), ([-1], "negative")):
        case, ref, v = _judge("onnx.Gather-13", np.zeros(3, np.complex64), np.array(idx, np.int64), got, regime, axis=0)
        sigs.add(signature(case, INFO, v, got, ref))
    case, ref, v = _judge(
        "onnx.Gather-11", np.zeros(3, np.complex128), np.array([0], np.int32), got, "in-range", axis=0
    )
    sigs.add(signature(case, INFO, v, got, ref))
    assert len(sigs) == 1 and next(iter(sigs)).tags == ("data dtype",) and next(iter(sigs)).op == "onnx.Gather"


def test_an_unchecked_empty_output_is_one_finding_per_oracle_and_family() -> None:
    got = Outcome.returned(np.zeros((2, 0)))
    sigs = set()
    for idx, regime in (([5], "oob-above"), ([-9], "oob-below")):
        case, ref, v = _judge("onnx.Gather-13", np.zeros((2, 0)), np.array(idx, np.int64), got, regime, axis=1)
        sigs.add(signature(case, INFO, v, got, ref))
    assert [s.tags for s in sigs] == [("empty output",)]


def test_a_nan_payload_lost_is_named_as_such() -> None:
    data = np.array([0x7FC00001], np.uint32).view(np.float32)
    got = Outcome.returned(np.array([np.nan], np.float32))
    _, _, v = _judge("numpy.take", data, np.array([0]), got, "in-range", axis=0)
    assert str(v.outcome) == "NaN payload not kept"


# -- spec silent ---------------------------------------------------------------------


def test_gather_1_negatives_are_spec_silent_not_a_violation() -> None:
    _, _, v = _judge(
        "onnx.Gather-1", np.array([1, 2, 3]), np.array([-1]), Outcome.returned(np.array([3])), "negative", axis=0
    )
    assert (str(v.outcome), v.behaviour) == ("spec silent", Behaviour.WRAPS)
    _, _, v11 = _judge(
        "onnx.Gather-11", np.array([1, 2, 3]), np.array([-1]), Outcome.returned(np.array([3])), "negative", axis=0
    )
    assert v11.conforms


# -- false findings of earlier campaigns -------------------------------------------------


def test_jnp_take_raising_on_an_empty_axis_is_numpys_rule_not_a_fault() -> None:
    with pytest.raises(IndexError, match="empty axis"):
        reference("jax.numpy.take", np.zeros(0, np.int32), np.array([1]), axis=0)
    exc = IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    _, _, v = _judge(
        "jax.numpy.take",
        np.zeros(0, np.int32),
        np.array(1, np.int8),
        Outcome.raised(exc, classify_message(str(exc))),
        "oob-above",
        axis=0,
    )
    assert v.conforms


def test_a_broken_shape_rule_is_one_finding_without_a_policy_whatever_the_indices() -> None:
    got = Outcome.returned(np.array(5))
    sigs = set()
    for idx, regime in ((0, "in-range"), (7, "oob-above")):
        case, ref, v = _judge("numpy.take", np.array(5), np.array(idx), got, regime, axis=0, mode="raise")
        sigs.add(signature(case, INFO, v, got, ref))
    assert [(s.policy, s.tags) for s in sigs] == [(None, ("precondition: 0-d input",))]


def test_numpy_overflow_on_a_uint64_index_is_not_an_internal_error() -> None:
    exc = OverflowError("Python int too large to convert to C long")
    assert internal_or(exc, ErrorClass.OTHER) is ErrorClass.OTHER


# -- a small real campaign: every named policy is discriminated ---------------------------


@pytest.fixture(scope="module")
def real_run():
    import oracles

    names = [n for n in ("numpy", "torch", "jax") if n in oracles.available()]
    started = [oracles.get(n) for n in names]  # isolated: some drawn cases hang numpy for good
    try:
        return run_campaign(started, Settings(seed=4, max_examples=40))
    finally:
        for o in started:
            o.close()


def test_no_finding_names_a_policy_another_candidate_also_explains(real_run) -> None:
    named = [f for f in real_run.findings if f.signature.policy in {b for _, b in CANDIDATES}]
    for f in named:
        got = (
            next(iter(f.outcomes.values())) if f.signature.oracle not in f.outcomes else f.outcomes[f.signature.oracle]
        )
        values = PolicyValues(f.case)
        words = {
            b
            for p, b in candidates(values)
            if (v := values.under(p)) is not None and got.value is not None and np.array_equal(v, got.value)
        }
        assert words == {Behaviour(f.signature.policy)}, f.signature.words()


def test_findings_of_a_real_campaign_list_their_variants(real_run) -> None:
    assert real_run.findings
    for f in real_run.findings:
        assert sum(f.variants["op"].values()) == f.count


def test_evaluate_judges_each_oracle_once_per_case() -> None:
    fake = Fixed(
        "f",
        ["numpy.take"],
        lambda c: Outcome.returned(np.asarray(np.take(c.data, c.indices, axis=c.attrs["axis"], mode=c.attrs["mode"]))),
    )
    cc = ClassCase(EqClass.BLOCK, (3,), (2,), 0, 0, "int32", "int64", "in-range", False, "contiguous", 0, 0)
    judged = evaluate(cc, [fake], {"f": fake.info()}, ["numpy.take"])
    assert len(judged) == 1 and judged[0].verdict.conforms
