"""TensorFlow: ``tf.gather`` (``axis``, ``batch_dims``) and ``tf.gather_nd``
(``batch_dims``), eager ("tensorflow") and compiled by XLA
("tensorflow-xla": the same call inside ``tf.function(jit_compile=True)``,
one compiled function per op and attributes).

Inputs become tensors of the same dtype via ``tf.constant`` (bfloat16 from
ml_dtypes maps to ``tf.bfloat16``; NumPy unicode to ``tf.string`` as UTF-8).
String results come back as ``bytes``; they are decoded to the input's own
NumPy dtype (:func:`oracles._common.strings_like`). Object arrays are
unsupported, and so are strings under XLA, which has no string type.

``tf.experimental.numpy.take_along_axis`` is *not* offered as
``numpy.take_along_axis``: out-of-range indices raise GatherV2's error
(close), but ``axis=None`` fails on eager tensors unless NumPy behaviour is
switched on process-wide, so it is not the same op.

>>> import numpy as np
>>> eager = oracles_here()[0]
>>> eager.run_in_process("tensorflow.gather", np.array(["a", "bé"]), np.array([1], np.int16), {}).value.tolist()
['bé']
>>> eager.run_in_process("tensorflow.gather", np.arange(3.0), np.array([-1]), {}).error_class.name
'NEGATIVE_INDEX'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from conformance.arrays import to_numpy
from oracles._common import FrameworkOracle, Patterns, bound, is_text, safely, strings_like
from conformance.model import ErrorClass
from oracles.base import Oracle

# TensorFlow's C++ start-up chatter is noise in a campaign log (errors are outcomes).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

TF_OPS = ("tensorflow.gather", "tensorflow.gather_nd")

TF_PATTERNS: Patterns = (
    (ErrorClass.INDEX_OUT_OF_RANGE, ("is not in [", "does not index into param shape")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("not in the list of allowed values", "not in list of allowed values",
                                    "no registered", "unsupported operations", "could not find device for node")),
    (ErrorClass.ATTRIBUTE_INVALID, ("batch_dims", "shape must be at least rank", "axis")),
    (ErrorClass.SHAPE_INVALID, ("innermost dimension", "shape", "rank", "dimension")),
)  # fmt: skip


def tf_function(op: str, attrs: dict[str, Any]) -> Callable[[Any, Any], Any]:
    """A plain function of (params, indices) calling the TF op with ``attrs`` bound.

    >>> tf_function("tensorflow.gather_nd", {"batch_dims": 0})([[1, 2]], [[0, 1]]).numpy().tolist()
    [2]
    """
    import tensorflow as tf

    a = bound(op, attrs)
    if op == "tensorflow.gather":
        return lambda p, i: tf.gather(p, i, axis=a["axis"], batch_dims=a["batch_dims"])
    return lambda p, i: tf.gather_nd(p, i, batch_dims=a["batch_dims"])


class TensorflowOracle(FrameworkOracle):
    """TF on the CPU, eager or XLA-compiled."""

    patterns = TF_PATTERNS
    negative_rejected = True

    def __init__(self, xla: bool = False) -> None:
        import tensorflow as tf

        super().__init__("tensorflow-xla" if xla else "tensorflow", "tensorflow", tf.__version__, "cpu", "xla" if xla else "eager", TF_OPS)
        self.xla = xla
        self._compiled: dict[tuple[str, tuple[tuple[str, Any], ...]], Callable[[Any, Any], Any]] = {}

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        if a.dtype.kind == "O":
            return "TensorFlow has no object tensors"
        if self.xla and is_text(a):
            return "XLA has no string type"
        return None

    def function(self, op: str, attrs: dict[str, Any]) -> Callable[[Any, Any], Any]:
        """The (cached, for XLA) callable for ``op`` with ``attrs``."""
        if not self.xla:
            return tf_function(op, attrs)
        key = (op, tuple(sorted(bound(op, attrs).items())))
        if key not in self._compiled:
            import tensorflow as tf

            self._compiled[key] = tf.function(tf_function(op, attrs), jit_compile=True)
        return self._compiled[key]

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        import tensorflow as tf

        with tf.device("/CPU:0"):
            out = self.function(op, attrs)(tf.constant(data), tf.constant(indices))
        value = to_numpy(out)
        return strings_like(value, data) if is_text(data) else value


def _build() -> list[Oracle]:
    return [TensorflowOracle(xla=False), TensorflowOracle(xla=True)]


def oracles_here() -> list[Oracle]:
    """"tensorflow" (eager) and "tensorflow-xla" (CPU) when TensorFlow imports."""
    return safely(_build)
