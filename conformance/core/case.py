"""What a case is: one call of a catalog op (:class:`Case`), the op's typed
identity (:class:`OpKey`) and what the campaign classified the case as
(:class:`CaseTags`).

>>> OpKey.parse("onnx.Gather-13")
OpKey(framework='onnx', name='Gather', opset=13)
>>> str(OpKey.parse("jax.numpy.take"))
'jax.numpy.take'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from conformance.core.encoding import decode_array, decode_attrs, encode_array, encode_attrs
from conformance.core.vocabulary import Flag, Pattern, Regime


@dataclass(frozen=True, order=True)
class OpKey:
    """A catalog op's identity: framework, name and (ONNX) opset, parsed and
    printed here and nowhere else.

    >>> OpKey("onnx", "GatherND", 12).family
    'onnx.GatherND'
    >>> OpKey.parse("torch.gather").opset is None
    True
    """

    framework: str
    name: str
    opset: int | None = None

    @classmethod
    def parse(cls, key: str) -> OpKey:
        """``"onnx.Gather-13"`` -> ``OpKey("onnx", "Gather", 13)``; a ValueError
        for a key with no framework prefix."""
        framework, dot, rest = key.partition(".")
        if not dot or not framework or not rest:
            raise ValueError(f"op key {key!r} must look like 'framework.name' or 'onnx.Name-OPSET'")
        head, dash, tail = rest.rpartition("-")
        if dash and tail.isdigit():
            return cls(framework, head, int(tail))
        return cls(framework, rest)

    @property
    def family(self) -> str:
        """The op without its opset: ``onnx.Gather`` for every Gather version."""
        return f"{self.framework}.{self.name}"

    def __str__(self) -> str:
        return f"{self.family}-{self.opset}" if self.opset is not None else self.family


@dataclass(frozen=True)
class CaseTags:
    """What a translated case is, as the campaign classifies it.

    >>> t = CaseTags(Regime.OOB_ABOVE, "int8", "float", Pattern.BCAST, frozenset({Flag.ZERO_D}))
    >>> t.words()
    'oob-above, idx:int8, data:float, bcast, 0-d'
    >>> CaseTags.from_json(t.to_json()) == t
    True
    """

    regime: Regime
    index_dtype: str
    data_family: str
    pattern: Pattern | None = None
    """How an element case's other dimensions relate (same-shape, bcast, window, mismatch)."""
    flags: frozenset[Flag] = frozenset()
    """Structural facts: ``empty-data``, ``0-d``, ``batch_dims>0``, ``non-contiguous``."""

    def __post_init__(self) -> None:
        """Words given as plain strings become vocabulary members (a ValueError for an unknown one)."""
        object.__setattr__(self, "regime", Regime(self.regime))
        object.__setattr__(self, "pattern", Pattern(self.pattern) if self.pattern is not None else None)
        object.__setattr__(self, "flags", frozenset(Flag(f) for f in self.flags))

    def words(self) -> str:
        parts = [self.regime.value, f"idx:{self.index_dtype}", f"data:{self.data_family}"]
        return ", ".join(parts + ([self.pattern.value] if self.pattern else []) + sorted(f.value for f in self.flags))

    def to_json(self) -> dict[str, Any]:
        return {
            "regime": self.regime.value,
            "index_dtype": self.index_dtype,
            "data_family": self.data_family,
            "pattern": self.pattern.value if self.pattern else None,
            "flags": sorted(f.value for f in self.flags),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CaseTags:
        return cls(d["regime"], d["index_dtype"], d["data_family"], d.get("pattern"), frozenset(d.get("flags", ())))


@dataclass
class Case:
    """One concrete input to a catalog op, in that op's own convention: the
    call an oracle runs and the reproducer a finding keeps (``tags``: what the
    campaign classified it as; None for a hand-made case).

    >>> Case("numpy.take", np.arange(3), np.array([2]), {"axis": 0}).key
    OpKey(framework='numpy', name='take', opset=None)
    """

    op: str
    data: np.ndarray
    indices: np.ndarray
    attrs: Mapping[str, Any] = field(default_factory=dict)
    tags: CaseTags | None = None

    @property
    def key(self) -> OpKey:
        return OpKey.parse(self.op)

    def to_json(self) -> dict[str, Any]:
        """Bit-exact JSON form (see :func:`encode_array`)."""
        return {
            "op": self.op,
            "data": encode_array(self.data),
            "indices": encode_array(self.indices),
            "attrs": encode_attrs(self.attrs),
            "tags": self.tags.to_json() if self.tags else None,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Case:
        tags = CaseTags.from_json(d["tags"]) if d.get("tags") else None
        return cls(d["op"], decode_array(d["data"]), decode_array(d["indices"]), decode_attrs(d["attrs"]), tags)


CaseLike = Case | tuple
"""A :class:`Case`, or a tuple ``(op, data, indices)`` / ``(op, data, indices, attrs)``."""


def as_case(case: CaseLike) -> Case:
    """A :class:`Case` from a case or a 3- or 4-tuple.

    >>> as_case(("numpy.take", np.arange(3), np.array([1]))).attrs
    {}
    """
    if isinstance(case, Case):
        return case
    if len(case) not in (3, 4):
        raise TypeError(f"a case is (op, data, indices[, attrs]), got a {len(case)}-tuple")
    op, data, indices, *rest = case
    return Case(op, data, indices, dict(rest[0]) if rest else {})


def int_reading(value: Any) -> int | None:
    """The int an attribute's ``value`` reads as in Python (``int(value)``), for a value the docs do not type as an
    int: a bool, a float (truncated), a string of digits, a NumPy integer or 0-d integer array; None for an int
    itself, None, a string that is no int, a non-finite float or any other value. The attribute domain's probes give
    ``batch_dims='1'``, ``1.5`` or ``True`` on shapes where 1 is valid, so a framework that reads them shows it
    (:mod:`conformance.cases.probes`).

    >>> [int_reading(v) for v in (True, 1.5, "1", np.int64(1), np.array(1), 1, None, "one", float("nan"))]
    [1, 1, 1, 1, 1, None, None, None, None]
    """
    if isinstance(value, (bool, np.bool_, float, np.floating, str, np.integer)) or (
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iub"
    ):
        try:
            return int(value)
        except (ValueError, OverflowError):
            return None
    return None
