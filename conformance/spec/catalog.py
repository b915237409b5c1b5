"""The op catalog: every framework's gather, stated once.

Each :class:`OpSpec` says, declaratively, for one framework-qualified op name
(and, for ONNX, one opset version): its attributes with their defaults and
domains, the index policy its documentation specifies (with the link), the
data and index dtypes it supports, its equivalence class and the function that
checks its shape preconditions and returns its reshape :class:`~conformance.spec.plans.Plan`.

>>> spec("onnx.Gather", opset=11).policy.name
'error'
>>> spec("onnx.Gather", opset=1).policy.name, sorted(spec("onnx.Gather", opset=1).unspecified)  # silent on negatives
('error-nonnegative', ['negative'])
>>> spec("numpy.take").policy_for({"mode": "clip"}).name
'clip'
>>> spec("numpy.take").index_reading.value, spec("jax.numpy.take").index_reading.value  # a uint64 index, as intp?
('intp', 'value')
>>> spec("torch.gather").bind({})
Traceback (most recent call last):
TypeError: torch.gather: attribute 'dim' is required (no default)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.core.blame import Operand, Rule
from conformance.core.case import OpKey
from conformance.core.vocabulary import AttrRole
from conformance.spec.errors import PreconditionTypeError, PreconditionValueError
from conformance.spec.multiaxis import Shape
from conformance.spec.plans import EqClass, Plan, flat_plan
from conformance.spec.policy import (
    CLIP,
    MODULO,
    NONNEGATIVE,
    ONNX,
    WRAP_THEN_CLAMP,
    WRAP_THEN_FILL,
    WRAP_THEN_ZERO,
    IndexPolicy,
    IndexReading,
    OutOfRange,
)
from conformance.spec.preconditions import (
    Attrs,
    EmptyTuple,
    NoneAxis,
    OtherDims,
    PlanFn,
    batched_gather,
    elements,
    gather_block,
    gather_nd,
    index_select,
    tf_gather,
)
from conformance.spec.stablehlo import SPEC as STABLEHLO_SPEC
from conformance.spec.tosa import INDEX_TYPES as TOSA_INDEX_TYPES
from conformance.spec.tosa import NO_EMPTY_DIMENSION as TOSA_NO_EMPTY_DIMENSION
from conformance.spec.tosa import SPEC as TOSA_SPEC


class _Required:
    """The default of an attribute the op requires: there is none."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""``Attr(..., default=REQUIRED)``: the caller must pass the attribute (torch's ``dim``)."""


@dataclass(frozen=True)
class Attr:
    """An attribute as the framework names it, its default (or :data:`REQUIRED`) and its domain."""

    name: str
    default: Any
    domain: str
    static: bool = False
    """A static argument of a compiled function (JAX's ``StaticScalar``): a hashable scalar, never an array (in every
    mode: the compiled function hashes it before it runs)."""
    only_when_filling: bool = False
    """Read only where the op's policy under the bound mode fills (:attr:`~conformance.spec.policy.OutOfRange.FILL`),
    ignored, whatever its value, under every other mode, so its domain is checked only there
    (:meth:`OpSpec.reads`). JAX's ``fill_value``: 'fill_value: The fill value to return for out-of-bounds slices when
    mode is 'fill'. Ignored otherwise.' (mode None is 'fill' there)."""

    @property
    def required(self) -> bool:
        """True if the op has no default: ``spec("torch.gather").attrs[0].required``."""
        return self.default is REQUIRED


