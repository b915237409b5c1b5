"""What a finding says (issue 39): every ground has a status, every finding a kind (bug, hazard, question) and a
basis, findings are ranked by what they cost a user, words are used only where proven, the gate fails on a new bug
or hazard (a question only when asked), and a trigger is what a counterfactual proves."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from conformance.cases.counterfactual import counterfactuals, retagged
from conformance.core.arrays import BFLOAT16
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.outcome import ErrorClass, Outcome
from conformance.core.vocabulary import BasisStatus, ConditionKind, Decision, Feature, FindingKind, FindingStatus
from conformance.gate import baseline as bl
from conformance.judge.kind import finding_basis, finding_kind, rank
from conformance.judge.signature import Signature
from conformance.judge.verdict import PolicyValues, judge, reference_outcome
from conformance.results.finding import Finding, Tried, by_trigger, ranked
from conformance.results.run_result import RunResult
from conformance.spec.basis import BASES, Basis, Silent, departed, ground, op_basis, unspecified_ground
from conformance.spec.catalog import ops, spec


@pytest.mark.parametrize("op", ops())
def test_every_ground_of_every_op_has_one_of_the_four_statuses(op: str) -> None:
    grounds = [ground(op, d) for d in (Decision.POLICY, Decision.DTYPES, Decision.SHAPES)]
    grounds += [ground(op, Decision.ATTRIBUTE, a.name) for a in spec(op).attrs]
    grounds += [unspecified_ground(op)] if spec(op).unspecified else []
    grounds += list(op_basis(op).rules.values())
    for g in grounds:
        assert g.status in set(BasisStatus)
        # silent: the docs say nothing (no quote), or state a requirement without calling its breach an error
        assert isinstance(g, Silent) or g.quote and (g.status is not BasisStatus.SILENT or "error" not in g.quote)


def test_a_requirement_the_docs_do_not_call_an_error_makes_a_question_and_a_stray_read_a_hazard() -> None:
    """Audit (stop 40): ORT's GatherND broadcasting divisible batches was a bug resting on "indices_shape[-1]
    between 1 and r-b", a rule the case keeps; the broken rule is "2) The first b dimensions ... must be equal.",
    which, unlike rule 5's bounds, the page does not call an error: a question, quoting rule 2. Paddle's
    index_select on [N, 1] indices ("index (Tensor): The 1-D Tensor ...") likewise; a crash there is a hazard."""
    from conformance.core.blame import Rule
    from conformance.core.outcome import Kind

    def basis_of(op: str, rule: Rule, argument: str = "indices") -> object:
        return finding_basis(
            Signature(op, "o", "1", "cpu", "eager", "value instead of error", "", (f"precondition: {rule.value}",)),
            Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID, rule=rule, argument=argument),
        )

    nd = basis_of("onnx.GatherND-13", Rule.BATCH_MISMATCH)
    assert isinstance(nd, Basis) and nd.quote.startswith("2) The first b dimensions") and nd.status.value == "silent"
    assert basis_of("onnx.GatherND-13", Rule.TUPLE_TOO_LONG).status is BasisStatus.DOCUMENTED  # "=> error condition"
    assert basis_of("paddle.index_select", Rule.INDEX_RANK).status is BasisStatus.SILENT
    assert basis_of("paddle.take_along_axis", Rule.ATTRIBUTE_TYPE, "broadcast").status is BasisStatus.SILENT
    assert (
        basis_of("torch.gather", Rule.RANK_MISMATCH).quote == "input and index must have the same number of dimensions."
    )
    value = Signature(
        "paddle.index_select", "p", "1", "cpu", "eager", "value instead of error", "", ("precondition: index rank",)
    )
    crash = Signature(
        "onnx.GatherND", "ort", "1", "cpu", "eager", "crash", "", ("precondition: batch_dims out of range",)
    )
    assert finding_kind(value, basis_of("paddle.index_select", Rule.INDEX_RANK)) is FindingKind.QUESTION
    assert finding_kind(crash, basis_of("onnx.GatherND-13", Rule.BATCH_DIMS_RANGE, "batch_dims")) is FindingKind.HAZARD


def test_an_index_error_under_a_shape_condition_rests_on_the_index_policy_sentence() -> None:
    """Audit (stop 40): TensorFlow's gather returning a value for an index into an empty axis quoted the output shape
    formula, which the value keeps; the reference raised for an index it cannot place, so the ground is the
    policy's: "Caution: On CPU, if an out of bound index is found, an error is raised." """
    from conformance.core.outcome import Kind

    sig = Signature("tensorflow.gather", "tf", "2", "cpu", "eager", "value instead of error", "", ("empty data",))
    g = finding_basis(sig, Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE))
    assert isinstance(g, Basis) and g.quote.endswith("an error is raised.")


@pytest.mark.parametrize("op", ["mlx.take", "mlx.take_along_axis", "mlx.advanced_indexing"])
def test_mlx_out_of_bounds_indexing_rests_on_its_undefined_behaviour_sentence(op: str) -> None:
    g = departed(op, ConditionKind.REGIME, "oob-above")
    assert isinstance(g, Basis) and g.status is BasisStatus.UNDEFINED
    assert g.quote == "Indexing does not perform bounds checking. Indexing out of bounds is undefined behavior."


@pytest.mark.parametrize("op", ["array_api.take", "array_api.take_along_axis"])
def test_the_array_api_out_of_bounds_indices_are_undefined_not_silent(op: str) -> None:
    g = unspecified_ground(op)
    assert g.status is BasisStatus.UNDEFINED and "left unspecified" in g.quote


def test_every_op_the_catalog_holds_unspecified_somewhere_has_a_ground_for_it() -> None:
    for op in BASES:
        if spec(op).unspecified:
            assert unspecified_ground(op).status in (BasisStatus.UNDEFINED, BasisStatus.SILENT)


def _oob(op: str, value: float, attrs: dict) -> tuple[bool, str, str]:
    case = Case(op, np.arange(5.0, dtype=np.float32), np.array([7]), attrs, CaseTags("oob-above", "int64", "float"))
    v = judge(case, reference_outcome(case), Outcome.returned(np.array([value], np.float32)), PolicyValues(case))
    return v.conforms, str(v.outcome), str(v.behaviour)


def test_where_mlx_documents_out_of_bounds_as_undefined_a_policys_value_is_permitted_and_a_stray_one_is_not() -> None:
    assert _oob("mlx.take_along_axis", 4.0, {"axis": 0}) == (True, "ok", "clamps")
    assert _oob("mlx.take_along_axis", 2.0, {"axis": 0}) == (True, "ok", "wraps")
    assert _oob("mlx.take_along_axis", 123.0, {"axis": 0}) == (False, "spec silent", "fills or garbage")


def test_a_fill_equal_to_the_documented_fill_is_fills_not_fills_or_garbage() -> None:
    assert _oob("jax.numpy.take", float("nan"), {"axis": 0, "mode": "fill"}) == (True, "ok", "fills")
    assert _oob("jax.numpy.take", 0.0, {"axis": 0, "mode": "fill"})[2] == "fills or garbage"


def test_a_value_equal_to_the_reference_is_never_garbage() -> None:
    case = Case(
        "onnx.Gather-13", np.arange(4.0), np.array([1], np.int8), {"axis": 0}, CaseTags("in-range", "int8", "float")
    )
    ref = reference_outcome(case)
    v = judge(case, ref, Outcome.returned(np.array([1.0])), PolicyValues(case))
    assert str(v.outcome) == "undocumented dtype accepted" and v.behaviour is Behaviour.AS_DOCUMENTED
    other = judge(case, ref, Outcome.returned(np.array([3.0])), PolicyValues(case))
    assert other.behaviour is Behaviour.GARBAGE


def test_onnxruntimes_own_kernel_table_makes_refusing_complex_data_its_right() -> None:
    case = Case(
        "onnx.Gather-13",
        np.zeros(3, np.complex64),
        np.array([1]),
        {"axis": 0},
        CaseTags("in-range", "int64", "complex"),
    )
    refused = Outcome.raised(TypeError("no kernel"), ErrorClass.DTYPE_UNSUPPORTED)
    ref = reference_outcome(case)
    assert judge(case, ref, refused, PolicyValues(case), framework="onnxruntime").conforms
    assert not judge(case, ref, refused, PolicyValues(case), framework="torch").conforms
    # nor has OpenVINO a complex element type, whose ONNX front end converts the model into its own
    assert judge(case, ref, refused, PolicyValues(case), framework="openvino").conforms
    strings = Case(
        "onnx.Gather-13", np.array(["a", "b"]), np.array([1]), {"axis": 0}, CaseTags("in-range", "int64", "str")
    )
    assert not judge(strings, reference_outcome(strings), refused, PolicyValues(strings), framework="openvino").conforms


