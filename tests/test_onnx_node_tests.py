"""ONNX's own node tests for Gather, GatherElements and GatherND, loaded from
the installed ``onnx`` package (never copied), against the reference."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conformance import reference
from conformance.core.arrays import same_bits

onnx = pytest.importorskip("onnx", reason="onnx is not installed (extra: onnx)")
from onnx import helper
from onnx.backend.test.case.node import collect_testcases

OPS = ("Gather", "GatherElements", "GatherND")


def _gather_cases() -> dict[str, object]:
    """Every node test case whose node is one of OPS. ``collect_testcases``
    only filters by op type on its first call in a process (it imports the
    case modules once), so collect them all and filter here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    return {c.name: c for c in cases if c.model is not None and c.model.graph.node[0].op_type in OPS}


CASES = _gather_cases()


def test_onnx_ships_node_tests_for_every_gather_op() -> None:
    ops = {c.model.graph.node[0].op_type for c in CASES.values()}
    assert ops == set(OPS)
    assert {
        "test_gather_0",
        "test_gather_negative_indices",
        "test_gather_elements_negative_indices",
        "test_gathernd_example_int32_batch_dim1",
    } <= set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_equals_onnx_node_test_expected_output(name: str) -> None:
    case = CASES[name]
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset = next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
    assert case.data_sets, name
    for inputs, outputs in case.data_sets:
        data, indices = (np.asarray(a) for a in inputs)
        got = reference(f"onnx.{node.op_type}", data, indices, opset=opset, **attrs)
        assert same_bits(np.asarray(got), np.asarray(outputs[0])), f"{name}: got {got!r}, want {outputs[0]!r}"