@dataclass(frozen=True)
class OpSpec:
    """What one op must do. See the module docstring."""

    name: str
    eq_class: EqClass
    doc: str
    attrs: tuple[Attr, ...]
    plan: PlanFn
    policy: IndexPolicy
    data_dtypes: tuple[str, ...]
    index_dtypes: tuple[str, ...]
    policy_note: str = ""
    mode_attr: str | None = None
    mode_policies: Mapping[Any, IndexPolicy] = field(default_factory=dict)
    opset: int | None = None
    unspecified: frozenset[str] = frozenset()
    """Index regimes (:data:`~conformance.core.vocabulary.REGIMES`) where the docs are
    silent (``policy: unspecified``): whatever the framework does there is
    recorded as "spec silent", never judged a violation."""
    mask_dtypes: frozenset[str] = frozenset()
    """Index dtypes the op documents as boolean masks, not integer indices
    (torch indexing: 'byte or bool' tensors): accepting them is recorded in
    the dtype table, never held to integer semantics."""
    index_reading: IndexReading = IndexReading.VALUE
    """How the op reads an index's value, before its policy applies (:func:`~conformance.spec.policy.read_indices`):
    NumPy's ops read a uint64 index as intp, two's complement, as NumPy's indexing casts it
    (:attr:`~conformance.spec.policy.IndexReading.INTP`: ``2**64 - 1`` is ``-1``); elsewhere an index is its value."""

    @property
    def framework(self) -> str:
        """``"onnx"`` for ``"onnx.Gather"``."""
        return self.op_key.framework

    @property
    def op_key(self) -> OpKey:
        """The typed identity: framework, name, opset."""
        return replace(OpKey.parse(self.name), opset=self.opset)

    @property
    def key(self) -> str:
        """Unique key: the name, with ``-N`` for an ONNX opset (``onnx.Gather-13``)."""
        return str(self.op_key)

    def bind(self, attrs: Attrs) -> dict[str, Any]:
        """Attributes with defaults filled in; an unknown name, or a required
        one missing, is a TypeError.

        >>> spec("numpy.take").bind({"axis": 1})
        {'axis': 1, 'mode': 'raise'}
        """
        known = {a.name for a in self.attrs}
        unknown = sorted(set(attrs) - known)
        if unknown:
            raise TypeError(f"{self.key} got unknown attribute(s) {unknown}; it takes {sorted(known) or 'none'}")
        missing = [a.name for a in self.attrs if a.required and a.name not in attrs]
        if missing:
            raise TypeError(f"{self.key}: attribute {missing[0]!r} is required (no default)")
        return {a.name: attrs.get(a.name, a.default) for a in self.attrs}

    def check_attrs(self, bound: Attrs) -> None:
        """The attribute domains the docs state beyond integers (those the shape rules check):
        ``fill_value`` a scalar, never a string, where the op reads it (:meth:`reads`); ``broadcast`` a bool; a
        static attribute never an array. A TypeError naming the attribute.

        >>> spec("paddle.take_along_axis").check_attrs({"axis": 0, "broadcast": 1})
        Traceback (most recent call last):
        conformance.spec.errors.PreconditionTypeError: paddle.take_along_axis: broadcast must be a bool, got int 1
        >>> take = spec("jax.numpy.take")
        >>> take.check_attrs(take.bind({"mode": "wrap", "fill_value": "1"}))  # ignored: mode 'wrap' does not fill
        >>> take.check_attrs(take.bind({"mode": "fill", "fill_value": "1"}))
        Traceback (most recent call last):
        conformance.spec.errors.PreconditionTypeError: jax.numpy.take: fill_value must be a scalar (...), got '1'
        """
        for a in self.attrs:
            value = bound.get(a.name)
            if a.static and isinstance(value, np.ndarray):
                message = f"{self.key}: {a.name} must be a static scalar (a Python or NumPy scalar), got an array"
                raise PreconditionTypeError(message, Rule.ATTRIBUTE_TYPE, a.name)
            if not self.reads(a, bound):
                continue
            if a.name == AttrRole.FILL_VALUE and isinstance(value, (str, bytes, np.str_, np.bytes_)):
                message = f"{self.key}: fill_value must be a scalar (a number or None), got {value!r}"
                raise PreconditionTypeError(message, Rule.ATTRIBUTE_TYPE, a.name)
            if a.name == AttrRole.BROADCAST and not isinstance(value, (bool, np.bool_)):
                message = f"{self.key}: broadcast must be a bool, got {type(value).__name__} {value!r}"
                raise PreconditionTypeError(message, Rule.ATTRIBUTE_TYPE, a.name)

    def reads(self, attr: Attr, bound: Attrs) -> bool:
        """Whether the op reads ``attr`` under the ``bound`` attributes: always, unless it is read
        :attr:`~Attr.only_when_filling` and the policy of the bound mode does not fill. A mode outside the
        op's domain reads it (that mode's own error is :meth:`policy_for`'s).

        >>> take = spec("jax.numpy.take")
        >>> [take.reads(take.attrs[2], take.bind({"mode": m})) for m in (None, "fill", "clip", "wrap")]
        [True, True, False, False]
        """
        if not attr.only_when_filling or self.mode_attr is None:
            return True
        policy = self.mode_policy(bound.get(self.mode_attr))
        return policy is None or policy.out_of_range is OutOfRange.FILL

    def mode_policy(self, mode: Any) -> IndexPolicy | None:
        """The policy a value of the mode attribute names, or None where it names none (an unhashable value, a bool,
        a word the op does not list).

        >>> take = spec("numpy.take")
        >>> take.mode_policy("clip").name, take.mode_policy(True), take.mode_policy(["clip"])
        ('clip', None, None)
        """
        if not isinstance(mode, Hashable) or isinstance(mode, bool):
            return None
        return self.mode_policies.get(mode)

    def policy_for(self, attrs: Attrs) -> IndexPolicy:
        """The documented policy under these attributes (e.g. ``mode``)."""
        if self.mode_attr is None:
            return self.policy
        bound = self.bind(attrs)
        mode = bound[self.mode_attr]
        policy = self.mode_policy(mode)
        if policy is None:
            raise PreconditionValueError(
                f"{self.key}: {self.mode_attr} must be one of {sorted(map(str, self.mode_policies))}, got {mode!r}",
                Rule.ATTRIBUTE_VALUE,
                self.mode_attr,
            )
        if policy.out_of_range is OutOfRange.FILL and bound.get("fill_value") is not None:
            policy = policy.with_fill(bound["fill_value"])
        return policy


# -- the catalog ---------------------------------------------------------------

ONNX_DTYPES = tuple(d for d in DATA_DTYPES if d not in ("bfloat16", "object"))
ONNX13_DTYPES = tuple(d for d in DATA_DTYPES if d != "object")
TORCH_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
TF_DTYPES = tuple(d for d in DATA_DTYPES if d != "object")
JAX_DTYPES = tuple(d for d in DATA_DTYPES if d not in ("str", "object"))
WEBNN_DTYPES = ("float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8")
ONNX_IDX = ("int32", "int64")
WEBNN_IDX = ("int32", "uint32", "int64")
TF_IDX = ("int16", "int32", "int64")

AXIS0 = Attr("axis", 0, "int in [-r, r-1]")
ONNX_DOC = "https://onnx.ai/onnx/operators/onnx__{}.html"
JAX_MODES = {None: WRAP_THEN_FILL, "fill": WRAP_THEN_FILL, "clip": CLIP, "wrap": MODULO}
"""jnp.take implements numpy.take: "clip" clamps the raw value as NumPy's does (-1 -> 0)."""
JAX_ALONG_MODES = {None: WRAP_THEN_FILL, "fill": WRAP_THEN_FILL, "clip": WRAP_THEN_CLAMP, "promise_in_bounds": CLIP}
"""jnp.take_along_axis wraps negatives once in "fill" and "clip", then fills or clamps (-1 -> size - 1); in
"promise_in_bounds" it does not wrap them (its wrap_negative_indices sentence) and lax.gather's out-of-bounds
behaviour there is 'implementation-defined', which the sharp-bits page resolves for 'gather-like primitives': the
raw index clamps (-1 -> 0), as lax.gather's own entry holds."""
JAX_ATTRS = (
    Attr("mode", None, '"fill" (None), "clip" or "wrap"'),
    Attr(
        "fill_value",
        None,
        "StaticScalar; None = NaN / int min / uint max / True; read only in mode 'fill' (None)",
        static=True,
        only_when_filling=True,
    ),
)
JAX_NOTE = (
    "jnp.take: 'JAX implementation of numpy.take ... JAX's behavior differs from NumPy in the case of out-of-bound "
    "indices'; mode: 'The default mode=\"fill\" returns invalid values (e.g. NaN) for out-of bounds indices' (after "
    "'normalization of negative indices': they wrap once); as numpy.take, any index into an empty axis raises "
    "IndexError in every mode (the docstring is silent; the code says 'Cannot do a non-empty jnp.take() from an empty "
    "axis'); \"clip\" clamps the raw value as numpy.take does ('this disables indexing with negative numbers': -1 -> "
    "0), though the docstring's 'equivalent indexing syntax' x.at[indices].get(mode='clip') wraps -1 to size - 1; "
    '"wrap" (not in the docstring) is numpy.take\'s modulo'
)
JAX_ALONG_NOTE = (
    "jnp.take_along_axis: 'The default mode=\"fill\" returns invalid values (e.g. NaN) for out-of bounds indices'; "
    "wrap_negative_indices: 'If unset, defaults to a legacy behavior "
    '(wrapping unless the indexing mode is \'promise_in_bounds\')\': in "fill" and "clip" a negative index wraps '
    "once, then fills or clamps (-1 -> size - 1); mode 'promise_in_bounds' (a GatherScatterMode, which its mode "
    "accepts) neither wraps nor checks: lax.gather calls out-of-bounds indices there 'implementation-defined', and "
    "the sharp-bits page says gather-like primitives clamp the index (-1 -> 0)"
)

