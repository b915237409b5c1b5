"""The campaign's strategies: what they draw and what they derive."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings

from conformance.campaign.shrinker import simpler
from conformance.cases.class_case import ClassCase, axis_sizes, index_regime, index_values, materialize
from conformance.cases.strategies import LONG_AXIS, MAX_DATA, MAX_RANK, class_cases
from conformance.cases.translate import broadcast_pattern, case_tags, op_attrs, targets, translate
from conformance.cases.values import data_values, with_layout
from conformance.core.vocabulary import REGIMES
from conformance.spec.plans import EqClass


def _case(**kw) -> ClassCase:
    base = {
        "eq_class": EqClass.BLOCK,
        "data_shape": (3, 4),
        "index_shape": (5,),
        "axis": 1,
        "batch_dims": 0,
        "data_dtype": "int64",
        "index_dtype": "int64",
        "regime": "in-range",
        "special": False,
        "layout": "contiguous",
        "mode": 0,
        "seed": 3,
    }
    return ClassCase(**(base | kw))


@settings(max_examples=120)
@given(class_cases())
def test_drawn_cases_materialize_within_the_size_caps(cc: ClassCase) -> None:
    data, idx = materialize(cc)
    assert data.shape == cc.data_shape and idx.shape == cc.index_shape
    assert idx.dtype.name == cc.index_dtype
    assert len(cc.data_shape) <= MAX_RANK and math.prod(cc.data_shape) <= max(MAX_DATA, LONG_AXIS[1])


@settings(max_examples=120)
@given(class_cases())
def test_materialize_is_a_pure_function_of_the_draw(cc: ClassCase) -> None:
    (d1, i1), (d2, i2) = materialize(cc), materialize(cc)
    assert d1.tobytes() == d2.tobytes() and i1.tobytes() == i2.tobytes()


def test_data_values_are_unique_across_the_tensor_for_every_wide_dtype() -> None:
    for name in ("int8", "int16", "uint8", "uint64", "float16", "bfloat16", "float32", "complex64", "str"):
        a = data_values(name, (4, 4, 3), seed=7).reshape(-1)
        keys = [x.tobytes() if name != "str" else x for x in a]
        assert len(set(keys)) == a.size, name


def test_special_values_include_nan_payloads_negative_zero_and_inf() -> None:
    a = data_values("float32", (8,), seed=1, special=True)
    bits = {x.tobytes() for x in a[np.isnan(a)]}
    assert len(bits) == 2  # two NaNs, two payloads
    assert np.isinf(a).any() and any(x == 0 and np.signbit(x) for x in a)


def test_every_regime_materializes_as_itself_when_the_dtype_can_hold_it() -> None:
    for regime in REGIMES[:-1]:
        cc = _case(regime=regime, index_dtype="int64", seed=11)
        assert index_regime(index_values(cc), axis_sizes(cc)) == regime


def test_index_regime_is_derived_from_values_not_from_the_draw() -> None:
    cc = _case(data_shape=(3, 0), regime="in-range")  # axis of size 0: nothing is in range
    assert index_regime(index_values(cc), axis_sizes(cc)) == "oob-above"


def test_strided_layout_is_non_contiguous_and_tagged() -> None:
    cc = _case(layout="strided")
    data, idx = materialize(cc)
    assert not data.flags.c_contiguous and np.array_equal(data, materialize(_case())[0])
    assert "non-contiguous" in case_tags(cc, data, idx).flags
    assert with_layout(np.arange(3), "fortran").flags.f_contiguous


def test_block_case_translates_axis_to_dim_and_skips_ops_without_batch_dims() -> None:
    ops = {c.op: c.attrs for c in translate(_case())}
    assert ops["torch.index_select"] == {"dim": 1} and ops["numpy.take"] == {"axis": 1, "mode": "raise"}
    batched = {c.op for c in translate(_case(batch_dims=1, data_shape=(5, 4)))}
    assert batched == {"tensorflow.gather", "openvino.Gather-8"}  # the two block gathers with batch_dims


def test_flat_case_reaches_axis_none_variants_of_block_and_element_ops() -> None:
    keys = [s.key for s in targets(EqClass.FLAT)]
    assert "torch.take" in keys and "numpy.take" in keys and "torch.take_along_dim" in keys
    flat = _case(eq_class=EqClass.FLAT, axis=None)
    assert op_attrs(flat, next(s for s in targets(EqClass.FLAT) if s.key == "numpy.take"))["axis"] is None


def test_fortran_layout_keeps_a_0d_array_0d() -> None:
    assert with_layout(np.array(5), "fortran").shape == ()  # np.asfortranarray would make it (1,)


def test_broadcast_patterns_are_named() -> None:
    elem = {"eq_class": EqClass.ELEMENT, "axis": 0}
    assert broadcast_pattern(_case(**elem, data_shape=(3, 4), index_shape=(2, 4))) == "same-shape"
    assert broadcast_pattern(_case(**elem, data_shape=(3, 4), index_shape=(2, 1))) == "bcast"
    assert broadcast_pattern(_case(**elem, data_shape=(3, 4), index_shape=(2, 2))) == "window"
    assert broadcast_pattern(_case(**elem, data_shape=(3, 4), index_shape=(2, 5))) == "mismatch"


def test_simpler_candidates_are_strictly_smaller() -> None:
    cc = _case(layout="fortran", special=True, data_dtype="float32", mode=2, seed=40)
    assert simpler(cc) and all(c.size() < cc.size() for c in simpler(cc))


# -- issue 22 point 6: the conditions the atlas lacked, reachable by the fuzzer ---------------


def _found(eq_classes: tuple[EqClass, ...], condition) -> ClassCase:
    from hypothesis import HealthCheck, find
    from hypothesis import settings as hs

    return find(
        class_cases(eq_classes),
        condition,
        settings=hs(max_examples=20_000, database=None, suppress_health_check=list(HealthCheck)),
    )


def test_the_fuzzer_draws_nd_index_tuples_as_long_as_a_data_rank_of_7_to_9() -> None:
    cc = _found((EqClass.ND,), lambda c: len(c.data_shape) >= 7 and c.index_shape[-1:] == (len(c.data_shape),))
    assert len(cc.data_shape) >= 7


def test_the_fuzzer_draws_block_gathers_on_1d_data_with_a_bad_index() -> None:
    cc = _found((EqClass.BLOCK,), lambda c: len(c.data_shape) == 1 and str(c.regime) in ("oob-above", "oob-below"))
    assert len(cc.data_shape) == 1


def test_the_fuzzer_draws_an_index_batch_of_0_against_a_data_batch_that_is_not() -> None:
    cc = _found(
        (EqClass.ND,),
        lambda c: c.batch_dims > 0 and c.index_shape[:1] == (0,) and c.data_shape[:1] not in ((0,), ()),
    )
    assert cc.index_shape[0] == 0


def test_the_fuzzer_draws_bool_indices_under_every_mode_selector() -> None:
    for mode in range(4):
        cc = _found((EqClass.BLOCK,), lambda c, m=mode: c.index_dtype == "bool" and c.mode == m)
        assert index_values(cc).dtype == np.bool_


def test_the_new_atlas_conditions_have_probes_that_reach_ops() -> None:
    from conformance.cases.probes import all_probes, cases_of

    wanted = {"nd-tuple-rank-7", "nd-tuple-rank-8", "nd-tuple-rank-9", "block-1d-oob", "batch-index-zero"}
    reached = {p.condition for p in all_probes() if p.condition in wanted and cases_of(p)}
    assert reached == wanted
    block_bool = [p for p in all_probes() if p.condition == "index-bool" and p.eq_class is EqClass.BLOCK]
    bool_modes = {p.class_case.mode for p in block_bool}
    assert bool_modes == {0, 1, 2, 3}  # jnp.take's four modes each see bool indices
    along = [
        c.attrs.get("mode")
        for p in all_probes()
        if p.condition == "size" and p.eq_class is EqClass.ELEMENT
        for c in cases_of(p, ["jax.numpy.take_along_axis"])
    ]
    assert "promise_in_bounds" in along