def _sig(op: str, outcome: str, policy: str, tags: tuple[str, ...], oracle: str = "x") -> Signature:
    return Signature(op, oracle, "1", "cpu", "eager", outcome, policy, tags)


@pytest.mark.parametrize(
    ("sig", "kind"),
    [
        (_sig("numpy.take", "value instead of error", "wraps", ("bad index",)), FindingKind.BUG),
        (_sig("numpy.take", "wrong value", "", ("in-range",)), FindingKind.BUG),
        (_sig("mlx.take", "spec silent", "fills or garbage", ("oob-above",)), FindingKind.HAZARD),
        (_sig("mlx.take", "crash", "", ("extreme",)), FindingKind.HAZARD),
        (_sig("paddle.gather", "spec silent", "wraps", ("negative",)), FindingKind.QUESTION),
        (_sig("paddle.gather", "value instead of error", "garbage", ("bad index",)), FindingKind.HAZARD),
        (_sig("numpy.take", "NaN payload not kept", "", ("data:float32",)), FindingKind.QUESTION),
        (_sig("numpy.take", "value instead of error", "", ("empty output",)), FindingKind.BUG),
        (
            _sig("numpy.take", "wrong error (index error, expected shape or attribute error)", "", ()),
            FindingKind.QUESTION,
        ),
        (_sig("onnx.Gather", "undocumented dtype accepted", "", ("undocumented dtype",)), FindingKind.QUESTION),
        (_sig("numpy.take", "protocol error", "", ()), FindingKind.HAZARD),
        # where MLX's docs call the index undefined, what is left after every permitted answer is a stray read
        (_sig("mlx.take_along_axis", "spec silent", "", ("empty axis",)), FindingKind.HAZARD),
        (_sig("mlx.take", "internal error", "", ("oob-above",)), FindingKind.QUESTION),
        (_sig("paddle.gather", "spec silent", "", ("empty axis",)), FindingKind.QUESTION),
    ],
)
def test_a_findings_kind_follows_the_status_of_the_sentence_it_rests_on(sig: Signature, kind: FindingKind) -> None:
    assert finding_kind(sig) is kind


def test_bugs_rank_by_severity_then_hazards_then_questions() -> None:
    in_order = [
        _sig("numpy.take", "wrong value", "", ("in-range",)),
        _sig("numpy.take", "value instead of error", "garbage", ("bad index",)),
        _sig("numpy.take", "value instead of error", "wraps", ("bad index",)),
        _sig("numpy.take", "dtype rejected", "", ("data dtype",)),
        _sig("mlx.take", "spec silent", "fills or garbage", ("oob-above",)),
        _sig("paddle.gather", "spec silent", "wraps", ("negative",)),
    ]
    shuffled = [in_order[i] for i in (3, 5, 0, 4, 1, 2)]
    assert sorted(shuffled, key=rank) == in_order
    case = Case("numpy.take", np.zeros(1), np.zeros(1, int))
    found = [Finding(s, case, Outcome.unsupported(""), {}) for s in shuffled]
    assert [f.signature for f in ranked(found)] == in_order


def _run(findings: list[Finding]) -> RunResult:
    return RunResult({}, 0, {"x": 1}, {"x": 1}, 1.0, {}, findings)


def test_a_new_question_is_reported_and_fails_the_gate_only_when_asked() -> None:
    case = Case("paddle.gather", np.zeros(1), np.zeros(1, int))
    question = Finding(_sig("paddle.gather", "spec silent", "wraps", ("negative",)), case, Outcome.unsupported(""), {})
    bug = Finding(_sig("numpy.take", "wrong value", "", ("in-range",)), case, Outcome.unsupported(""), {})
    assert bl.check(_run([question]), []) == []
    assert [p.detail[-10:] for p in bl.check(_run([question]), [], questions_fail=True)] == ["(question)"]
    assert [p.detail[-5:] for p in bl.check(_run([bug]), [])] == ["(bug)"]


def test_findings_json_carries_kind_basis_and_trigger() -> None:
    sig = _sig("numpy.take", "wrong value", "", ("in-range",))
    tried = [Tried(Feature.INDEX_DTYPE, "", "int8", "int64", "value float64[1]", True, True)]
    f = Finding(sig, Case("numpy.take", np.zeros(2), np.zeros(1, np.int8)), Outcome.unsupported(""), {}, tried=tried)
    d = f.to_json()
    assert d["kind"] == "bug" and d["basis"]["status"] == "documented" and d["basis"]["quote"]
    assert d["trigger"] == [t.to_json() for t in tried] and "for int8 indices" in d["title"]
    assert Finding.from_json(d).tried == tried and Finding.from_json(d).status is FindingStatus.NEW


def test_two_findings_with_one_trigger_are_one_fact_and_the_gate_needs_both_accepted() -> None:
    case = Case("paddle.take_along_axis", np.zeros(3), np.zeros(1, np.int8))
    int8 = [Tried(Feature.INDEX_DTYPE, "", "int8", "int64", "value", True, True)]
    wrong = _sig("paddle.take_along_axis", "wrong value", "garbage", ("in-range",), "paddle")
    value = replace(wrong, outcome="value instead of error", condition=("bad index",))
    one = by_trigger(
        [Finding(s, case, Outcome.unsupported(""), {}, framework="paddle", tried=int8) for s in (wrong, value)]
    )
    assert len(one) == 1 and one[0].same_trigger == [value]
    accept_first = bl.Entry(
        op="paddle.take_along_axis", oracle="paddle", outcome="wrong value", note="n", link="l", at_fault="framework"
    )
    assert bl.accepting(one[0], [accept_first]) is None  # the second root cause is still new


def test_counterfactuals_change_one_feature_toward_its_ordinary_value_and_retag() -> None:
    case = Case(
        "numpy.take",
        np.zeros((2, 0)),
        np.array(7, np.uint8),
        {"axis": 1, "mode": "clip"},
        CaseTags("oob-above", "uint8", "float"),
    )
    got = {c.words(): c for c in counterfactuals(case)}
    assert set(got) == {"index dtype", "data dtype", "attribute axis", "attribute mode", "empty dimensions", "0-d"}
    assert got["index dtype"].case.indices.dtype == np.int64
    assert got["empty dimensions"].case.data.shape == (2, 1)
    assert got["0-d"].case.indices.shape == (1,)
    assert str(got["empty dimensions"].case.tags.regime) == "oob-above"  # index 7 on an axis of 1


def test_an_attribute_whose_ordinary_value_empties_the_output_is_no_counterfactual() -> None:
    """IREE 3.13 and TVM 0.27 crash (SIGSEGV) on GatherND index 2**31 under batch_dims 0 and 1 alike (by hand,
    issue 43); on data (1, 0), batch_dims=0 makes the output (1, 0), which reads nothing, and the crash was titled
    "for batch_dims=1". An ordinary value that empties the output shows nothing of a read."""
    case = Case("onnx.GatherND-13", np.zeros((1, 0), np.int32), np.array([[2**31]]), {"batch_dims": 1})
    assert "attribute batch_dims" not in {c.words() for c in counterfactuals(case)}
    wide = replace(case, data=np.zeros((1, 3), np.int32))  # batch_dims=0 reads row 2**31 there: a fair change
    assert "attribute batch_dims" in {c.words() for c in counterfactuals(wide)}


def test_a_counterfactual_is_tagged_by_its_own_values() -> None:
    case = Case(
        "numpy.take",
        np.arange(3.0),
        np.array([5]),
        {"axis": 0, "mode": "raise"},
        CaseTags("oob-above", "int64", "float"),
    )
    assert str(retagged(replace(case, indices=np.array([-1])), case.tags).tags.regime) == "negative"
    assert str(retagged(replace(case, indices=np.array([0])), case.tags).tags.regime) == "in-range"


