"""TOSA's GATHER reference (issue 40, point 3): the spec's pseudocode on in-range indices, its shape rules, an
index outside [0, K) said unpredictable (quoting the spec) and never judged, and IREE (llvm-cpu, its TOSA input)
giving the reference's answers on in-range indices."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conformance.cases.mlir_text import tensor_module_text, tosa_module_text
from conformance.spec.errors import PreconditionError
from conformance.spec.reference import reference
from conformance.spec.tosa import REQUIRE_MEANS, UNPREDICTABLE_MEANS, Unpredictable, tosa_gather
from oracles.mlir_executors import executor

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(1, 4, 2, 3), (2, 3, 1, 5), (3, 1, 4, 2)], ids=str)
def test_gather_is_output_n_w_c_equal_values_n_indices_n_w_c(shape) -> None:
    n, k, c, w = shape
    values = RNG.standard_normal((n, k, c)).astype(np.float32)
    indices = RNG.integers(0, k, (n, w)).astype(np.int32)
    got = tosa_gather(values, indices)
    want = np.stack([values[i][indices[i]] for i in range(n)])
    assert got.shape == (n, w, c) and got.tobytes() == want.tobytes()
    # the same as the catalog's take_along_axis with the indices repeated over C
    along = reference("numpy.take_along_axis", values, np.repeat(indices[:, :, np.newaxis], c, axis=2), axis=1)
    assert got.tobytes() == along.tobytes()


def test_an_index_outside_0_k_is_unpredictable_quoting_the_spec_never_an_error_demanded() -> None:
    for bad in (-1, 4, 2**31 - 1):
        with pytest.raises(Unpredictable) as caught:
            tosa_gather(np.zeros((1, 4, 2), np.float32), np.array([[0, bad]], np.int32))
        assert "indices[0, 1] = " + str(bad) in str(caught.value)
        assert REQUIRE_MEANS in str(caught.value) and UNPREDICTABLE_MEANS in str(caught.value)
        assert not isinstance(caught.value, PreconditionError)


@pytest.mark.parametrize(
    ("values_shape", "indices_shape", "dtype", "says"),
    [
        ((4, 2), (1, 2), np.int32, "values must have shape [N,K,C] (rank 3)"),
        ((1, 4, 2), (2,), np.int32, "indices must have shape [N,W] (rank 2)"),
        ((2, 4, 2), (1, 2), np.int32, "must have one N, got 2 and 1"),
        ((1, 4, 2), (1, 2), np.uint32, "index_t must be int32 or int64, got uint32"),
        ((2, 5, 3), (2, 0), np.int32, "indices of shape [2, 0]: tensor has a dimension with size zero"),
        ((1, 0, 3), (1, 2), np.int32, "values of shape [1, 0, 3]: tensor has a dimension with size zero"),
    ],
)
def test_shapes_and_index_types_outside_the_argument_table_are_refused_naming_the_rule(
    values_shape, indices_shape, dtype, says
) -> None:
    with pytest.raises(PreconditionError, match=r"^GATHER: ") as caught:
        tosa_gather(np.zeros(values_shape), np.zeros(indices_shape, dtype))
    assert says in str(caught.value)


@pytest.mark.skipif(
    importlib.util.find_spec("iree") is None, reason="IREE (iree-base-compiler, iree-base-runtime) is not installed"
)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float16])
def test_iree_runs_tosa_gather_and_gives_the_references_answer_on_in_range_indices(dtype) -> None:
    values = (RNG.standard_normal((2, 5, 3)) * 10).astype(dtype)
    indices = RNG.integers(0, 5, (2, 4)).astype(np.int32)
    got = executor("iree")(tosa_module_text(values, indices), values, indices)
    assert got.tobytes() == tosa_gather(values, indices).tobytes()


@pytest.mark.skipif(importlib.util.find_spec("iree") is None, reason="IREE (iree-base-compiler) is not installed")
def test_iree_does_not_lower_the_tensor_dialects_gather_so_it_cannot_be_run_here() -> None:
    """Issue 40 asks to run ``tensor.gather`` where IREE lowers it. IREE 3.13 refuses it: "failed to legalize
    operation 'tensor.gather' that was explicitly marked illegal". This test fails once IREE lowers it: then run it."""
    from iree import compiler

    text = tensor_module_text(np.zeros((4, 2), np.float32), (3, 1), (0,))
    with pytest.raises(compiler.CompilerToolError, match="failed to legalize operation 'tensor.gather'"):
        compiler.compile_str(text, target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-cpu=generic"])
