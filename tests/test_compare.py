"""Judging an oracle's outcome against the reference, and naming its policy."""

from __future__ import annotations

import numpy as np

from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.outcome import ErrorClass, Outcome
from conformance.judge.verdict import PolicyValues, judge, observed_policy, reference_outcome

X = np.array([10, 20, 30, 40], dtype=np.int32)


def _verdict(op: str, idx: list[int], got: Outcome, regime: str, **attrs):
    case = Case(op, X, np.array(idx, dtype=np.int64), attrs, CaseTags(regime, "int64", "int"))
    return judge(case, reference_outcome(case), got, PolicyValues(case))


def test_matching_value_conforms() -> None:
    v = _verdict("numpy.take", [1, 2], Outcome.returned(np.array([20, 30], np.int32)), "in-range", axis=0)
    assert v.conforms and v.behaviour is Behaviour.CONFORMS


def test_a_flipped_bit_is_a_wrong_value() -> None:
    v = _verdict("numpy.take", [1], Outcome.returned(np.array([21], np.int32)), "in-range", axis=0)
    assert (v.conforms, str(v.outcome), v.behaviour) == (False, "wrong value", Behaviour.GARBAGE)


def test_dtype_and_shape_are_part_of_the_value() -> None:
    assert (
        str(_verdict("numpy.take", [1], Outcome.returned(np.array([20], np.int64)), "in-range", axis=0).outcome)
        == "wrong dtype"
    )
    assert (
        str(_verdict("numpy.take", [1], Outcome.returned(np.array([[20]], np.int32)), "in-range", axis=0).outcome)
        == "wrong shape"
    )


def test_negative_zero_differs_from_zero() -> None:
    case = Case("numpy.take", np.array([-0.0, 1.0]), np.array([0]), {"axis": 0}, CaseTags("in-range", "int64", "float"))
    assert not judge(case, reference_outcome(case), Outcome.returned(np.array([0.0])), PolicyValues(case)).conforms


def test_the_two_clamp_flavours_are_told_apart() -> None:
    raw = _verdict("numpy.take", [-1], Outcome.returned(np.array([10], np.int32)), "negative", axis=0, mode="clip")
    wrapped = _verdict("webnn.gather", [-1, 9], Outcome.returned(np.array([40, 40], np.int32)), "oob-above", axis=0)
    assert raw.conforms and raw.behaviour is Behaviour.CLAMPS_RAW
    assert wrapped.conforms and wrapped.behaviour is Behaviour.CLAMPS


def test_accepting_a_negative_where_the_docs_reject_it_is_wraps() -> None:
    v = _verdict("torch.gather", [-1], Outcome.returned(np.array([40], np.int32)), "negative", dim=0)
    assert (v.conforms, str(v.outcome), v.behaviour) == (False, "value instead of error", Behaviour.WRAPS)


def test_out_of_range_read_as_zero_or_as_seven_is_fills_or_garbage_one_example_cannot_tell_a_fill_from_stray_memory():
    zero = _verdict("numpy.take", [9], Outcome.returned(np.array([0], np.int32)), "oob-above", axis=0)
    seven = _verdict("numpy.take", [1, 9], Outcome.returned(np.array([20, 7], np.int32)), "oob-above", axis=0)
    stray = _verdict("numpy.take", [9, 9], Outcome.returned(np.array([7, -3], np.int32)), "oob-above", axis=0)
    assert zero.behaviour is seven.behaviour is stray.behaviour is Behaviour.FILLS_OR_GARBAGE


def test_unexplained_value_is_garbage() -> None:
    v = _verdict("numpy.take", [1, 9], Outcome.returned(np.array([30, 7], np.int32)), "oob-above", axis=0)
    assert v.behaviour is Behaviour.GARBAGE


def test_error_where_reference_raises_conforms_unless_it_blames_the_dtype() -> None:
    ok = _verdict(
        "numpy.take",
        [9],
        Outcome.raised(IndexError("out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE),
        "oob-above",
        axis=0,
    )
    wrong = _verdict(
        "numpy.take", [9], Outcome.raised(TypeError("dtype"), ErrorClass.DTYPE_UNSUPPORTED), "oob-above", axis=0
    )
    assert ok.conforms and ok.behaviour is Behaviour.RAISES
    assert (wrong.conforms, str(wrong.outcome), wrong.behaviour) == (False, "dtype rejected", Behaviour.DTYPE_REJECTED)


def test_error_where_reference_returns_names_the_error_class() -> None:
    v = _verdict(
        "numpy.take", [1], Outcome.raised(TypeError("cannot cast"), ErrorClass.DTYPE_UNSUPPORTED), "in-range", axis=0
    )
    assert str(v.outcome) == "dtype rejected"  # int64 data, int64 indices: both documented


def test_crash_and_timeout_are_their_own_outcomes() -> None:
    assert _verdict("numpy.take", [1], Outcome.crashed(11, None), "in-range", axis=0).behaviour is Behaviour.CRASH
    assert str(_verdict("numpy.take", [1], Outcome.timed_out(5.0), "in-range", axis=0).outcome) == "timeout"


def test_precondition_violation_accepted_is_a_discrepancy() -> None:
    case = Case(
        "torch.gather", np.zeros((2, 2)), np.zeros((3, 3), np.int64), {"dim": 0}, CaseTags("in-range", "int64", "float")
    )
    v = judge(case, reference_outcome(case), Outcome.returned(np.zeros((3, 3))), PolicyValues(case))
    assert str(v.outcome) == "value instead of error"


def test_observed_policy_of_an_error_is_raises() -> None:
    case = Case("numpy.take", X, np.array([9]), {"axis": 0})
    assert (
        observed_policy(Outcome.raised(IndexError("x"), ErrorClass.INDEX_OUT_OF_RANGE), PolicyValues(case))
        is Behaviour.RAISES
    )


def test_a_type_error_for_an_attribute_of_the_wrong_type_is_the_refusal_the_docs_ask_not_a_rejected_dtype() -> None:
    """The baseline's review by hand: JAX answers ``fill_value='1'`` with "data type '' not understood", TF and
    Paddle ``axis=True`` with a dtype error; each refuses the attribute, as the reference does (a false
    "dtype rejected" finding before)."""
    jax_words = Outcome.raised(TypeError("data type '' not understood"), ErrorClass.DTYPE_UNSUPPORTED)
    v = _verdict("jax.numpy.take", [1], jax_words, "in-range", axis=0, mode="fill", fill_value="1")
    tf_words = Outcome.raised(
        TypeError("Value passed to parameter 'axis' has DataType bool"), ErrorClass.DTYPE_UNSUPPORTED
    )
    w = _verdict("tensorflow.gather", [1], tf_words, "in-range", axis=True)
    assert (v.conforms, v.behaviour, w.conforms, w.behaviour) == (True, Behaviour.RAISES, True, Behaviour.RAISES)


def test_a_script_of_a_stray_read_seen_as_zero_reproduces_it_whatever_other_bytes_it_reads() -> None:
    """An OpenVINO GatherND finding read 0 past the data when it was built; its script read 4.6e-41 and said
    'not reproduced' (tests/test_consistency.py): for a 'fills or garbage' root cause, a value no policy gives
    shows it too (the script's 'other' verdict)."""
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judgement

    info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
    case = Case("numpy.take", X, np.array([9]), {"axis": 0, "mode": "raise"}, CaseTags("oob-above", "int64", "int"))
    j = judgement(case, info, Outcome.returned(np.array([0], np.int32)))
    assert j.other[1], j.other
