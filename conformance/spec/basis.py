"""The basis of every catalog decision: the sentence of the op's own docs it rests on.

For each catalog op (:func:`~conformance.spec.catalog.ops`, ONNX ops once for
their newest opset), each :class:`~conformance.core.vocabulary.Decision` (the
index policy, the accepted dtypes, the shape rules, and each attribute's
domain) has a :class:`Basis` (a sentence quoted from the docs, with the page's
link) or an explicit :class:`Silent` (the docs say nothing; the reason says what
the catalog holds instead). Where the docs defer to another op ("similar to
NumPy's take_along_axis"), the quote is the deferring sentence and the rule is
the one deferred to.

Quotes are copied from the pages (as their docstrings render them, without
markup); ``tests/test_basis.py`` checks every op has a ground for every decision
and, where the framework is installed, that each quote is in its docstring.

>>> ground("torch.take_along_dim", Decision.DTYPES).quote
'indices (LongTensor): the indices into input. Must have long dtype.'
>>> isinstance(ground("torch.gather", Decision.POLICY), Silent)
True
>>> ground("numpy.take", Decision.ATTRIBUTE, "mode").url
'https://numpy.org/doc/stable/reference/generated/numpy.take.html'
>>> departed("numpy.take", ConditionKind.ATTRIBUTE, "mode='raise'").quote[:49]
'Specifies how out-of-bounds indices will behave. '
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.core.blame import Rule, blames_attribute
from conformance.core.vocabulary import BasisStatus, ConditionKind, Decision, Regime
from conformance.spec.catalog import MLX_INDEXING_DOC, ONNX_DOC, spec
from conformance.spec.policy import OutOfRange
from conformance.spec.stablehlo import CONSTRAINTS, INTEGER_INDICES
from conformance.spec.tosa import REQUIRE_MEANS


@dataclass(frozen=True)
class Basis:
    """A sentence of the docs, quoted, and the page it is on; ``status`` says what the sentence makes of the
    decision: a rule (documented), or an outcome left undefined or to the implementation."""

    quote: str
    url: str
    status: BasisStatus = BasisStatus.DOCUMENTED

    def words(self) -> str:
        """``“quote” (url)``, with the status where the sentence states no rule; a requirement the docs state
        without saying what breaking it does (status silent) says so.

        >>> Basis("Indexing out of bounds is undefined behavior.", "u", BasisStatus.UNDEFINED).words()
        'undefined by the docs: “Indexing out of bounds is undefined behavior.” (u)'
        >>> _requires("index (Tensor): The 1-D Tensor containing the indices to index.", "u").words()
        'required by the docs, which do not say that breaking it is an error: “index (Tensor): The 1-D Tensor ...” (u)'
        """
        said = f"“{self.quote}” ({self.url})"
        if self.status is BasisStatus.SILENT:
            return f"required by the docs, which do not say that breaking it is an error: {said}"
        return said if self.status is BasisStatus.DOCUMENTED else f"{self.status.value} by the docs: {said}"

    def to_json(self) -> dict[str, str]:
        """``{status, quote, url}``, as ``findings.json`` carries a finding's basis."""
        return {"status": self.status.value, "quote": self.quote, "url": self.url}


@dataclass(frozen=True)
class Silent:
    """The docs say nothing on this decision; ``reason`` says what the catalog holds instead."""

    reason: str
    status: BasisStatus = BasisStatus.SILENT

    def words(self) -> str:
        """``docs silent: reason``."""
        return f"docs silent: {self.reason}"

    def to_json(self) -> dict[str, str]:
        """``{status, quote, url}`` with no quote and no page, and the reason.

        >>> Silent("nothing of negatives").to_json()
        {'status': 'silent', 'quote': '', 'url': '', 'reason': 'nothing of negatives'}
        """
        return {"status": self.status.value, "quote": "", "url": "", "reason": self.reason}


Ground = Basis | Silent


@dataclass(frozen=True)
class OpBasis:
    """The grounds of one op's decisions; ``attrs`` by the attribute's own name; ``unspecified`` the ground of the
    index regimes the catalog holds unspecified (``OpSpec.unspecified``: MLX's and the array API's out-of-bounds
    indices, undefined; Paddle's negatives, silent)."""

    policy: Ground
    dtypes: Ground
    shapes: Ground
    attrs: Mapping[str, Ground] = field(default_factory=dict)
    unspecified: Ground | None = None
    zero_d: Ground | None = None
    """The ground of a call on 0-d data where the docs leave it open (the array API's take since 2024.12)."""
    index_dtypes: Ground | None = None
    """The sentence listing the index dtypes, where it is not ``dtypes``' (Paddle's, in each ``index`` argument)."""
    points_to: str | None = None
    """The op whose page this op's page points to for the rest ("See the NumPy documentation for numpy.take"):
    sentences quoted from that page are this op's."""
    rules: Mapping[Rule, Ground] = field(default_factory=dict)
    """The sentence of each precondition the reference checks (:class:`~conformance.core.blame.Rule`) where it is
    not the shape rule's (``shapes``) nor, for a rule that blames an attribute, that attribute's: ONNX GatherND's
    five numbered rules, torch.gather's rank rule."""


def _q(url: str) -> Callable[[str], Basis]:
    """Quotes from one page: ``_q(url)(quote) == Basis(quote, url)``."""
    return functools.partial(Basis, url=url)


def _undefined(quote: str, url: str) -> Basis:
    """A sentence that leaves an outcome undefined (or unspecified, or unchecked)."""
    return Basis(quote, url, BasisStatus.UNDEFINED)


def _requires(quote: str, url: str) -> Basis:
    """A sentence that states what a valid call is ("must be equal", "are to be honored", an argument's type or
    rank in its list) without saying that a call breaking it is an error: what the framework does then is its own
    (status silent, with the sentence quoted). Where the same page says "It is an error if ..." of another rule
    (ONNX), leaving it out of this one is the page's choice."""
    return Basis(quote, url, BasisStatus.SILENT)


def _implementation_defined(quote: str, url: str) -> Basis:
    """A sentence that leaves an outcome to the implementation."""
    return Basis(quote, url, BasisStatus.IMPLEMENTATION_DEFINED)


_NO_DTYPES = "the page lists no dtypes: the catalog holds every dtype the framework has to be documented"
_NO_OOB = (
    "the page says nothing of bad indices: an index outside the axis is held to an error, as wherever docs say nothing"
)

