"""TensorFlow NumPy: ``tf.experimental.numpy.take`` (``axis`` incl. None,
``mode`` "clip"/"wrap"/"raise") and ``tf.experimental.numpy.take_along_axis``
(``axis`` incl. None), eager on the CPU ("tensorflow-numpy").

Its prelude calls ``tf.experimental.numpy.experimental_enable_numpy_behavior()``,
as the TF NumPy guide tells users to (``take_along_axis(axis=None)`` needs it:
it reshapes with a NumPy-style ``Tensor.reshape``). That switch is
process-wide and cannot be undone, so this oracle lives in a module of its own
with an entry point of its own (``tensorflow-numpy`` in ``pyproject.toml``):
its worker is the only process that imports this module, and the plain
``tensorflow`` oracles (:mod:`oracles.tensorflow_oracle`) keep TensorFlow's own
behaviour. Inputs and answers convert as there (``to_native`` and ``to_numpy``
are the same text), object arrays included: TensorFlow makes ``tf.string`` of
one of bytes and refuses one of ints itself ("Failed to convert a NumPy array to
a Tensor"), as the plain oracles observe.

>>> import numpy as np
>>> (o,) = oracles_here()
>>> o.run_in_process("tensorflow.experimental.numpy.take", np.arange(3.0), np.array([-1, 5]),
...     {"axis": None, "mode": "clip"}).value.tolist()
[0.0, 2.0]
>>> o.run_in_process("tensorflow.experimental.numpy.take_along_axis", np.arange(6.0).reshape(2, 3), np.array([4, -1]),
...     {"axis": None}).value.tolist()
[4.0, 5.0]
"""

from __future__ import annotations

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.execution.glance import EAGER_RUN, Snippet
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle
from oracles.tensorflow_oracle import TF_EAGER, TF_PATTERNS, TF_PRELUDE, tf_snippet

TNP_OPS = ("tensorflow.experimental.numpy.take", "tensorflow.experimental.numpy.take_along_axis")

TNP_UNITS = (
    OpUnit("tensorflow.experimental.numpy.take", "tnp.take(data, indices, **attrs)"),
    OpUnit("tensorflow.experimental.numpy.take_along_axis", "tnp.take_along_axis(data, indices, **attrs)"),
)

TNP_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("mode to take is not supported", "invalid mode")),
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        ("out_type",),
    ),  # int8/uint indices: "Value for attr 'out_type' of int8 is not in the list ..."
    *TF_PATTERNS,
)

TNP_PRELUDE = (
    TF_PRELUDE
    + """
tnp = tf.experimental.numpy
tnp.experimental_enable_numpy_behavior()  # process-wide, as the TF NumPy guide says to
"""
)


class TfNumpyOracle(FrameworkOracle):
    """tf.experimental.numpy with NumPy behaviour switched on, eager, on the CPU."""

    patterns = TNP_PATTERNS

    def __init__(self) -> None:
        import tensorflow as tf

        info = OracleInfo("tensorflow-numpy", "tensorflow", tf.__version__, "cpu", "eager (numpy behavior)", TNP_OPS)
        super().__init__(info, TNP_PRELUDE, TF_EAGER, TNP_UNITS)

    def snippet(self, case: Case) -> Snippet:
        """TensorFlow's frame with NumPy behaviour on, as the prelude switches it."""
        return tf_snippet(EAGER_RUN, ("tnp = tf.experimental.numpy", "tnp.experimental_enable_numpy_behavior()"))


def oracles_here() -> list[Oracle]:
    """ "tensorflow-numpy" when TensorFlow is installed."""
    return when_installed(("tensorflow",), lambda: [TfNumpyOracle()])