def test_openvino_refusing_gather_elements_indices_smaller_off_the_axis_is_its_documented_limit() -> None:
    """Audit (stop 40, false): openvino-onnx refusing ONNX GatherElements with indices (1, 1, 1) on data (2, 1, 1),
    axis 1 ("Shapes {2,1,1} and {1,1,1} are not consistent") was a bug 'shapes refused'; OpenVINO's GatherElements-6,
    which its ONNX front end converts the op into, documents "The indices tensor has the same shape as the data
    tensor except for the axis dimension": a documented limitation, an atlas fact. Run on the real oracle."""
    from conformance.core.case import Case
    from conformance.execution import registry

    if "openvino-onnx" not in registry.available():
        pytest.skip("needs OpenVINO")
    oracle = registry.get("openvino-onnx", isolated=False)
    try:
        case = Case(
            "onnx.GatherElements-13",
            np.array([[[1.5]], [[2.5]]], np.float32),
            np.zeros((1, 1, 1), np.int64),
            {"axis": 1},
            CaseTags("in-range", "int64", "float"),
        )
        got = oracle.run_many([case])[0]
        info = oracle.info()
    finally:
        oracle.close()
    assert got.kind.value == "error" and got.error_class is ErrorClass.SHAPE_INVALID, got.describe()
    v = judge(case, reference_outcome(case), got, PolicyValues(case), framework=info.framework)
    assert v.conforms
    assert not judge(case, reference_outcome(case), got, PolicyValues(case), framework="onnxruntime").conforms


def test_a_value_read_from_an_empty_input_rests_on_the_index_policy_not_the_rule_the_reference_names_first() -> None:
    """Audit of stop 46 (7A n=78): paddle.gather_nd on data (0,), indices [1] read stray bytes; the finding quoted
    "index (Tensor): The index input with rank > 1", the rule the reference names first, which Paddle waives where
    data has elements (data (1,), [0] gives 7.0, [1] raises). No index can be placed in an empty input: the index
    policy's sentence (Paddle's page says nothing of bounds): a hazard on the docs' silence."""
    from conformance.core.blame import Rule
    from conformance.core.outcome import Kind
    from conformance.judge.kind import observed_kind

    case = Case("paddle.gather_nd", np.zeros(0, np.float32), np.array([1]), {}, CaseTags("oob-above", "int64", "float"))
    reference = reference_outcome(case)
    assert reference.kind is Kind.ERROR and reference.rule == Rule.INDEX_RANK.value, reference
    sig = Signature(
        "paddle.gather_nd",
        "paddle",
        "3.3.1",
        "cpu",
        "dygraph",
        "value instead of error",
        "",
        ("precondition: index rank",),
    )
    stray = Outcome.returned(np.array(-9.96e-20, np.float32))
    basis = finding_basis(sig, reference, case, stray)
    assert basis == unspecified_ground("paddle.gather_nd") and "rank" not in basis.words(), basis
    assert observed_kind(sig, reference, case, stray) is FindingKind.HAZARD
    assert "rank > 1" in finding_basis(sig, reference, case).words()  # no value seen: the rule's sentence


def test_an_internal_error_where_the_docs_want_an_error_is_a_question() -> None:
    """Audit (stop 40): Paddle's take, mode='wrap', on an empty axis raises "Integer division by zero" where the
    reference raises too; no sentence says which error: a question, not a bug quoting "'wrap': wrap around"."""
    from conformance.core.outcome import Kind

    sig = Signature("paddle.take", "paddle", "3.3.1", "cpu", "dygraph", "internal error", "", ("empty axis",))
    basis = finding_basis(sig, Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE))
    assert basis.status is BasisStatus.SILENT and finding_kind(sig, basis) is FindingKind.QUESTION
    assert finding_kind(sig, finding_basis(sig, Outcome.returned(np.zeros(1)))) is FindingKind.BUG


def test_a_gather_1_finding_rests_on_gather_1s_docs_not_gather_13s() -> None:
    """Audit (stop 40): onnx-reference wrapping a negative index on Gather-1 was a question whose basis quoted
    Gather-13's "[-s, s-1]", under which -1 is in bounds: the finding's basis follows its case's opset, whose docs
    ("All index values are expected to be within bounds.") do not say whether a negative index is one."""
    sig = Signature(
        "onnx.Gather", "onnx-reference", "1.23.2", "cpu", "reference", "spec silent", "wraps", ("negative",)
    )
    case = Case(
        "onnx.Gather-1", np.array([[1.5, 2.5]]), np.array([-1]), {"axis": 1}, CaseTags("negative", "int64", "float")
    )
    assert finding_basis(sig, None, case).status is BasisStatus.SILENT
    assert finding_basis(sig, None, replace(case, op="onnx.Gather-13")).status is BasisStatus.DOCUMENTED
    f = Finding(sig, case, reference_outcome(case), {"onnx-reference": Outcome.returned(np.array([[2.5]]))})
    assert f.basis.status is BasisStatus.SILENT and f.kind is FindingKind.QUESTION


def test_audit_3_reclassifications_each_rest_on_the_sentence_they_should() -> None:
    """Audit of stop 45 (sample 3): torch's tensors page promises no IndexError (advanced indexing on an empty axis:
    a question); a hang of numpy.take(mode='wrap') rests on the mode's sentence, not the output formula; TF's
    batch_dims above the axis rests on the axis's "Must be greater than or equal to batch_dims.", a requirement
    (TF drops batch_dims where axis is 0); OpenVINO's CPU GatherElements and GatherND take no strings (its opset
    pages: support depends on the plugin)."""
    from conformance.core.blame import Rule
    from conformance.core.case import Case
    from conformance.core.outcome import Kind
    from conformance.judge.verdict import DtypeStatus

    torch = Signature(
        "torch.advanced_indexing", "torch", "2", "cpu", "eager", "value instead of error", "", ("empty data",)
    )
    index_error = Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE)
    assert finding_kind(torch, finding_basis(torch, index_error)) is FindingKind.QUESTION
    hang = Signature("numpy.take", "numpy", "2", "cpu", "eager", "timeout", "", ("hangs",))
    case = Case("numpy.take", np.arange(3.0), np.array([-(2**63)]), {"axis": 0, "mode": "wrap"})
    basis = finding_basis(hang, reference_outcome(case), case)
    assert isinstance(basis, Basis) and "'wrap' -- wrap around" in basis.quote
    tf = Signature(
        "tensorflow.gather",
        "tensorflow",
        "2",
        "cpu",
        "eager",
        "value instead of error",
        "",
        ("precondition: batch_dims above axis",),
    )
    broken = Outcome(
        Kind.ERROR, error_class=ErrorClass.ATTRIBUTE_INVALID, rule=Rule.BATCH_DIMS_ABOVE_AXIS, argument="batch_dims"
    )
    basis = finding_basis(tf, broken)
    assert isinstance(basis, Basis) and basis.quote == "Must be greater than or equal to batch_dims."
    assert finding_kind(tf, basis) is FindingKind.QUESTION
    strings = Case("onnx.GatherElements-13", np.array([["a", "b"]]), np.zeros((1, 1), np.int64), {"axis": 1})
    assert not DtypeStatus.of(strings, "openvino").documented and DtypeStatus.of(strings, "onnxruntime").documented


def test_a_value_read_from_an_empty_input_is_a_stray_read_whatever_the_docs_say() -> None:
    """Audit of stop 45: Paddle's gather_nd on data of shape (0,) returned -1.5e16, then 3.6e-44: nothing there to
    read, so a stray read (a hazard), titled as one, though the docs are silent on bounds."""
    from conformance.core.case import Case

    sig = Signature(
        "paddle.gather_nd", "paddle", "3.3.1", "cpu", "dygraph", "value instead of error", "", ("empty data",)
    )
    case = Case("paddle.gather_nd", np.zeros(0, np.float32), np.array([0]), {}, CaseTags("in-range", "int64", "float"))
    f = Finding(sig, case, reference_outcome(case), {"paddle": Outcome.returned(np.array(-1.5e16, np.float32))})
    assert f.from_nothing and f.kind is FindingKind.HAZARD
    assert "from an empty input: fills or garbage" in f.title()


def test_an_index_into_an_empty_axis_under_a_clamping_mode_rests_on_the_docs_silence() -> None:
    """Audit of stop 47 (9B n=21): jnp.take_along_axis, mode='clip', on an empty axis returns zeros (its code:
    ``lax.full(out_shape, 0)`` whatever the mode); the finding quoted mode="fill"'s NaN sentence and called it a
    bug. Clipping has nothing to clip to on an empty axis and no page says what happens: the docs' silence. Its
    zeros are no proof of a fill (audit of stop 48, 11A n=67: MLX's read from an empty axis gave zeros in the
    campaign and other bytes in a fresh process), so a value from an empty input stays "fills or garbage", a
    hazard where the docs are silent."""
    sig = Signature(
        "jax.numpy.take_along_axis", "jax", "0.10.2", "cpu", "eager", "value instead of error", "", ("empty axis",)
    )
    case = Case(
        "jax.numpy.take_along_axis",
        np.zeros((2, 0, 2), np.float32),
        np.zeros((1, 1, 1), np.int64),
        {"axis": 1, "mode": "clip"},
        CaseTags("in-range", "int64", "float"),
    )
    zeros = Outcome.returned(np.zeros((2, 1, 2), np.float32))
    f = Finding(sig, case, reference_outcome(case), {"jax": zeros})
    assert isinstance(f.basis, Silent) and "mode='clip' clamps" in f.basis.reason
    assert (
        f.kind is FindingKind.HAZARD and "value instead of error (from an empty input: fills or garbage)" in f.title()
    )
    filled = replace(case, attrs={"axis": 1, "mode": "fill"})  # the fill's own sentence: NaN is documented
    assert isinstance(finding_basis(sig, reference_outcome(filled), filled, zeros), Basis)