# -- ONNX -----------------------------------------------------------------------
_og = _q(ONNX_DOC.format("Gather"))
_oge = _q(ONNX_DOC.format("GatherElements"))
_ognd = _q(ONNX_DOC.format("GatherND"))
_ovg = _q(spec("openvino.Gather").doc)
_ovge = _q(spec("openvino.GatherElements").doc)
_ovnd = _q(spec("openvino.GatherND").doc)
ONNX_BOUNDS = (
    "All index values are expected to be within bounds [-s, s-1] along axis of size s. "
    "It is an error if any of the index values are out of bounds."
)
ONNX_T = "Constrain input and output types to any tensor type."
ONNX_RANK = "Tensor of rank r >= 1."
ONNX_ND_RANKS = "1) r >= 1 and q >= 1 are to be honored."
ONNX_AXIS = (
    "Which axis to gather on. Negative value means counting dimensions from the back. Accepted range is [-r, "
    "r-1] where r = rank(data)."
)

# -- NumPy ----------------------------------------------------------------------
_nt = _q(spec("numpy.take").doc)
_nta = _q(spec("numpy.take_along_axis").doc)
_nai = _q(spec("numpy.advanced_indexing").doc)
# -- torch ----------------------------------------------------------------------
_tg = _q(spec("torch.gather").doc)
_tt = _q(spec("torch.take").doc)
_tad = _q(spec("torch.take_along_dim").doc)
_tis = _q(spec("torch.index_select").doc)
_tai = _q(spec("torch.advanced_indexing").doc)
# -- TensorFlow -----------------------------------------------------------------
_tfg = _q(spec("tensorflow.gather").doc)
_tfnd = _q(spec("tensorflow.gather_nd").doc)
_tnt = _q(spec("tensorflow.experimental.numpy.take").doc)
# -- JAX ------------------------------------------------------------------------
_jt = _q(spec("jax.numpy.take").doc)
_jta = _q(spec("jax.numpy.take_along_axis").doc)
_jai = _q(spec("jax.advanced_indexing").doc)
_jlg = _q(spec("jax.lax.gather").doc)
# -- StableHLO, TOSA --------------------------------------------------------------
_shlo = _q(spec("stablehlo.gather").doc)
_tosa = _q(spec("tosa.gather").doc)
STABLEHLO_CLAMP = (
    "full_start_index[d_operand] = clamp(start_index[d_start], 0, dim(operand, d_operand) - slice_sizes[d_operand]) "
    "if d_operand = start_index_map[d_start]."
)
_C = {c.number: c.text for c in CONSTRAINTS}
# -- WebNN, MLX, Paddle, array API ----------------------------------------------
_wg = _q(spec("webnn.gather").doc)
_wge = _q(spec("webnn.gatherElements").doc)
_wgnd = _q(spec("webnn.gatherND").doc)
_mt = _q(spec("mlx.take").doc)
_mta = _q(spec("mlx.take_along_axis").doc)
_mai = _q(spec("mlx.advanced_indexing").doc)
_PADDLE_GATHER, _PADDLE_ND, _PADDLE_TA, _PADDLE_IS = (
    spec(f"paddle.{n}").doc for n in ("gather", "gather_nd", "take_along_axis", "index_select")
)
_pg = _q(spec("paddle.gather").doc)
_pgnd = _q(spec("paddle.gather_nd").doc)
_pta = _q(spec("paddle.take_along_axis").doc)
_pis = _q(spec("paddle.index_select").doc)
_pt = _q(spec("paddle.take").doc)
_at = _q(spec("array_api.take").doc)
_ata = _q(spec("array_api.take_along_axis").doc)
ARRAY_API_NEGATIVE = (
    "If an index is negative, the function must determine the element to select along a specified axis (dimension) "
    "by counting from the last element (where -1 refers to the last element)."
)
ARRAY_API_OOB = "The behavior for out-of-bounds indices is left unspecified."
ARRAY_API_ZERO_D = "When x is a zero-dimensional array, behavior is unspecified and thus implementation-defined."
MLX_OOB = "Indexing does not perform bounds checking. Indexing out of bounds is undefined behavior."
MLX_NUMPY = "For the most part, indexing an MLX array works the same as indexing a NumPy numpy.ndarray"
NUMPY_MODE = (
    "Specifies how out-of-bounds indices will behave. 'raise' -- raise an error (default) 'wrap' -- wrap around "
    "'clip' -- clip to the range"
)
JAX_MODE = 'The default mode="fill" returns invalid values (e.g. NaN) for out-of bounds indices'
JAX_STATIC = "fill_value: StaticScalar | None = None"
"""The signature the page shows (``inspect.signature``): a static scalar, hashed by ``jit``, never an array."""
TF_BOUNDS = (
    "The values must be in range [0, params.shape[axis]). validate_indices: Deprecated, does nothing. Indices are "
    "always validated on CPU, never validated on GPU. Caution: On CPU, if an out of bound index is found, an error "
    "is raised."
)
TF_BATCHES = (
    "the page defines batch_dims by an equivalent loop over the first axis of params and indices, and says nothing "
    "of batches of different sizes"
)
NUMPY_INDEXING = "Negative values are permitted in the index arrays and work as they do with single indices or slices"

