"""gather-conformance: one reference for every gather, and the catalog of the
framework ops mapped onto it.

>>> import numpy as np, conformance
>>> conformance.reference("torch.gather", np.array([[1, 2], [3, 4]]), np.array([[0, 0], [1, 0]]), dim=1).tolist()
[[1, 1], [4, 3]]
"""

from conformance.spec.catalog import Attr, OpSpec, ops, specs
from conformance.spec.catalog import spec as op_spec
from conformance.spec.multiaxis import gather_multiaxis
from conformance.spec.plans import EqClass, Plan
from conformance.spec.policy import (
    CLIP,
    MODULO,
    NONNEGATIVE,
    ONNX,
    POLICIES,
    WRAP_THEN_CLAMP,
    WRAP_THEN_FILL,
    ZERO_FILL,
    IndexPolicy,
)
from conformance.spec.reference import plan, reference

__all__ = [
    "CLIP",
    "MODULO",
    "NONNEGATIVE",
    "ONNX",
    "POLICIES",
    "WRAP_THEN_CLAMP",
    "WRAP_THEN_FILL",
    "ZERO_FILL",
    "Attr",
    "EqClass",
    "IndexPolicy",
    "OpSpec",
    "Plan",
    "gather_multiaxis",
    "op_spec",
    "ops",
    "plan",
    "reference",
    "specs",
]
