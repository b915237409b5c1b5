"""Every worked example of the design seed (``shared/seeds/004``) and of the
ONNX docs beside it (``000`` Gather, ``002`` GatherND): final outputs and the
intermediate reshaped shapes the seed prints.

Where the seed is wrong or uses another valid layout than our plans, the
test says so and pins the fact (see the "seed doc error" tests)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from conformance import gather_multiaxis, plan, reference
from conformance.spec.multiaxis import multiaxis_shapes
from conformance.spec.plans import nd_plan

X43 = np.array([[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]])
X22 = np.array([[1, 2], [3, 4]])
X222 = np.arange(8).reshape(2, 2, 2)
X422 = np.array([[[0, 1], [10, 11]], [[100, 101], [110, 111]], [[200, 201], [210, 211]], [[300, 301], [310, 311]]])


@dataclass(frozen=True)
class Printed:
    """The seed's "intermediate processing values"."""

    input: tuple[int, ...]
    indices: tuple[int, ...]
    output: tuple[int, ...]
    axes: tuple[int, ...]


def run_printed(data: np.ndarray, indices: np.ndarray, p: Printed, final: tuple[int, ...]) -> np.ndarray:
    """Run the multiaxis operator with the seed's printed shapes, then reshape to ``final``."""
    out = gather_multiaxis(data.reshape(p.input), indices.reshape(p.indices), p.axes)
    assert out.shape == p.output
    return out.reshape(final)


def assert_plan_is(op: str, data: np.ndarray, indices: np.ndarray, p: Printed, **attrs) -> None:
    ours = plan(op, data.shape, indices.shape, **attrs)
    assert (ours.input_shape, ours.indices_shape, ours.output_shape, ours.axes) == (
        p.input,
        p.indices,
        p.output,
        p.axes,
    )


# -- Single-axis element gather (GatherElements) ----------------------------------

ELEMENTS = {
    "axis0_indices_2x3": (X43, [[3, 1, 1], [2, 0, 3]], 0, [[30, 11, 12], [20, 1, 32]]),
    "axis1_indices_4x1": (X43, [[2], [1], [0], [2]], 1, [[2], [11], [20], [32]]),
    "axis0_indices_smaller_in_other_dims": (X422, [[[0, 2], [1, 3]]], 0, [[[0, 201], [110, 311]]]),
}


@pytest.mark.parametrize("name", ELEMENTS)
@pytest.mark.parametrize("op", ["onnx.GatherElements", "numpy.take_along_axis", "torch.gather", "gather_multiaxis"])
def test_seed_gather_elements_examples(name: str, op: str) -> None:
    data, idx, axis, want = ELEMENTS[name]
    idx = np.array(idx, dtype=np.int64)
    if op == "gather_multiaxis":  # gatherSingleAxisElements: directly the multiaxis operator
        got = gather_multiaxis(data, idx, [axis])
    else:
        got = reference(op, data, idx, **{"dim" if op.startswith("torch") else "axis": axis})
    assert got.tolist() == want


@pytest.mark.parametrize("name", ELEMENTS)
def test_seed_gather_elements_plan_keeps_every_shape(name: str) -> None:
    data, idx, axis, _ = ELEMENTS[name]
    p = plan("onnx.GatherElements", data.shape, np.shape(idx), axis=axis)
    assert (p.input_shape, p.indices_shape, p.output_shape, p.axes) == (
        data.shape,
        np.shape(idx),
        np.shape(idx),
        (axis,),
    )


# -- Single-axis blocks (Gather) ------------------------------------------------------


@dataclass(frozen=True)
class GatherExample:
    data: np.ndarray
    indices: object
    axis: int
    output: object
    printed: Printed