BASES: dict[str, OpBasis] = {
    "onnx.Gather": OpBasis(
        _og(ONNX_BOUNDS),
        _og(ONNX_T),
        _og(
            "gather entries of the axis dimension of data (by default outer-most one as axis=0) indexed by indices, "
            "and concatenates them in an output tensor of rank q + (r - 1)."
        ),
        {"axis": _og(ONNX_AXIS)},
        index_dtypes=_og("Tensor of int32/int64 indices, of any rank q."),  # Tind's, not T's (audit 9B n=145)
        rules={Rule.ZERO_D_INPUT: _requires(ONNX_RANK, ONNX_DOC.format("Gather"))},
    ),
    "onnx.GatherElements": OpBasis(
        _oge(ONNX_BOUNDS),
        _oge(ONNX_T),
        _oge(
            "Its output shape is the same as the shape of indices and consists of one value (gathered from the data) "
            "for each element in indices."
        ),
        {"axis": _oge(ONNX_AXIS)},
        index_dtypes=_oge("Tensor of int32/int64 indices, with the same rank r as the input."),
        rules={
            Rule.ZERO_D_INPUT: _requires(ONNX_RANK, ONNX_DOC.format("GatherElements")),
            Rule.RANK_MISMATCH: _requires(
                "Tensor of int32/int64 indices, with the same rank r as the input.", ONNX_DOC.format("GatherElements")
            ),
            Rule.INDEX_RANK: _requires(
                "Tensor of int32/int64 indices, with the same rank r as the input.", ONNX_DOC.format("GatherElements")
            ),
            Rule.INDEX_LARGER: Silent(
                "the page asks only for the same rank: its equations (out[i][j][k] = input[index[i][j][k]][j][k]) read "
                "outside the data where indices are larger off the axis, and it does not say that is an error"
            ),
        },
    ),
    "onnx.GatherND": OpBasis(
        _ognd("It is an error if any of the index values are out of bounds."),
        _ognd(ONNX_T),
        _ognd("The indices_shape[-1] should have a value between 1 (inclusive) and rank r-b (inclusive)"),
        {"batch_dims": _requires("3) b < min(q, r) is to be honored.", ONNX_DOC.format("GatherND"))},
        rules={
            Rule.ZERO_D_INPUT: _requires(ONNX_ND_RANKS, ONNX_DOC.format("GatherND")),
            Rule.ZERO_D_INDICES: _requires(ONNX_ND_RANKS, ONNX_DOC.format("GatherND")),
            Rule.INDEX_RANK: _requires(ONNX_ND_RANKS, ONNX_DOC.format("GatherND")),
            Rule.BATCH_MISMATCH: _requires(
                "2) The first b dimensions of the shape of indices tensor and data tensor must be equal.",
                ONNX_DOC.format("GatherND"),
            ),
            Rule.BATCH_DIMS_RANGE: _requires("3) b < min(q, r) is to be honored.", ONNX_DOC.format("GatherND")),
            Rule.BATCH_DIMS_NEGATIVE: _requires(  # a count of dimensions; rule 3 holds for a negative b
                "The number of batch dimensions. The gather of indexing starts from dimension of data[batch_dims:]",
                ONNX_DOC.format("GatherND"),
            ),
            Rule.TUPLE_LENGTH: _requires(
                "4) The indices_shape[-1] should have a value between 1 (inclusive) and rank r-b (inclusive)",
                ONNX_DOC.format("GatherND"),
            ),
            Rule.TUPLE_TOO_LONG: _ognd("1) If indices_shape[-1] > r-b => error condition"),
        },
    ),
    "numpy.take": OpBasis(
        _nt("'raise' -- raise an error (default)"),
        _nt("The returned array has the same type as a."),
        _nt("out[ii + jj + kk] = a[ii + (indices[jj],) + kk]"),
        {
            "axis": _nt("The axis over which to select values. By default, the flattened input array is used."),
            "mode": _nt(NUMPY_MODE),
        },
        rules={
            Rule.ZERO_D_INPUT: _requires("a : array_like (Ni..., M, Nk...) The source array.", spec("numpy.take").doc)
        },
    ),
    "numpy.take_along_axis": OpBasis(
        _nta("for j in range(J): out_1d[j] = a_1d[indices_1d[j]]"),
        Silent(_NO_DTYPES),
        _requires(
            "This must match the dimension of arr, but dimensions Ni and Nj only need to broadcast against arr.",
            spec("numpy.take_along_axis").doc,
        ),
        {"axis": _nta("If axis is None, the input array is treated as if it had first been flattened to 1d")},
    ),
    "numpy.advanced_indexing": OpBasis(
        _nai(NUMPY_INDEXING),
        Silent(_NO_DTYPES),
        _nai("Advanced indices always are broadcast and iterated as one"),
    ),
    "torch.gather": OpBasis(
        Silent(
            "negatives are not documented: the catalog holds indices to [0, size), the range gather's equations read"
        ),
        _tg("index (LongTensor): the indices of elements to gather"),
        _requires(  # "required", "must": no error promised (audit of stop 48, 10A n=21; pytorch#134244)
            "It is also required that index.size(d) <= input.size(d) for all dimensions d != dim.",
            spec("torch.gather").doc,
        ),
        {"dim": _tg("dim (int): the axis along which to index")},
        rules={
            Rule.RANK_MISMATCH: _requires(
                "input and index must have the same number of dimensions.", spec("torch.gather").doc
            )
        },
    ),
    "torch.take": OpBasis(
        Silent(
            "negatives and bad indices are not documented: the catalog holds numpy's rule (negatives wrap once, out "
            "of range raises)"
        ),
        _tt("index (LongTensor): the indices into tensor"),
        _tt(
            "The input tensor is treated as if it were viewed as a 1-D tensor. The result takes the same shape as the "
            "indices."
        ),
    ),
    "torch.take_along_dim": OpBasis(
        Silent(
            "the page says only 'This function is similar to NumPy's take_along_axis.': similar promises no error for "
            "an index out of range (NumPy's rule is held, and a departure from it is a question)"
        ),
        _tad("indices (LongTensor): the indices into input. Must have long dtype."),
        _tad("This function is similar to NumPy's take_along_axis."),
        {"dim": _tad("If dim is None, the input array is treated as if it has been flattened to 1d.")},
    ),
    "torch.index_select": OpBasis(
        Silent("negatives and bad indices are not documented: the catalog holds indices to [0, size)"),
        _tis("index (IntTensor or LongTensor): the 1-D tensor containing the indices to index"),
        _tis(
            "The dimth dimension has the same size as the length of index; other dimensions have the same size as in "
            "the original tensor."
        ),
        {"dim": _tis("dim (int): the dimension in which we index")},
    ),
    "tensorflow.gather": OpBasis(
        _tfg(TF_BOUNDS),
        _tfg("indices: The index Tensor. Must be one of the following types: int32, int64."),
        _tfg("return p_shape[:axis] + i_shape[batch_dims:] + p_shape[axis+1:]"),
        {
            "axis": _requires(  # the page's only "an error is raised" is of out-of-bound indices (audit of stop 46)
                "Must be greater than or equal to batch_dims. Defaults to the first non-batch dimension. Supports "
                "negative indexes.",
                spec("tensorflow.gather").doc,
            ),
            "batch_dims": _tfg(
                "batch_dims: An integer. The number of batch dimensions. Must be less than or equal to rank(indices)."
            ),
        },
        rules={
            Rule.BATCH_MISMATCH: Silent(TF_BATCHES),
            Rule.BATCH_DIMS_ABOVE_AXIS: _requires(
                "Must be greater than or equal to batch_dims.", spec("tensorflow.gather").doc
            ),
            Rule.BATCH_DIMS_RANGE: _requires(
                "batch_dims: An integer. The number of batch dimensions. Must be less than or equal to rank(indices).",
                spec("tensorflow.gather").doc,
            ),
        },
    ),
    "tensorflow.gather_nd": OpBasis(
        _tfnd('If "" or "DEFAULT", the default behavior is used (error on CPU and ignore on GPU).'),
        _tfnd("indices: A Tensor. Must be one of the following types: int32, int64."),
        _tfnd(
            "In tf.gather_nd, indices defines slices into the first N dimensions of params, where N = "
            "indices.shape[-1]."
        ),
        {"batch_dims": _tfnd("batch_dims: An integer or a scalar 'Tensor'. The number of batch dimensions.")},
    ),
    "jax.numpy.take": OpBasis(
        _jt(JAX_MODE),
        _jt("indices: N-dimensional array of integer indices of values to take from the array."),
        _jt("JAX implementation of numpy.take, implemented in terms of jax.lax.gather."),
        {
            "axis": _jt("If not specified, the array will be flattened before indexing is applied."),
            "mode": _jt('mode: Out-of-bounds indexing mode, either "fill" or "clip".'),
            "fill_value": _jt(JAX_STATIC),
        },
    ),
    "jax.numpy.take_along_axis": OpBasis(
        _jta('mode: Out-of-bounds indexing mode, either "fill" or "clip". ' + JAX_MODE),
        _jta("indices: array of integer indices."),
        _jta("a must be broadcast-compatible with indices along dimensions other than axis."),
        {
            "axis": _jta("If not specified, the array will be flattened before indexing is applied."),
            "mode": _jta('mode: Out-of-bounds indexing mode, either "fill" or "clip".'),
            "fill_value": _jta(JAX_STATIC),
        },
    ),
    "webnn.gather": OpBasis(
        _wg("a negative index means indexing from the end of the dimension"),
        _wg('The values must be of type "int32", "uint32" or "int64"'),
        Silent(
            "the shape rule is stated by the algorithm's steps, not a sentence: input.shape[:axis] + indices.shape + "
            "input.shape[axis+1:]"
        ),
        {"axis": Silent("axis is an unsigned long: negative values are not representable")},
    ),
    "webnn.gatherElements": OpBasis(
        _wge("a negative index means indexing from the end of the dimension"),
        _wge('The values must be of type "int32", "uint32" or "int64"'),
        Silent("the shape rule is stated by the algorithm's steps: indices' shape equals input's except along axis"),
        {"axis": Silent("axis is an unsigned long: negative values are not representable")},
    ),
    "webnn.gatherND": OpBasis(
        _wgnd("a negative index means indexing from the end of the dimension"),
        _wgnd('The values must be of type "int32", "uint32" or "int64"'),
        Silent("the shape rule is stated by the algorithm's steps: indices.shape[-1] in [1, rank(input)]"),
    ),
    "torch.advanced_indexing": OpBasis(
        Silent(
            "the tensors page says only that 'The contents of a tensor can be accessed and modified using Python's "
            "indexing and slicing notation', nothing of an index out of range: NumPy's IndexError is held"
        ),
        Silent(
            "the tensors page names no index dtype; torch's error ('tensors used as indices must be long, int, byte "
            "or bool tensors') is the catalog's source"
        ),
        Silent("the page gives no shape rule; NumPy's integer-array indexing is held"),
    ),
    "jax.advanced_indexing": OpBasis(
        _jai("the index is clamped to the bounds of the array since something must be returned"),
        Silent(_NO_DTYPES),
        Silent("the page gives no shape rule; NumPy's integer-array indexing is held"),
    ),
    "jax.lax.gather": OpBasis(
        _jlg("The behavior for out-of-bounds indices when set to 'promise_in_bounds' is implementation-defined."),
        Silent(_NO_DTYPES),
        _jlg(
            "dimension_numbers: a lax.GatherDimensionNumbers object that describes how dimensions of operand, "
            "start_indices and the output relate."
        ),
    ),
    "stablehlo.gather": OpBasis(
        _shlo(STABLEHLO_CLAMP),
        _shlo(INTEGER_INDICES),
        _shlo(
            "Gathers slices from operand tensor from offsets specified in start_indices and produces a result tensor."
        ),
        {"batch_dims": _shlo(_C["C17"])},
        rules={
            Rule.TUPLE_TOO_LONG: _shlo(_C["C1"]),
            Rule.BATCH_MISMATCH: _shlo(_C["C17"]),
            Rule.BATCH_DIMS_RANGE: _shlo(_C["C15"]),
            Rule.INDEX_RANK: _shlo(_C["C2"]),
            Rule.ZERO_D_INDICES: _shlo(_C["C2"]),
        },
    ),
    "tosa.gather": OpBasis(
        _tosa("REQUIRE(0 <= k && k < K);"),
        _tosa("index_t k = tensor_read<index_t>(indices, [N,W], [n,w]);"),
        _tosa(
            "Generate a tensor for which each element in the output is a subtensor of the values tensor based on the "
            "indices."
        ),
        unspecified=_undefined(REQUIRE_MEANS, spec("tosa.gather").doc),
    ),
    "mlx.take": OpBasis(
        _mt("As an example, if the axis=1 this is equivalent to a[:, indices, ...]."),
        _mt("indices (int or array): Integer index or input array with integral type."),
        _mt("As an example, if the axis=1 this is equivalent to a[:, indices, ...]."),
        {
            "axis": _mt(
                "If the axis is not specified the array is treated as a flattened 1-D array prior to performing the "
                "take."
            )
        },
        unspecified=_undefined(MLX_OOB, MLX_INDEXING_DOC),
    ),
    "mlx.take_along_axis": OpBasis(
        Silent(
            "the page says nothing of negative indices: NumPy's rule is held, as the Indexing page says indexing works "
            "as NumPy's"
        ),
        Silent(_NO_DTYPES),
        _mta("These should be broadcastable with the input array excluding the axis dimension."),
        {"axis": _mta("If axis == None the array is flattened to 1D prior to the indexing operation.")},
        unspecified=_undefined(MLX_OOB, MLX_INDEXING_DOC),
    ),
    "mlx.advanced_indexing": OpBasis(
        _mai(MLX_NUMPY),
        Silent(_NO_DTYPES),
        _mai("Mixing and matching integers, slice, ..., and array indices works just as in NumPy"),
        unspecified=_undefined(MLX_OOB, MLX_INDEXING_DOC),
    ),
    "paddle.gather": OpBasis(
        Silent(_NO_OOB + " (nor of negatives)"),
        _pg(
            "Supported data type is int32, int64, float32, float64, complex64, complex128 and uint8 (only for CPU), "
            "float16 (only for GPU)."
        ),
        _pg("Output is obtained by gathering entries of axis of x indexed by index and concatenate them together."),
        {
            "axis": _requires(
                "axis (Tensor|int|None, optional): The axis of input to be gathered, it's can be int or a Tensor with "
                "data type is int32 or int64.",
                _PADDLE_GATHER,
            )
        },
        rules={
            Rule.INDEX_RANK: _requires("index (Tensor): The index input tensor with rank=0 or rank=1.", _PADDLE_GATHER),
            Rule.ZERO_D_INPUT: _requires("x (Tensor): The source input tensor with rank>=1.", _PADDLE_GATHER),
        },
        index_dtypes=_pg("index (Tensor): The index input tensor with rank=0 or rank=1. Data type is int32 or int64."),
    ),
    "paddle.gather_nd": OpBasis(
        Silent(_NO_OOB + " (nor of negatives)"),
        _pgnd(
            "x (Tensor): The input Tensor which it's data type should be bool, float16, float32, float64, int32, int64."
        ),
        _pgnd("the output tensor has shape index.shape[:-1] + input.shape[index.shape[-1]:] ."),
        rules={
            rule: _requires("index (Tensor): The index input with rank > 1, index.shape[-1] <= input.rank.", _PADDLE_ND)
            for rule in (Rule.INDEX_RANK, Rule.ZERO_D_INDICES, Rule.TUPLE_TOO_LONG, Rule.TUPLE_LENGTH)
        },
        index_dtypes=_pgnd("Its dtype should be int32, int64."),
    ),
    "paddle.take_along_axis": OpBasis(
        Silent(_NO_OOB + " (nor of negatives)"),
        _pta("Supported data types are bfloat16, float16, float32, float64, int32, int64, uint8."),
        _pta("Take values from the input array by given indices matrix along the designated axis."),
        {
            "axis": _pta("axis (int) : The axis to take 1d slices along."),
            "broadcast": _pta("broadcast (bool, optional): whether the indices broadcast."),
        },
        rules={
            rule: _requires("This must match the dimension of arr, and need to broadcast against arr.", _PADDLE_TA)
            for rule in (Rule.RANK_MISMATCH, Rule.NOT_BROADCASTABLE, Rule.SHAPES_DIFFER, Rule.INDEX_LARGER)
        },
        index_dtypes=_pta(
            "indices (Tensor) : Indices to take along each 1d slice of arr. This must match the dimension of arr, and "
            "need to broadcast against arr. Supported data type are int32 and int64."
        ),
    ),
    "paddle.index_select": OpBasis(
        Silent(_NO_OOB + " (nor of negatives)"),
        _pis("The data of x can be one of float16, float32, float64, int32, int64, complex64 and complex128."),
        _pis(
            "The dim-th dimension has the same size as the length of index; other dimensions have the same size as in "
            "the x tensor."
        ),
        {"axis": _pis("axis (int, optional): The dimension in which we index. Default: if None, the axis is 0.")},
        rules={
            Rule.INDEX_RANK: _requires("index (Tensor): The 1-D Tensor containing the indices to index.", _PADDLE_IS)
        },
        index_dtypes=_pis("The data type of ``index`` must be int32 or int64."),
    ),
    "paddle.take": OpBasis(
        _pt("'raise': raise an error (default);"),
        _pt("x (Tensor): An N-D Tensor, its data type should be int32, int64, float32, float64."),
        _pt(
            "The input tensor is treated as if it were viewed as a 1-D tensor. The result takes the same shape as the "
            "index."
        ),
        {"mode": _pt("mode (str, optional): Specifies how out-of-bounds index will behave.")},
        index_dtypes=_pt("index (Tensor): An N-D Tensor, its data type should be int32, int64."),
    ),
    "array_api.take": OpBasis(
        _at(ARRAY_API_NEGATIVE),
        _at("The array must be one-dimensional and have an integer data type."),
        _at("Should have one or more dimensions (axes)."),
        {
            "axis": _at(
                "If x is a one-dimensional array, providing an axis is optional; however, if x has more than one "
                "dimension, providing an axis is required."
            )
        },
        unspecified=_undefined(ARRAY_API_OOB, spec("array_api.take").doc),
        zero_d=_implementation_defined(ARRAY_API_ZERO_D, spec("array_api.take").doc),
    ),
    "array_api.take_along_axis": OpBasis(
        _ata(ARRAY_API_NEGATIVE),
        Silent("the page names no data dtype; indices: an integer data type, as take's"),
        _ata("Must have the same rank (i.e., number of dimensions) as x."),
        {"axis": Silent("the page gives the default, -1, and no sentence on the domain: [-r, r-1] is held")},
        unspecified=_undefined(ARRAY_API_OOB, spec("array_api.take_along_axis").doc),
    ),
    "openvino.Gather": OpBasis(
        _ovg("If index value exceed allowed range output data for corresponding index will be filled with zeros"),
        _ovg("T_IND: int32 or int64"),
        _ovg("identical to TensorFlow* Gather"),
        {
            "axis": Silent("the page names axis as the required third input; [-r, r-1] and >= batch_dims are held"),
            "batch_dims": _ovg("normalized value is used batch_dims = indices.rank + batch_dims"),
        },
        rules={
            Rule.BATCH_MISMATCH: _requires(
                "It requires the first b dimensions in data and indices tensors to be equal.",
                spec("openvino.Gather").doc,
            ),
            Rule.BATCH_DIMS_ABOVE_AXIS: Silent(
                "the page says the op is identical to TensorFlow's Gather, whose axis 'Must be greater than or equal "
                "to batch_dims.' without calling a breach an error"
            ),
        },
    ),
    "openvino.GatherElements": OpBasis(
        _ovge("All index values are expected to be within bounds [0, s-1]"),
        _ovge("T_IND: int32 or int64"),
        _ovge("The indices tensor has the same shape as the data tensor except for the axis dimension"),
        {"axis": _ovge("Negative value means counting dimensions from the back")},
        unspecified=_undefined(
            "All index values are expected to be within bounds [0, s-1], where s is size along axis dimension of the "
            "data tensor",
            spec("openvino.GatherElements").doc,
        ),
    ),
    "openvino.GatherND": OpBasis(
        _ovnd("It requires all indices from this tensor to be in the range [0, s-1]"),
        _ovnd("T_IND: int32 or int64"),
        _ovnd("output[i_0, ..., i_{K-2},:,...,:] = data[indices[i_0, ..., i_{K-2}],:,...,:]"),
        {
            "batch_dims": Silent(
                "the range [0, min(data.rank, indices.rank)) the catalog holds is read off the op's "
                "examples, not a sentence"
            )
        },
        rules={Rule.TUPLE_TOO_LONG: _ovnd("indices.shape[-1] <= data.rank")},
        unspecified=_undefined(
            "It requires all indices from this tensor to be in the range [0, s-1]", spec("openvino.GatherND").doc
        ),
    ),
}
BASES |= {
    # TensorFlow's NumPy API: its pages say "See the NumPy documentation for numpy.take": no outcome departs from a
    # pointer, so each decision rests on the NumPy sentence it points to (audit of stop 46, 7A n=36), except take's
    # own sentence on its mode
    "tensorflow.experimental.numpy.take": replace(
        BASES["numpy.take"],
        policy=_tnt("out argument is not supported, and default mode is clip."),
        attrs={**BASES["numpy.take"].attrs, "mode": _tnt("out argument is not supported, and default mode is clip.")},
        points_to="numpy.take",
    ),
    "tensorflow.experimental.numpy.take_along_axis": replace(
        BASES["numpy.take_along_axis"], points_to="numpy.take_along_axis"
    ),
}


