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

from conformance.core.case import Case, CaseLike
from conformance.core.judgement import Judgement
from conformance.core.outcome import Outcome


@dataclass(frozen=True)
class OracleInfo:
    """The facts a result is worthless without: name, framework, version,
    device, execution mode, the catalog ops it runs; ``bits`` 32 where the
    framework documents that 64-bit inputs become 32-bit (JAX with x64 off);
    ``compiles`` where its first call of each op, attributes and shape
    signature is a compilation (``torch.compile``, XLA, ``tf.function``);
    ``on_request``, where not empty, why it runs only when named
    (``--oracles``) and never in a default campaign.

    >>> OracleInfo.from_json(OracleInfo("n", "f", "1", "cpu", "eager", ("a.b",)).to_json()).ops
    ('a.b',)
    """

    name: str
    framework: str
    version: str
    device: str
    mode: str
    ops: tuple[str, ...] = field(default_factory=tuple)
    bits: int = 64
    compiles: bool = False
    on_request: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ops": list(self.ops)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> OracleInfo:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known and k != "ops"}, ops=tuple(d.get("ops", ())))


@dataclass(frozen=True)
class Capabilities:
    """What an oracle can promise, declared rather than guessed from its name:

    * ``compiles``: its first call of each shape signature compiles (and so
      needs warm-up time outside a case's time limit);
    * ``isolated``: it runs cases in a worker process, so that a crash is an
      outcome and never the caller's death;
    * ``bounded``: a case past its time limit is a timeout outcome; an
      unbounded oracle that hangs hangs its caller, so nothing that may hang
      (a stored hang, a probe known to loop) is run on it.

    >>> Capabilities(), Capabilities(isolated=True, bounded=True).bounded
    (Capabilities(compiles=False, isolated=False, bounded=False), True)
    """

    compiles: bool = False
    isolated: bool = False
    bounded: bool = False


@dataclass(frozen=True)
class Reproducer:
    """A standalone Python script that re-runs one case on one oracle (its
    framework, device and execution mode) and exits 1 printing ``REPRODUCED``
    when the discrepancy is still there, 0 when it is not; ``attachments`` are
    files that go beside it (an ONNX model), name -> bytes; ``upstream``, where
    the oracle can write one, the same call in a few lines on literal arrays for an
    upstream issue text (``conformance.execution.glance``: it prints what came back
    and what the docs ask for, and judges nothing).

    >>> Reproducer("numpy", "print('hi')").filename
    'repro_numpy.py'
    """

    oracle: str
    text: str
    attachments: Mapping[str, bytes] = field(default_factory=dict)
    upstream: str = ""

    @property
    def filename(self) -> str:
        return f"repro_{self.oracle.replace('-', '_')}.py"


class InProcessOracle(Protocol):
    """What the execution layer needs of an oracle plug-in (``oracles.base.Oracle``
    implements it): its name and facts, and one case run here, as an Outcome."""

    name: str

    def info(self) -> OracleInfo: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def run_in_process(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Outcome: ...

    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer: ...


class Oracle(Protocol):
    """What the campaign, the gate and the execution layer need of an oracle:
    an :class:`~conformance.execution.isolation.IsolatedOracle`, an in-process
    plug-in (``oracles.base.Oracle``) or a test fake."""

    name: str

    def info(self) -> OracleInfo: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def run_many(self, cases: Sequence[CaseLike], *, timeout: float | None = None) -> list[Outcome]:
        """One outcome per case, in order; ``timeout``: each case's limit in
        seconds (honoured only by a ``bounded`` oracle; None: its own default)."""
        ...

    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer: ...