_gather1 = OpSpec(
    "onnx.Gather",
    EqClass.BLOCK,
    ONNX_DOC.format("Gather"),
    (AXIS0,),
    gather_block("onnx.Gather"),
    NONNEGATIVE,
    ONNX_DTYPES,
    ONNX_IDX,
    "Gather-1: 'All index values are expected to be within bounds' (negatives are not mentioned; negative indices "
    "came with opset 11)",
    opset=1,
    unspecified=frozenset({"negative"}),
)
_gather11 = replace(
    _gather1,
    policy=ONNX,
    opset=11,
    unspecified=frozenset(),
    policy_note="Gather-11: 'within bounds [-s, s-1] ... It is an error if any of the index values are out of bounds'",
)
_ge11 = OpSpec(
    "onnx.GatherElements",
    EqClass.ELEMENT,
    ONNX_DOC.format("GatherElements"),
    (AXIS0,),
    elements("onnx.GatherElements", "axis", OtherDims.WINDOW, empty_index_unchecked=True),
    ONNX,
    ONNX_DTYPES,
    ONNX_IDX,
    "'within bounds [-s, s-1] ... an error if any of the index values are out of bounds'; output shape = indices "
    "shape, so indices may be smaller than data in the other dimensions; never larger, as the equations "
    "out[i][j] = input[index[i][j]][j] read input[.][j] and 'It is similar to Torch's gather operation', which states "
    "the rule (onnxruntime enforces it even for empty indices)",
    opset=11,
)
_gnd11 = OpSpec(
    "onnx.GatherND",
    EqClass.ND,
    ONNX_DOC.format("GatherND"),
    (),
    gather_nd("onnx.GatherND"),
    ONNX,
    ONNX_DTYPES,
    ("int64",),
    "'-data_shape[i] <= indices[...,i] <= data_shape[i] - 1 ... an error if any of the index values are out of bounds'",
    opset=11,
)
_gnd12 = replace(_gnd11, attrs=(Attr("batch_dims", 0, "int in [0, min(q, r) - 1]"),), opset=12)

TNP_DOC = "https://www.tensorflow.org/api_docs/python/tf/experimental/numpy/{}"
TNP_TAKE_MODES = {"clip": CLIP, "wrap": MODULO, "raise": ONNX}
"""tf.experimental.numpy.take: 'default mode is clip'; the modes are numpy.take's ("clip" clamps the raw value: -1 ->
0)."""
TNP_TAKE_NOTE = (
    "'TensorFlow variant of NumPy's take ... out argument is not supported, and default mode is clip. See the NumPy "
    "documentation for numpy.take': numpy.take's modes ('raise' raises, 'wrap' wraps around, 'clip' clips to the "
    "range and so disables negative indices), clip by default; index dtypes as NumPy's (any integer). Not as "
    "documented: mode='raise' is refused for every input (ValueError \"The 'raise' mode to take is not supported\"), "
    "and only int32/int64 indices are accepted (InvalidArgumentError from the Shape op's out_type)"
)
TNP_ALONG_NOTE = (
    "'TensorFlow variant of NumPy's take_along_axis ... See the NumPy documentation for numpy.take_along_axis': fancy "
    "indexing, negatives wrap once, out of range raises (GatherV2's InvalidArgumentError); other dimensions "
    "broadcast; axis has no default (the signature is (arr, indices, axis)), axis=None flattens (only with NumPy "
    "behaviour switched on). Not as documented: only int32/int64 indices are accepted"
)
TORCH_ALONG_NOTE = (
    "'Selects values from input at the 1-dimensional indices from indices along the given dim. ... This function is "
    "similar to NumPy's take_along_axis. See also torch.gather()': the docs defer to numpy.take_along_axis, so its "
    "rule is followed: negatives wrap once, out of range raises; other dimensions broadcast; 'If dim is None, the "
    "input array is treated as if it has been flattened to 1d' (the same rule holds with dim=None)"
)
TORCH_INDEXING_NOTE = (
    "x[i0, i1, ...] with integer tensors (as data[tuple(torch.moveaxis(indices, -1, 0))]): 'The contents of a tensor "
    "can be accessed and modified using Python's indexing and slicing notation'; the docs state no more, and torch "
    "follows NumPy's integer-array indexing: negatives wrap once, out of range raises IndexError; index tensors 'must "
    "be long, int, byte or bool' and byte/bool are masks, so int32 and int64; an index tuple of length 0 is data[()], "
    "data itself"
)
JAX_INDEXING_NOTE = (
    "x[i0, i1, ...] in JAX (as data[tuple(jnp.moveaxis(indices, -1, 0))]): NumPy's indexing, negatives wrap once; "
    "then, per 'Out-of-bounds indexing', 'when the operation is an array index retrieval (e.g. NumPy indexing or "
    "gather-like primitives) the index is clamped to the bounds of the array since something must be returned'; an "
    "index tuple of length 0 is data[()], data itself"
)
LAX_GATHER_NOTE = (
    "lax.gather with the GatherDimensionNumbers of x[i0, ..., ik-1] (offset_dims the trailing data dims, "
    "collapsed_slice_dims = start_index_map = (0..k-1), slice_sizes (1,)*k + data.shape[k:]) in its default "
    "mode=None: the docstring names 'clip', 'fill'/'drop' and 'promise_in_bounds' ('implementation-defined') but not "
    "what None means (the code maps it to PROMISE_IN_BOUNDS, while GatherScatterMode.from_any(None) is FILL_OR_DROP); "
    "the sharp-bits page says 'gather-like primitives' clamp the index, and lax.gather does no NumPy normalisation, "
    "so the raw value clamps (-1 -> 0). indices.shape[-1] == 0 gathers whole slices, broadcast over the index "
    "dimensions (no data[()] special case)"
)

# -- MLX, PaddlePaddle, array API: their constants -----------------------------

