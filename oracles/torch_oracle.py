"""PyTorch eager: ``torch.gather``, ``torch.take``, ``torch.take_along_dim``
and ``torch.index_select``, on the CPU ("torch") and, where CUDA is
available, on ``cuda:0`` ("torch-cuda").

Inputs become torch tensors of the same dtype (bfloat16 through its bits,
like :func:`conformance.arrays.to_numpy` on the way back); torch has no
string or object tensors, so those are unsupported. uint16/32/64 tensors
exist, so they are handed over and the op's own error is the outcome.

>>> import numpy as np
>>> cpu = oracles_here()[0]
>>> cpu.run_in_process("torch.gather", np.array([[1, 2], [3, 4]]), np.array([[1], [0]]), {"dim": 1}).value.tolist()
[[2], [3]]
>>> cpu.run_in_process("torch.take", np.array(["a"]), np.array([0]), {}).describe()
'not supported: torch: data dtype str: torch has no string or object tensors'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.arrays import BFLOAT16, to_numpy
from oracles._common import FrameworkOracle, Patterns, bound, safely
from conformance.model import ErrorClass
from oracles.base import Oracle

TORCH_OPS = ("torch.gather", "torch.take", "torch.take_along_dim", "torch.index_select")

TORCH_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("dimension out of range",)),
    (ErrorClass.INDEX_OUT_OF_RANGE, ("out of bounds for dimension", "index out of range", "out of range: tried to access")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("not implemented for", "expected dtype", "expected a long tensor", "expected scalar type")),
    (ErrorClass.SHAPE_INVALID, ("same number of dimensions", "size of index", "index should be smaller", "must be broadcastable",
                                "index_select(): index", "shape mismatch", "must be 1-d")),
)  # fmt: skip


def to_torch(a: np.ndarray, device: str) -> Any:
    """The torch tensor holding exactly ``a`` (bfloat16 via its int16 bits).

    >>> to_torch(np.array([1.5], dtype=BFLOAT16), "cpu").dtype
    torch.bfloat16
    """
    import torch

    a = np.array(a, copy=True, order="C")  # writeable and contiguous; never a cast
    if a.dtype == BFLOAT16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).to(device)
    return torch.from_numpy(a).to(device)


def torch_call(op: str, data: Any, index: Any, attrs: dict[str, Any]) -> Any:
    """Call the torch function behind catalog ``op`` the way its users do.

    >>> import torch
    >>> torch_call("torch.take_along_dim", torch.tensor([[1, 2]]), torch.tensor([1]), {}).tolist()
    [2]
    """
    import torch

    a = bound(op, attrs)
    if op == "torch.take":
        return torch.take(data, index)
    if op == "torch.take_along_dim":
        return torch.take_along_dim(data, index, dim=a["dim"]) if a["dim"] is not None else torch.take_along_dim(data, index)
    fn = torch.gather if op == "torch.gather" else torch.index_select
    return fn(data, a["dim"], index)


class TorchOracle(FrameworkOracle):
    """torch eager on one device."""

    patterns = TORCH_PATTERNS
    negative_rejected = True

    def __init__(self, device: str = "cpu") -> None:
        import torch

        name = "torch" if device == "cpu" else "torch-cuda"
        super().__init__(name, "torch", torch.__version__, device, "eager", TORCH_OPS)
        self.device = device

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        return "torch has no string or object tensors" if a.dtype.kind in "USO" else None

    def classify(self, exc: BaseException) -> ErrorClass:
        if "tried to access index" in str(exc):  # torch.take wraps negatives: -4 of 3 is just out of range
            return ErrorClass.INDEX_OUT_OF_RANGE
        return super().classify(exc)

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        return to_numpy(torch_call(op, to_torch(data, self.device), to_torch(indices, self.device), attrs))


def _build() -> list[Oracle]:
    import torch

    devices = ["cpu"] + (["cuda:0"] if torch.cuda.is_available() else [])
    return [TorchOracle(d) for d in devices]


def oracles_here() -> list[Oracle]:
    """"torch" (CPU), and "torch-cuda" when CUDA is available."""
    return safely(_build)
