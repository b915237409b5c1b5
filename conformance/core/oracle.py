"""Who answered: an oracle's facts (:class:`OracleInfo`), the reproducer it
writes (:class:`Reproducer`) and the one protocol every oracle meets
(:class:`Oracle`; a plug-in's in-process oracle meets :class:`InProcessOracle` too).

>>> OracleInfo.from_json(OracleInfo("n", "f", "1", "cpu", "eager", ("a.b",)).to_json()).ops
('a.b',)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

import numpy as np

from conformance.core.case import Case
from conformance.core.outcome import Outcome


@dataclass(frozen=True)
class OracleInfo:
    """The facts a result is worthless without.

    >>> OracleInfo.from_json(OracleInfo("n", "f", "1", "cpu", "eager", ("a.b",)).to_json()).ops
    ('a.b',)
    """

    name: str
    framework: str
    version: str
    device: str
    mode: str
    ops: tuple[str, ...] = field(default_factory=tuple)
    bits: int = 64  # 32 where the framework documents that 64-bit inputs become 32-bit (JAX with x64 off)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ops": list(self.ops)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> OracleInfo:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known and k != "ops"}, ops=tuple(d.get("ops", ())))


@dataclass(frozen=True)
class Reproducer:
    """A standalone Python script that re-runs one case on one oracle (its
    framework, device and execution mode) and exits 1 printing ``REPRODUCED``
    when the discrepancy is still there, 0 when it is not; ``attachments`` are
    files that go beside it (an ONNX model), name -> bytes.

    >>> Reproducer("numpy", "print('hi')").filename
    'repro_numpy.py'
    """

    oracle: str
    text: str
    attachments: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def filename(self) -> str:
        return f"repro_{self.oracle.replace('-', '_')}.py"


class InProcessOracle(Protocol):
    """What the execution layer needs of an oracle plug-in (``oracles.base.Oracle``
    implements it): its name and facts, and one case run here, as an Outcome."""

    name: str

    def info(self) -> OracleInfo: ...

    def run_in_process(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Outcome: ...

    def reproducer(self, case: Case, reference: Outcome, observed: Outcome | None = None) -> Reproducer: ...


class Oracle(Protocol):
    """What the campaign, the gate and the execution layer need of an oracle:
    an :class:`~conformance.execution.isolation.IsolatedOracle`, an in-process
    plug-in (``oracles.base.Oracle``) or a test fake."""

    name: str

    def info(self) -> OracleInfo: ...

    def run_many(self, cases: Sequence[Case]) -> list[Outcome]: ...

    def reproducer(self, case: Case, reference: Outcome, observed: Outcome | None = None) -> Reproducer: ...