def dtype_requirement(op: str, index: bool = False) -> Ground:
    """The op's dtype sentence (of its indices, with ``index``, where the docs list those apart) as a requirement
    (:func:`_requires`) where it is a quote: a list of the dtypes an argument takes says what a valid call is, not
    what a call with another dtype does (Paddle's take_along_axis: its int8 indices read garbage).

    >>> dtype_requirement("paddle.take_along_axis", index=True).quote[-40:]
    'Supported data type are int32 and int64.'
    """
    b = op_basis(op)
    dtypes = b.index_dtypes if index and b.index_dtypes is not None else b.dtypes
    return _requires(dtypes.quote, dtypes.url) if isinstance(dtypes, Basis) else dtypes


def op_basis(op: str) -> OpBasis:
    """The grounds of ``op`` (a name or an ONNX key such as ``onnx.Gather-11``)."""
    return BASES[spec(op).name]


def ground(op: str, decision: Decision, attr: str | None = None) -> Ground:
    """The ground of one decision of ``op``; an attribute's needs its name."""
    b = op_basis(op)
    if decision is Decision.ATTRIBUTE:
        if attr is None or attr not in b.attrs:
            raise KeyError(f"{op}: no ground for attribute {attr!r}")
        return b.attrs[attr]
    return {Decision.POLICY: b.policy, Decision.DTYPES: b.dtypes, Decision.SHAPES: b.shapes}[decision]


