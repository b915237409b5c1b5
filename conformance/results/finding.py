"""One finding: a root cause (:class:`~conformance.judge.signature.Signature`)
with its minimal reproducer, every oracle's outcome on it and how many raw
examples it stands for; and a :class:`HarnessError`, an exception in the
suite itself, recorded with its case.

>>> HarnessError.from_json(HarnessError("judge", "ValueError: x", {"seed": 1}).to_json()).stage
'judge'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from conformance.core.case import Case
from conformance.core.outcome import Outcome
from conformance.core.vocabulary import FindingStatus
from conformance.judge.signature import Signature


@dataclass
class Finding:
    """One signature, shrunk to its minimal reproducer."""

    signature: Signature
    case: Case
    reference: Outcome
    outcomes: dict[str, Outcome]
    count: int = 1
    first_seen_s: float = 0.0
    seed: int | None = None
    scripts: dict[str, str] = field(default_factory=dict)
    """Oracle name -> its standalone Python script."""
    onnx_model_b64: str | None = None
    status: FindingStatus = FindingStatus.NEW
    """Known where the baseline accepts it."""
    baseline_note: str | None = None
    baseline_link: str | None = None
    class_case: dict[str, Any] | None = None
    """The drawn (shrunk) class-level case (see :class:`conformance.cases.class_case.ClassCase`)."""
    siblings: list[dict[str, Any]] = field(default_factory=list)
    """The same class case through the class's other ops."""
    variants: dict[str, dict[str, int]] = field(default_factory=dict)
    """What the root cause merges: ``"op"`` -> {op key: count}, ``"regime"``, dtypes, behaviours."""

    def __post_init__(self) -> None:
        self.status = FindingStatus(self.status)

    def to_json(self) -> dict[str, Any]:
        skip = ("signature", "case", "reference", "outcomes")
        d = {k: v for k, v in asdict(self).items() if k not in skip}
        d["status"] = self.status.value
        d["signature"] = self.signature.to_json()
        d["case"] = self.case.to_json()
        d["reference"] = self.reference.to_json()
        d["outcomes"] = {k: o.to_json() for k, o in self.outcomes.items()}
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Finding:
        d = dict(d)
        return cls(
            signature=Signature.from_json(d.pop("signature")),
            case=Case.from_json(d.pop("case")),
            reference=Outcome.from_json(d.pop("reference")),
            outcomes={k: Outcome.from_json(o) for k, o in d.pop("outcomes").items()},
            status=FindingStatus(d.pop("status", FindingStatus.NEW)),
            **d,
        )


@dataclass(frozen=True)
class HarnessError:
    """An exception in the suite itself (drawing, translating, the reference,
    judging, shrinking), with the case it happened on: shown in the report and
    failing ``check``, while the campaign goes on.

    >>> HarnessError.from_json(HarnessError("judge", "ValueError: x", {"seed": 1}).to_json()).stage
    'judge'
    """

    stage: str
    error: str
    class_case: Mapping[str, Any] | None = None
    traceback: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "error": self.error,
            "class_case": dict(self.class_case or {}) or None,
            "traceback": self.traceback,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HarnessError:
        return cls(d["stage"], d["error"], d.get("class_case"), d.get("traceback", ""))
