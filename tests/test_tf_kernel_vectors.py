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