def test_a_refusal_of_empty_indices_larger_than_the_data_off_the_axis_is_a_question_named_by_that() -> None:
    """Audit of stop 47 (9A n=44): onnxruntime's GatherElements refused data (1, 1), indices (4, 0), axis=1 ("Invalid
    value in indices shape is: 4"), titled "shapes refused, for axis=1" and called a bug. The call is valid only
    because the indices are empty (with elements, index 4 > 1 off the axis breaks the rule the ONNX page states only
    through its equations): a question, named by the empty indices and the rule they would break."""
    sig = Signature(
        "onnx.GatherElements", "onnxruntime", "1.31.1", "cpu", "session", "shapes refused", "", ("shapes refused",)
    )
    case = Case(
        "onnx.GatherElements-11",
        np.array([[-1]], np.int32),
        np.zeros((4, 0), np.int32),
        {"axis": 1},
        CaseTags("empty", "int32", "int"),
    )
    refused = Outcome.raised(ValueError("Invalid value in indices shape is: 4"), ErrorClass.SHAPE_INVALID)
    f = Finding(sig, case, reference_outcome(case), {"onnxruntime": refused})
    assert f.basis.status is BasisStatus.SILENT and f.kind is FindingKind.QUESTION, f.basis
    assert "for empty indices (4, 0), which with elements would break 'index larger than input'" in f.title()
    fits = replace(case, data=np.zeros((4, 1), np.int32))  # empty indices no larger than the data: refusing is a bug
    g = Finding(sig, fits, reference_outcome(fits), {"onnxruntime": refused})
    assert g.kind is FindingKind.BUG and "would break" not in g.title()


def test_an_internal_error_for_a_rule_the_docs_only_require_quotes_that_rule() -> None:
    """Audit of stop 47 (9B n=126, n=129): onnx-reference's GatherND fails with "tuple index out of range" on 0-d
    indices and on batch_dims=2**63-1; the findings said "the docs want the call to fail", where the page only
    requires "1) r >= 1 and q >= 1 are to be honored." / "3) b < min(q, r) is to be honored.": quoted, a question."""
    sig = Signature(
        "onnx.GatherND",
        "onnx-reference",
        "1.23.2",
        "cpu",
        "reference",
        "internal error",
        "",
        ("precondition: 0-d indices",),
    )
    zero_d = Case("onnx.GatherND-12", np.zeros((1, 1), np.float32), np.array(0), {"batch_dims": 0})
    huge = replace(zero_d, indices=np.array([[1]]), attrs={"batch_dims": 2**63 - 1})
    for case, quote in (
        (zero_d, "1) r >= 1 and q >= 1 are to be honored."),
        (huge, "3) b < min(q, r) is to be honored."),
    ):
        basis = finding_basis(sig, reference_outcome(case), case)
        assert isinstance(basis, Basis) and basis.quote == quote and basis.status is BasisStatus.SILENT
        assert finding_kind(sig, basis) is FindingKind.QUESTION


def test_a_finding_no_counterfactual_names_is_titled_by_its_case_not_the_generator_s_category() -> None:
    """Stop 48: onnx-reference's GatherElements fails "Need at least 0 and at most 64 array objects" (np.choose) on
    an axis of 70 elements; no single change removes it, and it was titled "error instead of value (other), for
    in-range", the generator's category. Its title and upstream heading now give the case: the axis of 70 shows."""
    sig = Signature(
        "onnx.GatherElements",
        "onnx-reference",
        "1.23.2",
        "cpu",
        "reference",
        "error instead of value",
        "",
        ("in-range",),
    )
    case = Case(
        "onnx.GatherElements-11",
        np.zeros((1, 70, 1), np.float32),
        np.full((1, 1, 1), 69),
        {"axis": 1},
        CaseTags("in-range", "int64", "float"),
    )
    refused = Outcome.raised(ValueError("Need at least 0 and at most 64 array objects."), ErrorClass.OTHER)
    f = Finding(sig, case, reference_outcome(case), {"onnx-reference": refused})
    assert f.title().endswith("for data (1, 70, 1), indices (1, 1, 1) [69], axis=1") and "in-range" not in f.title()
    assert f.trigger_words() == "data (1, 70, 1), indices (1, 1, 1) [69], axis=1"


@pytest.mark.parametrize("op", ["numpy.take_along_axis", "openvino.GatherElements", "mlx.take_along_axis"])
def test_a_bool_attribute_read_as_its_int_or_refused_conforms(op: str) -> None:
    """Audit of stop 48 (10A n=79, 83; n=102 for openvino.Gather's batch_dims=True): NumPy and OpenVINO read
    axis=True as axis=1, which Python's bool is; the docs type axis as an int and say nothing of bool. Reading it as
    1 conforms, and so does refusing it; an answer other than axis=1's departs, judged on axis=1."""
    case = Case(
        op,
        np.array([[[-2.5], [-3.5]]], np.float32),
        np.array([[[1]]]),
        {"axis": True},
        CaseTags("in-range", "int64", "float"),
    )
    ref = reference_outcome(case)
    as_one = Outcome.returned(np.array([[[-3.5]]], np.float32))
    refused = Outcome.raised(TypeError("an integer is required for the axis"), ErrorClass.ATTRIBUTE_INVALID)
    other = Outcome.returned(np.array([[[-2.5]]], np.float32))
    assert judge(case, ref, as_one, PolicyValues(case)).conforms
    assert judge(case, ref, refused, PolicyValues(case)).conforms
    assert str(judge(case, ref, other, PolicyValues(case)).outcome) == "wrong value"


def test_a_rank_torch_only_requires_is_a_question_and_values_from_outside_the_input_a_hazard() -> None:
    """Audit of stop 48, 10A: n=21 torch.gather with a 0-d index on 1-D data returns a value; "input and index must
    have the same number of dimensions." states what to pass, not an error (pytorch#134244): a question. n=69
    Paddle's take_along_axis reads int8 indices as wider ones ([[[4.158e+21]]]) and n=111 OpenVINO's ONNX GatherND
    answers an index tuple of length 0 with heap bytes: values the data does not hold, a stray read, a hazard."""
    torch_sig = Signature(
        "torch.gather",
        "torch",
        "2.13.0",
        "cpu",
        "eager",
        "value instead of error",
        "",
        ("precondition: rank mismatch",),
    )
    case = Case(
        "torch.gather",
        np.array([2.5, 3.5], np.float32),
        np.array(0),
        {"dim": 0},
        CaseTags("in-range", "int64", "float"),
    )
    f = Finding(torch_sig, case, reference_outcome(case), {"torch": Outcome.returned(np.array(2.5, np.float32))})
    assert f.basis.status is BasisStatus.SILENT and f.basis.quote.startswith("input and index must have")
    assert f.kind is FindingKind.QUESTION
    paddle_sig = Signature(
        "paddle.take_along_axis", "paddle", "3.3.1", "cpu", "dygraph", "wrong value", "", ("in-range",)
    )
    int8 = Case(
        "paddle.take_along_axis",
        np.array([[[-2.5], [-3.5]]], np.float32),
        np.array([[[1]]], np.int8),
        {"axis": 1},
        CaseTags("in-range", "int8", "float"),
    )
    stray = Outcome.returned(np.array([[[4.158e21]]], np.float32))
    g = Finding(paddle_sig, int8, reference_outcome(int8), {"paddle": stray})
    assert g.kind is FindingKind.HAZARD and "garbage: values the data does not hold" in g.title()
    ov_sig = Signature(
        "onnx.GatherND",
        "openvino-onnx",
        "2026.4.1",
        "cpu",
        "onnx",
        "value instead of error",
        "",
        ("precondition: index tuple length",),
    )
    empty_tuple = Case(
        "onnx.GatherND-11",
        np.array([[-2.5]], np.float32),
        np.zeros((3, 0), np.int64),
        {},
        CaseTags("empty", "int64", "float"),
    )
    heap = Outcome.returned(np.array([[1.065e18], [3.08e-41], [1.163e18]], np.float32))
    h = Finding(ov_sig, empty_tuple, reference_outcome(empty_tuple), {"openvino-onnx": heap})
    assert h.kind is FindingKind.HAZARD and "garbage: values the data does not hold" in h.title()


