"""TensorFlow: ``tf.gather`` (``axis``, ``batch_dims``) and ``tf.gather_nd``
(``batch_dims``) on the CPU: eager ("tensorflow"), as a graph
("tensorflow-function": the same call inside ``tf.function(jit_compile=False)``)
and compiled by XLA ("tensorflow-xla": ``tf.function(jit_compile=True)``), one
function per op and attributes.

Inputs become tensors of the same dtype via ``tf.constant`` (bfloat16 from
ml_dtypes maps to ``tf.bfloat16``; NumPy unicode to ``tf.string`` as UTF-8).
String results come back as ``bytes``; they are decoded to the input's own
NumPy dtype (``strings_like``, :data:`oracles._common.STRINGS_LIKE`). Object
arrays reach ``tf.constant`` as they are: of bytes or str they are ``tf.string``
(TF's own kernel tests gather them), of anything else TF refuses them itself.
Strings under XLA are run too: what XLA does with them (an error when the
function is compiled) is observed, not declared; all but empty ones
(:data:`XLA_EMPTY_STRINGS`: one poisons the worker's next compilation).

``tf.experimental.numpy`` has an oracle of its own
(:mod:`oracles.tf_numpy_oracle`): its NumPy behaviour is switched on process-wide.

>>> import numpy as np
>>> eager, function, xla = oracles_here()
>>> eager.run_in_process("tensorflow.gather", np.array(["a", "bé"]), np.array([1], np.int16), {}).value.tolist()
['bé']
>>> eager.run_in_process("tensorflow.gather", np.arange(3.0), np.array([-1]), {}).error_class.name
'NEGATIVE_INDEX'
>>> xla.run_in_process("tensorflow.gather", np.arange(3.0), np.array([3]), {}).value.tolist()  # XLA clamps
[2.0]
"""

from __future__ import annotations

import numpy as np

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import EAGER_RUN, Snippet
from oracles._common import STRINGS_LIKE, FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

TF_OPS = ("tensorflow.gather", "tensorflow.gather_nd")

TF_UNITS = (
    OpUnit("tensorflow.gather", "tf.gather(data, indices, **attrs)"),
    OpUnit("tensorflow.gather_nd", "tf.gather_nd(data, indices, **attrs)"),
)

TF_PATTERNS: Patterns = (
    (ErrorClass.INDEX_OUT_OF_RANGE, ("is not in [", "does not index into param shape", "but params is empty")),
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        (
            "not in the list of allowed values",
            "not in list of allowed values",
            "no registered",
            "unsupported operations",
            "could not find device for node",
        ),
    ),
    (ErrorClass.ATTRIBUTE_INVALID, ("batch_dims", "shape must be at least rank", "axis")),
    (ErrorClass.SHAPE_INVALID, ("innermost dimension*", "shape*", "rank*", "dimension*")),
)

TF_PRELUDE = (
    '''
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ start-up chatter is noise (errors are outcomes)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def to_native(a):
    """A CPU tensor of a's own dtype (ml_dtypes' bfloat16 is tf.bfloat16, str is tf.string as UTF-8)."""
    with tf.device("/CPU:0"):
        return tf.constant(a)


def to_numpy(x, like):
    """The tensor's bits as NumPy; a string answer (bytes) in like's own string dtype."""
    value = np.asarray(x.numpy())
    return strings_like(value, like) if like.dtype.kind in "US" else value
'''
    + STRINGS_LIKE
)

TF_EAGER = '''
def prepare(call, attrs):
    """Eager: the op runs as called, on the CPU."""
    def run(data, indices):
        with tf.device("/CPU:0"):
            return call(data, indices, attrs)
    return run
'''

TF_XLA = '''
def prepare(call, attrs):
    """XLA: the op compiled by tf.function(jit_compile=True), its attributes constants, run on the CPU."""
    compiled = tf.function(lambda data, indices: call(data, indices, attrs), jit_compile=True, autograph=False)

    def run(data, indices):
        with tf.device("/CPU:0"):
            return compiled(data, indices)
    return run
'''

