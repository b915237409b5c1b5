"""Atlas probes that isolate their condition (issue 44): each probe differs from a valid case in its condition
alone, and a cell says "raises" only for the error class the condition's rule names.

The fault that led here: the "attr-batch-dims-str/-float/-bool" probes of ``tf.gather_nd`` used the ND base case,
data (5, 4) and indices (3, 1), on which ``batch_dims=1`` is already invalid (batch sizes 5 and 3). TensorFlow read
``'1'`` as 1 and failed on the shapes ("Input to reshape is a tensor with 3 values"), and the atlas said "raises"
as if the type had been refused; the acceptance (tensorflow/tensorflow#55203) showed only where a drawn case
happened to show it (seed 0, not seed 7)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings

from conformance.cases.probes import CONDITIONS, Group, all_probes, cases_of, condition, isolation, ordinary, probes
from conformance.cases.strategies import class_cases
from conformance.cases.translate import FIXED_VALUES
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, int_reading
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import AttrRole, Layout, MismatchKind
from conformance.judge.verdict import PolicyValues, judge, reference_outcome
from conformance.spec.plans import EqClass

# -- point 1: every probe isolates its condition --------------------------------------------------------------


def _revertible_cases() -> list[tuple[str, EqClass, Case, Case]]:
    """(condition, class, the probe's case, the same case with the condition reverted) for every probe of a
    revertible condition and every op it reaches."""
    out = []
    for p in all_probes():
        if condition(p.condition).revertible:
            cases = cases_of(p)
            back = {b.op: b for b in cases_of(ordinary(p), [c.op for c in cases])}
            out += [(p.condition, p.eq_class, c, back[c.op]) for c in cases]
    return out


def test_every_probe_with_its_condition_reverted_is_valid_for_the_reference() -> None:
    """The acceptance test of issue 44: with the condition's features back at their ordinary values (the attribute
    at its int reading, indices in range, int64 indices, non-empty dimensions), the reference gives a value, for
    every probe of every revertible condition and every op, but where the atlas says the probe cannot isolate it."""
    unisolated = isolation()
    checked, refused = 0, []
    for key, eq, case, back in _revertible_cases():
        out = reference_outcome(back)
        checked += 1
        if out.kind is not Kind.VALUE and (key, eq, case.op) not in unisolated:
            refused.append((key, eq.name, case.op, out.describe()))
    assert checked > 3000 and not refused, refused[:10]


def test_a_probe_is_refused_by_the_reference_only_for_its_condition() -> None:
    """The other half of isolating: where the reference refuses a probe, it refuses it for the condition (an index
    out of range for index values and emptiness; the attribute for an attribute's type or value), never for a
    shape it also breaks."""
    unisolated = isolation()
    index, attribute = {ErrorClass.INDEX_OUT_OF_RANGE}, {ErrorClass.ATTRIBUTE_INVALID}
    wanted = {Group.INDEX: index, Group.EMPTY: index, Group.ATTRIBUTE: attribute, Group.LAYOUT: set()}
    wrong = []
    for key, eq, case, _ in _revertible_cases():
        group = condition(key).group
        out = reference_outcome(case)
        refused = group in wanted and out.kind is Kind.ERROR and (key, eq, case.op) not in unisolated
        if refused and out.error_class not in wanted[group]:
            wrong.append((key, case.op, out.describe()))
    assert not wrong, wrong[:10]


NOT_ISOLABLE = re.compile(
    r"must be 1-D|rank >= 2|must not exceed the input's|must equal input\.shape except"
    r"|tensor has a dimension with size zero"
)
"""The rules a probe's condition cannot be kept apart from, for some ops: a 0-d index where the op takes 1-D ones
(or ND tuples of rank >= 2), an empty data dimension where the indices may not be larger than the data, or must
have its shape, an empty tensor where the op allows none (TOSA's: every empty-* condition of tosa.gather)."""


def test_the_probes_that_cannot_isolate_their_condition_say_why_and_are_few() -> None:
    """Each (condition, op) whose probe also breaks another rule is listed with that rule (the atlas shows it beside
    the cell and in ``atlas.json``'s conditions), and each is one of the combinations no probe can avoid."""
    unisolated = isolation()
    assert 0 < len(unisolated) <= 26
    assert all(NOT_ISOLABLE.search(why) for why in unisolated.values()), unisolated
    assert {k for k, _, _ in unisolated} <= {
        "empty-outer-oob",
        "empty-slices-oob",
        "empty-indices-wider",
        "empty-axis-scalar-oob",
        "empty-outer-scalar",
        "empty-outer-scalar-negative",
        "empty-axis",
        "empty-indices",
    }
    listed = condition("empty-outer-scalar").to_json()["unisolated"]
    assert set(listed) == {"block gather: paddle.index_select", "block gather: array_api.take"}  # type: ignore[arg-type]


def test_the_attribute_type_probes_use_shapes_on_which_the_int_reading_is_valid() -> None:
    """Issue 44's probe, now: batch_dims given '1', 1.5, True, np.int64(1) or np.array(1) on data (2, 5, 4) and
    indices (2, 3, 1), where batch_dims=1 is valid; the reference refuses the types and gives a value for 1."""
    for value in ("str", "float", "bool", "numpy-int", "zero-d"):
        [p] = [p for p in probes(EqClass.ND) if p.condition == f"attr-batch-dims-{value}"]
        [case] = cases_of(p, ["tensorflow.gather_nd"])
        assert (case.data.shape, case.indices.shape) == ((2, 5, 4), (2, 3, 1))
        read = int_reading(case.attrs["batch_dims"])
        assert read == 1
        as_int = Case(case.op, case.data, case.indices, {"batch_dims": read})
        assert reference_outcome(as_int).kind is Kind.VALUE
    [block] = [p for p in probes(EqClass.BLOCK) if p.condition == "attr-batch-dims-str"]
    assert {c.op for c in cases_of(block)} == {"tensorflow.gather", "openvino.Gather-8"}
    assert all(reference_outcome(c).rule is not None for c in cases_of(block))


def test_axis_none_probes_use_1d_data_so_that_every_reading_of_none_has_its_indices_in_range() -> None:
    """``tf.gather(axis=None)`` is its first axis, 2 long in the base case, where ``(2 i + 1) mod 5`` reads 3: the
    cell said "raises (index out of range)" for the indices, not for None. On 1-D data, flattening and the first
    axis are axis 0, 5 long."""
    for eq in (EqClass.ELEMENT, EqClass.BLOCK):
        [p] = [p for p in probes(eq) if p.condition == "attr-axis-none"]
        assert p.data.shape == (5,) and p.indices.max() < 5
    [tf] = [
        c for p in probes(EqClass.BLOCK) if p.condition == "attr-axis-none" for c in cases_of(p, ["tensorflow.gather"])
    ]
    assert reference_outcome(tf).kind is Kind.VALUE


def test_ordinary_reverts_each_feature_and_keeps_the_rest() -> None:
    by_key = {p.condition: p for p in probes(EqClass.BLOCK)}
    high = ordinary(by_key["uint64-high"]).class_case
    assert high.index_dtype == "int64" and ordinary(by_key["uint64-high"]).indices.max() < 5
    assert ordinary(by_key["empty-axis"]).data.shape == (2, 1, 2)
    assert ordinary(by_key["layout-fortran"]).class_case.layout is Layout.CONTIGUOUS
    assert ordinary(by_key["data-bfloat16"]).data.dtype == np.float32
    assert ordinary(by_key["attr-mode-word-promise-in-bounds"]).class_case.mode_word is None
    assert ordinary(by_key["attr-axis-float"]).class_case.axis == 1


def test_a_shaped_condition_changes_only_shapes_or_an_axis() -> None:
    """The conditions with nothing to revert (ranks, broadcasting, batch dimensions, an axis): each probe has int64
    indices, float32 data, a contiguous layout and no attribute of another type, so its shape is all it asks."""
    shaped = [c for c in CONDITIONS if not c.revertible]
    assert len(shaped) > 30 and condition("axis-r") in shaped and condition("rank-7") in shaped
    for p in all_probes():
        if not condition(p.condition).revertible:
            cc = p.class_case
            assert (cc.index_dtype, cc.data_dtype, cc.layout, cc.attr_domain, cc.mode_word) == (
                "int64",
                "float32",
                Layout.CONTIGUOUS,
                None,
                None,
            ), p.condition


@settings(max_examples=300, deadline=None, database=None)
@given(class_cases())
def test_a_drawn_attribute_type_goes_only_to_a_case_that_carries_its_int_reading(cc) -> None:
    """Point 3: the fuzzer gives ``batch_dims='1'`` only to a case whose batch_dims is 1, ``axis=1.5`` only to one
    whose axis is 1, so that reading the value shows as the case's own answer."""
    if cc.attr_domain is None:
        return
    role, value = cc.attr_domain
    read = int_reading(FIXED_VALUES.get(value))
    if read is not None and role is AttrRole.BATCH_DIMS:
        assert cc.batch_dims == read
    if read is not None and role is AttrRole.AXIS:
        assert cc.axis is not None and cc.axis % len(cc.data_shape) == read


# -- point 2: "raises" only for the documented error class --------------------------------------------------


def _judged(case: Case, got: Outcome):
    return judge(case, reference_outcome(case), got, PolicyValues(case), framework="tensorflow")


def _isolated_str_probe() -> Case:
    [p] = [p for p in probes(EqClass.ND) if p.condition == "attr-batch-dims-str"]
    [case] = cases_of(p, ["tensorflow.gather_nd"])
    return case


def test_a_shape_error_for_an_attribute_type_the_int_reading_makes_valid_is_the_wrong_error() -> None:
    """TensorFlow's error on the old probe ("Input to reshape is a tensor with 3 values") on the isolated one: the
    value was read, so the type was not refused. The same error where the int reading breaks the shapes too is
    still a refusal (the framework may have checked either)."""
    shape = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID, message="Input to reshape is a tensor")
    v = _judged(_isolated_str_probe(), shape)
    assert (v.conforms, v.behaviour) == (False, Behaviour.WRONG_ERROR)
    assert str(v.outcome) == "wrong error (shape or attribute error, expected attribute type error)"
    old = Case("tensorflow.gather_nd", np.zeros((5, 4), np.float32), np.array([[1], [3], [0]]), {"batch_dims": "1"})
    assert _judged(old, shape).behaviour is Behaviour.RAISES
    typed = Outcome(Kind.ERROR, error_class=ErrorClass.ATTRIBUTE_INVALID, message="batch_dims must be an int")
    assert _judged(_isolated_str_probe(), typed).behaviour is Behaviour.RAISES


def test_a_bool_read_as_another_int_than_its_own_is_the_wrong_error_too() -> None:
    [p] = [p for p in probes(EqClass.ND) if p.condition == "attr-batch-dims-bool"]
    [case] = cases_of(p, ["tensorflow.gather_nd"])
    shape = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID, message="Input to reshape is a tensor")
    assert _judged(case, shape).outcome.kind is MismatchKind.WRONG_ERROR
    as_one = reference_outcome(Case(case.op, case.data, case.indices, {"batch_dims": 1}))
    assert _judged(case, Outcome.returned(as_one.value)).conforms  # True is 1 in Python (stop 48)


