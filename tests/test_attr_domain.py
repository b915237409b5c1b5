"""The whole attribute domain (issue 22): every attribute of every catalog op is given every type of
value a user can pass, in the atlas and by the fuzzer; the reference states what the docs allow."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import find

from conformance.campaign.atlas_runner import expected_cells
from conformance.cases.probes import attr_condition_key, condition
from conformance.cases.strategies import class_cases
from conformance.cases.translate import role_attr
from conformance.core.oracle import OracleInfo
from conformance.core.vocabulary import AttrRole, AttrValue
from conformance.spec.catalog import specs
from conformance.spec.reference import reference

EVERY_OP = OracleInfo("all", "all", "1", "cpu", "eager", tuple(s.key for s in specs()))


def _role(name: str) -> AttrRole:
    return next(r for r in AttrRole if name in r.names)


def test_the_atlas_has_a_cell_for_every_attribute_of_every_op_and_every_value_type() -> None:
    cells = expected_cells({"all": EVERY_OP})
    counts: Counter[tuple[str, str, AttrValue]] = Counter()
    for s in specs():
        for a in s.attrs:
            role = _role(a.name)
            assert role_attr(s, role) == a.name
            for value in AttrValue:
                key = attr_condition_key(role, value)
                counts[(s.key, a.name, value)] += sum(1 for c in cells if c[0] == key and c[2] == s.key)
    missing = [k for k, n in counts.items() if n == 0]
    assert not missing, missing
    per_type = Counter(v for (_, _, v), n in counts.items() for _ in range(n))
    assert set(per_type) == set(AttrValue) and min(per_type.values()) >= len([1 for s in specs() for _ in s.attrs])


def test_attribute_domain_conditions_are_in_the_attributes_group() -> None:
    c = condition(attr_condition_key(AttrRole.BATCH_DIMS, AttrValue.FLOAT))
    assert c.key == "attr-batch-dims-float" and c.group.value == "attributes" and not c.policy


@pytest.mark.parametrize("value", [True, 1.5, "1", -(2**63), 2**63 - 1])
def test_the_reference_refuses_what_the_docs_do_not_allow_for_an_integer_attribute(value) -> None:
    data, idx = np.arange(6.0).reshape(2, 3), np.array([[0, 1]])
    with pytest.raises((TypeError, ValueError), match="batch_dims|axis"):
        reference("tensorflow.gather", data, idx, axis=1, batch_dims=value)


def test_the_reference_takes_numpy_integers_and_0d_integer_arrays_as_integers() -> None:
    data, idx = np.arange(6.0).reshape(2, 3), np.array([2, 0])
    for axis in (np.int64(1), np.array(1)):
        assert reference("numpy.take", data, idx, axis=axis).tolist() == [[2.0, 0.0], [5.0, 3.0]]


def test_the_reference_refuses_a_string_fill_value_a_non_bool_broadcast_and_an_unhashable_mode() -> None:
    data, idx = np.arange(3.0), np.array([1])
    with pytest.raises(TypeError, match="fill_value"):
        reference("jax.numpy.take", data, idx, axis=0, fill_value="1")
    with pytest.raises(TypeError, match="broadcast"):
        reference("paddle.take_along_axis", data, idx, axis=0, broadcast=1)
    with pytest.raises(ValueError, match="mode"):
        reference("numpy.take", data, idx, axis=0, mode=np.array(1))


def test_the_fuzzer_draws_other_types_of_attribute_values() -> None:
    cc = find(class_cases(), lambda c: c.attr_domain is not None)
    assert cc.attr_domain is not None and cc.attr_domain[1] in AttrValue