DECIDED_BY: dict[ConditionKind, Decision] = {
    ConditionKind.ARGUMENT_DTYPE: Decision.DTYPES,
    ConditionKind.UNDOCUMENTED_DTYPE: Decision.DTYPES,
    ConditionKind.DATA_DTYPE_VALUES: Decision.DTYPES,
    ConditionKind.PRECONDITION: Decision.SHAPES,
    ConditionKind.SHAPES_REFUSED: Decision.SHAPES,
    ConditionKind.EMPTY_OUTPUT: Decision.SHAPES,
    ConditionKind.EMPTY_DATA: Decision.SHAPES,
    ConditionKind.ATTRIBUTE: Decision.ATTRIBUTE,
    ConditionKind.ANY: Decision.SHAPES,
    ConditionKind.HANGS: Decision.SHAPES,
}
"""The decision a root cause's condition departs from (a fault whatever the input departs from the op's semantics,
its shape rule's sentence); every other condition (bad indices, index regimes) the policy, except in-range indices
(the semantics again)."""


def departed(op: str, kind: ConditionKind, detail: str = "") -> Ground:
    """The ground a finding of this condition departs from: an attribute condition
    names the attribute first (``mode='raise'``), falling back to the policy; an
    index regime the catalog holds unspecified (``OpSpec.unspecified``) its own ground.

    >>> departed("mlx.take", ConditionKind.REGIME, "oob-above").status.value
    'undefined'
    >>> departed("mlx.take", ConditionKind.REGIME, "negative").status.value
    'documented'
    """
    decision = DECIDED_BY.get(kind, Decision.POLICY)
    b = op_basis(op)
    if kind is ConditionKind.PRECONDITION and detail in set(Rule):
        return rule_ground(op, Rule(detail))
    if decision is Decision.ATTRIBUTE:
        name = detail.split("=")[0].strip()
        return b.attrs.get(name, b.policy)
    if kind is ConditionKind.REGIME and detail in spec(op).unspecified:
        return unspecified_ground(op)
    if kind is ConditionKind.EMPTY_AXIS and Regime.OOB_ABOVE.value in spec(op).unspecified:
        return unspecified_ground(op)  # every index into an empty axis is out of range
    if kind is ConditionKind.REGIME and detail in (Regime.IN_RANGE.value, Regime.EMPTY.value):
        return ground(op, Decision.SHAPES)
    return ground(op, decision)