def test_a_value_made_of_the_data_s_own_elements_is_not_garbage_where_no_policy_reads_the_case() -> None:
    """Audit of stop 45: onnx-reference's Gather-1 on 0-d data (-1) with an int8 index -1 returned -1, the data's
    only element; no policy reads 0-d data, and 'garbage' was disproved by hand: the value is 'ambiguous'."""
    from conformance.core.behaviour import Behaviour
    from conformance.core.case import Case
    from conformance.judge.verdict import observed_policy

    case = Case(
        "onnx.Gather-1", np.array(-1, np.int32), np.array(-1, np.int8), {"axis": 0}, CaseTags("negative", "int8", "int")
    )
    got = Outcome.returned(np.array(-1, np.int32))
    assert observed_policy(got, PolicyValues(case)) is Behaviour.AMBIGUOUS
    assert observed_policy(Outcome.returned(np.array(9, np.int32)), PolicyValues(case)) is Behaviour.GARBAGE


def test_an_empty_case_s_departure_is_still_shown_by_the_same_departure_with_a_policy_word() -> None:
    """Audit of stop 45: TF XLA's gather_nd answering a value (shape [1, 0]) for index 7 on data (5, 0) was named
    'for empty dimensions', though on data (5, 1) it answers the clamped [2.5] instead of the documented error: an
    empty case shows no policy word, so the same departure with one does not remove it."""
    from conformance.campaign.finding_builder import _removes
    from conformance.core.case import Case
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    info = OracleInfo("tensorflow-xla", "tensorflow", "2.21.0", "cpu", "xla", ("tensorflow.gather_nd",))
    sig = Signature(
        "tensorflow.gather_nd", "tensorflow-xla", "2.21.0", "cpu", "xla", "value instead of error", "", ("empty data",)
    )
    data = np.array([[0.5], [1.0], [1.5], [2.0], [2.5]], np.float32)
    ordinary = Case("tensorflow.gather_nd", data, np.array([[7]]), {}, CaseTags("oob-above", "int64", "float"))
    j = judged_alone(ordinary, info, Outcome.returned(np.array([[2.5]], np.float32)))
    assert not j.verdict.conforms and not _removes(j, sig)
    raised = Outcome.raised(IndexError("7 out of range"), ErrorClass.INDEX_OUT_OF_RANGE)
    assert _removes(judged_alone(ordinary, info, raised), sig)  # the documented error: that removes it


def test_a_wrong_error_for_a_requirement_the_docs_do_not_call_an_error_quotes_the_requirement() -> None:
    """Audit of stop 45: onnx-reference's GatherND on 0-d indices raised an IndexError where the reference raises a
    shape error; the basis said "the docs say that the call fails, not which exception", but ONNX only requires
    "1) r >= 1 and q >= 1 are to be honored." and never says the call fails: the requirement is quoted."""
    from conformance.core.blame import Rule
    from conformance.core.outcome import Kind

    sig = Signature(
        "onnx.GatherND",
        "onnx-reference",
        "1.23.2",
        "cpu",
        "reference",
        "wrong error",
        "",
        ("precondition: 0-d indices",),
    )
    ref = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID, rule=Rule.ZERO_D_INDICES, argument="indices")
    basis = finding_basis(sig, ref)
    assert isinstance(basis, Basis) and basis.quote.startswith("1) r >= 1 and q >= 1")
    assert finding_kind(sig, basis) is FindingKind.QUESTION
    torch = Signature("torch.gather", "torch", "2", "cpu", "eager", "wrong error", "", ("precondition: rank mismatch",))
    ref = Outcome(Kind.ERROR, error_class=ErrorClass.SHAPE_INVALID, rule=Rule.RANK_MISMATCH, argument="indices")
    required = finding_basis(torch, ref)  # torch's rank rule is a requirement too (audit of stop 48, 10A n=21)
    assert required.status is BasisStatus.SILENT and isinstance(required, Basis) and "same number" in required.quote


def test_an_index_out_of_range_on_empty_data_gets_its_counterfactual_where_index_0_is_in_range() -> None:
    """Audit of stop 45: TF XLA's gather_nd with index 7 on data (5, 0) was named 'for empty output': on empty data
    no out-of-range counterfactual was tried, though index 0 is in range on the indexed axis (size 5)."""
    from conformance.core.case import Case
    from conformance.core.vocabulary import Feature

    case = Case(
        "tensorflow.gather_nd",
        np.zeros((5, 0), np.float32),
        np.array([[7]]),
        {},
        CaseTags("oob-above", "int64", "float"),
    )
    assert Feature.OUT_OF_RANGE in [c.feature for c in counterfactuals(case)]
    empty_axis = replace(case, data=np.zeros((0, 5), np.float32))  # index 0 is out of range there too
    assert Feature.OUT_OF_RANGE not in [c.feature for c in counterfactuals(empty_axis)]


def test_openvino_gather_nd_reads_whole_slices_for_a_zero_length_index_tuple_as_its_docs_allow() -> None:
    """Audit of stop 45: OpenVINO's GatherND-8 page asks only "indices.shape[-1] <= data.rank" and defines
    output[i] = data[indices[i]] for any length, 0 included (whole slices); the reference refused it, so OpenVINO's
    uninitialized memory there (1.31e-36, 4.56e-41, other bytes each run) was 'value instead of error'. It is a wrong
    value, garbage: a bug resting on the output formula."""
    from conformance.core.behaviour import Behaviour
    from conformance.judge.kind import finding_basis

    case = Case(
        "openvino.GatherND-8",
        np.array([[-2.5]], np.float32),
        np.zeros((3, 0), np.int64),
        {"batch_dims": 0},
        CaseTags("in-range", "int64", "float"),
    )
    ref = reference_outcome(case)
    assert ref.kind.value == "value" and ref.value.tolist() == [[[-2.5]]] * 3
    garbage = Outcome.returned(np.array([[[1.31e-36]], [[4.56e-41]], [[1.31e-36]]], np.float32))
    v = judge(case, ref, garbage, PolicyValues(case), framework="openvino")
    assert str(v.outcome) == "wrong value" and v.behaviour is Behaviour.GARBAGE
    sig = Signature(
        "openvino.GatherND", "openvino", "2026.4.1", "cpu", "opset", "wrong value", "garbage", ("in-range",)
    )
    assert finding_kind(sig, finding_basis(sig, ref, case)) is FindingKind.BUG


def test_xla_clamping_a_negative_and_a_past_the_end_index_is_one_fact_by_trigger() -> None:
    """Audit of stop 45: TF's gather_nd under XLA was listed three times, 'clamps (raw), for indices [-1]', 'clamps,
    for indices [3]' and 'value instead of error, for indices [7]' (an empty output): one missing bounds check. A
    crash for an out-of-range index stays a fact of its own."""
    oob = [Tried(Feature.OUT_OF_RANGE, "", "[-1]", "[0]", "value", True, True)]
    raw = _sig("tensorflow.gather_nd", "value instead of error", "clamps (raw)", ("negative",), "tensorflow-xla")
    above = replace(raw, policy="clamps", condition=("oob-above",))
    empty = replace(raw, policy="", condition=("oob-above",))
    crash = replace(raw, outcome="crash", policy="", condition=("oob-above",))
    case = Case("tensorflow.gather_nd", np.zeros(3), np.array([-1]))

    def finding(sig: Signature) -> Finding:
        return Finding(sig, case, Outcome.unsupported(""), {}, framework="tensorflow", tried=oob)

    one = by_trigger([finding(raw), finding(above), finding(empty), finding(crash)])
    assert [f.signature for f in one] == [raw, crash] and one[0].same_trigger == [above, empty]