TF_FUNCTION = TF_XLA.replace("XLA: the op compiled", "A graph: the op traced").replace(
    "jit_compile=True", "jit_compile=False"
)
"""``tf.function`` without XLA: the op traced into a graph (one trace per input signature) and run by TF's own
kernels."""

TF_MODES = {"eager": TF_EAGER, "function": TF_FUNCTION, "xla": TF_XLA}

TF_RUNS = {
    "eager": EAGER_RUN,
    "function": ("out = tf.function(lambda data, indices: {call}, jit_compile=False)(data, indices)",),
    "xla": ("out = tf.function(lambda data, indices: {call}, jit_compile=True)(data, indices)",),
}
"""Each mode in a short script (:class:`~conformance.execution.glance.Snippet`): eager, a graph, XLA."""

TF_ON_CPU = 'tf.config.set_visible_devices([], "GPU")  # on the CPU, as the oracle runs it'
"""A short script's setting: the CPU, where the oracles pin every call."""


def tf_snippet(run: tuple[str, ...], setup: tuple[str, ...] = ()) -> Snippet:
    """A short script's frame for TensorFlow: ``tf.constant`` inputs (strings as ``tf.string``), the answer's
    NumPy value; ``run``: the mode (:data:`TF_RUNS`), ``setup``: lines after :data:`TF_ON_CPU`.

    >>> tf_snippet(TF_RUNS["xla"]).with_call("tf.gather(data, indices)").output
    '{out}.numpy()'
    """
    native = "tf.constant({array})"
    return Snippet(
        ("import tensorflow as tf",),
        data=native,
        indices=native,
        setup=(TF_ON_CPU, *setup),
        run=run,
        output="{out}.numpy()",
    )


XLA_EMPTY_STRINGS = (
    "an empty string tensor under XLA has no answer of its own: TF 2.21 refuses it ('Detected unsupported operations') "
    "in a process that compiled nothing yet, keeps it in its compilation cache and aborts at the next compilation, and "
    "aborts on it at once after any earlier compilation (tensor.cc:1593 Check failed: DataTypeCanUseMemcpy(dtype())): "
    "what it does depends on the cases before it"
)
"""Why empty string data is unsupported on tensorflow-xla (a TF bug found by hand; see
tests/test_tf_kernel_vectors.py, which fails once TF no longer aborts). The call can be written, but run it is the
worker's history that answers: refused in a fresh worker, an abort in a used one (checked by hand: an int32
``tf.gather`` compiled first, then the empty string ``tf.gather_nd``, aborts), and whichever case came next
aborted in the other order."""


class TensorflowOracle(FrameworkOracle):
    """TF on the CPU in one of :data:`TF_MODES`."""

    patterns = TF_PATTERNS
    negative_rejected = True

    def __init__(self, mode: str = "eager") -> None:
        import tensorflow as tf

        name = "tensorflow" if mode == "eager" else f"tensorflow-{mode}"
        info = OracleInfo(name, "tensorflow", tf.__version__, "cpu", mode, TF_OPS, compiles=mode != "eager")
        super().__init__(info, TF_PRELUDE, TF_MODES[mode], TF_UNITS)

    def snippet(self, case: Case) -> Snippet:
        return tf_snippet(TF_RUNS[self.info().mode])

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        """Empty string data under XLA (:data:`XLA_EMPTY_STRINGS`); nothing else.

        >>> _, _, xla = oracles_here()
        >>> xla.dtype_problem("tensorflow.gather", DtypeArg.DATA, np.array([], str)) == XLA_EMPTY_STRINGS
        True
        >>> xla.dtype_problem("tensorflow.gather", DtypeArg.DATA, np.array(["a"])) is None
        True
        """
        empty_strings = arg is DtypeArg.DATA and a.dtype.kind in "USO" and a.size == 0
        return XLA_EMPTY_STRINGS if empty_strings and self.info().mode == "xla" else None


def _build() -> list[Oracle]:
    return [TensorflowOracle(mode) for mode in TF_MODES]


def oracles_here() -> list[Oracle]:
    """ "tensorflow" (eager), "tensorflow-function" and "tensorflow-xla" (CPU) when TensorFlow is installed."""
    return when_installed(("tensorflow",), _build)
