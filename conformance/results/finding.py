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
    scripts: dict[str, str] = field(default_factory=dict)  # oracle name -> standalone Python script
    onnx_model_b64: str | None = None
    status: str = "new"  # "new" or "known" (in the baseline)
    baseline_note: str | None = None
    baseline_link: str | None = None
    class_case: dict[str, Any] | None = (
        None  # the drawn (shrunk) class-level case, see conformance.cases.class_case.ClassCase
    )
    siblings: list[dict[str, Any]] = field(default_factory=list)  # the same class case through the class's other ops
    variants: dict[str, dict[str, int]] = field(
        default_factory=dict
    )  # what the root cause merges: "op" -> {op key: count}, "regime", dtypes

    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("signature", "case", "reference", "outcomes")}
        d["signature"] = asdict(self.signature) | {"key": self.signature.key()}
        d["case"] = self.case.to_json()
        d["reference"] = self.reference.to_json()
        d["outcomes"] = {k: o.to_json() for k, o in self.outcomes.items()}
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Finding:
        d = dict(d)
        sig = dict(d.pop("signature"))
        sig.pop("key", None)
        sig["tags"] = tuple(sig["tags"])
        return cls(
            signature=Signature(**sig),
            case=Case.from_json(d.pop("case")),
            reference=Outcome.from_json(d.pop("reference")),
            outcomes={k: Outcome.from_json(o) for k, o in d.pop("outcomes").items()},
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
