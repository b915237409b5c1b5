"""Examples built to tell apart what a framework may make of an index beyond
int32, where the drawn ones cannot: every data dimension made 5 long, the
indices in range of the class case moved out of int32 by a multiple of
2**32 (reading the low 32 bits gives them back; clamping reads the last
element, wrapping another, a fill policy fills), or set just below the
unsigned limit (read as signed they are small negatives, which wrap once).
Used for a finding beyond int32 that no drawn example names.

>>> from conformance.spec.plans import EqClass
>>> cc = ClassCase(EqClass.FLAT, (2,), (1,), None, 0, "float32", "int64", "extreme", False, "contiguous", 0, 3)
>>> [(c.data_shape, i.tolist()) for c, _, i in beyond_int32_examples(cc)]
[((5,), [4294967298]), ((5,), [-4294967294])]
>>> cc = replace(cc, index_dtype="uint64")
>>> [i.tolist() for _, _, i in beyond_int32_examples(cc)]
[[4294967298], [18446744073709551614]]
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from conformance.cases.class_case import ClassCase, materialize
from conformance.core.vocabulary import Regime

SIDE = 5
"""Every data dimension's length: long enough that clamping, wrapping and
the low 32 bits of ``i + 2**32`` read different elements (2**32 % 5 == 1)."""


def beyond_int32_examples(cc: ClassCase) -> list[tuple[ClassCase, np.ndarray, np.ndarray]]:
    """``(class case, data, indices)`` built from ``cc`` (see the module docstring);
    none where ``cc``'s index dtype cannot hold an index beyond int32."""
    dtype = np.dtype(cc.index_dtype) if cc.index_dtype in ("int64", "uint64", "uint32") else None
    if dtype is None:
        return []
    wide = replace(cc, data_shape=tuple(SIDE if n else 0 for n in cc.data_shape), regime=Regime.IN_RANGE)
    data, k = materialize(wide)
    k = np.asarray(k).astype(object)
    limit = 2 ** (8 * dtype.itemsize)
    designs = [k + 2**32] if dtype.itemsize == 8 else []
    designs += [k - 2**32] if dtype.kind == "i" else [k * 0 + limit - 2]
    return [(wide, data, np.asarray(d, dtype=object).astype(dtype)) for d in designs]