GATHER = {
    "axis0_indices_2": GatherExample(
        X43, [3, 1], 0, [[30, 31, 32], [10, 11, 12]], Printed((4, 3), (2, 1), (2, 3), (0,))
    ),
    "axis1_indices_5": GatherExample(
        X43,
        [2, 1, 0, 1, 2],
        1,
        [[2, 1, 0, 1, 2], [12, 11, 10, 11, 12], [22, 21, 20, 21, 22], [32, 31, 30, 31, 32]],
        Printed((4, 3), (1, 5), (4, 5), (1,)),
    ),
    "axis1_indices_2x2": GatherExample(
        X43,
        [[0, 1], [1, 2]],
        1,
        [[[0, 1], [1, 2]], [[10, 11], [11, 12]], [[20, 21], [21, 22]], [[30, 31], [31, 32]]],
        Printed((4, 1, 3), (1, 2, 2), (4, 2, 2), (2,)),
    ),
    "scalar_index": GatherExample(X22, 1, 0, [3, 4], Printed((2, 2), (2, 1), (2, 2), (0,))),
    "indices_1_0": GatherExample(X22, [1, 0], 0, [[3, 4], [1, 2]], Printed((2, 2), (2, 1), (2, 2), (0,))),
    "indices_2x2_axis0": GatherExample(
        X22, [[1, 0], [0, 1]], 0, [[[3, 4], [1, 2]], [[1, 2], [3, 4]]], Printed((2, 1, 2), (2, 2, 1), (2, 2, 2), (0,))
    ),
}
OUR_LAYOUT = ("axis0_indices_2", "axis1_indices_5", "indices_1_0", "indices_2x2_axis0")
OTHER_LAYOUT = ("axis1_indices_2x2",)


@pytest.mark.parametrize("name", GATHER)
@pytest.mark.parametrize("op", ["onnx.Gather", "numpy.take", "tensorflow.gather", "jax.numpy.take"])
def test_seed_gather_examples_final_output(name: str, op: str) -> None:
    ex = GATHER[name]
    idx = np.array(ex.indices, dtype=np.int32)
    got = reference(op, ex.data, idx, axis=ex.axis)
    assert got.tolist() == ex.output
    assert got.shape == np.take(ex.data, idx, axis=ex.axis).shape


@pytest.mark.parametrize("name", OUR_LAYOUT)
def test_seed_gather_printed_intermediates_equal_our_block_plan(name: str) -> None:
    ex = GATHER[name]
    assert_plan_is("onnx.Gather", ex.data, np.array(ex.indices), ex.printed, axis=ex.axis)
    assert run_printed(ex.data, np.array(ex.indices), ex.printed, np.shape(ex.output)).tolist() == ex.output


@pytest.mark.parametrize("name", OTHER_LAYOUT)
def test_seed_gather_printed_intermediates_in_the_other_layout_are_valid_but_not_ours(name: str) -> None:
    """The seed prints input [4,1,3] / axes [2] (filler *before* the axis,
    which moves to dimension 2); our block_plan puts the index dimensions at
    the axis (input [4,3,1], axes [1]), the layout of the seed's example
    "indices [[1,0],[0,1]]". Both are valid plans."""
    ex = GATHER[name]
    idx = np.array(ex.indices)
    assert run_printed(ex.data, idx, ex.printed, np.shape(ex.output)).tolist() == ex.output
    ours = plan("onnx.Gather", ex.data.shape, idx.shape, axis=ex.axis)
    assert (ours.input_shape, ours.axes) == ((4, 3, 1), (1,))
    assert (ours.input_shape, ours.axes) != (ex.printed.input, ex.printed.axes)
    assert (ours.indices_shape, ours.output_shape) == (ex.printed.indices, ex.printed.output)


def test_seed_doc_error_scalar_index_gather_intermediates_cannot_be_right() -> None:
    """Seed doc error: for the scalar index the seed prints indices [2,1] and
    output [2,2]: one index value cannot fill 2 index elements, and the 4
    output elements cannot reshape to the final shape [2]."""
    ex = GATHER["scalar_index"]
    assert math.prod(ex.printed.output) == 4 != math.prod(np.shape(ex.output)) == 2
    assert math.prod(ex.printed.indices) == 2 != np.array(ex.indices).size == 1
    with pytest.raises(ValueError):
        run_printed(ex.data, np.array(ex.indices), ex.printed, np.shape(ex.output))
    ours = plan("onnx.Gather", (2, 2), (), axis=0)
    assert (ours.input_shape, ours.indices_shape, ours.output_shape, ours.final_shape) == ((2, 2), (1, 1), (1, 2), (2,))


