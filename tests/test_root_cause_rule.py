"""The root-cause rule (:mod:`conformance.judge.rootcause`): tags enter a finding's
identity only where they change the behaviour, behaviours one example cannot
name settle into the root cause they belong to, and minimal reproducers; with
a regression test for each false finding this rule fixed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.campaign.sightings import Sightings
from conformance.cases.class_case import ClassCase
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import ErrorClass, Outcome
from conformance.core.vocabulary import DtypeArg, MismatchKind
from conformance.gate.baseline import Entry
from conformance.judge.judged import Judged
from conformance.judge.rootcause import BAD_INDEX, BEYOND_INT32, example_words, merged_into, still_shows
from conformance.judge.verdict import PolicyValues, judge, reference_outcome
from conformance.spec.plans import EqClass
from oracles.base import internal_or

INFO = OracleInfo("fw", "fw", "1.0", "cpu", "eager", ())


def _judged(op: str, data: object, idx: object, got: Outcome, regime: str, **attrs: object) -> Judged:
    data, idx = np.asarray(data), np.asarray(idx)
    case = Case(op, data, idx, attrs, CaseTags(regime, idx.dtype.name, "int"))
    ref = reference_outcome(case)
    return Judged(case, "fw", INFO, ref, got, judge(case, ref, got, PolicyValues(case)))


def _wrapped(op: str, data: object, idx: object, regime: str, **attrs: object) -> Judged:
    got = Outcome.returned(np.take(np.asarray(data), np.asarray(idx, np.int64), mode="wrap"))
    return _judged(op, data, idx, got, regime, **attrs)


def test_a_policy_is_one_finding_whatever_the_regime_with_the_regimes_as_variants() -> None:
    data = [10, 20, 30, 40, 50]
    sightings = [
        _wrapped("torch.gather", data, [-1, 2], "negative", dim=0),
        _wrapped("torch.gather", data, [7, -1], "oob-above", dim=0),
        _wrapped("torch.gather", data, [-7, -1], "oob-below", dim=0),
        _wrapped("torch.gather", data, np.array([127, -1], np.int8), "extreme", dim=0),
    ]
    sigs = {j.signature() for j in sightings}
    assert len(sigs) == 1
    (sig,) = sigs
    assert (sig.policy, sig.condition) == (Behaviour.WRAPS, BAD_INDEX)
    seen = Sightings(0.0)
    cc = ClassCase(EqClass.ELEMENT, (5,), (2,), 0, 0, "int64", "int64", "negative", False, "contiguous", 0, 0)
    for j in sightings:
        seen.discrepancy(cc, j)
    assert set(seen.variants[sig]) >= {
        ("regime", "negative"),
        ("regime", "oob-above"),
        ("regime", "oob-below"),
        ("regime", "extreme"),
    }


def test_indices_beyond_int32_are_their_own_condition_without_a_coincidental_policy() -> None:
    # NumPy casts uint64 2**64-1 to -1 and reads the last element: "clamps" on this example only by coincidence
    j = _judged(
        "tensorflow.experimental.numpy.take",  # numpy.take reads uint64 as intp, as documented
        [5, 6, 7],
        np.array([2**64 - 1], np.uint64),
        Outcome.returned(np.array([7])),
        "extreme",
        axis=0,
        mode="raise",
    )
    sig = j.signature()
    assert sig.condition == BEYOND_INT32
    assert merged_into(sig, example_words(j.case, j.outcome), {sig}) == replace(sig, policy="")


def test_a_word_seen_beyond_int32_joins_the_same_word_on_ordinary_bad_indices() -> None:
    ordinary = _wrapped("torch.take_along_dim", [10, 20, 30, 40, 50], [7, -1], "oob-above", dim=0).signature()
    beyond = replace(ordinary, condition=BEYOND_INT32)
    assert merged_into(beyond, {"wraps"}, {ordinary, beyond}) == ordinary


def test_an_ambiguous_sighting_joins_the_named_root_cause_it_fits_and_no_other() -> None:
    named = _wrapped("torch.take_along_dim", [10, 20, 30, 40, 50], [7, -1], "oob-above", dim=0)
    one = _wrapped("torch.take_along_dim", [10], [1], "oob-above", dim=0)  # an axis of 1: wrap and clamp both read 10
    assert one.verdict.behaviour.value == "ambiguous"
    sightings = Sightings(0.0)
    cc = ClassCase(EqClass.ELEMENT, (5,), (2,), 0, 0, "int64", "int64", "oob-above", False, "contiguous", 0, 0)
    sightings.discrepancy(cc, named)
    sightings.discrepancy(cc, one)
    sightings.settle()
    assert list(sightings.first) == [named.signature()]
    assert sightings.counts[named.signature()] == 2
    clamped = replace(named.signature(), policy="clamps")
    assert (
        merged_into(one.signature(), {Behaviour.FILLS_OR_GARBAGE}, {clamped}) is None
    )  # a word that does not fit never names it


def test_an_ambiguous_shrink_candidate_never_keeps_a_named_root_cause() -> None:
    named = _wrapped("torch.take_along_dim", [10, 20, 30, 40, 50], [7, -1], "oob-above", dim=0).signature()
    assert not still_shows(replace(named, policy="ambiguous"), named)
    beyond = replace(named, policy=None, condition=BEYOND_INT32)
    assert still_shows(replace(beyond, policy="garbage"), beyond)


def test_an_internal_error_is_one_finding_per_oracle_and_family_whatever_the_input() -> None:
    crash = internal_or(ZeroDivisionError("integer division or modulo by zero"), ErrorClass.OTHER)
    got = Outcome.raised(ZeroDivisionError("integer division or modulo by zero"), crash)
    a = _judged("tensorflow.experimental.numpy.take", np.zeros((0,)), [3], got, "oob-above", axis=0, mode="wrap")
    b = _judged("tensorflow.experimental.numpy.take", np.zeros(()), [-9], got, "oob-below", axis=None, mode="wrap")
    assert str(a.verdict.outcome) == "internal error"
    assert a.signature() == b.signature()
    assert "for" not in a.signature().words().split(": ", 1)[1]


def test_accepting_bool_indices_where_the_docs_are_silent_is_dtype_support_not_a_finding() -> None:
    # regression: numpy.take / jnp.take on [True] were "value instead of error, precondition: precondition"
    for op in ("numpy.take", "jax.numpy.take"):
        j = _judged(
            op,
            [[-2.0]],
            np.array([True]),
            Outcome.returned(np.array([-2.0])),
            "non-integer",
            axis=None,
            mode="raise" if op == "numpy.take" else None,
        )
        assert j.verdict.conforms, (op, j.verdict)


def test_an_index_into_a_0d_input_breaks_a_precondition_even_where_the_policy_is_spec_silent() -> None:
    # regression: Gather-1 on 0-d data with index -1 was "spec silent, garbage" (onnx-reference) and "spec silent,
    # raises" (onnxruntime)
    j = _judged("onnx.Gather-1", np.float32(-1.0), np.array(-1), Outcome.returned(np.float32(-1.0)), "negative", axis=0)
    assert str(j.verdict.outcome) == "value instead of error"
    assert j.signature().tags == ("precondition: 0-d input",)
    error = Outcome.raised(IndexError("indices out of range"), ErrorClass.INDEX_OUT_OF_RANGE)
    assert (
        str(_judged("onnx.Gather-1", np.float32(-1.0), np.array(-1), error, "negative", axis=0).verdict.outcome)
        != "spec silent"
    )


def test_a_replayed_reproducer_settles_as_the_campaign_settles_it() -> None:
    j = _judged(
        "tensorflow.experimental.numpy.take",  # numpy.take reads uint64 as intp, as documented
        [5, 6, 7],
        np.array([2**64 - 1], np.uint64),
        Outcome.returned(np.array([7])),
        "extreme",
        axis=0,
        mode="raise",
    )
    entry = Entry(
        op="tensorflow.experimental.numpy.take",
        oracle="fw",
        outcome="value instead of error",
        policy="",
        condition=BEYOND_INT32.words(),
        versions=">=1",
    )
    assert not entry.matches(j.signature())
    assert entry.accepts(j.signature(), example_words(j.case, j.outcome))


class _Wraps:
    """A fake numpy.take that wraps every index (the docs say raise)."""

    name = "wraps"

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return OracleInfo("wraps", "fake", "1.0", "cpu", "eager", ("numpy.take",))

    def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
        return [self._one(c) for c in cases]

    @staticmethod
    def _one(c: Case) -> Outcome:
        data, axis = np.asarray(c.data), c.attrs.get("axis")
        try:
            size = data.size if axis is None else data.shape[axis]
            if size == 0:
                raise IndexError("cannot do a non-empty take from an empty axis")
            idx = np.asarray(
                np.asarray(c.indices).astype(object) % size
            )  # modulo by hand: numpy's own wrap steps one size at a time
            return Outcome.returned(np.asarray(np.take(data, idx.astype(np.int64), axis=axis)))
        except (IndexError, TypeError, ValueError, OverflowError) as exc:
            return Outcome.raised(
                exc, ErrorClass.INDEX_OUT_OF_RANGE if isinstance(exc, IndexError) else ErrorClass.SHAPE_INVALID
            )

    def reproducer(self, case, reference, observed=None):
        raise NotImplementedError


def test_findings_first_seen_on_probes_are_cut_down_to_a_minimal_reproducer() -> None:
    result = run_campaign([_Wraps()], Settings(seed=0, max_examples=1, budget_s=30, ops=("numpy.take",), atlas=True))
    assert result.findings
    sizes = sorted((np.asarray(f.case.data).size, np.asarray(f.case.indices).size) for f in result.findings)
    median = sizes[len(sizes) // 2]
    assert median[0] <= 4 and median[1] <= 2, sizes
    for f in result.findings:
        if f.signature.policy is Behaviour.WRAPS:
            assert np.asarray(f.case.data).shape[f.case.attrs["axis"] or 0] >= 2  # still tells wrap from clamp


# -- regressions: false findings found by reviewing every baseline entry by hand ----------


def test_a_clamping_or_wrapping_op_may_return_an_empty_output_from_an_empty_axis() -> None:
    # jnp indexing bool[0,0][[0]] and tnp.take(int32[0,0], 0, axis=0, mode='clip') return an empty array: nothing is
    # read
    for op, idx, attrs in (
        ("jax.advanced_indexing", [[0]], {}),
        ("tensorflow.experimental.numpy.take", [0], {"axis": 0, "mode": "clip"}),
    ):
        j = _judged(
            op,
            np.zeros((0, 0), np.int32),
            np.array(idx),
            Outcome.returned(np.zeros((1, 0), np.int32)),
            "oob-above",
            **attrs,
        )
        assert j.reference.kind.value == "value" and j.verdict.conforms, (op, j.reference.describe())
    empty = _judged(
        "numpy.take",
        np.zeros((0, 0)),
        np.array([0]),
        Outcome.returned(np.zeros((1, 0))),
        "oob-above",
        axis=0,
        mode="raise",
    )
    assert not empty.verdict.conforms  # where the docs say raise, an unchecked empty output stays a finding


def test_jax_default_narrowing_64_bit_inputs_as_documented_conforms() -> None:
    info = OracleInfo("jax-default", "jax", "0.8", "cpu", "eager (x64 off)", (), 32)
    data = np.array([2**40, 7])
    case = Case(
        "jax.numpy.take",
        data,
        np.array([1]),
        {"axis": 0, "mode": None, "fill_value": None},
        CaseTags("in-range", "int64", "int"),
    )
    got = Outcome.returned(np.array([7], np.int32))
    assert judge(case, reference_outcome(case), got, PolicyValues(case), bits=info.bits).conforms
    assert not judge(
        case, reference_outcome(case), got, PolicyValues(case)
    ).conforms  # with x64 on, int32 is a wrong dtype
    beyond = Case(
        "jax.advanced_indexing",
        np.array([-2.5, -7.0], np.float32),
        np.array([[2**31]]),
        {},
        CaseTags("oob-above", "int64", "float"),
    )
    clamped = Outcome.returned(np.array([-2.5], np.float32))  # 2**31 narrowed to -2**31, then clamped to 0
    assert judge(beyond, reference_outcome(beyond), clamped, PolicyValues(beyond), bits=32).conforms


def test_a_dtype_error_listing_allowed_values_blames_the_argument_it_names() -> None:
    from conformance.judge.rootcause import rejected_dtype

    msg = "Value for attr 'out_type' of int8 is not in the list of allowed values: int32, int64"
    for data in (np.zeros(2, np.int8), np.zeros(2, np.int32)):
        assert rejected_dtype(
            Case("t.g", data, np.zeros(1, np.int8), {}),
            Outcome.raised(TypeError(msg), ErrorClass.DTYPE_UNSUPPORTED),
        ) == (DtypeArg.INDEX, "int8")


def test_an_attribute_refused_is_one_finding_whatever_the_reference_expected() -> None:
    refused = Outcome.raised(
        NotImplementedError("The 'raise' mode to take is not supported."), ErrorClass.ATTRIBUTE_INVALID
    )
    sigs = {
        _judged(
            "tensorflow.experimental.numpy.take", [[-2.0]], idx, refused, regime, axis=None, mode="raise"
        ).signature()
        for idx, regime in (([0], "in-range"), ([-1], "negative"), ([6], "oob-above"))
    }
    sig = next(iter(sigs))
    assert len(sigs) == 1 and str(sig.outcome) == "attribute refused" and sig.policy is None


def test_a_value_from_an_empty_gathered_axis_is_one_finding_whatever_it_holds() -> None:
    wrong_shape = _judged(
        "tensorflow.gather",
        np.zeros((2, 0, 2), np.float32),
        [0],
        Outcome.returned(np.zeros((2, 2), np.float32)),
        "oob-above",
        axis=1,
        batch_dims=0,
    )
    zeros = _judged(
        "tensorflow.gather",
        np.zeros((2, 0), np.float32),
        [0],
        Outcome.returned(np.zeros((2, 1), np.float32)),
        "oob-above",
        axis=1,
        batch_dims=0,
    )
    assert wrong_shape.signature() == zeros.signature()
    assert wrong_shape.signature().tags == ("empty axis",) and wrong_shape.signature().policy is None


def test_jax_lax_gather_on_0d_indices_raises_jaxs_own_shape_error_not_the_oracles() -> None:
    import pytest

    jax_oracle = pytest.importorskip("oracles.jax_oracle")
    x64 = jax_oracle.oracles_here()[0]
    got = x64.run_in_process("jax.lax.gather", np.array([[-2.5]], np.float32), np.array(0), {})
    assert got.kind.value == "error" and got.error_class is not ErrorClass.INDEX_OUT_OF_RANGE, got.describe()
    assert "tuple index out of range" not in (got.message or "")


def test_onnxruntime_keeps_a_0d_index_0d_next_to_bfloat16_data() -> None:
    import pytest

    onnx_oracle = pytest.importorskip("oracles.onnx_oracle")
    from conformance.core.arrays import as_dtype

    ort = next(o for o in onnx_oracle.oracles_here() if o.name == "onnxruntime")
    got = ort.run_in_process(
        "onnx.Gather-13", np.zeros((0, 2), as_dtype("bfloat16")), np.array(1, np.int32), {"axis": -1}
    )
    assert got.kind.value == "value" and np.asarray(got.value).shape == (0,), got.describe()


def test_an_index_that_broadcasting_removes_is_never_checked() -> None:
    # numpy.take_along_axis / torch.take_along_dim: data (0,5,2), index [[[7]]] broadcasts to (0,1,2): no index is left
    for op, attrs in (("numpy.take_along_axis", {"axis": 1}), ("torch.take_along_dim", {"dim": 1})):
        j = _judged(
            op,
            np.zeros((0, 5, 2), np.float32),
            np.array([[[7]]]),
            Outcome.returned(np.zeros((0, 1, 2), np.float32)),
            "oob-above",
            **attrs,
        )
        assert j.verdict.conforms, (op, j.reference.describe())


def test_torch_gather_with_an_empty_index_skips_the_shape_rule_as_documented() -> None:
    j = _judged(
        "torch.gather",
        np.zeros((1, 1, 0), np.float32),
        np.zeros((1, 4, 0), np.int64),
        Outcome.returned(np.zeros((1, 4, 0), np.float32)),
        "empty",
        dim=0,
    )
    assert j.verdict.conforms, j.reference.describe()


def test_torch_error_messages_keep_their_class_inside_dynamos_wrapper_and_on_an_empty_axis() -> None:
    from oracles._common import classify_with
    from oracles.torch_oracle import TORCH_PATTERNS

    wrapped = (
        "TorchRuntimeError: Dynamo failed ... got RuntimeError('Size does not match at dimension 0') "
        "FakeTensor(..., size=(3,), dtype=torch.int64)"
    )
    assert classify_with(wrapped, TORCH_PATTERNS, True) is ErrorClass.SHAPE_INVALID
    assert (
        classify_with("index_select(): self indexing axis dim should be positive", TORCH_PATTERNS, True)
        is ErrorClass.INDEX_OUT_OF_RANGE
    )


def test_refusing_an_index_into_an_empty_axis_is_as_good_as_the_empty_answer() -> None:
    # jnp: zeros((0, 0))[[0]] returns bool[1,0], but the one-coordinate x[0] raises "index is out of bounds for axis 0
    # with size 0"
    refused = Outcome.raised(IndexError("index is out of bounds for axis 0 with size 0"), ErrorClass.INDEX_OUT_OF_RANGE)
    j = _judged("jax.advanced_indexing", np.zeros((0, 0), np.int32), np.array([0]), refused, "oob-above")
    assert j.verdict.conforms, j.verdict


def test_a_uint8_index_torch_documents_as_a_mask_is_dtype_support_not_a_finding() -> None:
    # regression: torch x[tensor([255], dtype=uint8)] on [False] is a mask read, not index 255 out of range
    j = _judged(
        "torch.advanced_indexing",
        np.array([False]),
        np.array([255], np.uint8),
        Outcome.returned(np.array([[False]])),
        "extreme",
    )
    assert j.verdict.conforms, j.verdict


def test_a_shape_error_where_the_docs_accept_the_shapes_is_one_finding_whatever_the_indices() -> None:
    # tnp.take_along_axis on rank-9 inputs: SelectV2 cannot broadcast, in range or not
    err = Outcome.raised(
        ValueError("Broadcast between [1,1,1,1,1,1,1,1,1] and [1,1,1,1,1,1,1,1,1] is not supported yet"),
        ErrorClass.SHAPE_INVALID,
    )
    shape = (1,) * 9
    data = np.full(shape, -1, np.int32)
    sigs = {
        _judged(
            "tensorflow.experimental.numpy.take_along_axis", data, np.full(shape, v, np.int32), err, regime, axis=0
        ).signature()
        for v, regime in ((0, "in-range"), (-(2**31), "oob-below"))
    }
    assert len(sigs) == 1 and str(next(iter(sigs)).outcome) == "shapes refused", sigs


def test_a_shape_error_on_empty_data_where_every_index_is_out_of_range_is_only_another_error() -> None:
    """Audit of stop 46 (7B n=37, false): onnx.reference's GatherElements refused data (2, 0), indices [[7]] with
    "Except for dimension 1, all dimensions of index and self should be the same size.", a finding "shapes refused".
    The call must fail anyway (no index is in range on an empty axis): it is a wrong error, on which ONNX's docs do
    not rule; the same refusal on data (2, 1), indices [[0]], where a value is owed, stays "shapes refused"."""
    err = Outcome.raised(
        ValueError("Except for dimension 1, all dimensions of index and self should be the same size."),
        ErrorClass.SHAPE_INVALID,
    )
    empty = _judged("onnx.GatherElements-13", np.zeros((2, 0), np.float32), [[7]], err, "oob-above", axis=1)
    owed = _judged("onnx.GatherElements-13", np.zeros((2, 1), np.float32), [[0]], err, "in-range", axis=1)
    assert empty.signature().outcome.kind is MismatchKind.WRONG_ERROR and empty.signature().condition == BAD_INDEX
    assert str(owed.signature().outcome) == "shapes refused", owed.signature()


def test_a_jax_default_reproducer_expects_what_its_narrowed_inputs_give() -> None:
    import pytest

    jax_oracle = pytest.importorskip("oracles.jax_oracle")
    from conformance.campaign.finding_builder import reproducers

    x64, default = jax_oracle.oracles_here()[:2]
    case = Case(
        "jax.numpy.take",
        np.array([2**40, 7]),
        np.array([1]),
        {"axis": 0, "mode": None, "fill_value": None},
        CaseTags("in-range", "int64", "int"),
    )
    scripts, _ = reproducers(case, reference_outcome(case), [x64, default], {})
    assert "EXPECTED_VALUE = np.array([7], dtype=np.int64)" in scripts["jax"]
    assert "EXPECTED_VALUE = np.array([7], dtype=np.int32)" in scripts["jax-default"]


def test_an_argument_of_the_wrong_type_is_an_attribute_type_whatever_attribute_it_is() -> None:
    # regression: batch_dims=True / 1.5 was "precondition: batch_dims out of range" (seed 11 and 13 named
    # one fact two ways), fill_value='1' and broadcast=1.5 "precondition: precondition"; a bool is a rule of its own
    # (issue 39: Python's bool is an int, and no doc says True is refused: only an answer other than the int's is one)
    bool_attr, as_one = (
        _judged("openvino.GatherND", np.zeros((1, 2)), np.zeros((1, 1), np.int64), got, "in-range", batch_dims=True)
        for got in (Outcome.returned(np.ones(1)), Outcome.returned(np.zeros(1)))
    )
    assert bool_attr.signature().tags == ("in-range",), bool_attr.signature().words()  # judged as batch_dims=1
    assert as_one.verdict.conforms
    cases = [
        ("tensorflow.gather_nd", np.zeros((2, 2)), np.zeros((2, 1), np.int64), {"batch_dims": 1.5}),
        ("jax.numpy.take", np.zeros(3), np.zeros(1, np.int64), {"axis": None, "mode": None, "fill_value": "1"}),
        ("paddle.take_along_axis", np.zeros((2, 2)), np.zeros((2, 2), np.int64), {"axis": 1, "broadcast": 1.5}),
    ]
    for op, data, idx, attrs in cases:
        j = _judged(op, data, idx, Outcome.returned(np.zeros(1)), "in-range", **attrs)
        assert j.reference.error_class is ErrorClass.ATTRIBUTE_INVALID, (op, j.reference)
        assert j.signature().tags == ("precondition: attribute type",), (op, j.signature().words())


def test_an_undocumented_index_dtype_refused_where_the_policy_is_spec_silent_conforms() -> None:
    # regression: paddle.gather_nd refusing int16 indices holding -1 (negatives: spec silent) was
    # "spec silent, for negative", a finding only the seeds that drew int16 with a negative index had
    refused = Outcome.raised(TypeError("Index holds the wrong type, it holds [int16]"), ErrorClass.DTYPE_UNSUPPORTED)
    j = _judged("paddle.gather_nd", [-1, 5], np.array([[-1]], np.int16), refused, "negative")
    assert j.verdict.conforms, j.verdict


def test_an_undocumented_dtype_read_as_documented_names_no_policy() -> None:
    # regression: onnx-reference reading int16 index -1 as the docs read it for int64 was
    # "undocumented dtype accepted, observed policy wraps", apart from the same fact without a policy
    idx = np.array([-1], np.int16)
    data = np.array([-1, 2], np.int32)
    j = _judged("onnx.GatherND", data, idx.reshape(1, 1), Outcome.returned(np.array([2], np.int32)), "negative")
    assert str(j.verdict.outcome) == "undocumented dtype accepted"
    assert j.signature().policy is None
    garbage = _judged("onnx.GatherND", data, idx.reshape(1, 1), Outcome.returned(np.array([7], np.int32)), "negative")
    assert garbage.signature().policy is not None  # a departure from the documented reading stays named


def test_a_0d_input_to_index_select_takes_exactly_one_index_in_the_references_own_words() -> None:
    # regression: the reference failed with numpy's "cannot reshape array of size 0 into shape (1,)"
    # (a "precondition: precondition" finding for torch-compile, which returns a value)
    for n in (0, 2):
        ref = reference_outcome(
            Case("torch.index_select", np.array(1.5, np.float32), np.zeros(n, np.int64), {"dim": 0})
        )
        assert "exactly one index" in (ref.message or ""), ref
    j = _judged(
        "torch.index_select", np.array(1.5), np.zeros(0, np.int64), Outcome.returned(np.array(0.0)), "empty", dim=0
    )
    assert j.signature().tags == ("precondition: 0-d input",)


def test_where_the_docs_are_silent_an_index_into_an_empty_axis_is_one_condition_whatever_the_index() -> None:
    # regression: mlx.take refusing any index into an empty axis was "spec silent, raises, for extreme" in seed 13
    # and "..., for oob-above" in seed 11: one fact, named by the regime of the index each seed drew
    refused = Outcome.raised(
        IndexError("[take] Cannot do a non-empty take from an empty axis."), ErrorClass.INDEX_OUT_OF_RANGE
    )
    # since issue 39: MLX documents out-of-bounds indexing as undefined behaviour, so refusing it conforms (no fact);
    # paddle.gather, whose docs are silent, still names one fact whatever the index
    judged = [
        _judged("mlx.take", np.zeros(0, np.int32), np.array([i], np.int32), refused, regime, axis=None)
        for i, regime in ((-(2**31), "extreme"), (3, "oob-above"), (-4, "oob-below"))
    ]
    assert all(j.verdict.conforms for j in judged), [str(j.verdict.outcome) for j in judged]
    sigs = {
        _judged("paddle.gather", np.zeros(0, np.int32), np.array([i], np.int32), refused, regime, axis=0).signature()
        for i, regime in ((-1, "negative"), (-3, "negative"), (-4, "negative"))
    }
    assert len(sigs) == 1, [s.words() for s in sigs]
    (sig,) = sigs
    assert str(sig.outcome) == "spec silent" and sig.tags == ("empty axis",), sig.words()


TYPE_LEAKS = [
    # regression: jax.numpy.take_along_axis refusing axis=np.array(1) was "error instead of value (other), for
    # in-range" in the baseline and "..., for empty" at seed 5
    (
        "jax.numpy.take_along_axis",
        (
            "Non-hashable static arguments are not supported. An error occurred while trying to hash an object of "
            "type <class 'numpy.ndarray'>, 1. The error was:\nTypeError: unhashable type: 'numpy.ndarray'"
        ),
        [
            ((1, 1, 3), np.int64, 0, "in-range", np.array(1)),
            ((1, 0, 3), np.int64, 0, "empty", np.array(1)),
            ((1, 2, 3), np.int64, 1, "in-range", np.array(-2)),
        ],
        "axis=<array>",
    ),
    # regression: tnp.take_along_axis with axis=np.int64(1) (an int64 axis stacked with int32 shapes) was 'for
    # in-range' in the baseline, 'for empty' at seed 5
    (
        "tensorflow.experimental.numpy.take_along_axis",
        (
            "cannot compute Pack as input #1(zero-based) was expected to be a int32 tensor but is a int64 tensor "
            "[Op:Pack] name: packed"
        ),
        [((1, 1, 3), np.int64, 0, "in-range", np.int64(1)), ((1, 0, 3), np.int32, 0, "empty", np.array(1))],
        "axis=<numpy.int64>",
    ),
]


@pytest.mark.parametrize(("op", "message", "sightings", "words"), TYPE_LEAKS, ids=[t[0] for t in TYPE_LEAKS])
def test_an_attribute_refused_for_its_python_type_conforms_whatever_the_indices(
    op: str, message: str, sightings: list, words: str
) -> None:
    # since issue 39: the docs type a Python int ('axis: int | None'), and say nothing of an int-like NumPy array or
    # scalar, so refusing one is the framework's right (the audit's false finding: JAX's static arguments); these were
    # one fact ({words}) whatever the indices, and are none now
    refused = Outcome.raised(ValueError(message), ErrorClass.OTHER)
    data = np.arange(6.0).reshape(1, 2, 3)
    seen = [
        _judged(op, data, np.full(shape, fill, dtype), refused, regime, axis=axis)
        for shape, dtype, fill, regime, axis in sightings
    ]
    assert all(j.verdict.conforms for j in seen), [(words, j.verdict) for j in seen]


def test_a_type_leak_condition_reads_back_from_its_words() -> None:
    # regression: 'axis as a NumPy int64' was no condition Condition.parse knew, so the atlas.json and results.json of
    # a check that saw it could not be read back ("damaged atlas file"); attribute conditions are written name=value
    from conformance.core.vocabulary import Condition, ConditionKind

    for words in (("axis=<array>",), ("axis=<numpy.int64>",), ("fill_value=<array>",)):
        assert Condition.parse(words).kind is ConditionKind.ATTRIBUTE and Condition.parse(words).words() == words


def test_a_garbage_read_that_happens_to_look_like_a_policy_still_is_the_garbage_root_cause() -> None:
    # regression: check --seed 0 (stop 37, loaded) failed with "changed: onnx.GatherND on openvino-onnx: value instead
    # of error, policy *garbage, for bad index: now: ... observed policy ambiguous": OpenVINO reads past its buffer, and
    # that time the memory there held a value that clamping and wrapping also give
    j = _judged("numpy.take", [7], np.array([1]), Outcome.returned(np.array([7])), "oob-above", axis=0, mode="raise")
    assert j.signature().policy is Behaviour.AMBIGUOUS
    entry = Entry(
        op="numpy.take", oracle="fw", outcome="value instead of error", policy="*garbage", condition=BAD_INDEX.words()
    )
    assert entry.accepts(j.signature(), example_words(j.case, j.outcome))