OOB = frozenset({"oob-above", "oob-below", "extreme"})
"""The regimes of indices outside ``[-size, size)``: where a spec leaves out-of-bounds behaviour unspecified."""
MLX_DOC = "https://ml-explore.github.io/mlx/build/html/python/_autosummary/mlx.core.{}.html"
MLX_INDEXING_DOC = "https://ml-explore.github.io/mlx/build/html/usage/indexing.html"
MLX_DTYPES = tuple(d for d in DATA_DTYPES if d not in ("complex128", "str", "object"))
"""mlx.core's Data Types page: bool_, uint8-64, int8-64, float16, float32, float64 (CPU), bfloat16, complex64."""
MLX_INDEXING = (
    "'For the most part, indexing an MLX array works the same as indexing a NumPy numpy.ndarray' ('arr[-2]  # "
    "negative indexing works'), so negatives wrap once; under 'Differences from NumPy': 'Indexing does not perform "
    "bounds checking. Indexing out of bounds is undefined behavior.' ('exceptions cannot propagate from the GPU'): "
    "every index outside [-size, size) is unspecified"
)
MLX_TAKE_NOTE = (
    "mx.take: 'The elements are taken from indices along the specified axis. If the axis is not specified the array "
    "is treated as a flattened 1-D array prior to performing the take. As an example, if the axis=1 this is "
    "equivalent to a[:, indices, ...]'; indices: 'Integer index or input array with integral type'. The page says "
    "nothing of bad indices; through that indexing equivalence: " + MLX_INDEXING
)
MLX_ALONG_NOTE = (
    "mx.take_along_axis: 'Indices array. These should be broadcastable with the input array excluding the axis "
    "dimension'; axis: 'If axis == None the array is flattened to 1D prior to the indexing operation' (axis defaults "
    "to None). The page says nothing of bad indices; as indexing (the Indexing Arrays page): " + MLX_INDEXING
)
MLX_ADVANCED_NOTE = (
    "x[i0, i1, ...] with integer arrays (as data[tuple(mx.moveaxis(indices, -1, 0))]): 'Mixing and matching integers, "
    "slice, ..., and array indices works just as in NumPy'; " + MLX_INDEXING + "; an index tuple of length 0 is "
    "data[()], data itself"
)
PADDLE_DOC = "https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/{}_en.html"
PADDLE_IDX = ("int32", "int64")
PADDLE_SILENT = (
    "The page says nothing of negative indices (unspecified) nor of indices out of range; out of range is held to an "
    "error, as everywhere in this catalog where the docs say nothing (an index must name an element of the axis)"
)
PADDLE_GATHER_NOTE = (
    "paddle.gather(x, index, axis): 'Output is obtained by gathering entries of axis of x indexed by index and "
    "concatenate them together'; x: 'Supported data type is int32, int64, float32, float64, complex64, complex128 and "
    "uint8 (only for CPU), float16 (only for GPU)'; index: 'The index input tensor with rank=0 or rank=1. Data type "
    "is int32 or int64'; axis: 'The default value is None, if None, the axis is 0'; 'If the index is a 0-D tensor, "
    "the output will reduce the dimension where the axis pointing'. " + PADDLE_SILENT
)
PADDLE_GATHER_ND_NOTE = (
    "paddle.gather_nd(x, index): 'output[(i_0, ..., i_{K-2})] = input[index[(i_0, ..., i_{K-2})]]', 'the output "
    "tensor has shape index.shape[:-1] + input.shape[index.shape[-1]:]' (so index.shape[-1] == 0 gathers whole "
    "slices); x: 'bool, float16, float32, float64, int32, int64'; index: 'The index input with rank > 1, "
    "index.shape[-1] <= input.rank. Its dtype should be int32, int64'. " + PADDLE_SILENT
)
PADDLE_ALONG_NOTE = (
    "paddle.take_along_axis(arr, indices, axis, broadcast=True): 'Take values from the input array by given indices "
    "matrix along the designated axis'; arr: 'bfloat16, float16, float32, float64, int32, int64, uint8'; indices: "
    "'This must match the dimension of arr, and need to broadcast against arr. Supported data type are int32 and "
    "int64'; broadcast: 'whether the indices broadcast' (False: the page states no rule; indices no larger than arr "
    "outside axis is held, as torch.gather's). " + PADDLE_SILENT
)
PADDLE_INDEX_SELECT_NOTE = (
    "paddle.index_select(x, index, axis=0): 'indexes the input tensor along dimension axis using the entries in "
    "index'; x: 'float16, float32, float64, int32, int64, complex64 and complex128'; index: 'The 1-D Tensor "
    "containing the indices to index. The data type of index must be int32 or int64'. " + PADDLE_SILENT
)
PADDLE_TAKE_NOTE = (
    "paddle.take(x, index, mode='raise'): 'The input tensor is treated as if it were viewed as a 1-D tensor. The "
    "result takes the same shape as the index'; x: 'int32, int64, float32, float64'; index: 'int32, int64'; mode: "
    "\"'raise': raise an error (default); 'wrap': wrap around; 'clip': clip to the range. 'clip' mode means that all "
    "indices that are too large are replaced by the index that addresses the last element. Note that this disables "
    "indexing with negative numbers\"; the page's example takes idx_neg = arange(-2, 4) in 'raise' mode as [10, 11, "
    "0, ...]: in-range negatives wrap once"
)
PADDLE_MODES = {"raise": ONNX, "wrap": MODULO, "clip": CLIP}
ARRAY_API_DOC = "https://data-apis.org/array-api/latest/API_specification/generated/array_api.{}.html"
ARRAY_API_DTYPES = tuple(d for d in DATA_DTYPES if d not in ("float16", "bfloat16", "str", "object"))
"""The standard's data types: bool, int8-64, uint8-64, float32, float64, complex64, complex128."""
ARRAY_API_OOB = (
    "Notes: 'This specification does not require bounds checking. The behavior for out-of-bounds indices is left "
    "unspecified.' (every index outside [-size, size) is unspecified)"
)
ARRAY_API_TAKE_NOTE = (
    "take(x, indices, /, *, axis=None): x 'Should have one or more dimensions (axes)'; indices: 'The array must be "
    "one-dimensional and have an integer data type. If an index is negative, the function must determine the element "
    "to select along a specified axis (dimension) by counting from the last element (where -1 refers to the last "
    "element)'; axis: 'If x is a one-dimensional array, providing an axis is optional; however, if x has more than "
    "one dimension, providing an axis is required'. " + ARRAY_API_OOB
)
ARRAY_API_ALONG_NOTE = (
    "take_along_axis(x, indices, /, *, axis=-1): x 'Must be compatible with indices, except for the axis (dimension) "
    "specified by axis (see Broadcasting)'; indices: 'Must have the same rank (i.e., number of dimensions) as x. If "
    "an index is negative, the function must determine the element to select along a specified axis (dimension) by "
    "counting from the last element (where -1 refers to the last element)'. " + ARRAY_API_OOB
)