def test_openvino_gather_answering_for_data_batches_its_indices_lack_is_a_stray_read_hazard() -> None:
    """Re-audit of stop 45 (n=113): OpenVINO's Gather-8 with batch_dims=1 on data (2, 1, 1) and indices (1, 1)
    answers [0.0, 0.0] on one call and [0.0, -0.5] on the next: batch 1's index is read past the indices' buffer.
    The docs state the batch rule without calling its breach an error (silent), so this is a hazard, not a
    question, and the title says where the values came from."""
    from conformance.judge.kind import finding_basis

    case = Case(
        "openvino.Gather-8",
        np.array([-2.5, -0.5], np.float32).reshape(2, 1, 1),
        np.array([[0]]),
        {"axis": 1, "batch_dims": 1},
        CaseTags("in-range", "int64", "float"),
    )
    ref = reference_outcome(case)
    sig = Signature(
        "openvino.Gather",
        "openvino",
        "2026.4.1",
        "cpu",
        "opset",
        "value instead of error",
        "",
        ("precondition: batch mismatch",),
    )
    assert finding_basis(sig, ref, case).status is BasisStatus.SILENT
    got = {"openvino": Outcome.returned(np.array([-2.5, 0.0], np.float32).reshape(2, 1, 1))}
    f = Finding(sig, case, ref, got)
    assert f.kind is FindingKind.HAZARD and "their indices read past the buffer" in f.title()
    broadcast = Finding(replace(sig, policy="broadcasts a batch of 1"), case, ref, got)
    assert broadcast.kind is FindingKind.QUESTION


# -- audit of stop 46 (sample 5B) -----------------------------------------------------------------------------


def test_an_attribute_given_another_value_retags_the_case_by_the_axis_the_op_reads() -> None:
    """n=36: tf.gather with axis=None (its first non-batch axis, 0) and index 1 on data (1, 2, 1) was tagged
    'in-range' from the class case's axis 1, so its XLA clamp was 'value instead of error, for in-range' and no
    out-of-range counterfactual was tried. The case is tagged by the axis the op reads."""
    from conformance.cases.class_case import ClassCase
    from conformance.cases.translate import translate
    from conformance.spec.plans import EqClass

    cc = ClassCase(
        EqClass.BLOCK,
        (1, 2, 1),
        (1,),
        1,
        0,
        "float32",
        "int64",
        "in-range",
        False,
        "contiguous",
        0,
        0,
        attr_domain=("axis", "None"),
    )
    got = {c.op: c for c in translate(cc, ["tensorflow.gather", "numpy.take"])}
    assert str(got["tensorflow.gather"].tags.regime) == "oob-above"
    assert str(got["numpy.take"].tags.regime) == "in-range"  # numpy's axis=None flattens: index 1 of 2 elements
    assert Feature.OUT_OF_RANGE in [c.feature for c in counterfactuals(got["tensorflow.gather"])]


def test_a_negative_batch_dims_of_onnx_gather_nd_rests_on_its_count_not_on_b_below_min_q_r() -> None:
    """n=78: onnxruntime's GatherND aborts for batch_dims=-2**63; the basis quoted '3) b < min(q, r) is to be
    honored.', which -2**63 obeys. A negative batch_dims breaks 'The number of batch dimensions.' (a count the
    page never calls an error to break)."""
    case = Case(
        "onnx.GatherND-13",
        np.zeros((2, 2), np.float32),
        np.zeros((2, 1), np.int64),
        {"batch_dims": -(2**63)},
        CaseTags("in-range", "int64", "float"),
    )
    ref = reference_outcome(case)
    sig = Signature(
        "onnx.GatherND", "onnxruntime", "1.31.1", "cpu", "session", "crash", "", ("precondition: batch_dims negative",)
    )
    basis = finding_basis(sig, ref, case)
    assert basis.status is BasisStatus.SILENT and basis.quote.startswith("The number of batch dimensions.")
    assert finding_kind(sig, basis) is FindingKind.HAZARD


def test_paddle_saying_an_int_argument_exceeds_int32_range_is_an_attribute_error() -> None:
    """n=137: paddle.index_select(axis=-2**63) raises IndexError '(OutOfRange) Integer value ... exceeds int32
    range': the axis refused (Paddle's category, not an index out of range), the attribute error the reference
    expects."""
    from oracles._common import classify_with
    from oracles.paddle_oracle import PADDLE_PATTERNS

    message = "(OutOfRange) Integer value -9223372036854775808 exceeds int32 range [-2147483648, 2147483647]"
    assert classify_with(message.lower(), PADDLE_PATTERNS) is ErrorClass.ATTRIBUTE_INVALID


def test_a_crash_on_an_attribute_given_as_a_numpy_array_rests_on_the_type_the_docs_give_it() -> None:
    """n=17: paddle.gather crashes (SIGSEGV) for axis=np.array(1); its docs type axis "Tensor|int|None", and a
    NumPy array is neither: a hazard on that requirement, not a bug on the op's first sentence. NumPy's own ops read
    their own scalars as ints."""
    case = Case(
        "paddle.gather",
        np.arange(6.0, dtype=np.float32).reshape(2, 3),
        np.array([0]),
        {"axis": np.array(1)},
        CaseTags("in-range", "int64", "float"),
    )
    sig = Signature("paddle.gather", "paddle", "3.3.1", "cpu", "eager", "crash", "", ("in-range",))
    basis = finding_basis(sig, reference_outcome(case), case)
    assert basis.status is BasisStatus.SILENT and basis.quote.startswith("axis (Tensor|int|None, optional)")
    assert finding_kind(sig, basis) is FindingKind.HAZARD
    numpy = replace(case, op="numpy.take", attrs={"axis": np.array(1), "mode": "raise"})
    np_sig = replace(sig, op="numpy.take", oracle="numpy")
    assert finding_basis(np_sig, reference_outcome(numpy), numpy).status is BasisStatus.DOCUMENTED


def test_an_undocumented_index_dtype_read_by_a_policy_is_the_dtype_fact_alone() -> None:
    """n=140: onnx.reference's GatherElements given int8 index 4 wraps it as it does given int64 (a finding of its
    own); 'undocumented dtype accepted, observed policy wraps, for axis=1, indices [4]' was the two facts at once.
    Its root cause is the dtype accepted, with no policy word; a word of how the dtype is read stays."""
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    case = Case(
        "onnx.GatherElements-11",
        np.array([-2.5, -3.5], np.float32).reshape(1, 2, 1),
        np.array([4], np.int8).reshape(1, 1, 1),
        {"axis": 1},
        CaseTags("oob-above", "int8", "float"),
    )
    info = OracleInfo("onnx-reference", "onnx", "1.23.2", "cpu", "reference", ("onnx.GatherElements-11",))
    j = judged_alone(case, info, Outcome.returned(np.array([-2.5], np.float32).reshape(1, 1, 1)))
    assert j.verdict.behaviour is Behaviour.WRAPS and str(j.signature().outcome) == "undocumented dtype accepted"
    assert j.signature().policy is None


# -- audit of stop 46 (sample 5A) -----------------------------------------------------------------------------


def test_xla_refusing_strings_is_its_documented_limit_where_eager_tensorflow_gathers_them() -> None:
    """n=65 (false): 'tensorflow.gather_nd on tensorflow-xla: dtype rejected, for str data'. tf2xla's table of
    operators supported on XLA_CPU_JIT lists GatherNd's Tparams without strings: XLA's refusal is a documented
    limit of that mode, an atlas fact; eager TensorFlow refusing strings would still be a finding."""
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    case = Case(
        "tensorflow.gather_nd",
        np.array([["a", "bc"]]),
        np.array([[0]]),
        {"batch_dims": 0},
        CaseTags("in-range", "int64", "str"),
    )
    refused = Outcome.raised(TypeError("No registered '_Arg' OpKernel for XLA_CPU_JIT"), ErrorClass.DTYPE_UNSUPPORTED)
    for mode, conforms in (("xla", True), ("eager", False)):
        info = OracleInfo("tf", "tensorflow", "2.21.0", "cpu", mode, ("tensorflow.gather_nd",))
        assert judged_alone(case, info, refused).verdict.conforms is conforms


def test_a_python_list_indexed_past_its_end_inside_a_framework_is_its_internal_error() -> None:
    """n=135: torch.compile's index_select with dim=3 on data (1, 1, 1) raises "IndexError: list assignment index
    out of range" (eager: "Dimension out of range"): a fault inside the compiler, not an index out of range; and a
    precondition's title names the attribute its reference blames, with its value."""
    from oracles.base import internal_or

    leaked = IndexError("list assignment index out of range")
    assert internal_or(leaked, ErrorClass.INDEX_OUT_OF_RANGE) is ErrorClass.INTERNAL
    case = Case("torch.index_select", np.zeros((1, 1, 1), np.float32), np.array([0]), {"dim": 3})
    ref = reference_outcome(case)
    sig = Signature(
        "torch.index_select",
        "torch-compile",
        "2.13.0",
        "cpu",
        "compile",
        "internal error",
        "",
        ("precondition: axis out of range",),
    )
    assert "(dim=3; data (1, 1, 1), indices (1,))" in Finding(sig, case, ref, {}).title()
    internal = replace(sig, condition=())  # as the campaign signs an internal error: for any input
    assert Finding(internal, case, ref, {}).title().endswith("internal error, for dim=3")


