"""Findings: what a campaign learned, in a form the report, the baseline check
and CI all read (``results.json``).

A discrepancy's :class:`Signature` is what a human would call "the same bug";
a :class:`Finding` is one signature with its minimal reproducer, every
oracle's outcome on it, and how many raw examples it stands for. A
:class:`RunResult` is a whole campaign: facts, throughput, the behaviour
matrix and the findings.

>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value", "clip", ("oob-below", "int64"))
>>> sig.key()
'numpy.take|numpy|2.4.6|cpu|eager|value|clip|int64,oob-below'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from conformance.behaviour import Behaviour
from conformance.model import (  # Case, Outcome re-exported: one call of an op and its answer
    Case,
    Outcome,
    read_json_file,
)

RESULTS_FORMAT = 3
"""Version of the ``results.json`` / ``findings.json`` layout (written as ``"format"``)."""


@dataclass(frozen=True)
class Signature:
    """What makes two discrepancies the same one: a root cause (the rule is
    :mod:`conformance.rootcause`). ``op`` is the op family (ONNX opsets
    merged), ``tags`` the condition that triggers it."""

    op: str
    oracle: str
    version: str
    device: str
    mode: str
    outcome: str  # Kind value of the oracle's outcome, or a mismatch class
    policy: str  # observed policy (Behaviour value), or "" if not a policy question
    tags: tuple[str, ...]

    def key(self) -> str:
        """A stable string for anchors and JSON (tags sorted); never parsed back."""
        return "|".join([self.op, self.oracle, self.version, self.device, self.mode, self.outcome, self.policy, ",".join(sorted(self.tags))])

    def words(self) -> str:
        """The signature as a sentence for the report.

        >>> Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "error", "raises", ("negative",)).words()
        'torch.gather on torch 2.13.0 (cpu, eager): error, observed policy raises, for negative'
        """
        pol = f", observed policy {self.policy}" if self.policy else ""
        cond = f", for {', '.join(sorted(self.tags))}" if self.tags else ""
        return f"{self.op} on {self.oracle} {self.version} ({self.device}, {self.mode}): {self.outcome}{pol}{cond}"

    def across_versions(self) -> Signature:
        """The same behaviour at any version: what stays equal across an upgrade.

        >>> Signature("t.g", "t", "2.13.0", "cpu", "eager", "error", "", ()).across_versions().version
        ''
        """
        return replace(self, version="")


@dataclass(frozen=True, order=True)
class MatrixKey:
    """A row of the behaviour matrix: an op, an index regime and a data dtype family.

    >>> MatrixKey.from_json(MatrixKey("torch.gather", "negative", "int").to_json())
    MatrixKey(op='torch.gather', regime='negative', data_family='int')
    """

    op: str
    regime: str
    data_family: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, str]) -> MatrixKey:
        return cls(d["op"], d["regime"], d["data_family"])


Matrix = dict[MatrixKey, dict[str, dict[str, int]]]
"""Row -> oracle -> behaviour -> count."""


def matrix_to_json(matrix: Matrix) -> list[dict[str, Any]]:
    """Rows as JSON objects (a key object plus its cells)."""
    return [{**k.to_json(), "cells": cells} for k, cells in matrix.items()]


def matrix_from_json(rows: Iterable[Mapping[str, Any]]) -> Matrix:
    return {MatrixKey.from_json(r): {o: dict(c) for o, c in r["cells"].items()} for r in rows}


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
    class_case: dict[str, Any] | None = None  # the drawn (shrunk) class-level case, see conformance.strategies.ClassCase
    siblings: list[dict[str, Any]] = field(default_factory=list)  # the same class case through the class's other ops
    variants: dict[str, dict[str, int]] = field(default_factory=dict)  # what the root cause merges: "op" -> {op key: count}, "regime", dtypes

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
        return {"stage": self.stage, "error": self.error, "class_case": dict(self.class_case or {}) or None, "traceback": self.traceback}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HarnessError:
        return cls(d["stage"], d["error"], d.get("class_case"), d.get("traceback", ""))


@dataclass
class RunResult:
    """A whole campaign, as written to ``results.json``.

    ``matrix`` maps a :class:`MatrixKey` to ``{oracle: {behaviour: count}}``;
    ``cases`` maps an oracle to the number of cases it ran; ``facts`` holds the
    versions, platform and thread settings of the run.
    """

    facts: dict[str, Any]
    seed: int | None
    budget: dict[str, Any]
    cases: dict[str, int]
    seconds: float
    matrix: Matrix
    findings: list[Finding]
    raw_discrepancies: int = 0
    figures: dict[str, Any] = field(default_factory=dict)  # throughput, collapse, time to first find (conformance.campaign)
    harness_errors: list[HarnessError] = field(default_factory=list)
    status: str = "complete"  # "complete", "interrupted" (SIGINT/SIGTERM) or "partial" (rebuilt from a killed run's stream)
    dtype_support: list[dict[str, Any]] = field(default_factory=list)  # conformance.dtypes.DtypeSupport.to_json()
    replay: list[dict[str, Any]] = field(default_factory=list)  # the baseline's reproducers replayed (conformance.replay.Replayed.to_json)

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("findings", "matrix", "harness_errors")}
        return {
            "format": RESULTS_FORMAT, **d, "matrix": matrix_to_json(self.matrix), "findings": [f.to_json() for f in self.findings],
            "harness_errors": [e.to_json() for e in self.harness_errors],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunResult:
        d = {k: v for k, v in d.items() if k != "format"}
        d["findings"] = [Finding.from_json(f) for f in d["findings"]]
        d["matrix"] = matrix_from_json(d["matrix"])
        d["harness_errors"] = [HarnessError.from_json(e) for e in d.get("harness_errors", ())]
        return cls(**d)

    def save(self, path: str | Path) -> None:
        """Write atomically (a reader never sees half a file)."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1, default=str))
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> RunResult:
        """Read a ``results.json`` / ``findings.json``; a :class:`ResultsFileError`
        naming the file and what is wrong with it if it is not one.

        >>> RunResult.load("/nonexistent/results.json")
        Traceback (most recent call last):
        ...
        conformance.findings.ResultsFileError: /nonexistent/results.json: cannot read it (No such file or directory)
        """
        path = Path(path)
        d = read_json_file(path, "a results file", ResultsFileError)
        if not isinstance(d, dict) or d.get("format") != RESULTS_FORMAT:
            found = d.get("format") if isinstance(d, dict) else type(d).__name__
            raise ResultsFileError(f"{path}: not a gather-conformance results file of format {RESULTS_FORMAT} (format: {found!r})")
        try:
            return cls.from_json(d)
        except (KeyError, TypeError, ValueError) as exc:
            raise ResultsFileError(f"{path}: damaged results file ({type(exc).__name__}: {exc})") from None


class ResultsFileError(ValueError):
    """A file given as results that is not one."""


__all__ = ["RESULTS_FORMAT", "Behaviour", "Case", "Finding", "HarnessError", "Matrix", "MatrixKey", "ResultsFileError", "RunResult", "Signature"]