def test_an_attribute_type_accepted_and_read_as_its_int_is_named_so() -> None:
    case = _isolated_str_probe()
    as_one = reference_outcome(Case(case.op, case.data, case.indices, {"batch_dims": 1}))
    v = _judged(case, Outcome.returned(as_one.value))
    assert (v.conforms, v.outcome.kind, v.behaviour) == (
        False,
        MismatchKind.VALUE_INSTEAD_OF_ERROR,
        Behaviour.READS_AS_INT,
    )
    other = _judged(case, Outcome.returned(np.zeros_like(as_one.value)))
    assert other.behaviour is Behaviour.WRONG_ERROR  # a value, but not the int's: accepted bad input


def test_an_error_of_another_class_on_an_index_probe_is_the_wrong_error() -> None:
    """Index out of range → index out of range: a shape or attribute error on the "size" probe is the wrong error."""
    p = next(p for p in probes(EqClass.BLOCK) if p.condition == "size")  # mode selector 0
    [case] = cases_of(p, ["tensorflow.gather"])
    for error_class in (ErrorClass.SHAPE_INVALID, ErrorClass.ATTRIBUTE_INVALID):
        v = _judged(case, Outcome(Kind.ERROR, error_class=error_class, message="bad"))
        assert v.behaviour is Behaviour.WRONG_ERROR, error_class
    right = _judged(case, Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE, message="out of range"))
    assert right.behaviour is Behaviour.RAISES