def test_openvino_refusing_axis_none_is_named_by_the_attribute_not_by_the_index_regime() -> None:
    """Check at stop 46: OpenVINO's Gather-8 given axis=None raises "('Unidentified data type %s', dtype('O'))"
    (it makes a constant of np.array(None)); once the case was tagged by the axis the op reads (index 1 out of range
    on axis 0), the finding was 'error instead of value (attribute invalid), for oob-above', a generator's
    category. It is the attribute refused: 'for axis=None'."""
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    case = Case(
        "openvino.Gather-8",
        np.array([-2.5], np.float32).reshape(1, 1, 1),
        np.array([1]),
        {"axis": None, "batch_dims": 0},
        CaseTags("oob-above", "int64", "float"),
    )
    info = OracleInfo("openvino", "openvino", "2026.4.1", "cpu", "opset", ("openvino.Gather-8",))
    refused = Outcome.raised(TypeError("('Unidentified data type %s', dtype('O'))"), ErrorClass.ATTRIBUTE_INVALID)
    sig = judged_alone(case, info, refused).signature()
    assert str(sig.outcome) == "attribute refused" and sig.words().endswith("for axis=None")


# -- audit of stop 46 (sample 6) ------------------------------------------------------------------------------


def test_garbage_for_index_dtypes_the_docs_do_not_list_is_a_hazard_on_the_dtype_sentence() -> None:
    """6B n=4: paddle.take_along_axis reads garbage for int8 indices; its docs say "Supported data type are int32
    and int64." and no more: a hazard on that sentence, not a bug on the op's first sentence."""
    case = Case(
        "paddle.take_along_axis",
        np.array([-3.5], np.float32).reshape(1, 1, 1),
        np.zeros((1, 1, 1), np.int8),
        {"axis": 0},
        CaseTags("in-range", "int8", "float"),
    )
    sig = Signature(
        "paddle.take_along_axis", "paddle", "3.3.1", "cpu", "eager", "wrong value", "garbage", ("in-range",)
    )
    basis = finding_basis(sig, reference_outcome(case), case)
    assert basis.status is BasisStatus.SILENT and "Supported data type are int32 and int64." in basis.quote
    assert finding_kind(sig, basis) is FindingKind.HAZARD


def test_onnx_gather_elements_with_empty_indices_reads_nothing_and_answers_their_shape() -> None:
    """6B n=89 (false): data (3, 0), indices (0, 1): 'Its output shape is the same as the shape of indices and
    consists of one value ... for each element in indices': an empty (0, 1) output, not an error."""
    case = Case("onnx.GatherElements-13", np.zeros((3, 0), np.float32), np.zeros((0, 1), np.int64), {"axis": 0})
    ref = reference_outcome(case)
    assert ref.value is not None and ref.value.shape == (0, 1)


def test_internal_errors_of_one_op_are_apart_by_the_rule_the_reference_names() -> None:
    """Re-audit of stop 46 (F128): torch.compile's index_select 'internal error' merged dim=3 (the axis rule) with a
    0-d int8 index failing in inductor (no rule broken): two facts, apart by the rule the reference's error names."""
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    info = OracleInfo("torch-compile", "torch", "2.13.0", "cpu", "compile", ("torch.index_select",))
    leaked = Outcome.raised(IndexError("list assignment index out of range"), ErrorClass.INTERNAL)
    dim3 = Case(
        "torch.index_select",
        np.zeros((1, 1, 1), np.float32),
        np.array([0]),
        {"dim": 3},
        CaseTags("in-range", "int64", "float"),
    )
    lowering = Outcome.raised(AssertionError("indices must be int64, byte or bool"), ErrorClass.INTERNAL)
    zero_d = Case(
        "torch.index_select",
        np.array(1, np.int32),
        np.array(0, np.int8),
        {"dim": 0},
        CaseTags("in-range", "int8", "int"),
    )
    a, b = judged_alone(dim3, info, leaked).signature(), judged_alone(zero_d, info, lowering).signature()
    assert a != b and a.words().endswith("for precondition: axis out of range")


def test_a_crash_on_an_axis_the_docs_only_require_is_a_hazard() -> None:
    """6A n=17: tf.gather aborts for axis=-2**63 ('Check failed: d < dims()'); its docs require the axis ("Must be
    greater than or equal to batch_dims ... Supports negative indexes.") and promise an error only for
    out-of-bound indices: a hazard."""
    case = Case(
        "tensorflow.gather",
        np.zeros((1, 1, 1), np.float32),
        np.array([0]),
        {"axis": -(2**63), "batch_dims": 0},
        CaseTags("in-range", "int64", "float"),
    )
    sig = Signature("tensorflow.gather", "tensorflow", "2.21.0", "cpu", "eager", "crash", "", ("in-range",))
    basis = finding_basis(sig, reference_outcome(case), case)
    assert basis.status is BasisStatus.SILENT and finding_kind(sig, basis) is FindingKind.HAZARD


def test_the_same_dtype_accepted_with_index_0_is_not_removed() -> None:
    """6A n=140: onnx.reference's uint64 [0] is the same dtype accepted as [2**64-1]: the index value is no trigger."""
    from conformance.campaign.finding_builder import _removes
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    onnx = OracleInfo("onnx-reference", "onnx", "1.23.2", "cpu", "reference", ("onnx.GatherElements-11",))
    big = Case(
        "onnx.GatherElements-11",
        np.array([-1], np.int32),
        np.array([2**64 - 1], np.uint64),
        {"axis": 0},
        CaseTags("oob-above", "uint64", "int"),
    )
    sig = judged_alone(big, onnx, Outcome.returned(np.array([-1], np.int32))).signature()
    small = replace(big, indices=np.array([0], np.uint64), tags=CaseTags("in-range", "uint64", "int"))
    assert not _removes(judged_alone(small, onnx, Outcome.returned(np.array([-1], np.int32))), sig)


# -- audit of stop 46 (sample 7) ------------------------------------------------------------------------------


def test_a_value_for_an_attribute_outside_the_listed_values_is_a_question() -> None:
    """7A n=24: numpy.take(mode=None) reads None as its default 'raise'; the page lists {'raise', 'wrap', 'clip'}
    and never says another value is an error: a requirement, not a promised error."""
    case = Case(
        "numpy.take",
        np.array([1.5, 2.5], np.float32),
        np.array([1]),
        {"axis": 0, "mode": None},
        CaseTags("in-range", "int64", "float"),
    )
    sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "", ("in-range",))
    basis = finding_basis(sig, reference_outcome(case), case)
    assert basis.status is BasisStatus.SILENT and finding_kind(sig, basis) is FindingKind.QUESTION


def test_an_undocumented_dtype_with_no_proven_trigger_is_named_by_its_dtype() -> None:
    """7A n=140: 'undocumented dtype accepted, observed policy ambiguous, for undocumented dtype' named the generator's
    category; it names the dtype the docs do not list."""
    sig = Signature(
        "onnx.Gather",
        "openvino-onnx",
        "2026.4.1",
        "cpu",
        "fe",
        "undocumented dtype accepted",
        "ambiguous",
        ("undocumented dtype",),
    )
    case = Case("onnx.Gather-1", np.zeros((1, 1, 1), np.float32), np.array([2**63], np.uint64), {"axis": 0})
    assert Finding(sig, case, Outcome.unsupported(""), {}).title().endswith("for uint64 indices in onnx.Gather-1")


def test_a_precondition_finding_named_by_its_trigger_says_which_rule_it_breaks_with_the_other_values() -> None:
    """Audit of stop 46 (7A n=105): "tensorflow.gather: value instead of error, for batch_dims=1" left out that axis
    was 0 (TensorFlow drops batch_dims there: axis=None or 1 with batch_dims=1 raise). The title names the rule the
    reference says the case breaks, in its words."""
    case = Case("tensorflow.gather", np.zeros((2, 1, 1), np.float32), np.array([[1]]), {"axis": 0, "batch_dims": 1})
    sig = Signature(
        "tensorflow.gather",
        "tensorflow",
        "2.21.0",
        "cpu",
        "eager",
        "value instead of error",
        "",
        ("precondition: batch_dims above axis",),
    )
    tried = [Tried("attribute", "batch_dims", "1", "0", "value float32[1, 1, 1, 1]", True, True)]
    title = Finding(sig, case, reference_outcome(case), {}, tried=tried).title()
    assert title.endswith(
        "value instead of error, for batch_dims=1 (breaks: batch_dims (1) must be less than or equal to axis (0))"
    ), title


