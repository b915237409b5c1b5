"""A case as the one MLIR module every executor of its op is given (issue 40, point 2): ``stablehlo.gather``
(:func:`module_text`: the operand and start indices as the function's arguments, the attributes written as the spec
names them), TOSA's ``tosa.gather`` (:func:`tosa_module_text`) and the tensor dialect's ``tensor.gather``
(:func:`tensor_module_text`).

>>> from conformance.spec.stablehlo import GatherAttributes
>>> g = GatherAttributes.of(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], index_vector_dim=1,
...                         slice_sizes=[1, 2])
>>> print(module_text(np.zeros((4, 2), np.int32), np.zeros((3, 1), np.int64), g))
func.func @main(%operand: tensor<4x2xi32>, %start_indices: tensor<3x1xi64>) -> tensor<3x2xi32> {
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [],
      start_indices_batching_dims = [], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>,
    indices_are_sorted = false
  } : (tensor<4x2xi32>, tensor<3x1xi64>) -> tensor<3x2xi32>
  func.return %result : tensor<3x2xi32>
}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from conformance.core.arrays import dtype_name
from conformance.spec.stablehlo import GatherAttributes, result_shape

ELEMENT_TYPES = {
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "ui8",
    "uint16": "ui16",
    "uint32": "ui32",
    "uint64": "ui64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "complex<f32>",
    "complex128": "complex<f64>",
}
"""NumPy's dtypes by name (:func:`~conformance.core.arrays.dtype_name`) as MLIR element types (StableHLO's signed
integers are signless ``iN``, its unsigned ones ``uiN``)."""


def tensor_type(shape: Sequence[int], dtype: np.dtype) -> str:
    """``tensor<...>`` of a shape and a NumPy dtype.

    >>> tensor_type((), np.dtype("uint8")), tensor_type((0, 3), np.dtype("float32"))
    ('tensor<ui8>', 'tensor<0x3xf32>')
    """
    name = dtype_name(dtype)
    if name not in ELEMENT_TYPES:
        raise ValueError(f"module_text: no StableHLO element type for {name}")
    return _tensor(shape, ELEMENT_TYPES[name])


def _tensor(shape: Sequence[int], element: str) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + element + ">"


def _list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def module_text(operand: np.ndarray, start_indices: np.ndarray, g: GatherAttributes) -> str:
    """The module ``@main(operand, start_indices)`` returning their ``stablehlo.gather`` under ``g`` (the result's
    type from the spec's (C22)); every attribute written, defaults included, so that the text says it all."""
    operand_type = tensor_type(operand.shape, operand.dtype)
    indices_type = tensor_type(start_indices.shape, start_indices.dtype)
    result_type = tensor_type(result_shape(operand.shape, start_indices.shape, g), operand.dtype)
    return "\n".join(
        (
            f"func.func @main(%operand: {operand_type}, %start_indices: {indices_type}) -> {result_type} {{",
            '  %result = "stablehlo.gather"(%operand, %start_indices) {',
            (
                f"    dimension_numbers = #stablehlo.gather<offset_dims = {_list(g.offset_dims)}, "
                f"collapsed_slice_dims = {_list(g.collapsed_slice_dims)}, "
                f"operand_batching_dims = {_list(g.operand_batching_dims)},"
            ),
            (
                f"      start_indices_batching_dims = {_list(g.start_indices_batching_dims)}, "
                f"start_index_map = {_list(g.start_index_map)}, index_vector_dim = {g.index_vector_dim}>,"
            ),
            "    slice_sizes = array<i64"
            + "".join(f"{',' if i else ':'} {z}" for i, z in enumerate(g.slice_sizes))
            + ">,",
            f"    indices_are_sorted = {'true' if g.indices_are_sorted else 'false'}",
            f"  }} : ({operand_type}, {indices_type}) -> {result_type}",
            f"  func.return %result : {result_type}",
            "}",
        )
    )


def tosa_module_text(values: np.ndarray, indices: np.ndarray) -> str:
    """The module ``@main(values, indices)`` returning their ``tosa.gather`` (values ``[N,K,C]``, indices ``[N,W]``).

    >>> print(tosa_module_text(np.zeros((1, 4, 2), np.float32), np.zeros((1, 3), np.int32)))
    func.func @main(%values: tensor<1x4x2xf32>, %indices: tensor<1x3xi32>) -> tensor<1x3x2xf32> {
      %output = tosa.gather %values, %indices : (tensor<1x4x2xf32>, tensor<1x3xi32>) -> tensor<1x3x2xf32>
      func.return %output : tensor<1x3x2xf32>
    }
    """
    values_type, indices_type = tensor_type(values.shape, values.dtype), tensor_type(indices.shape, indices.dtype)
    output_type = tensor_type((values.shape[0], indices.shape[1], values.shape[2]), values.dtype)
    return "\n".join(
        (
            f"func.func @main(%values: {values_type}, %indices: {indices_type}) -> {output_type} {{",
            f"  %output = tosa.gather %values, %indices : ({values_type}, {indices_type}) -> {output_type}",
            f"  func.return %output : {output_type}",
            "}",
        )
    )


def tensor_module_text(source: np.ndarray, indices_shape: tuple[int, ...], gather_dims: tuple[int, ...]) -> str:
    """The module ``@main(source, indices)`` returning their ``tensor.gather`` along ``gather_dims`` (indices of
    MLIR's ``index`` type, the gathered dims kept as size 1: the op's documented result shape).

    >>> print(tensor_module_text(np.zeros((4, 2), np.float32), (3, 1), (0,)))
    func.func @main(%source: tensor<4x2xf32>, %indices: tensor<3x1xindex>) -> tensor<3x1x2xf32> {
      %result = tensor.gather %source[%indices] gather_dims([0]) : (tensor<4x2xf32>, ...) -> tensor<3x1x2xf32>
      func.return %result : tensor<3x1x2xf32>
    }
    """
    source_type = tensor_type(source.shape, source.dtype)
    indices_type = _tensor(indices_shape, "index")
    kept = tuple(1 if d in gather_dims else n for d, n in enumerate(source.shape))
    result_type = tensor_type(indices_shape[:-1] + kept, source.dtype)
    signature = f"({source_type}, {indices_type}) -> {result_type}"
    return "\n".join(
        (
            f"func.func @main(%source: {source_type}, %indices: {indices_type}) -> {result_type} {{",
            f"  %result = tensor.gather %source[%indices] gather_dims({_list(gather_dims)}) : {signature}",
            f"  func.return %result : {result_type}",
            "}",
        )
    )
