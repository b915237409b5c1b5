"""PyTorch: ``torch.gather``, ``torch.take``, ``torch.take_along_dim``,
``torch.index_select`` and advanced indexing ``x[i0, i1, ...]``, eager on the
CPU ("torch"), compiled by ``torch.compile`` ("torch-compile": inductor on the
CPU, dynamic shapes, one compiled function per op and attributes) and, where
CUDA is available, eager on ``cuda:0`` ("torch-cuda"; :func:`unavailable_here`
says why it is not there).

Inputs become torch tensors of the same dtype (bfloat16 through its bits,
and back the same way); torch has no string or object tensors, so those are
unsupported. uint16/32/64 tensors exist, so they are handed over and the op's
own error is the outcome.

>>> import numpy as np
>>> cpu = oracles_here()[0]
>>> cpu.run_in_process("torch.advanced_indexing", np.arange(6).reshape(2, 3), np.array([[1, -1]]), {}).value.tolist()
[5]
>>> cpu.run_in_process("torch.gather", np.array([[1, 2], [3, 4]]), np.array([[1], [0]]), {"dim": 1}).value.tolist()
[[2], [3]]
>>> cpu.run_in_process("torch.take", np.array(["a"]), np.array([0]), {}).describe()
'not supported: torch: data dtype str: torch has no string or object tensors'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.judgement import says
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import EAGER_RUN, Snippet
from conformance.execution.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, Patterns, classify_with, when_installed
from oracles.base import ERROR_TYPES, Oracle, classify_type

TORCH_OPS = ("torch.gather", "torch.take", "torch.take_along_dim", "torch.index_select", "torch.advanced_indexing")

TORCH_UNITS = (
    OpUnit("torch.gather", "torch.gather(data, index=indices, **attrs)"),
    OpUnit("torch.take", "torch.take(data, indices, **attrs)"),
    OpUnit("torch.take_along_dim", "torch.take_along_dim(data, indices, **attrs)"),
    OpUnit("torch.index_select", "torch.index_select(data, index=indices, **attrs)"),
    OpUnit("torch.advanced_indexing", "data[tuple(torch.moveaxis(indices, -1, 0))]"),  # GatherND as users write it
)

WRAPPING_NEGATIVES = frozenset({"torch.take", "torch.advanced_indexing"})
"""Ops whose negative indices wrap once: an error quoting a negative value is out of range, not a rejected negative."""

TORCH_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("dimension out of range",)),
    (
        ErrorClass.INDEX_OUT_OF_RANGE,
        (
            "out of bounds for dimension",
            "index out of range",
            "out of range: tried to access",
            "index out of bounds: 0 <=",  # inductor's generated bounds check
            "indexing axis dim should be positive",
        ),
    ),  # index_select into an empty axis
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        (
            "not implemented for",
            "expected dtype",
            "expected a long tensor",
            "expected scalar type",
            "tensors used as indices must be",
        ),
    ),
    (
        ErrorClass.SHAPE_INVALID,
        (
            "same number of dimensions",
            "size of index",
            "index should be smaller",
            "must be broadcastable",
            "index_select(): index",
            "shape mismatch",
            "must be 1-d",
            "too many indices",
            "size does not match",
            "must match the size of tensor",
        ),
    ),  # also inside dynamo's wrapper, whose FakeTensor repr says "dtype"
)

TORCH_PRELUDE = '''
import numpy as np
import torch


def to_native(a):
    """The tensor holding exactly a on DEVICE (bfloat16 through its int16 bits; never a cast)."""
    a = np.array(a, copy=True, order="C")  # writeable and contiguous
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).to(DEVICE)
    return torch.from_numpy(a).to(DEVICE)


def to_numpy(x, like):
    """The tensor's bits as NumPy (bfloat16 back through int16, as ml_dtypes' bfloat16)."""
    t = x.detach().cpu().resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()
'''


TORCH_COMPILE = '''
import torch._dynamo

# every op, attribute set, dtype and rank gets a graph of its own: never a silent fall-back to eager at the recompile
# limit
torch._dynamo.config.recompile_limit = 1 << 20
torch._dynamo.config.accumulated_recompile_limit = 1 << 20


def prepare(call, attrs):
    """torch.compile: inductor (C++ on the CPU, Triton on CUDA), dynamic shapes, the attributes constants."""
    return torch.compile(lambda data, indices: call(data, indices, attrs), backend="inductor", dynamic=True)
'''
"""The ``torch-compile`` mode: what ``torch.compile(fn, dynamic=True)`` does to a
gather, with dynamo's recompile limits lifted (at the default of 8 every later
dtype or rank would silently run eagerly)."""

TORCH_MODES = {"eager": EAGER, "compile": TORCH_COMPILE}

TORCH_RUNS = {
    "eager": EAGER_RUN,
    "compile": ("out = torch.compile(lambda data, indices: {call}, dynamic=True)(data, indices)",),
}
"""Each mode in a short script (:class:`~conformance.execution.glance.Snippet`): the call as it is, or compiled."""


class TorchOracle(FrameworkOracle):
    """torch on one device, eager or compiled."""

    patterns = TORCH_PATTERNS
    negative_rejected = True

    def __init__(self, device: str = "cpu", mode: str = "eager") -> None:
        import torch

        name = "torch" + ("" if device == "cpu" else "-cuda") + ("" if mode == "eager" else f"-{mode}")
        compiles = mode == "compile"
        words = "compile (inductor)" if compiles else mode
        info = OracleInfo(name, "torch", torch.__version__, device, words, TORCH_OPS, compiles=compiles)
        super().__init__(info, TORCH_PRELUDE + f"\n\nDEVICE = {device!r}\n", TORCH_MODES[mode], TORCH_UNITS)
        self._last_op = ""
        self._run = TORCH_RUNS[mode]

    def snippet(self, case: Case) -> Snippet:
        """Tensors from NumPy on the oracle's device (bfloat16 through its int16 bits), the answer back.

        >>> s = TorchOracle(mode="compile").call_snippet(Case("torch.take", np.zeros(2), np.array([3])))
        >>> s.data, s.call, s.run == TORCH_RUNS["compile"]
        ('torch.from_numpy({array})', 'torch.take(data, indices)', True)
        """
        device = self.info().device
        to = "" if device == "cpu" else f".to({device!r})"

        def native(a: np.ndarray) -> str:
            bits = ".view(np.int16)).view(torch.bfloat16" if np.asarray(a).dtype == BFLOAT16 else ""
            return f"torch.from_numpy({{array}}{bits}){to}"

        bf16 = np.asarray(case.data).dtype == BFLOAT16
        output = "{out}.cpu()" + (".view(torch.int16).numpy().view(ml_dtypes.bfloat16)" if bf16 else ".numpy()")
        return Snippet(
            ("import torch",), data=native(case.data), indices=native(case.indices), run=self._run, output=output
        )

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        return "torch has no string or object tensors" if a.dtype.kind in "USO" else None

    def keep_compilations(self, folder: Path) -> None:
        """Inductor's caches (its FX graph cache among them) in ``folder`` rather than ``/tmp/torchinductor_$USER``
        (read before each compilation, so set before the first)."""
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(folder)

    def compilations(self) -> tuple[int, int] | None:
        """``(compiled afresh, taken from inductor's FX graph cache)`` so far (its ``fxgraph_cache_miss`` and
        ``fxgraph_cache_hit`` counters); None for eager torch, which compiles nothing."""
        if not self.info().compiles:
            return None
        from torch._dynamo.utils import counters

        return int(counters["inductor"]["fxgraph_cache_miss"]), int(counters["inductor"]["fxgraph_cache_hit"])

    def spent_by(self, outcome: Outcome) -> str | None:
        """On CUDA, an error of the CUDA runtime is sticky: a kernel's failed
        assertion (torch's bound check on an index: ``Assertion `idx_dim >= 0 &&
        idx_dim < index_size && "scatter gather kernel index out of bounds"`
        failed``, printed by the kernel on stderr) is raised as ``CUDA error:
        device-side assert triggered``, a kernel that faults (inductor's Triton
        code reading an empty axis) as ``CUDA error: unspecified launch
        failure``, and every later CUDA call of the process fails the same way:
        the worker must end (GPU check, torch 2.11.0+cu130 on an H200).

        >>> error = Outcome.raised(RuntimeError("CUDA error: device-side assert triggered"), ErrorClass.INTERNAL)
        >>> TorchOracle().spent_by(error) is None                 # not on the CPU
        True
        """
        if self.info().device == "cpu" or outcome.kind is not Kind.ERROR:
            return None
        message = outcome.message or ""
        return message.splitlines()[0] if message.startswith(STICKY_CUDA_ERROR) else None

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        self._last_op = op  # for classify: whether a negative value in the message was wrapped first
        return super().call(op, data, indices, attrs)

    def classify(self, exc: BaseException) -> ErrorClass:
        typed = classify_type(exc, self.types + ERROR_TYPES)  # the type first, the words after
        if typed is not None:
            return typed
        if says(str(exc).lower(), "tried to access index"):  # torch.take wraps negatives: -4 of 3 is just out of range
            return ErrorClass.INDEX_OUT_OF_RANGE
        if self._last_op in WRAPPING_NEGATIVES:  # x[-3] of 2: "index -3 is out of bounds" after wrapping once
            return classify_with(str(exc), self.patterns)
        return super().classify(exc)


STICKY_CUDA_ERROR = "CUDA error: "
"""How torch's messages of CUDA runtime errors begin: after one, every later CUDA call of the process fails."""

CUDA_ORACLES = ("torch-cuda", "torch-cuda-compile")
"""The oracles this module builds only where CUDA is available."""


def _build() -> list[Oracle]:
    import torch

    cuda = [TorchOracle("cuda:0"), TorchOracle("cuda:0", "compile")] if torch.cuda.is_available() else []
    return [TorchOracle("cpu"), TorchOracle("cpu", "compile"), *cuda]


def oracles_here() -> list[Oracle]:
    """ "torch" (CPU eager), "torch-compile" (CPU, inductor), and "torch-cuda" and "torch-cuda-compile"
    (inductor's Triton kernels) when CUDA is available."""
    return when_installed(("torch",), _build)


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> sorted(unavailable_here())                      # doctest: +SKIP
    ['torch-cuda', 'torch-cuda-compile']
    """
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return dict.fromkeys(CUDA_ORACLES, "torch is not installed")
    import torch

    if torch.cuda.is_available():
        return {}
    if torch.version.cuda is None:
        return dict.fromkeys(CUDA_ORACLES, f"this torch ({torch.__version__}) is built without CUDA")
    why = f"no CUDA device visible (torch {torch.__version__}, CUDA {torch.version.cuda}; device_count() == 0)"
    return dict.fromkeys(CUDA_ORACLES, why)