def test_a_dtype_misread_in_range_too_is_named_and_grounded_as_the_dtype_not_as_a_bounds_check() -> None:
    """Audit of stop 46 (7A n=61, 6A n=68): Paddle's take_along_axis with int8 indices [3, 0] was "value instead of
    error, observed policy garbage, for int8 indices" on the page's silence about bounds; with [0, 0] it reads garbage
    too (int64 [0, 0] gives the right values). The finding is the undocumented dtype accepted and misread: named so,
    on the sentence listing the index dtypes, as a requirement; still a hazard (the values are read from elsewhere)."""
    case = Case(
        "paddle.take_along_axis", np.array([[[-0.5, 1.0]]], np.float32), np.array([[[3, 0]]], np.int8), {"axis": 2}
    )
    sig = Signature(
        "paddle.take_along_axis",
        "paddle",
        "3.3.1",
        "cpu",
        "eager (dygraph)",
        "value instead of error",
        "garbage",
        ("bad index",),
    )
    garbage = Outcome.returned(np.array([[[6.7e22, 8.3e-33]]], np.float32))
    dtype = Tried("index dtype", "", "int8", "int64", "error IndexError (index out of range)", True, True)
    in_range = Tried("out-of-range indices", "", "[3, 0]", "[0, 0]", "value float32[1, 1, 2]", False, False)
    f = Finding(sig, case, reference_outcome(case), {"paddle": garbage}, tried=[dtype, in_range])
    assert f.title().endswith("undocumented dtype accepted (in range too), observed policy garbage, for int8 indices")
    assert f.basis.status is BasisStatus.SILENT and "int32 and int64" in f.basis.words(), f.basis
    assert f.kind is FindingKind.HAZARD
    gone = replace(in_range, conforms=True, removes=True)  # in range it reads right: the bounds are part of it
    assert "value instead of error" in replace(f, tried=[dtype, gone]).title()


def test_an_attribute_that_keeps_a_policy_less_read_beyond_int32_is_no_trigger() -> None:
    """Audit of stop 47 (8A n=19): OpenVINO's ONNX GatherElements reads index -2**63 as x[0] under axis 0 as under
    axis 1; its finding was "value instead of error, for axis=1, indices [-9223372036854775808]", because the axis-0
    counterfactual's answer was "ambiguous" where the root cause beyond int32 names no word. Any word beyond int32
    is that root cause (rootcause.still_shows): axis is no trigger."""
    from conformance.campaign.finding_builder import _removes
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judged_alone

    info = OracleInfo("openvino-onnx", "openvino", "2026.4.1", "cpu", "fe", ("onnx.GatherElements-11",))
    tags = CaseTags("extreme", "int64", "float")
    case = Case(
        "onnx.GatherElements-11", np.full((1, 1, 1), -2.5, np.float32), np.full((1, 1, 1), -(2**63)), {"axis": 1}, tags
    )
    read = Outcome.returned(np.full((1, 1, 1), -2.5, np.float32))
    sig = replace(judged_alone(case, info, read).signature(), policy=None)
    assert not _removes(judged_alone(replace(case, attrs={"axis": 0}), info, read), sig)


def test_a_valid_call_refused_for_its_shapes_departs_from_the_requirement_it_meets() -> None:
    """Audit of stop 47 (8B n=117): tnp.take_along_axis refused data (3, 0) with indices (0, 1) ("params.shape[0]: 0
    should be equal to indices.shape[0]: 1"), which broadcast as NumPy's page allows; the finding was a question on
    the shape sentence read as a requirement. The call meets it and NumPy answers (0, 0): refusing it is a bug."""
    from conformance.core.outcome import Kind

    op = "tensorflow.experimental.numpy.take_along_axis"
    case = Case(
        op, np.zeros((3, 0), np.float32), np.zeros((0, 1), np.int64), {"axis": 0}, CaseTags("empty", "int64", "float")
    )
    reference = reference_outcome(case)
    assert reference.kind is Kind.VALUE and reference.value.shape == (0, 0), reference
    sig = Signature(
        op, "tensorflow-numpy", "2.21.0", "cpu", "eager", "shapes refused", "", ("shapes refused", "empty data")
    )
    basis = finding_basis(sig, reference, case)
    assert basis.status is BasisStatus.DOCUMENTED and "broadcast against arr" in basis.words(), basis
    assert finding_kind(sig, basis) is FindingKind.BUG


def test_an_onnx_dtype_finding_names_the_opset_whose_types_leave_the_dtype_out() -> None:
    """Audit of stop 47 (8A n=137): "undocumented dtype accepted, for bfloat16 data" on OpenVINO's ONNX front end was
    about GatherElements-11, whose types lack bfloat16; GatherElements-13 lists it, and a maintainer reading the title
    against the current schema rejects it. The title names the op version."""
    sig = Signature(
        "onnx.GatherElements",
        "openvino-onnx",
        "2026.4.1",
        "cpu",
        "fe",
        "undocumented dtype accepted",
        "",
        ("undocumented dtype",),
    )
    case = Case("onnx.GatherElements-11", np.zeros((1, 1, 1), BFLOAT16), np.zeros((1, 1, 1), np.int64), {"axis": 0})
    tried = [Tried("data dtype", "", "bfloat16", "float32", "value float32[1, 1, 1]", True, True)]
    title = Finding(sig, case, Outcome.unsupported(""), {}, tried=tried).title()
    assert title.endswith("undocumented dtype accepted, for bfloat16 data in onnx.GatherElements-11"), title


def test_an_attribute_whose_default_makes_a_broken_call_valid_is_tried() -> None:
    """Audit of stop 47 (8B n=94): numpy.take on 0-d data with axis=0 answers a value where the reference names the
    rank rule; with the default axis=None (flattened) the same call is documented and answers. The axis
    counterfactual was not tried (it changed the docs' answer from a rule to a value), so the title named only the
    0-d data. An attribute whose default makes the call valid is tried."""
    case = Case(
        "numpy.take",
        np.array(-0.5, np.float32),
        np.array([0]),
        {"axis": 0, "mode": "raise"},
        CaseTags("in-range", "int64", "float"),
    )
    tried = {c.words(): c for c in counterfactuals(case)}
    assert "attribute axis" in tried and tried["attribute axis"].case.attrs["axis"] is None, sorted(tried)
    assert reference_outcome(tried["attribute axis"].case).value.tolist() == [-0.5]


def test_zeros_where_a_value_is_owed_are_no_proof_of_garbage() -> None:
    """Audit of stop 47 (8A n=10): OpenVINO's GatherND-8 on data [[-2.5]] with a 0-length index tuple answered
    [0, 0, 0] in the campaign, and its title said "garbage: values the data does not hold"; zeros are what a fill
    gives (by hand, reruns read 1.6e+19, 1.9e+31: garbage, but not this example). The title says what it proves."""
    sig = Signature("openvino.GatherND", "openvino", "2026.4.1", "cpu", "opset", "wrong value", "", ("empty",))
    case = Case("openvino.GatherND-8", np.array([[-2.5]], np.float32), np.zeros((3, 0), np.int64))
    ref = Outcome.returned(np.full((3, 1, 1), -2.5, np.float32))
    zeros = Finding(sig, case, ref, {"openvino": Outcome.returned(np.zeros((3, 1, 1), np.float32))})
    assert "garbage" not in zeros.title(), zeros.title()
    stray = replace(
        zeros, outcomes={"openvino": Outcome.returned(np.array([[[1.6e19]], [[0.0]], [[-2.5]]], np.float32))}
    )
    assert "(garbage: values the data does not hold)" in stray.title()


def test_an_onnx_index_dtype_misread_rests_on_the_indices_type_sentence() -> None:
    """Audit of stop 47 (9B n=145): onnx.reference's Gather-1 with uint64 indices, a dtype misread in range too,
    quoted T's "Constrain input and output types to any tensor type."; the indices' own sentence is the rule."""
    from conformance.spec.basis import dtype_requirement

    for op in ("onnx.Gather-1", "onnx.GatherElements-11"):
        assert "int32/int64 indices" in dtype_requirement(op, index=True).words(), op
