"""PyTorch eager: ``torch.gather``, ``torch.take``, ``torch.take_along_dim``
and ``torch.index_select``, on the CPU ("torch") and, where CUDA is
available, on ``cuda:0`` ("torch-cuda").

Inputs become torch tensors of the same dtype (bfloat16 through its bits,
and back the same way); torch has no string or object tensors, so those are
unsupported. uint16/32/64 tensors exist, so they are handed over and the op's
own error is the outcome.

>>> import numpy as np
>>> cpu = oracles_here()[0]
>>> cpu.run_in_process("torch.gather", np.array([[1, 2], [3, 4]]), np.array([[1], [0]]), {"dim": 1}).value.tolist()
[[2], [3]]
>>> cpu.run_in_process("torch.take", np.array(["a"]), np.array([0]), {}).describe()
'not supported: torch: data dtype str: torch has no string or object tensors'
"""

from __future__ import annotations

import numpy as np

from conformance.model import ErrorClass, OracleInfo
from conformance.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

TORCH_OPS = ("torch.gather", "torch.take", "torch.take_along_dim", "torch.index_select")

TORCH_UNITS = (
    OpUnit("torch.gather", "torch.gather(data, index=indices, **attrs)"),
    OpUnit("torch.take", "torch.take(data, indices, **attrs)"),
    OpUnit("torch.take_along_dim", "torch.take_along_dim(data, indices, **attrs)"),
    OpUnit("torch.index_select", "torch.index_select(data, index=indices, **attrs)"),
)

TORCH_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("dimension out of range",)),
    (ErrorClass.INDEX_OUT_OF_RANGE, ("out of bounds for dimension", "index out of range", "out of range: tried to access")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("not implemented for", "expected dtype", "expected a long tensor", "expected scalar type")),
    (ErrorClass.SHAPE_INVALID, ("same number of dimensions", "size of index", "index should be smaller", "must be broadcastable",
                                "index_select(): index", "shape mismatch", "must be 1-d")),
)  # fmt: skip

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


class TorchOracle(FrameworkOracle):
    """torch eager on one device."""

    patterns = TORCH_PATTERNS
    negative_rejected = True

    def __init__(self, device: str = "cpu") -> None:
        import torch

        name = "torch" if device == "cpu" else "torch-cuda"
        info = OracleInfo(name, "torch", torch.__version__, device, "eager", TORCH_OPS)
        super().__init__(info, TORCH_PRELUDE + f"\n\nDEVICE = {device!r}\n", EAGER, TORCH_UNITS)

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        return "torch has no string or object tensors" if a.dtype.kind in "USO" else None

    def classify(self, exc: BaseException) -> ErrorClass:
        if "tried to access index" in str(exc):  # torch.take wraps negatives: -4 of 3 is just out of range
            return ErrorClass.INDEX_OUT_OF_RANGE
        return super().classify(exc)


def _build() -> list[Oracle]:
    import torch

    devices = ["cpu"] + (["cuda:0"] if torch.cuda.is_available() else [])
    return [TorchOracle(d) for d in devices]


def oracles_here() -> list[Oracle]:
    """"torch" (CPU), and "torch-cuda" when CUDA is available."""
    return when_installed(("torch",), _build)
