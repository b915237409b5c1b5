"""Which findings stand behind an atlas cell: the same op family and oracle
(:func:`conformance.judge.rootcause.family`), a cell that departs from the docs,
and a finding whose condition (the root cause's tags) the cell's probe case
meets, read the way :func:`conformance.judge.rootcause.condition` writes it:

* ``data:<dtype>`` / ``index:<dtype>``: the probe's data or index dtype
  (``complex`` for both complex widths); a ``dtype rejected`` finding only
  where the cell rejects the dtype, other dtype findings (NaN payloads) only where it does not;
* ``empty output``: the cell returned an empty output unchecked;
* ``precondition: <rule>``: the reference rejects the probe for that rule;
* ``empty data``: the probe's data is empty;
* ``undocumented dtype``: a dtype the op's docs do not list;
* an internal error, a crash or a timeout only where the cell shows one;
* otherwise the index regime, with the structural flags (``0-d``,
  ``batch_dims>0``) the probe has; and where the finding names a policy, the
  cell's behaviour is that policy.

>>> import numpy as np
>>> from conformance.results.atlas import AtlasCell
>>> from conformance.results.finding import Finding
>>> from conformance.judge.signature import Signature
>>> from conformance.core.case import Case, CaseTags
>>> case = Case("torch.gather", np.arange(5.0), np.array([-1]), {"dim": 0}, CaseTags("negative", "int64", "float"))
>>> cell = AtlasCell("negative", "element gather", "torch.gather", "torch", "2.13.0", "wraps", None, False,
...                  {**case.to_json(), "reference": "error IndexError (index out of range)", "observed": "value float64[1]"})
>>> sig = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps", ("negative",))
>>> f = Finding(sig, case, None, {})
>>> [g.signature.tags for g in cell_findings(cell, FindingIndex([f]))]
[('negative',)]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from conformance.core.arrays import dtype_family, dtype_name
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.outcome import ErrorClass
from conformance.judge.rootcause import STRUCTURAL_FLAGS, family, precondition_rule
from conformance.judge.verdict import DTYPE_REJECTED, reference_outcome
from conformance.results.atlas import AtlasCell
from conformance.results.finding import Finding
from conformance.spec.catalog import spec


def op_family(op: str) -> str:
    """An op key's family, or the key itself where it is none.

    >>> op_family("onnx.Gather-13"), op_family("weird")
    ('onnx.Gather', 'weird')
    """
    try:
        return family(op)
    except ValueError:
        return op


HARD_OUTCOMES = {
    "internal error": Behaviour.INTERNAL.value,
    "crash": Behaviour.CRASH.value,
    "timeout": Behaviour.TIMEOUT.value,
}
"""Finding outcomes that match only a cell of the same behaviour."""


class FindingIndex:
    """Findings by (op family, oracle), for matching cells quickly."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.by: dict[tuple[str, str], list[Finding]] = {}
        for f in findings:
            self.by.setdefault((op_family(f.signature.op), f.signature.oracle), []).append(f)

    def candidates(self, cell: AtlasCell) -> list[Finding]:
        return self.by.get((op_family(cell.op), cell.oracle), [])


class Probe:
    """A cell's probe case, decoded once, with the reference's precondition rule on demand."""

    def __init__(self, cell: AtlasCell) -> None:
        self.cell = cell
        self.case = Case.from_json(cell.example)

    @property
    def data_dtype(self) -> str:
        return dtype_name(np.asarray(self.case.data).dtype)

    @property
    def index_dtype(self) -> str:
        return np.asarray(self.case.indices).dtype.name

    @cached_property
    def rule(self) -> str | None:
        """The precondition the reference says the probe breaks, if it raises one."""
        try:
            ref = reference_outcome(self.case)
        except Exception:  # noqa: BLE001 - a probe the reference cannot judge matches no precondition
            return None
        if ref.error_class not in (ErrorClass.SHAPE_INVALID, ErrorClass.ATTRIBUTE_INVALID):
            return None
        return precondition_rule(ref.message or "")


def _dtype_matches(word: str, dtype: str) -> bool:
    return word == dtype or (word == "complex" and dtype_family(dtype) == "complex")


def matches(finding: Finding, probe: Probe) -> bool:
    """Whether ``finding``'s condition is the probe's (see the module docstring)."""
    sig, cell, case = finding.signature, probe.cell, probe.case
    if sig.policy and sig.policy != cell.behaviour:
        return False
    if sig.outcome in HARD_OUTCOMES and HARD_OUTCOMES[sig.outcome] != cell.behaviour:
        return False
    if not sig.tags:
        return cell.behaviour == Behaviour.PROTOCOL.value
    first = sig.tags[0]
    rejects = cell.behaviour == Behaviour.DTYPE_REJECTED.value
    if first.startswith(("data:", "index:")):
        arg, _, word = first.partition(":")
        dtype = probe.data_dtype if arg == "data" else probe.index_dtype
        return _dtype_matches(word, dtype) and (sig.outcome == DTYPE_REJECTED) == rejects
    if rejects or first == "undocumented dtype":
        s = spec(case.op)
        return first == "undocumented dtype" and (
            probe.data_dtype not in s.data_dtypes or probe.index_dtype not in s.index_dtypes
        )
    if first == "empty output":
        return cell.behaviour == Behaviour.UNCHECKED.value
    if first.startswith("precondition: "):
        return probe.rule == first.removeprefix("precondition: ")
    if first == "empty data":
        return np.asarray(case.data).size == 0 and str(cell.example.get("reference", "")).startswith("value")
    tags = case.tags
    if tags is None or tags.regime != first:
        return False
    return bool(sig.policy) or set(sig.tags[1:]) == {f for f in STRUCTURAL_FLAGS if f in tags.flags}


def cell_findings(cell: AtlasCell, index: FindingIndex) -> list[Finding]:
    """The findings behind a cell that departs from its docs (none behind one that conforms)."""
    if cell.documented:
        return []
    candidates = index.candidates(cell)
    if not candidates:
        return []
    try:
        probe = Probe(cell)
    except (KeyError, TypeError, ValueError):
        return []
    return [f for f in candidates if matches(f, probe)]