TYPED_ONLY = frozenset({Rule.ATTRIBUTE_TYPE, Rule.ATTRIBUTE_VALUE})
"""Rules an argument list states as a type or a list of values (``axis (int)``, ``broadcast (bool, optional)``, a
signature's ``StaticScalar``, NumPy's ``mode : {'raise', 'wrap', 'clip'}``): what to pass, not that anything else is
refused (NumPy reads ``mode=None`` as its default; audit of stop 46)."""


def rule_ground(op: str, rule: Rule, argument: str = "") -> Ground:
    """The sentence that states the precondition ``rule`` of ``op`` (the reference's typed error carries it, and
    the ``argument`` it blames): the op's own sentence for the rule (``OpBasis.rules``), else, for a blamed
    attribute, the attribute's (a type in an argument list only as a requirement, :data:`TYPED_ONLY`), else the
    shape rule's.

    >>> rule_ground("torch.gather", Rule.RANK_MISMATCH).quote
    'input and index must have the same number of dimensions.'
    >>> g = rule_ground("onnx.GatherND-13", Rule.BATCH_MISMATCH)
    >>> g.status.value, g.quote[:40]
    ('silent', '2) The first b dimensions of the shape o')
    >>> rule_ground("paddle.take_along_axis", Rule.ATTRIBUTE_TYPE, "broadcast").words()[:60]
    'required by the docs, which do not say that breaking it is a'
    """
    b = op_basis(op)
    if rule in b.rules:
        return b.rules[rule]
    attribute = b.attrs.get(argument) if argument and blames_attribute(argument) else None
    if attribute is not None:
        if rule in TYPED_ONLY and isinstance(attribute, Basis):
            return _requires(attribute.quote, attribute.url)
        return attribute
    return b.shapes