# -- the framework itself ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tf_oracles():
    pytest.importorskip("tensorflow")
    from oracles.tensorflow_oracle import oracles_here

    return oracles_here()


@pytest.mark.parametrize(
    ("value", "word"), [("str", "reads as its int"), ("float", "reads as its int"), ("bool", "conforms")]
)
def test_tensorflow_accepts_batch_dims_of_another_type_and_reads_it_as_1(tf_oracles, value, word) -> None:
    """What the atlas now shows at every seed (TensorFlow 2.21.0, checked by hand with TensorFlow and NumPy
    alone): tf.gather_nd reads batch_dims='1' and 1.5 as 1 in eager mode, in a tf.function and under XLA
    (tensorflow/tensorflow#55203), against "batch_dims: An int"; True is 1 in Python, which conforms."""
    [p] = [p for p in probes(EqClass.ND) if p.condition == f"attr-batch-dims-{value}"]
    [case] = cases_of(p, ["tensorflow.gather_nd"])
    assert {o.name for o in tf_oracles} == {"tensorflow", "tensorflow-function", "tensorflow-xla"}
    for oracle in tf_oracles:
        got = oracle.run_in_process(case.op, case.data, case.indices, dict(case.attrs))
        v = _judged(case, got)
        assert got.kind is Kind.VALUE and v.behaviour.value == word, (oracle.name, got.describe(), v)


def test_an_attribute_domain_probe_is_tagged_by_the_batch_dims_it_gives_not_its_class_case() -> None:
    """The batch_dims probes carry batch_dims 1 in their class case (the int reading); the case an op gets is
    tagged ``batch_dims>0`` only where the value it is given reads as more than 0. onnxruntime's abort on
    batch_dims=-2**63 was filed as a new finding "for batch_dims>0" beside its baseline entry (first run of stop 49)."""
    from conformance.core.vocabulary import Flag

    def flags(value: str) -> bool:
        [p] = [p for p in probes(EqClass.ND) if p.condition == f"attr-batch-dims-{value}"]
        [case] = cases_of(p, ["onnx.GatherND-13"]) or cases_of(p, ["tensorflow.gather_nd"])
        assert case.tags is not None
        return Flag.BATCH_DIMS in case.tags.flags

    assert [flags(v) for v in ("str", "float", "int64-min", "none", "outside")] == [True, True, False, False, True]
