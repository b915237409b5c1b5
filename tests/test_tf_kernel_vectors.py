"""Vectors from TensorFlow's own kernel tests of ``tf.gather`` (``gather_op_test.py``:
``testString``, and the generated wrapper's ``batch_dims=None``), against the
reference and, where TensorFlow is installed, the eager oracle. Regressions of
issue 22: the reference refused both, which TF's tests pass."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from conformance import reference
from conformance.core.arrays import same_bits
from conformance.core.outcome import Kind

STRINGS = [[b"asdf", b"zxcv"], [b"qwer", b"uiop"]]

VECTORS: list[tuple[str, np.ndarray, Any, dict[str, Any], list[Any]]] = [
    ("bytes-axis0", np.array(STRINGS), 1, {"axis": 0}, [b"qwer", b"uiop"]),
    ("bytes-axis1", np.array(STRINGS), 0, {"axis": 1}, [b"asdf", b"qwer"]),
    ("object-axis0", np.array(STRINGS, dtype=object), 1, {"axis": 0}, [b"qwer", b"uiop"]),
    ("object-axis1", np.array(STRINGS, dtype=object), 0, {"axis": 1}, [b"asdf", b"qwer"]),
    (
        "batch-dims-none-axis0",
        np.array([6, 7, 8, 9]),
        [[2, 1], [0, 3]],
        {"axis": 0, "batch_dims": None},
        [[8, 7], [6, 9]],
    ),
    (
        "batch-dims-none-axis1",
        np.array([[1, 2, 3], [4, 5, 6]]),
        [2, 0],
        {"axis": 1, "batch_dims": None},
        [[3, 1], [6, 4]],
    ),
]


@pytest.mark.parametrize(("name", "data", "indices", "attrs", "expected"), VECTORS, ids=[v[0] for v in VECTORS])
def test_the_reference_agrees_with_tf_kernel_test_vectors(name, data, indices, attrs, expected) -> None:
    got = np.asarray(reference("tensorflow.gather", data, np.asarray(indices), **attrs))
    assert got.tolist() == expected, name


def test_batch_dims_none_is_read_as_tf_reads_it_the_default_0() -> None:
    data, idx = np.arange(12).reshape(3, 4), np.array([[1, 0], [2, 2]])
    assert same_bits(
        reference("tensorflow.gather", data, idx, axis=1, batch_dims=None),
        reference("tensorflow.gather", data, idx, axis=1, batch_dims=0),
    )


@pytest.mark.parametrize(("name", "data", "indices", "attrs", "expected"), VECTORS, ids=[v[0] for v in VECTORS])
def test_tensorflow_eager_gives_the_kernel_test_vectors(name, data, indices, attrs, expected) -> None:
    pytest.importorskip("tensorflow")
    from oracles.tensorflow_oracle import TensorflowOracle

    out = TensorflowOracle("eager").run_in_process("tensorflow.gather", data, np.asarray(indices), attrs)
    assert out.kind is Kind.VALUE, out.message
    assert np.asarray(out.value).tolist() == expected, name


EMPTY_STRING_THEN_ANY_COMPILE = """
import numpy as np, tensorflow as tf
gather_nd = tf.function(lambda x, y: tf.gather_nd(x, y), jit_compile=True, autograph=False)
try:
    gather_nd(tf.constant(np.zeros((0, 4), "<U2")), tf.constant(np.zeros((0, 4, 0), np.int16)))
except tf.errors.InvalidArgumentError:
    print("refused")  # XLA compiles no strings: as expected
gather = tf.function(lambda x, y: tf.gather(x, y), jit_compile=True, autograph=False)
print(gather(tf.constant(np.arange(3, dtype=np.int32)), tf.constant([1])).numpy())
"""


def test_tf_xla_still_aborts_on_the_compilation_after_an_empty_string_input() -> None:
    """TF 2.21's bug behind eleven false 'crash' findings on tensorflow-xla
    (found by hand, helper review C): an empty string tensor under XLA is
    refused, but the next compilation in the process aborts (SIGABRT, 'Check
    failed: DataTypeCanUseMemcpy(dtype())'). The oracle does not run empty
    strings under XLA (:data:`oracles.tensorflow_oracle.XLA_EMPTY_STRINGS`);
    when this test fails, TF is fixed and that exclusion can go."""
    pytest.importorskip("tensorflow")
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", EMPTY_STRING_THEN_ANY_COMPILE], check=False, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == -6 and "refused" in run.stdout, (run.returncode, run.stdout, run.stderr[-500:])
    assert "DataTypeCanUseMemcpy" in run.stderr


def test_an_empty_string_case_leaves_the_tf_xla_worker_able_to_compile_the_next_case() -> None:
    """The sequence that made a campaign blame an abort on an innocent int32
    case: the empty string case is not run (unsupported, saying why), and the
    next case answers in the same worker."""
    pytest.importorskip("tensorflow")
    from conformance.execution.isolation import IsolatedOracle
    from oracles.tensorflow_oracle import XLA_EMPTY_STRINGS

    with IsolatedOracle("tensorflow-xla", "oracles.tensorflow_oracle") as oracle:
        refused = oracle.run("tensorflow.gather_nd", np.zeros((0, 4), "<U2"), np.zeros((0, 4, 0), np.int16))
        pid = oracle.pid
        after = oracle.run("tensorflow.gather", np.arange(3, dtype=np.int32), np.array([1], np.int32), axis=0)
        assert oracle.pid == pid
    assert refused.kind is Kind.UNSUPPORTED and XLA_EMPTY_STRINGS in (refused.message or refused.describe())
    assert after.kind is Kind.VALUE and np.asarray(after.value).tolist() == [1]