def seed_gather_blocks_shapes(data: tuple, idx: tuple, axis: int) -> tuple[tuple, tuple, tuple]:
    """The seed's JavaScript ``gatherBlocks`` shape arithmetic, transcribed:
    ``rank(indices)`` filler after the axis in the input, the index dimensions
    after the axis position in the indices."""
    new_input = data[: axis + 1] + (1,) * len(idx) + data[axis + 1 :]
    new_indices = (1,) * (axis + 1) + idx + (1,) * (len(data) - axis - 1)
    return new_input, new_indices, multiaxis_shapes(new_input, new_indices, (axis,))[1]


P, Q, R, S = 2, 3, 4, 5
MAPPING_TABLE = [  # data, indices, axis, output, reshaped input / indices / output (seed's comment table)
    ((P, Q), (), 0, (Q,), (P, Q), (1, 1), (1, Q)),
    ((P, Q, R), (), 1, (P, R), (P, Q, R), (1, 1, 1), (P, 1, R)),
    ((P, Q, R), (S,), 1, (P, S, R), (P, Q, 1, R), (1, 1, S, 1), (P, 1, S, R)),
    ((P, Q), (R, S), 0, (R, S, Q), (P, 1, 1, Q), (1, R, S, 1), (1, R, S, Q)),
    ((P, Q), (R, S), 1, (P, R, S), (P, Q, 1, 1), (1, 1, R, S), (P, 1, R, S)),
]


@pytest.mark.parametrize("row", MAPPING_TABLE, ids=lambda r: f"data{r[0]}-indices{r[1]}-axis{r[2]}")
def test_seed_gather_mapping_table_rows_are_valid_plans(row: tuple) -> None:
    data_shape, idx_shape, axis, out_shape, new_in, new_idx, new_out = row
    assert seed_gather_blocks_shapes(data_shape, idx_shape, axis) == (new_in, new_idx, new_out)
    rng = np.random.default_rng(0)
    data = rng.integers(0, 1000, data_shape)
    idx = rng.integers(0, data_shape[axis], idx_shape)
    got = gather_multiaxis(data.reshape(new_in), idx.reshape(new_idx), [axis])
    assert got.shape == new_out
    assert np.array_equal(got.reshape(out_shape), np.take(data, idx, axis=axis))
    assert np.array_equal(reference("onnx.Gather", data, idx, axis=axis), np.take(data, idx, axis=axis))


@pytest.mark.parametrize("name", GATHER)
def test_seed_gather_blocks_code_layout_is_valid_for_every_gather_example(name: str) -> None:
    """The seed's own code (not its printed values) gives yet another valid layout."""
    ex = GATHER[name]
    idx = np.array(ex.indices)
    new_in, new_idx, new_out = seed_gather_blocks_shapes(ex.data.shape, idx.shape, ex.axis)
    got = gather_multiaxis(ex.data.reshape(new_in), idx.reshape(new_idx), [ex.axis])
    assert got.shape == new_out and got.reshape(np.shape(ex.output)).tolist() == ex.output


def test_seed_doc_error_python_comments_of_the_reference_script() -> None:
    """Seed doc error: the comments in the seed's numpy test script do not
    match what the script computes (they were written for other data)."""
    assert np.take(X22, np.array([1, 0]), axis=0).tolist() == [
        [3, 4],
        [1, 2],
    ]  # comment says [[[3 4],[1 2]],[[1 2],[3 4]]]
    elements = reference("onnx.GatherElements", X43, np.array([[0, 1], [1, 0]]), axis=1)
    assert elements.tolist() == [[0, 1], [11, 10]] != [[1, 2], [4, 3]]  # comment: [[1, 2], [4, 3]]
    nd = reference("onnx.GatherND", X43, np.array([[0, 0], [1, 1]]))
    assert nd.tolist() == [0, 11] != [1, 4]  # comment: [1, 4]


# -- Equivalence-class example and the code comments ---------------------------------------