def index_ground(op: str, attrs: Mapping[str, Any] | None = None) -> Ground:
    """The ground of an index the op's policy cannot place (the reference's out-of-range error), whatever made
    it so (an empty axis, an empty data): the sentence that leaves out-of-bounds indices undefined where the
    catalog holds them unspecified; the docs' silence where the policy in force under ``attrs`` clamps or wraps
    every index into the axis (only an empty axis leaves it nothing to place an index on, and no page says what
    happens then: jnp.take_along_axis, mode='clip', returns zeros there; audit of stop 47, 9B n=21); else the
    policy's sentence.

    >>> index_ground("tensorflow.gather").quote[-71:]
    'Caution: On CPU, if an out of bound index is found, an error is raised.'
    >>> index_ground("mlx.take").status.value
    'undefined'
    >>> index_ground("jax.numpy.take_along_axis", {"mode": "clip"}).reason[:50]
    "mode='clip' clamps every index into the axis: the "
    """
    if Regime.OOB_ABOVE.value in spec(op).unspecified:
        return unspecified_ground(op)
    placing = _placing(op, attrs or {})
    if placing is not None:
        return Silent(
            f"{placing} every index into the axis: the docs do not say what it does on an empty axis, which has "
            "no element to place an index on"
        )
    return op_basis(op).policy


def _placing(op: str, attrs: Mapping[str, Any]) -> str | None:
    """The words for the policy in force under ``attrs`` where it places every index (clamps or wraps it), else
    None.

    >>> _placing("numpy.take", {"mode": "wrap"}), _placing("numpy.take", {"mode": "raise"})
    ("mode='wrap' wraps", None)
    """
    s = spec(op)
    try:
        policy = s.policy_for(dict(attrs))
    except (ValueError, TypeError):  # an attribute the op does not take: no policy is in force
        return None
    verb = {OutOfRange.CLAMP: "clamps", OutOfRange.WRAP: "wraps"}.get(policy.out_of_range)
    if verb is None:
        return None
    mode = s.bind(dict(attrs)).get(s.mode_attr) if s.mode_attr else None
    return f"{s.mode_attr}={mode!r} {verb}" if s.mode_attr else f"its index policy {verb}"


def unspecified_ground(op: str) -> Ground:
    """The ground of the index regimes ``op``'s catalog entry holds unspecified: the sentence that leaves them
    undefined, or the docs' silence (the policy's reason).

    >>> unspecified_ground("array_api.take").quote
    'The behavior for out-of-bounds indices is left unspecified.'
    >>> unspecified_ground("paddle.gather").status.value
    'silent'
    """
    b = op_basis(op)
    if b.unspecified is not None:
        return b.unspecified
    return b.policy if isinstance(b.policy, Silent) else Silent("the docs say nothing of these indices")


def zero_d_permitted(op: str) -> bool:
    """Whether ``op``'s docs leave a call on 0-d data to the framework: then any answer but a crash or a hang
    conforms, where the reference holds a rule the 0-d data break.

    >>> zero_d_permitted("array_api.take"), zero_d_permitted("numpy.take")
    (True, False)
    """
    ground = op_basis(op).zero_d
    return ground is not None and ground.status.permits


def regime_permitted(op: str, regime: Regime | None) -> bool:
    """Whether ``op``'s docs leave what ``regime``'s indices do to the framework (undefined or
    implementation-defined): any answer read from the input is allowed there.

    >>> regime_permitted("mlx.take_along_axis", Regime.OOB_ABOVE), regime_permitted("paddle.take", Regime.NEGATIVE)
    (True, False)
    """
    return regime is not None and regime.value in spec(op).unspecified and unspecified_ground(op).status.permits


# -- a runtime's own documented limits ---------------------------------------------------------------------------------

ORT_KERNELS = "https://github.com/microsoft/onnxruntime/blob/main/docs/OperatorKernels.md"
"""onnxruntime's table of the kernels each execution provider registers, with their type constraints."""
_ORT_T = (
    "T = tensor(bfloat16), tensor(bool), tensor(double), tensor(float), tensor(float16), tensor(int16), "
    "tensor(int32), tensor(int64), tensor(int8), tensor(string), tensor(uint16), tensor(uint32), tensor(uint64), "
    "tensor(uint8)"
)
_ORT_DATA = frozenset(
    ("bfloat16", "bool", "float64", "float32", "float16", "int16", "int32", "int64", "int8", "str", "uint16")
    + ("uint32", "uint64", "uint8")
)


@dataclass(frozen=True)
class RuntimeLimit:
    """The dtypes a runtime documents that it runs for an op (its own kernel table), beyond what the op's spec
    allows: refusing another is a documented limitation, an atlas fact, never a finding."""

    data: frozenset[str]
    index: frozenset[str]
    basis: Basis


RUNTIME_LIMITS: dict[tuple[str, str], RuntimeLimit] = {
    ("onnxruntime", "onnx.Gather"): RuntimeLimit(
        _ORT_DATA, frozenset({"int32", "int64"}), Basis(_ORT_T + "; Tind = tensor(int32), tensor(int64)", ORT_KERNELS)
    ),
    ("onnxruntime", "onnx.GatherElements"): RuntimeLimit(
        _ORT_DATA, frozenset({"int32", "int64"}), Basis(_ORT_T + "; Tind = tensor(int32), tensor(int64)", ORT_KERNELS)
    ),
    ("onnxruntime", "onnx.GatherND"): RuntimeLimit(
        _ORT_DATA, frozenset({"int64"}), Basis(_ORT_T + "; indices = tensor(int64)", ORT_KERNELS)
    ),
}
_OV_ELEMENT_TYPES = Basis(
    "enum class Type_t: Enum to define possible element types. Values: undefined, dynamic, boolean, bf16, f16, f32, "
    "f64, i4, i8, i16, i32, i64, u1, u2, u3, u4, u6, u8, u16, u32, u64, nf4, f8e4m3, f8e5m2, string, f4e2m1, f8e8m0",
    "https://docs.openvino.ai/2024/api/c_cpp_api/group__ov__element__cpp__api.html",
)
_OV_DATA = frozenset(d for d in DATA_DTYPES if d not in ("complex64", "complex128", "object"))
_OV_PLUGIN = Basis(
    "Support for each particular operation from the list below depends on the capabilities of an inference plugin "
    "and may vary among different hardware platforms and devices.",
    "https://docs.openvino.ai/2024/documentation/openvino-ir-format/operation-sets/available-opsets/opset8.html",
)
"""OpenVINO's opset pages: what an op takes depends on the plugin. The CPU plugin's GatherElements and GatherND
kernels take elements of 1, 2, 4 (and 8) bytes only ("Check 'any_of(inDataPrecision.size(), ...)' failed"): no
strings."""
for _family in ("onnx.Gather", "onnx.GatherElements", "onnx.GatherND"):
    RUNTIME_LIMITS[("openvino", _family)] = RuntimeLimit(_OV_DATA, frozenset(INDEX_DTYPES), _OV_ELEMENT_TYPES)
