"""The reference under transformations (issue 41, point 1): the VJP, the JVP and vmap derived from the one
reference, checked by laws on drawn cases of every catalog op and by the issue's worked examples.

Laws, on every case the reference answers (float64 data of the case's shape, a drawn tangent and cotangent, never
all ones, so that a gradient sent to the wrong position shows):

* finite differences: ``(op(x + h t) - op(x - h t)) / 2h`` is the JVP ``jvp(t)`` (wherever it is finite: a NaN fill
  has no difference), and every position read gives a finite one;
* the JVP-VJP identity: ``<cotangent, jvp(t)> == <vjp(cotangent), t>``;
* vmap is the loop: the op on a stack of cases is the stack of its answers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.cases.class_case import ClassCase
from conformance.cases.strategies import class_cases
from conformance.cases.translate import translate
from conformance.core.case import Case
from conformance.core.vocabulary import Layout, Regime
from conformance.spec.catalog import ops, spec
from conformance.spec.plans import EqClass
from conformance.spec.reference import reference
from conformance.spec.transforms import NOTHING, jvp, read_positions, vjp, vmapped

H = 0.5
"""The finite difference's step: a gather is linear, so any step gives its derivative up to rounding."""


def _answered(case: Case) -> bool:
    try:
        reference(case.op, np.zeros(np.shape(case.data)), case.indices, check_dtypes=False, **dict(case.attrs))
    except Exception:  # noqa: BLE001 - the op must fail here: no derivative to check
        return False
    return True


def _laws(case: Case, rng: np.random.Generator) -> None:
    shape, attrs = np.shape(case.data), dict(case.attrs)
    x, t = rng.normal(size=shape), rng.normal(size=shape)
    out = reference(case.op, x, case.indices, check_dtypes=False, **attrs)
    cotangent = rng.normal(size=out.shape)
    forward = jvp(case.op, shape, case.indices, t, **attrs)
    ahead = reference(case.op, x + H * t, case.indices, check_dtypes=False, **attrs)
    behind = reference(case.op, x - H * t, case.indices, check_dtypes=False, **attrs)
    difference = (ahead - behind) / (2 * H)
    finite = np.isfinite(difference)
    read = read_positions(case.op, shape, case.indices, **attrs) != NOTHING
    assert finite[read].all(), case
    np.testing.assert_allclose(difference[finite], forward[finite], rtol=1e-12, atol=1e-12, err_msg=str(case))
    backward = vjp(case.op, x, case.indices, cotangent, **attrs)
    assert backward.shape == shape
    np.testing.assert_allclose(np.vdot(cotangent, forward), np.vdot(backward, t), rtol=1e-10, atol=1e-10)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cc=class_cases(), seed=st.integers(0, 2**16))
def test_the_vjp_matches_finite_differences_and_the_jvp_on_drawn_cases_of_every_op(cc: ClassCase, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for case in translate(cc):
        if _answered(case):
            _laws(case, rng)


def test_the_laws_hold_for_every_catalog_op_on_an_in_range_case() -> None:
    """Each op at least once, whatever the draws: an in-range case of each class, with each op's own attributes."""
    rng = np.random.default_rng(0)
    seen: set[str] = set()
    for cc in _one_case_per_class():
        for case in translate(cc):
            if _answered(case):
                _laws(case, rng)
                seen.add(spec(case.op).name)
    assert seen >= set(ops()), set(ops()) - seen


def _one_case_per_class() -> list[ClassCase]:
    shapes = {
        EqClass.ELEMENT: ((3, 4), (2, 4), 0, 0),
        EqClass.BLOCK: ((3, 4), (2,), 0, 0),
        EqClass.ND: ((3, 4), (2, 2), None, 0),
        EqClass.FLAT: ((3, 4), (5,), None, 0),
    }
    return [
        ClassCase(c, data, idx, axis, b, "float32", "int64", Regime.IN_RANGE, False, Layout.CONTIGUOUS, 0, 7)
        for c, (data, idx, axis, b) in shapes.items()
    ]


@pytest.mark.parametrize(
    ("op", "indices", "policy", "attrs", "gradient"),
    [
        # tf.gather under XLA clamps [-1, 1] (the case): the clamped read x[0] gets its gradient too
        ("tensorflow.gather", [-1, 1], "clip", {}, [1, 1, 0, 0, 0]),
        ("tensorflow.gather", [6, 1], "clip", {}, [0, 1, 0, 0, 1]),
        ("jax.numpy.take", [-1, 7], None, {"mode": "wrap"}, [0, 0, 1, 0, 1]),  # -1 -> 4, 7 -> 2
        ("jax.numpy.take", [-1, 7], None, {"mode": "clip"}, [1, 0, 0, 0, 1]),  # clip: -1 -> 0, 7 -> 4
        ("jax.numpy.take", [9, 1], None, {"mode": "fill"}, [0, 1, 0, 0, 0]),  # a fill reads nothing
        ("torch.take", [1, 1, 3, 1], None, {}, [0, 3, 0, 1, 0]),  # duplicates accumulate
    ],
)
def test_the_gradient_goes_where_the_forward_read(
    op: str, indices: list[int], policy: str | None, attrs: dict[str, object], gradient: list[int]
) -> None:
    ones = np.ones(len(indices))
    got = vjp(op, np.arange(1.0, 6.0), np.array(indices), ones, policy=policy, **attrs)
    assert got.tolist() == gradient


def test_vmap_is_the_loop_over_data_indices_or_both() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    i = np.array([[2, 0], [1, 1]])
    along = vmapped("numpy.take_along_axis", x, i[:, None, :], axis=1)
    assert along.tolist() == [np.take_along_axis(x[b], i[b][None, :], axis=1).tolist() for b in range(2)]
    assert vmapped("numpy.take", x, i, axis=1).tolist() == [np.take(x[b], i[b], axis=1).tolist() for b in range(2)]
    assert vmapped("numpy.take", x, i[0], indices_axis=None, axis=1).tolist() == np.take(x, i[0], axis=2).tolist()
    only_indices = vmapped("numpy.take", x[0], i, data_axis=None, axis=0)
    assert only_indices.tolist() == [np.take(x[0], i[b], axis=0).tolist() for b in range(2)]


def test_a_cotangent_or_tangent_of_the_wrong_shape_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"cotangent.shape \(3,\) must be the output's shape \(2,\)"):
        vjp("numpy.take", np.zeros(5), np.array([0, 1]), np.ones(3))
    with pytest.raises(ValueError, match=r"tangent.shape \(4,\) must be the data's shape \(5,\)"):
        jvp("numpy.take", (5,), np.array([0, 1]), np.ones(4))
    with pytest.raises(ValueError, match="batched axes must have one size"):
        vmapped("numpy.take", np.zeros((2, 3)), np.zeros((3, 1), int), axis=0)