def test_seed_equivalence_class_example_4x2x1x2_with_indices_1x3x2x2_gives_4x3x2x2() -> None:
    data = np.arange(16).reshape(4, 2, 1, 2)
    idx = np.array([0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1]).reshape(1, 3, 2, 2)
    out = gather_multiaxis(data, idx, [1])
    assert out.shape == (4, 3, 2, 2)
    want = np.array(
        [[[[data[a, idx[0, j, c, d], 0, d] for d in range(2)] for c in range(2)] for j in range(3)] for a in range(4)]
    )
    assert np.array_equal(out, want)


@pytest.mark.parametrize(
    ("in_shape", "idx_shape", "axes", "logical", "out_shape"),
    [((2, 3, 1), (1, 1, 4), (1,), (1, 1, 4), (2, 1, 4)), ((10, 9, 8), (1, 5, 12), (1, 2), (1, 5, 6), (10, 5, 6))],
)
def test_seed_code_comment_shape_examples(in_shape, idx_shape, axes, logical, out_shape) -> None:
    assert multiaxis_shapes(in_shape, idx_shape, axes) == (logical, out_shape)
    got = gather_multiaxis(np.zeros(in_shape), np.zeros(idx_shape, dtype=np.int64), list(axes))
    assert got.shape == out_shape


# -- Multiple axes blocks (GatherND) ---------------------------------------------------

ND_COMMENT = {  # the examples in the seed's gatherNdBlocks comment (= the ONNX GatherND doc's)
    "example1": ([[0, 1], [2, 3]], [[0, 0], [1, 1]], 0, [0, 3]),
    "example2": ([[0, 1], [2, 3]], [[1], [0]], 0, [[2, 3], [0, 1]]),
    "example3": (X222.tolist(), [[0, 1], [1, 0]], 0, [[2, 3], [4, 5]]),
    "example4": (X222.tolist(), [[[0, 1]], [[1, 0]]], 0, [[[2, 3]], [[4, 5]]]),
    "example5_batch_dims": (X222.tolist(), [[1], [0]], 1, [[2, 3], [4, 5]]),
}


@pytest.mark.parametrize("name", ND_COMMENT)
@pytest.mark.parametrize("op", ["onnx.GatherND-12", "onnx.GatherND-13", "tensorflow.gather_nd", "onnx.GatherND-11"])
def test_seed_and_onnx_doc_gathernd_examples(name: str, op: str) -> None:
    data, idx, b, want = ND_COMMENT[name]
    data, idx = np.array(data, dtype=np.int32), np.array(idx, dtype=np.int64)
    attrs = {"batch_dims": b} if b else {}
    if op == "onnx.GatherND-11" and b:
        with pytest.raises(TypeError, match="batch_dims"):
            reference(op, data, idx, **attrs)  # batch_dims came with opset 12
        return
    assert reference(op, data, idx, **attrs).tolist() == want