for _family in ("onnx.GatherElements", "onnx.GatherND"):
    RUNTIME_LIMITS[("openvino", _family)] = RuntimeLimit(_OV_DATA - {"str"}, frozenset(INDEX_DTYPES), _OV_PLUGIN)
"""Each runtime's documented dtype limits, by (framework, op family): onnxruntime's CPU kernel table (Gather,
GatherElements and GatherND 13+) lists no complex type, and GatherND's indices only as int64; OpenVINO's element
types (what its ONNX front end converts a model into) have no complex type."""


_XLA_CPU_OPS = (
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/tf2xla/g3doc/cpu_supported_ops.md"
)
_XLA_TPARAMS = "Tparams={bool,complex64,double,float,int32,int64,uint32,uint64}"
_XLA_DATA = frozenset({"bool", "complex64", "float64", "float32", "int32", "int64", "uint32", "uint64"})
MODE_LIMITS: dict[tuple[str, str, str], RuntimeLimit] = {
    ("tensorflow", "xla", "tensorflow.gather"): RuntimeLimit(
        _XLA_DATA,
        frozenset({"int32", "int64"}),
        Basis(f"`GatherV2` | `Taxis={{int32,int64}}`<br>`Tindices={{int32,int64}}`<br>`{_XLA_TPARAMS}`", _XLA_CPU_OPS),
    ),
    ("tensorflow", "xla", "tensorflow.gather_nd"): RuntimeLimit(
        _XLA_DATA,
        frozenset({"int32", "int64"}),
        Basis(f"`GatherNd` | `Tindices={{int32,int64}}`<br>`{_XLA_TPARAMS}`", _XLA_CPU_OPS),
    ),
}
"""The dtypes one execution mode of a framework documents that it runs for an op, narrower than the framework's:
TensorFlow's XLA CPU kernels (tf2xla's table of supported operators for XLA_CPU_JIT) take no strings, where eager
TensorFlow gathers them (audit of stop 46: XLA's refusal of str data was a 'dtype rejected' finding)."""


def runtime_limit(framework: str, mode: str, family: str) -> RuntimeLimit | None:
    """The dtype limit of ``framework`` run in ``mode`` for an op ``family``: the mode's own
    (:data:`MODE_LIMITS`), else the framework's (:data:`RUNTIME_LIMITS`), else None.

    >>> runtime_limit("tensorflow", "xla", "tensorflow.gather_nd").data == _XLA_DATA
    True
    >>> runtime_limit("tensorflow", "eager", "tensorflow.gather_nd") is None
    True
    """
    return MODE_LIMITS.get((framework, mode, family)) or RUNTIME_LIMITS.get((framework, family))


def documented_limit(framework: str, family: str, data_dtype: str, index_dtype: str) -> Basis | None:
    """The runtime's sentence that says it does not run these dtypes for the op, or None.

    >>> documented_limit("onnxruntime", "onnx.Gather", "complex64", "int64").url == ORT_KERNELS
    True
    >>> documented_limit("onnxruntime", "onnx.GatherND", "float32", "int32") is not None
    True
    >>> documented_limit("onnxruntime", "onnx.Gather", "float32", "int32") is None
    True
    """
    limit = RUNTIME_LIMITS.get((framework, family))
    if limit is None or (data_dtype in limit.data and index_dtype in limit.index):
        return None
    return limit.basis


@dataclass(frozen=True)
class ShapeLimit:
    """A shape rule a runtime documents for an op, narrower than the op's spec: indices of the data's shape except
    along the axis (OpenVINO's GatherElements-6, which its ONNX front end converts GatherElements into, where ONNX
    asks only for the same rank). Refusing a case that breaks it is a documented limitation, an atlas fact."""

    basis: Basis

    @staticmethod
    def breaks(data_shape: tuple[int, ...], indices_shape: tuple[int, ...], axis: int) -> bool:
        """Whether the shapes differ off the axis (same rank; ``axis`` may be negative).

        >>> ShapeLimit.breaks((2, 1, 1), (1, 1, 1), 0), ShapeLimit.breaks((2, 1, 1), (1, 1, 1), -3)
        (False, False)
        >>> ShapeLimit.breaks((2, 3), (2, 1), 0)
        True
        """
        if len(data_shape) != len(indices_shape) or not data_shape:
            return False
        axis %= len(data_shape)
        return any(d != i for k, (d, i) in enumerate(zip(data_shape, indices_shape)) if k != axis)


RUNTIME_SHAPE_LIMITS: dict[tuple[str, str], ShapeLimit] = {
    ("openvino", "onnx.GatherElements"): ShapeLimit(
        _ovge("The indices tensor has the same shape as the data tensor except for the axis dimension")
    ),
}
"""Each runtime's documented shape limits, by (framework, op family)."""


def refused_by_shape_limit(
    framework: str, family: str, data_shape: tuple[int, ...], indices_shape: tuple[int, ...], axis: int
) -> Basis | None:
    """The runtime's sentence whose shape rule these shapes break, or None.

    >>> refused_by_shape_limit("openvino", "onnx.GatherElements", (2, 1, 1), (2, 1, 1), 0) is None
    True
    >>> refused_by_shape_limit("openvino", "onnx.GatherElements", (2, 3), (2, 1), 0).quote[:22]
    'The indices tensor has'
    """
    limit = RUNTIME_SHAPE_LIMITS.get((framework, family))
    return limit.basis if limit is not None and limit.breaks(data_shape, indices_shape, axis) else None