# -- OpenVINO's opset: its constants -------------------------------------------

OPENVINO_DOC = "https://docs.openvino.ai/{}/openvino_docs_ops_movement_{}.html"
OPENVINO_DTYPES = tuple(d for d in DATA_DTYPES if d not in ("complex64", "complex128", "str", "object"))
"""The element types of OpenVINO's opset ('T: any supported type'): boolean, integers, f16, bf16, f32, f64; no complex,
no string."""
OPENVINO_IDX = ("int32", "int64")
"""'T_IND: int32 or int64' in each op's Types section."""
OPENVINO_GATHER_NOTE = (
    "Gather-8: 'Allowed values for indices are in the range [-data.shape[axis], data.shape[axis] - 1]. If index value "
    "exceed allowed range output data for corresponding index will be filled with zeros (Example 7)'; negatives wrap "
    "once, the rest reads 0; axis is its third input (required); batch_dims: 'If batch_dims is less than zero, "
    "normalized value is used batch_dims = indices.rank + batch_dims' and batch_dims <= axis; the semantics are "
    "'identical to TensorFlow* Gather'"
)
OPENVINO_ELEMENTS_NOTE = (
    "GatherElements-6: 'The indices tensor has the same shape as the data tensor except for the axis dimension'; "
    "indices: 'All index values are expected to be within bounds [0, s-1], where s is size along axis dimension of "
    "the data tensor' (negatives are not mentioned: unspecified; out of range is held to an error, as where any doc "
    "says only what is expected); axis: 'Negative value means counting dimensions from the back', required"
)
OPENVINO_ND_NOTE = (
    "GatherND-8: indices: 'It requires all indices from this tensor to be in the range [0, s-1] where s is the "
    "corresponding dimension to which this index is applied' (negatives are not mentioned: unspecified; out of range "
    "is held to an error); 'indices.shape[-1] <= data.rank'; batch_dims in [0; min(data.rank, indices.rank)), the "
    "batch dimensions kept in the output (unlike GatherND-5, which flattened them)"
)


# -- the compilers' gathers: StableHLO and TOSA --------------------------------

STABLEHLO_DTYPES = tuple(d for d in DATA_DTYPES if d not in ("str", "object"))
"""The spec's element types NumPy holds: booleans, signed and unsigned integers, floats (bfloat16 included),
complex."""
STABLEHLO_NOTE = (
    "stablehlo.gather with the attributes of GatherND (spec.stablehlo.gather_nd_attributes): indices[..., k] address "
    "the operand's dims b..b+k-1 (collapsed, slice size 1), the first b = batch_dims dims of both are batching dims, "
    "the rest of the operand comes whole; 'full_start_index[d_operand] = clamp(start_index[d_start], 0, "
    "dim(operand, d_operand) - slice_sizes[d_operand])': every start index clamps (-1 -> 0, 7 -> dim - 1), unsigned "
    "ones read as unsigned; indices.shape[-1] == 0 gathers whole slices"
)
TOSA_DTYPES = ("int8", "int16", "int32", "float16", "bfloat16", "float32")
"""GATHER's in_out_t in the spec's type table, as NumPy holds them (no fp8)."""
TOSA_NOTE = (
    "tosa.gather (values [N,K,C], indices [N,W] -> [N,W,C], output[n,w,c] = values[n, indices[n,w], c]) as the "
    "flattened take: values = data.reshape(1, K, 1), indices.reshape(1, W), the output reshaped to indices.shape; "
    "an index outside [0, K) breaks 'REQUIRE(0 <= k && k < K)', whose result the spec calls unpredictable: no "
    "output is required of an implementation (negatives and out of range unspecified); index_t int32 (int64 in "
    "MLIR's TOSA dialect)"
)