ND_PRINTED = {  # the seed's "Examples" section, with its printed intermediates
    "blocks_2x2_indices": (
        X222,
        [[0, 1], [1, 0]],
        0,
        [[2, 3], [4, 5]],
        Printed((2, 2, 2), (1, 2, 2), (1, 2, 2), (0, 1)),
    ),
    "indices_3x1": (
        X222,
        [[1], [0], [1]],
        0,
        [X222[1].tolist(), X222[0].tolist(), X222[1].tolist()],
        Printed((2, 2, 2), (3, 1, 1), (3, 2, 2), (0,)),
    ),
    "batch_dims_1": (X222, [[1], [0]], 1, [[2, 3], [4, 5]], Printed((2, 2, 2), (2, 1, 1), (2, 1, 2), (1,))),
    "indices_5x3": (
        X222,
        [[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
        0,
        [1, 2, 4, 6, 7],
        Printed((2, 2, 2), (5, 1, 3), (5, 1, 1), (0, 1, 2)),
    ),
}


@pytest.mark.parametrize("name", ND_PRINTED)
def test_seed_gathernd_examples_output_and_printed_intermediates_run(name: str) -> None:
    data, idx, b, want, printed = ND_PRINTED[name]
    idx = np.array(idx, dtype=np.int64)
    assert reference("onnx.GatherND", data, idx, batch_dims=b).tolist() == want
    assert run_printed(data, idx, printed, np.shape(want)).tolist() == want


@pytest.mark.parametrize("name", ["indices_3x1", "batch_dims_1", "indices_5x3"])
def test_seed_gathernd_printed_intermediates_equal_our_nd_plan(name: str) -> None:
    data, idx, b, _, printed = ND_PRINTED[name]
    assert_plan_is("onnx.GatherND", data, np.array(idx), printed, batch_dims=b)


def test_seed_gathernd_example1_prints_another_valid_layout_than_its_own_code() -> None:
    """The seed prints indices [1,2,1*2] / output [1,2,2]; its own
    gatherNdBlocks code (and our nd_plan) gives [2,1,2] / [2,1,2]. Both run to
    the right output."""
    data, idx, _, want, printed = ND_PRINTED["blocks_2x2_indices"]
    ours = plan("onnx.GatherND", data.shape, np.shape(idx))
    assert (ours.input_shape, ours.indices_shape, ours.output_shape, ours.axes) == (
        (2, 2, 2),
        (2, 1, 2),
        (2, 1, 2),
        (0, 1),
    )
    assert (printed.indices, printed.output) == ((1, 2, 2), (1, 2, 2)) != (ours.indices_shape, ours.output_shape)
    code_layout = Printed(ours.input_shape, ours.indices_shape, ours.output_shape, ours.axes)
    for layout in (printed, code_layout):
        assert run_printed(data, np.array(idx), layout, np.shape(want)).tolist() == want


def test_seed_gathernd_broadcasting_of_leading_input_dimensions() -> None:
    """batch_dims=1, input [1,3] [[0,1,2]], indices [[1],[2]] -> [1,2]: the
    seed's mapping broadcasts the size-1 batch dimension of the input. ONNX
    and TensorFlow require equal batch dimensions, so the catalog ops refuse it."""
    data, idx = np.array([[0, 1, 2]]), np.array([[1], [2]])
    p = nd_plan(data.shape, idx.shape, batch_dims=1)
    assert (p.input_shape, p.indices_shape, p.output_shape, p.axes, p.final_shape) == (
        (1, 3),
        (2, 1),
        (2, 1),
        (1,),
        (2,),
    )
    assert p.run(data, idx, "error").tolist() == [1, 2]
    for op in ("onnx.GatherND", "tensorflow.gather_nd"):
        with pytest.raises(ValueError, match="batch_dims"):
            reference(op, data, idx, batch_dims=1)


# -- ONNX Gather docs (000) ---------------------------------------------------------------

DOC_DATA0 = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], dtype=np.float32)
DOC_DATA1 = np.array([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]], dtype=np.float32)


@pytest.mark.parametrize("opset", [1, 11, 13])
def test_onnx_gather_doc_example_axis0(opset: int) -> None:
    got = reference("onnx.Gather", DOC_DATA0, np.array([[0, 1], [1, 2]]), opset=opset)
    assert got.tolist() == np.array([[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]], dtype=np.float32).tolist()


@pytest.mark.parametrize("opset", [1, 11, 13])
def test_onnx_gather_doc_example_axis1_has_shape_3x1x2(opset: int) -> None:
    """Doc error: Gather-11 (and Gather-1) print this output with shape
    [1,3,2]; Gather-13 prints [3,1,2], which is right: output = data[:1] ~
    indices.shape ~ data[2:] = [3] ~ [1,2]."""
    got = reference("onnx.Gather", DOC_DATA1, np.array([[0, 2]]), axis=1, opset=opset)
    assert got.shape == (3, 1, 2)
    assert got.tolist() == np.array([[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]], dtype=np.float32).tolist()
    printed_by_gather11 = np.array([[[1.0, 1.9], [2.3, 3.9], [4.5, 5.9]]], dtype=np.float32)
    assert printed_by_gather11.shape == (1, 3, 2) != got.shape  # same values, wrong shape


def test_onnx_gather_doc_negative_indices_example() -> None:
    got = reference("onnx.Gather", np.arange(10).astype(np.float32), np.array([0, -9, -10]), opset=13)
    assert got.tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(IndexError):  # Gather-1 has no negative indices
        reference("onnx.Gather", np.arange(10).astype(np.float32), np.array([0, -9, -10]), opset=1)
