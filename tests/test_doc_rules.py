"""Rules read against the op's own docs (issue 22): where the docs defer to another
op's rule, the catalog follows the rule deferred to, and the atlas judges by it."""

from __future__ import annotations

import numpy as np
import pytest

from conformance.core.behaviour import Behaviour
from conformance.spec.catalog import spec
from conformance.spec.plans import EqClass
from conformance.spec.policy import ONNX
from conformance.spec.reference import reference


def test_torch_take_along_dim_follows_numpy_take_along_axis_as_its_docs_defer_to_it() -> None:
    assert spec("torch.take_along_dim").policy == spec("numpy.take_along_axis").policy == ONNX
    data = np.arange(6.0).reshape(2, 3)
    idx = np.array([[-1], [-3]])
    expected = np.take_along_axis(data, idx, axis=1)
    assert reference("torch.take_along_dim", data, idx, dim=1).tolist() == expected.tolist() == [[2.0], [3.0]]
    assert reference("torch.take_along_dim", data, np.array([-1]), dim=None).tolist() == [5.0]


@pytest.fixture(scope="module")
def torch_along_atlas():
    from conformance.campaign.atlas_runner import run_atlas
    from conformance.execution import registry

    if "torch" not in registry.available():
        pytest.skip("needs torch")
    oracle = registry.get("torch")
    try:
        yield run_atlas([oracle], {oracle.name: oracle.info()}, ["torch.take_along_dim"])
    finally:
        oracle.close()


def test_the_atlas_shows_torch_take_along_dim_with_a_dim_conforming_on_negative_indices(torch_along_atlas) -> None:
    """Regression: the catalog held take_along_dim to [0, size), a false finding on torch's NumPy-style wrapping."""
    for condition in ("negative", "minus-size"):
        cell = torch_along_atlas.cell(condition, EqClass.ELEMENT.value, "torch.take_along_dim", "torch")
        assert cell.example["attrs"] == {"dim": 1}
        assert cell.documented and cell.behaviour is Behaviour.WRAPS, cell.example


def test_the_atlas_still_probes_torch_take_along_dim_with_dim_none_on_negative_indices(torch_along_atlas) -> None:
    """With dim=None torch 2.13 raises 'index -1 is out of bounds for dimension 0 with size 6' where NumPy wraps."""
    cell = torch_along_atlas.cell("negative", EqClass.FLAT.value, "torch.take_along_dim", "torch")
    assert cell.example["attrs"] == {"dim": None}
    assert not cell.documented and cell.behaviour is Behaviour.RAISES, cell.example