def _paddle_along(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
    """paddle.take_along_axis: indices broadcast against arr, or (broadcast=False) no larger than it outside the
    axis."""
    rule = OtherDims.BROADCAST if attrs["broadcast"] else OtherDims.WINDOW
    return elements("paddle.take_along_axis", "axis", rule)(data, idx, attrs)


def _tosa_gather(data: Shape, idx: Shape, attrs: Attrs) -> Plan:
    """tosa.gather as the flattened take: values ``[1, K, 1]`` and indices ``[1, W]``, neither with an empty
    dimension (:data:`~conformance.spec.tosa.NO_EMPTY_DIMENSION`).

    >>> _tosa_gather((2, 0), (3,), {})
    Traceback (most recent call last):
    conformance.spec.errors.PreconditionValueError: tosa.gather: values [1, 0, 1] (the data flattened): tensor has ...
    """
    for name, shape in (("values", [1, math.prod(data), 1]), (Operand.INDICES, [1, math.prod(idx)])):
        if 0 in shape:
            raise PreconditionValueError(
                f"tosa.gather: {name} {shape} (the {'data' if name == 'values' else 'indices'} flattened): "
                f"{TOSA_NO_EMPTY_DIMENSION}",
                Rule.EMPTY_DIMENSION,
                Operand.DATA if name == "values" else Operand.INDICES,
            )
    return flat_plan(data, idx)


CATALOG: tuple[OpSpec, ...] = (
    _gather1,
    _gather11,
    replace(_gather11, data_dtypes=ONNX13_DTYPES, opset=13),
    _ge11,
    replace(_ge11, data_dtypes=ONNX13_DTYPES, opset=13),
    _gnd11,
    _gnd12,
    replace(_gnd12, data_dtypes=ONNX13_DTYPES, opset=13),
    OpSpec(
        "numpy.take",
        EqClass.BLOCK,
        "https://numpy.org/doc/stable/reference/generated/numpy.take.html",
        (Attr("axis", None, "None (flatten) or int in [-r, r-1]"), Attr("mode", "raise", '"raise", "wrap" or "clip"')),
        gather_block("numpy.take", none_flattens=True),
        ONNX,
        DATA_DTYPES,
        INDEX_DTYPES,
        "'raise' raises, 'wrap' wraps around, 'clip' clips to the range (and so disables negative indices); "
        "'out[jj] = a[(indices[jj],)]': an index is read as indexing reads it, so a uint64 index is cast to intp "
        "(2**64 - 1 is -1) before the mode applies",
        mode_attr="mode",
        mode_policies={"raise": ONNX, "wrap": MODULO, "clip": CLIP},
        index_reading=IndexReading.INTP,
    ),
    OpSpec(
        "numpy.take_along_axis",
        EqClass.ELEMENT,
        "https://numpy.org/doc/stable/reference/generated/numpy.take_along_axis.html",
        (Attr("axis", -1, "None (flatten, 1-D indices) or int in [-r, r-1]"),),
        elements("numpy.take_along_axis", "axis", OtherDims.BROADCAST, none_flattens=True),
        ONNX,
        DATA_DTYPES,
        INDEX_DTYPES,
        "fancy indexing ('out_1d[:] = a_1d[indices_1d]'): negatives wrap once, out of range raises IndexError; "
        "other dimensions broadcast; a uint64 index is cast to intp as indexing casts it (2**64 - 1 is -1)",
        index_reading=IndexReading.INTP,
    ),
    OpSpec(
        "numpy.advanced_indexing",
        EqClass.ND,
        "https://numpy.org/doc/stable/user/basics.indexing.html#integer-array-indexing",
        (),
        gather_nd("numpy.advanced_indexing", empty_tuple=EmptyTuple.DATA),
        ONNX,
        DATA_DTYPES,
        INDEX_DTYPES,
        "data[tuple(np.moveaxis(indices, -1, 0))], GatherND as NumPy users write it: negatives wrap once, out of "
        "range raises IndexError; an index tuple of length 0 (indices.shape[-1] == 0) is data[()], data itself: shape "
        "data.shape, not broadcast over the index dimensions; a uint64 index array is cast to intp (2**64 - 1 is -1)",
        index_reading=IndexReading.INTP,
    ),
    OpSpec(
        "torch.gather",
        EqClass.ELEMENT,
        "https://pytorch.org/docs/stable/generated/torch.gather.html",
        (Attr("dim", REQUIRED, "int in [-r, r-1] (required)"),),
        elements("torch.gather", "dim", OtherDims.WINDOW, zero_d=True, empty_index_unchecked=True),
        NONNEGATIVE,
        TORCH_DTYPES,
        ("int64",),
        "index must be a LongTensor; 'index.size(d) <= input.size(d) for all dimensions d != dim'; 'When index is "
        "empty, we always return an empty output with the same shape without further error checking'; negatives are "
        "not documented",
    ),
    OpSpec(
        "torch.take",
        EqClass.FLAT,
        "https://pytorch.org/docs/stable/generated/torch.take.html",
        (),
        lambda data, idx, attrs: flat_plan(data, idx),
        ONNX,
        TORCH_DTYPES,
        ("int64",),
        "'The input tensor is treated as if it were viewed as a 1-D tensor'; negative indices wrap (index in [-numel, "
        "numel))",
    ),
    OpSpec(
        "torch.take_along_dim",
        EqClass.ELEMENT,
        "https://pytorch.org/docs/stable/generated/torch.take_along_dim.html",
        (Attr("dim", None, "None (flatten both; 1-D result) or int in [-r, r-1]"),),
        elements("torch.take_along_dim", "dim", OtherDims.BROADCAST, flatten_both=True),
        ONNX,
        TORCH_DTYPES,
        ("int64",),
        TORCH_ALONG_NOTE,
    ),
    OpSpec(
        "torch.index_select",
        EqClass.BLOCK,
        "https://pytorch.org/docs/stable/generated/torch.index_select.html",
        (Attr("dim", REQUIRED, "int in [-r, r-1] (required)"),),
        index_select,
        NONNEGATIVE,
        TORCH_DTYPES,
        ("int32", "int64"),
        "index is a 1-D IntTensor or LongTensor; indices in [0, size)",
    ),
    OpSpec(
        "tensorflow.gather",
        EqClass.BLOCK,
        "https://www.tensorflow.org/api_docs/python/tf/gather",
        (
            Attr("axis", None, "None (= batch_dims) or int in [-r, r-1], >= batch_dims"),
            Attr("batch_dims", 0, "None (= 0) or int in [-q, q]"),
        ),
        tf_gather,
        NONNEGATIVE,
        TF_DTYPES,
        TF_IDX,
        "'On CPU, if an out of bound index is found, an error is returned. On GPU, if an out of bound index is found, "
        "a 0 is stored'",
    ),
    OpSpec(
        "tensorflow.gather_nd",
        EqClass.ND,
        "https://www.tensorflow.org/api_docs/python/tf/gather_nd",
        (Attr("batch_dims", 0, "int in [0, min(q, r) - 1]"),),
        gather_nd("tensorflow.gather_nd", empty_tuple=EmptyTuple.SLICES),
        NONNEGATIVE,
        TF_DTYPES,
        TF_IDX,
        "as tf.gather: an error on CPU, 0 on GPU; indices.shape[-1] == 0 gathers whole slices",
    ),
    OpSpec(
        "jax.numpy.take",
        EqClass.BLOCK,
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.take.html",
        (Attr("axis", None, "None (flatten) or int in [-r, r-1]"), *JAX_ATTRS),
        gather_block("jax.numpy.take", none_flattens=True, empty_axis_raises=True),
        WRAP_THEN_FILL,
        JAX_DTYPES,
        INDEX_DTYPES,
        JAX_NOTE,
        mode_attr="mode",
        mode_policies=JAX_MODES,
    ),
    OpSpec(
        "jax.numpy.take_along_axis",
        EqClass.ELEMENT,
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.take_along_axis.html",
        (
            Attr("axis", -1, "None (flatten, 1-D indices) or int in [-r, r-1]"),
            Attr("mode", None, '"fill" (None), "clip" or "promise_in_bounds" (a GatherScatterMode)'),
            JAX_ATTRS[1],
        ),
        elements("jax.numpy.take_along_axis", "axis", OtherDims.BROADCAST, none_flattens=True),
        WRAP_THEN_FILL,
        JAX_DTYPES,
        INDEX_DTYPES,
        JAX_ALONG_NOTE,
        mode_attr="mode",
        mode_policies=JAX_ALONG_MODES,
    ),
    OpSpec(
        "webnn.gather",
        EqClass.BLOCK,
        "https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather",
        (Attr("axis", 0, "unsigned int in [0, r-1]"),),
        gather_block("webnn.gather", negative_axis=False, error=TypeError),
        WRAP_THEN_CLAMP,
        WEBNN_DTYPES,
        WEBNN_IDX,
        "indices in [-N, N-1] (negatives wrap); out-of-bounds behaviour is implementation-defined and must not read "
        "out of bounds: we take clamping, as Chromium does",
    ),
    OpSpec(
        "webnn.gatherElements",
        EqClass.ELEMENT,
        "https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements",
        (Attr("axis", 0, "unsigned int in [0, r-1]"),),
        elements("webnn.gatherElements", "axis", OtherDims.EQUAL, negative_axis=False, error=TypeError),
        WRAP_THEN_CLAMP,
        WEBNN_DTYPES,
        WEBNN_IDX,
        "as webnn.gather; indices.shape equals input.shape except along axis",
    ),
    OpSpec(
        "webnn.gatherND",
        EqClass.ND,
        "https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd",
        (),
        gather_nd("webnn.gatherND", error=TypeError),
        WRAP_THEN_CLAMP,
        WEBNN_DTYPES,
        WEBNN_IDX,
        "as webnn.gather; no batch_dims; indices.shape[-1] in [1, rank(input)]",
    ),
    OpSpec(
        "tensorflow.experimental.numpy.take",
        EqClass.BLOCK,
        TNP_DOC.format("take"),
        (
            Attr("axis", None, "None (flatten) or int in [-r, r-1]"),
            Attr("mode", "clip", '"clip" (default), "wrap" or "raise"'),
        ),
        gather_block("tensorflow.experimental.numpy.take", none_flattens=True),
        CLIP,
        TF_DTYPES,
        INDEX_DTYPES,
        TNP_TAKE_NOTE,
        mode_attr="mode",
        mode_policies=TNP_TAKE_MODES,
    ),
    OpSpec(
        "tensorflow.experimental.numpy.take_along_axis",
        EqClass.ELEMENT,
        TNP_DOC.format("take_along_axis"),
        (Attr("axis", REQUIRED, "None (flatten, 1-D indices) or int in [-r, r-1] (required)"),),
        elements("tensorflow.experimental.numpy.take_along_axis", "axis", OtherDims.BROADCAST, none_flattens=True),
        ONNX,
        TF_DTYPES,
        INDEX_DTYPES,
        TNP_ALONG_NOTE,
    ),
    OpSpec(
        "torch.advanced_indexing",
        EqClass.ND,
        "https://docs.pytorch.org/docs/stable/tensors.html",
        (),
        gather_nd("torch.advanced_indexing", empty_tuple=EmptyTuple.DATA),
        ONNX,
        TORCH_DTYPES,
        ("int32", "int64"),
        TORCH_INDEXING_NOTE,
        mask_dtypes=frozenset({"uint8", "bool"}),
    ),
    OpSpec(
        "jax.advanced_indexing",
        EqClass.ND,
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#out-of-bounds-indexing",
        (),
        gather_nd("jax.advanced_indexing", empty_tuple=EmptyTuple.DATA),
        WRAP_THEN_CLAMP,
        JAX_DTYPES,
        INDEX_DTYPES,
        JAX_INDEXING_NOTE,
    ),
    OpSpec(
        "jax.lax.gather",
        EqClass.ND,
        "https://docs.jax.dev/en/latest/_autosummary/jax.lax.gather.html",
        (),
        gather_nd("jax.lax.gather", empty_tuple=EmptyTuple.SLICES),
        CLIP,
        JAX_DTYPES,
        INDEX_DTYPES,
        LAX_GATHER_NOTE,
    ),
    # -- StableHLO and TOSA: what compilers lower every framework's gather to
    OpSpec(
        "stablehlo.gather",
        EqClass.ND,
        STABLEHLO_SPEC,
        (Attr("batch_dims", 0, "int in [0, min(r, q - 1)] (operand_batching_dims = start_indices_batching_dims)"),),
        gather_nd("stablehlo.gather", empty_tuple=EmptyTuple.SLICES, operand_bounds=True),
        CLIP,
        STABLEHLO_DTYPES,
        INDEX_DTYPES,
        STABLEHLO_NOTE,
    ),
    OpSpec(
        "tosa.gather",
        EqClass.FLAT,
        TOSA_SPEC,
        (),
        _tosa_gather,
        NONNEGATIVE,
        TOSA_DTYPES,
        TOSA_INDEX_TYPES,
        TOSA_NOTE,
        unspecified=OOB | {"negative"},
    ),
    # -- MLX, PaddlePaddle, array API
    OpSpec(
        "mlx.take",
        EqClass.BLOCK,
        MLX_DOC.format("take"),
        (Attr("axis", None, "None (flatten) or int in [-r, r-1]"),),
        gather_block("mlx.take", none_flattens=True),
        ONNX,
        MLX_DTYPES,
        INDEX_DTYPES,
        MLX_TAKE_NOTE,
        unspecified=OOB,
    ),
    OpSpec(
        "mlx.take_along_axis",
        EqClass.ELEMENT,
        MLX_DOC.format("take_along_axis"),
        (Attr("axis", None, "None (flatten, 1-D indices) or int in [-r, r-1]"),),
        elements("mlx.take_along_axis", "axis", OtherDims.BROADCAST, none_flattens=True),
        ONNX,
        MLX_DTYPES,
        INDEX_DTYPES,
        MLX_ALONG_NOTE,
        unspecified=OOB,
    ),
    OpSpec(
        "mlx.advanced_indexing",
        EqClass.ND,
        MLX_INDEXING_DOC,
        (),
        gather_nd("mlx.advanced_indexing", empty_tuple=EmptyTuple.DATA),
        ONNX,
        MLX_DTYPES,
        INDEX_DTYPES,
        MLX_ADVANCED_NOTE,
        unspecified=OOB,
    ),
    OpSpec(
        "paddle.gather",
        EqClass.BLOCK,
        PADDLE_DOC.format("gather"),
        (Attr("axis", None, "None (= 0) or int in [-r, r-1]"),),
        gather_block("paddle.gather", none_is_0=NoneAxis.ALWAYS, index_ranks=(0, 1)),
        ONNX,
        ("int32", "int64", "float32", "float64", "complex64", "complex128", "uint8"),
        PADDLE_IDX,
        PADDLE_GATHER_NOTE,
        unspecified=frozenset({"negative"}),
    ),
    OpSpec(
        "paddle.gather_nd",
        EqClass.ND,
        PADDLE_DOC.format("gather_nd"),
        (),
        gather_nd("paddle.gather_nd", empty_tuple=EmptyTuple.SLICES, min_index_rank=2),
        ONNX,
        ("bool", "float16", "float32", "float64", "int32", "int64"),
        PADDLE_IDX,
        PADDLE_GATHER_ND_NOTE,
        unspecified=frozenset({"negative"}),
    ),
    OpSpec(
        "paddle.take_along_axis",
        EqClass.ELEMENT,
        PADDLE_DOC.format("take_along_axis"),
        (Attr("axis", REQUIRED, "int in [-r, r-1] (required)"), Attr("broadcast", True, "bool: the indices broadcast")),
        _paddle_along,
        ONNX,
        ("bfloat16", "float16", "float32", "float64", "int32", "int64", "uint8"),
        PADDLE_IDX,
        PADDLE_ALONG_NOTE,
        unspecified=frozenset({"negative"}),
    ),
    OpSpec(
        "paddle.index_select",
        EqClass.BLOCK,
        PADDLE_DOC.format("index_select"),
        (Attr("axis", 0, "int in [-r, r-1]"),),
        gather_block("paddle.index_select", index_ranks=(1,)),
        ONNX,
        ("float16", "float32", "float64", "int32", "int64", "complex64", "complex128"),
        PADDLE_IDX,
        PADDLE_INDEX_SELECT_NOTE,
        unspecified=frozenset({"negative"}),
    ),
    OpSpec(
        "paddle.take",
        EqClass.FLAT,
        PADDLE_DOC.format("take"),
        (Attr("mode", "raise", '"raise" (default), "wrap" or "clip"'),),
        lambda data, idx, attrs: flat_plan(data, idx),
        ONNX,
        ("int32", "int64", "float32", "float64"),
        PADDLE_IDX,
        PADDLE_TAKE_NOTE,
        mode_attr="mode",
        mode_policies=PADDLE_MODES,
    ),
    OpSpec(
        "array_api.take",
        EqClass.BLOCK,
        ARRAY_API_DOC.format("take"),
        (Attr("axis", None, "None (1-D x only) or int in [-r, r-1]"),),
        gather_block("array_api.take", none_is_0=NoneAxis.ONE_D, index_ranks=(1,)),
        ONNX,
        ARRAY_API_DTYPES,
        INDEX_DTYPES,
        ARRAY_API_TAKE_NOTE,
        unspecified=OOB,
    ),
    OpSpec(
        "array_api.take_along_axis",
        EqClass.ELEMENT,
        ARRAY_API_DOC.format("take_along_axis"),
        (Attr("axis", -1, "int in [-r, r-1]"),),
        elements("array_api.take_along_axis", "axis", OtherDims.BROADCAST),
        ONNX,
        ARRAY_API_DTYPES,
        INDEX_DTYPES,
        ARRAY_API_ALONG_NOTE,
        unspecified=OOB,
    ),
    # -- OpenVINO's opset
    OpSpec(
        "openvino.Gather",
        EqClass.BLOCK,
        OPENVINO_DOC.format("latest", "Gather_8"),
        (
            Attr("axis", REQUIRED, "int in [-r, r-1], >= batch_dims (required: Gather-8's third input)"),
            Attr("batch_dims", 0, "int in [-min(r, q), min(r, q)], <= axis"),
        ),
        batched_gather("openvino.Gather"),
        WRAP_THEN_ZERO,
        OPENVINO_DTYPES,
        OPENVINO_IDX,
        OPENVINO_GATHER_NOTE,
        opset=8,
    ),
    OpSpec(
        "openvino.GatherElements",
        EqClass.ELEMENT,
        OPENVINO_DOC.format("2022.3", "GatherElements_6"),
        (Attr("axis", REQUIRED, "int in [-r, r-1] (required)"),),
        elements("openvino.GatherElements", "axis", OtherDims.EQUAL),
        NONNEGATIVE,
        OPENVINO_DTYPES,
        OPENVINO_IDX,
        OPENVINO_ELEMENTS_NOTE,
        opset=6,
        unspecified=OOB | {"negative"},
    ),
    OpSpec(
        "openvino.GatherND",
        EqClass.ND,
        OPENVINO_DOC.format("2022.2", "GatherND_8"),
        (Attr("batch_dims", 0, "int in [0, min(q, r) - 1]"),),
        gather_nd("openvino.GatherND", empty_tuple=EmptyTuple.SLICES),
        NONNEGATIVE,
        OPENVINO_DTYPES,
        OPENVINO_IDX,
        OPENVINO_ND_NOTE,
        opset=8,
        unspecified=OOB | {"negative"},
    ),
)

TYPE_CONSTRAINED = frozenset({"onnx", "webnn", "stablehlo"})
"""Frameworks whose spec lists every allowed dtype normatively (type
constraints): another dtype makes an invalid model, so accepting it is a
finding. Elsewhere the listed dtypes are what the docs promise, and others
may be accepted or rejected freely (recorded in the dtype-support table)."""

SPEC_ONLY = ("webnn",)
"""Frameworks stated from their spec alone: no oracle runs them here (a consistency test holds every other op to an
oracle)."""

_BY_NAME: dict[str, list[OpSpec]] = {}
for _s in CATALOG:
    _BY_NAME.setdefault(_s.name, []).append(_s)


def ops() -> list[str]:
    """Every op name in the catalog (ONNX ops once; see :func:`specs`).

    >>> "torch.take_along_dim" in ops(), len(ops())
    (True, 37)
    """
    return list(_BY_NAME)


def specs() -> tuple[OpSpec, ...]:
    """Every catalog entry, one per op and ONNX opset version."""
    return CATALOG


def spec(op: str, opset: int | None = None) -> OpSpec:
    """The entry for ``op``; for ONNX, the newest version ``<= opset`` (default:
    the newest). ``"onnx.Gather-11"`` names a version directly.

    >>> spec("onnx.GatherND", opset=12).opset, spec("onnx.Gather-11").opset
    (12, 11)
    """
    key = OpKey.parse(op) if op not in _BY_NAME and "." in op else None
    if opset is None and key is not None and key.opset is not None:
        op, opset = key.family, key.opset
    if op not in _BY_NAME:
        raise ValueError(f"unknown op {op!r}; known ops: {', '.join(ops())}")
    versions = _BY_NAME[op]
    if opset is None:
        return versions[-1]
    fitting = [s for s in versions if s.opset is not None and s.opset <= opset]
    if not fitting:
        raise ValueError(f"{op} does not exist at opset {opset}; it has versions {[s.opset for s in versions]}")
    return fitting[-1]
