"""Facts cross layers as fields, not sentences (issue 39, point 4): the
reference's preconditions raise typed errors that carry their rule and the
argument they blame, and the judge reads those fields; a framework's error is
classified by its type first and by whole words only as a last resort; the
argument whose dtype an oracle refused travels on the outcome."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from conformance.core.blame import DtypeArg, Operand, Rule
from conformance.core.case import Case, CaseTags
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.judge import verdict as verdict_module
from conformance.judge.judged import judged_alone
from conformance.judge.rootcause import rejected_dtype
from conformance.judge.verdict import reference_outcome
from conformance.spec.catalog import ops, spec
from conformance.spec.errors import (
    IndexOutOfRangeError,
    PreconditionError,
    PreconditionIndexError,
    PreconditionValueError,
)
from conformance.spec.reference import reference
from oracles._common import classify_with
from oracles.base import classify_message
from oracles.numpy_oracle import oracles_here as numpy_oracles
from oracles.tf_numpy_oracle import TNP_PATTERNS

DOCUMENTED = {"ValueError": ValueError, "TypeError": TypeError, "IndexError": IndexError}


def _drawn_cases(seed: int, per_op: int) -> list[Case]:
    """Random shapes (0-d and empty included), indices in and out of range and
    attributes of every kind (ints, None, bools, floats, strings, 0-d arrays) for every catalog op."""
    rng = random.Random(seed)
    values = [None, 0, 1, -1, 2, -3, 5, True, 1.5, "1", np.array(1), np.int8(1), "raise", "wrap", "clip", "fill"]
    cases = []
    for op in ops():
        s = spec(op)
        for _ in range(per_op):
            data_shape = tuple(rng.choice([0, 1, 1, 2, 3]) for _ in range(rng.choice([0, 1, 2, 3])))
            index_shape = tuple(rng.choice([0, 1, 1, 2]) for _ in range(rng.choice([0, 1, 2, 3])))
            size = int(np.prod(index_shape))
            indices = np.array([rng.choice([0, 1, -1, 5]) for _ in range(size)], np.int64).reshape(index_shape)
            attrs = {a.name: rng.choice(values) for a in s.attrs if a.required or rng.random() < 0.6}
            cases.append(Case(op, np.zeros(data_shape, np.float32), indices, attrs))
    return cases


def test_every_error_of_the_reference_is_typed_with_its_rule_and_argument_as_the_op_documents() -> None:
    seen_rules = set()
    for case in _drawn_cases(seed=7, per_op=150):
        try:
            reference(case.op, case.data, case.indices, check_dtypes=False, **case.attrs)
        except IndexOutOfRangeError as exc:
            assert exc.size >= 0 and 0 <= exc.axis, exc
            assert (exc.value is None) == (exc.position is None), exc
        except PreconditionError as exc:
            assert exc.rule is not Rule.UNNAMED, (case, exc)
            assert isinstance(exc, DOCUMENTED[exc.documented]), (case, exc)
            assert (
                exc.argument in (Operand.DATA, Operand.INDICES)
                or exc.argument in case.attrs
                or exc.argument in {a.name for a in spec(case.op).attrs}
            ), (case, exc)
            seen_rules.add(exc.rule)
        except Exception as exc:  # noqa: BLE001 - what is checked: no error escapes untyped
            pytest.fail(f"untyped {type(exc).__name__} from the reference on {case}: {exc}")
    assert len(seen_rules) >= 12, seen_rules


def test_the_reference_outcome_is_built_from_the_error_fields_never_from_its_message(monkeypatch) -> None:
    case = Case("torch.gather", np.zeros(3), np.array([0]), {"dim": 0})
    raised: list[Exception] = [
        # words that the old substring rules read as an attribute error ("axis", "batch_dims") or an index error
        PreconditionValueError("axis batch_dims mode: out of range for axis 0", Rule.RANK_MISMATCH, Operand.INDICES),
        PreconditionIndexError("indices[0] = 9 is out of range for axis 0", Rule.INDEX_RANK, Operand.INDICES),
        PreconditionValueError("nothing about it here", Rule.AXIS_RANGE, "dim"),
        IndexOutOfRangeError("a message naming no index at all", axis=0, size=3, value=9, position=(0,)),
    ]
    expected = [
        (ErrorClass.SHAPE_INVALID, Rule.RANK_MISMATCH, "indices", "ValueError"),
        (ErrorClass.SHAPE_INVALID, Rule.INDEX_RANK, "indices", "IndexError"),
        (ErrorClass.ATTRIBUTE_INVALID, Rule.AXIS_RANGE, "dim", "ValueError"),
        (ErrorClass.INDEX_OUT_OF_RANGE, None, None, "IndexError"),
    ]
    for exc, (error_class, rule, argument, error_type) in zip(raised, expected, strict=True):

        def raising(*args: object, exc: Exception = exc, **kwargs: object) -> None:
            raise exc

        monkeypatch.setattr(verdict_module, "reference", raising)
        out = reference_outcome(case)
        assert (out.error_class, out.rule, out.argument, out.error_type) == (error_class, rule, argument, error_type)
        assert out.message == str(exc)


def _judged(op: str, data: np.ndarray, indices: np.ndarray, got: Outcome, regime: str, flags=(), **attrs):
    info = OracleInfo("paddle", "paddle", "3.3.1", "cpu", "eager (dygraph)", (op,))
    tags = CaseTags(regime, np.asarray(indices).dtype.name, "float", flags=tuple(flags))
    return judged_alone(Case(op, data, indices, attrs, tags), info, got)


def test_paddle_gather_nd_1d_indices_on_empty_data_break_the_index_rank_not_a_0d_rule() -> None:
    # regression: the baseline's 'paddle.gather_nd precondition: 0-d indices' had 1-D indices [1] on float32[0]
    # data; "indices must have rank >= 2" was read by the substring "indices must have rank" as "0-d indices"
    data, indices = np.zeros(0, np.float32), np.array([1], np.int64)
    ref = reference_outcome(Case("paddle.gather_nd", data, indices, {}))
    assert (ref.rule, ref.argument, ref.error_class) == (Rule.INDEX_RANK, "indices", ErrorClass.SHAPE_INVALID)
    stray = Outcome.returned(np.array(0.0, np.float32))  # Paddle reads past the empty data and answers
    j = _judged("paddle.gather_nd", data, indices, stray, "oob-above", flags=("empty-data",))
    assert j.signature().tags == ("precondition: index rank",), j.signature().words()
    zero_d = reference_outcome(Case("onnx.GatherND-13", np.zeros((1, 1), np.float32), np.array(0), {}))
    assert zero_d.rule is Rule.ZERO_D_INDICES  # 0-d indices keep their own rule


@pytest.mark.parametrize(
    ("op", "data_shape", "index_shape", "attrs", "rule", "argument"),
    [
        # "indices.shape[-1] = 2 must be <= rank(data) - batch_dims = 1" named "batch_dims out of range" by a substring
        ("onnx.GatherND-13", (2,), (2, 2), {}, Rule.TUPLE_TOO_LONG, "indices"),
        ("onnx.GatherND-13", (2, 2), (2, 0), {}, Rule.TUPLE_LENGTH, "indices"),
        ("onnx.GatherND-13", (2, 2), (1, 1), {"batch_dims": 5}, Rule.BATCH_DIMS_RANGE, "batch_dims"),
        # axis=None on 2-D data: "precondition" (no fragment named it)
        ("array_api.take", (2, 3), (1,), {"axis": None}, Rule.AXIS_REQUIRED, "axis"),
        # tf.gather's axis=None is batch_dims: on 0-d data the reference failed with a stray "tuple index out of range"
        ("tensorflow.gather", (), (2,), {}, Rule.AXIS_RANGE, "axis"),
        ("openvino.Gather", (3,), (3, 1), {"axis": None, "batch_dims": 1}, Rule.AXIS_RANGE, "axis"),
        ("torch.index_select", (), (2,), {"dim": 0}, Rule.ZERO_D_INPUT, "data"),
        ("torch.index_select", (3,), (1, 1), {"dim": 0}, Rule.INDEX_RANK, "indices"),
        ("numpy.take_along_axis", (2, 3), (2,), {"axis": 1}, Rule.RANK_MISMATCH, "indices"),
        ("numpy.take_along_axis", (2, 3), (3, 1), {"axis": 1}, Rule.NOT_BROADCASTABLE, "indices"),
        ("torch.gather", (2, 3), (3, 1), {"dim": 1}, Rule.INDEX_LARGER, "indices"),
        ("webnn.gatherElements", (2, 3), (1, 1), {"axis": 1}, Rule.SHAPES_DIFFER, "indices"),
        ("tensorflow.gather", (2, 5), (3, 1), {"axis": 1, "batch_dims": 1}, Rule.BATCH_MISMATCH, "indices"),
        ("numpy.take", (3,), (1,), {"axis": True}, Rule.ATTRIBUTE_BOOL, "axis"),
        ("numpy.take", (3,), (1,), {"axis": 1.0}, Rule.ATTRIBUTE_TYPE, "axis"),
        ("jax.numpy.take", (3,), (1,), {"fill_value": np.array(1.0)}, Rule.ATTRIBUTE_TYPE, "fill_value"),
        ("jax.numpy.take", (3,), (1,), {"fill_value": "1"}, Rule.ATTRIBUTE_TYPE, "fill_value"),
        ("numpy.take", (3,), (1,), {"mode": None}, Rule.ATTRIBUTE_VALUE, "mode"),
        ("onnx.Gather-13", (3,), (1,), {"axis": 1}, Rule.AXIS_RANGE, "axis"),
    ],
)
def test_each_precondition_names_its_own_rule(op, data_shape, index_shape, attrs, rule, argument) -> None:
    out = reference_outcome(Case(op, np.zeros(data_shape, np.float32), np.zeros(index_shape, np.int64), attrs))
    assert (out.kind, out.rule, out.argument) == (Kind.ERROR, rule, argument), out
    assert out.error_type in DOCUMENTED, out.error_type  # the op's documented type, not the typed subclass's name
    attribute = argument not in ("data", "indices")
    assert out.error_class is (ErrorClass.ATTRIBUTE_INVALID if attribute else ErrorClass.SHAPE_INVALID)


def test_the_blame_fields_round_trip_through_json_and_old_files_read_as_unknown() -> None:
    refused = Outcome(Kind.ERROR, error_type="ValueError", message="m", rule=Rule.BATCH_MISMATCH, argument="indices")
    back = Outcome.from_json(json.loads(json.dumps(refused.to_json())))
    assert (back.rule, back.argument, back.dtype_argument) == (Rule.BATCH_MISMATCH, "indices", None)
    dtype = Outcome(Kind.ERROR, message="no kernel", dtype_argument=DtypeArg.INDEX)
    assert Outcome.from_json(json.loads(json.dumps(dtype.to_json()))).dtype_argument is DtypeArg.INDEX
    old = {k: v for k, v in refused.to_json().items() if k not in ("rule", "argument", "dtype_argument")}
    assert Outcome.from_json(old).rule is None and "rule" not in Outcome.returned(np.zeros(1)).to_json()


NEWAXIS = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid "
    "indices, got 'wrap'"
)


def test_a_message_saying_newaxis_is_no_attribute_error() -> None:
    # regression: tensorflow-numpy's IndexError for take(axis='wrap') was "attribute invalid" ("axis" in "newaxis"),
    # and onnx.reference GatherND's "cannot reshape ... into shape (0,newaxis,1)" too
    assert classify_with(NEWAXIS, TNP_PATTERNS) is ErrorClass.OTHER
    assert classify_message(NEWAXIS) is ErrorClass.OTHER
    reshape = "cannot reshape array of size 0 into shape (1,newaxis,0)"
    assert classify_message(reshape) is ErrorClass.SHAPE_INVALID
    assert classify_message("axis 2 is out of bounds for array of dimension 1") is ErrorClass.INDEX_OUT_OF_RANGE
    assert classify_message("Axis 2 out of the tensor rank range") is ErrorClass.ATTRIBUTE_INVALID
    # other substrings that were words: "invalidtype" is no "dtype", "model" no "mode", "get_batch_dims" no "batch_dims"
    assert classify_message("(InvalidType) gather(): argument (position 3) must be int") is ErrorClass.OTHER
    assert classify_message("Model wasn't fully converted") is ErrorClass.OTHER
    # a stem ("shape*", "dimension*") still says its inflections
    assert classify_message("Incompatible shapes for broadcasting") is ErrorClass.SHAPE_INVALID
    assert classify_message("array is 0-dimensional, but 1 were indexed") is ErrorClass.SHAPE_INVALID


def test_a_script_classifies_every_error_exactly_as_its_oracle() -> None:
    oracle = numpy_oracles()[0]
    case = Case("numpy.take", np.arange(3.0), np.array([5]), {"axis": 0, "mode": "raise"})
    namespace: dict[str, object] = {"__name__": "reproducer"}
    exec(oracle.reproducer(case, reference_outcome(case)).text, namespace)  # noqa: S102 - the script under test
    script_classify = namespace["classify"]
    errors = [
        IndexError(NEWAXIS),
        IndexError("index 5 is out of bounds for axis 0 with size 3"),
        ValueError("cannot reshape array of size 0 into shape (1,newaxis,0)"),
        TypeError("(InvalidType) gather(): argument (position 3) must be int, but got bool"),
        RuntimeError("Model wasn't fully converted"),
        ValueError("Incompatible shapes for broadcasting: shapes=[(0, 2), (3, 1)]"),
        IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed"),
        RuntimeError("ZeroDivisionError: integer division by zero"),
        np.exceptions.AxisError(2, 1),
        ValueError("clipmode must be one of 'clip', 'raise', or 'wrap'"),
        KeyError("x"),
    ]
    from oracles.base import internal_or

    for exc in errors:
        assert script_classify(exc) == str(internal_or(exc, oracle.classify(exc))), exc  # type: ignore[operator]


def test_the_refused_dtype_argument_is_the_outcomes_field_before_any_word() -> None:
    uint16 = Case("torch.index_select", np.zeros(2, np.uint16), np.zeros(1, np.int64), {"dim": 0})
    # regression: the op's name "index_select" in the message blamed the index for the data's uint16
    message = "\"index_select\" not implemented for 'UInt16'"
    assert rejected_dtype(uint16, Outcome(Kind.ERROR, message=message)) == (DtypeArg.DATA, "uint16")
    field = Outcome(Kind.ERROR, message="index indices Tindices", dtype_argument=DtypeArg.DATA)
    assert rejected_dtype(uint16, field) == (DtypeArg.DATA, "uint16")
    int8 = Case("t.g", np.zeros(2, np.uint8), np.zeros(1, np.int8), {})
    assert rejected_dtype(int8, Outcome(Kind.ERROR, message="no kernel for uint8"))[0] is DtypeArg.DATA  # not "int8"
    assert rejected_dtype(int8, Outcome(Kind.ERROR, message="no kernel for int8"))[0] is DtypeArg.INDEX


def test_an_oracle_that_fails_converting_an_argument_says_which() -> None:
    oracle = numpy_oracles()[0]
    convert = oracle._namespace["to_native"]
    try:
        oracle._namespace["to_native"] = lambda a: a if a.dtype != np.int16 else 1 / 0
        refused = oracle.run("numpy.take", np.zeros(3), np.array([0], np.int16), axis=0)
        assert (refused.kind, refused.dtype_argument) == (Kind.ERROR, DtypeArg.INDEX)
        refused = oracle.run("numpy.take", np.zeros(3, np.int16), np.array([0]), axis=0)
        assert refused.dtype_argument is DtypeArg.DATA
    finally:
        oracle._namespace["to_native"] = convert
    raised_by_the_op = oracle.run("numpy.take", np.zeros(3), np.array([7]), axis=0)
    assert raised_by_the_op.kind is Kind.ERROR and raised_by_the_op.dtype_argument is None
