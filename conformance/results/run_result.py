"""What a run writes: a :class:`RunResult` (``results.json`` and
``findings.json``), a whole campaign in a form the report, the baseline check
and CI all read: facts, throughput, the behaviour matrix (:class:`MatrixKey`
rows), the findings (:mod:`conformance.results.finding`) and harness errors.

>>> RunResult.from_json(RunResult({}, 0, {}, {"numpy": 3}, 1.0, {}, []).to_json()).cases
{'numpy': 3}
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from conformance.core.encoding import read_json_file
from conformance.core.vocabulary import Regime, RunStatus
from conformance.results.finding import Finding, HarnessError

RESULTS_FORMAT = 3
"""Version of the ``results.json`` / ``findings.json`` layout (written as ``"format"``)."""


@dataclass(frozen=True, order=True)
class MatrixKey:
    """A row of the behaviour matrix: an op, an index regime and a data dtype family.

    >>> key = MatrixKey("torch.gather", "negative", "int")
    >>> MatrixKey.from_json(key.to_json()) == key, key.regime
    (True, <Regime.NEGATIVE: 'negative'>)
    """

    op: str
    regime: Regime
    data_family: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "regime", Regime(self.regime))

    def to_json(self) -> dict[str, str]:
        return {"op": self.op, "regime": self.regime.value, "data_family": self.data_family}

    @classmethod
    def from_json(cls, d: Mapping[str, str]) -> MatrixKey:
        return cls(d["op"], Regime(d["regime"]), d["data_family"])


Matrix = dict[MatrixKey, dict[str, dict[str, int]]]
"""Row -> oracle -> behaviour -> count."""


def matrix_to_json(matrix: Matrix) -> list[dict[str, Any]]:
    """Rows as JSON objects (a key object plus its cells)."""
    return [{**k.to_json(), "cells": cells} for k, cells in matrix.items()]


def matrix_from_json(rows: Iterable[Mapping[str, Any]]) -> Matrix:
    return {MatrixKey.from_json(r): {o: dict(c) for o, c in r["cells"].items()} for r in rows}


def history_summary(effects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run's facts on its history effects (:mod:`conformance.campaign.confirmation`), from each one's JSON: how
    many per oracle, and each one; as a run writes them, a stream's reader rebuilds them and shards merge them.

    >>> history_summary([{"signature": {"oracle": "iree"}}, {"signature": {"oracle": "iree"}}])["per_oracle"]
    {'iree': 2}
    """
    per_oracle = Counter(str(e["signature"]["oracle"]) for e in effects)
    return {"per_oracle": dict(sorted(per_oracle.items())), "effects": [dict(e) for e in effects]}


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
    figures: dict[str, Any] = field(default_factory=dict)
    """Throughput, collapse, time to first find (:mod:`conformance.campaign.runner`)."""
    harness_errors: list[HarnessError] = field(default_factory=list)
    status: RunStatus = RunStatus.COMPLETE
    dtype_support: list[dict[str, Any]] = field(default_factory=list)
    """:meth:`conformance.judge.dtype_support.DtypeSupport.to_json`."""
    replay: list[dict[str, Any]] = field(default_factory=list)
    """The baseline's reproducers replayed (:meth:`conformance.gate.replay.Replayed.to_json`)."""

    def __post_init__(self) -> None:
        self.status = RunStatus(self.status)

    @property
    def history_effects(self) -> list[dict[str, Any]]:
        """The findings a fresh worker of their oracle did not confirm (:mod:`conformance.campaign.confirmation`), as
        the run's facts hold them (``words``, ``seen``, ``fresh``, ``before``...): none in a run written before them.

        >>> RunResult({"history_effects": {"per_oracle": {}, "effects": []}}, 0, {}, {}, 1.0, {}, []).history_effects
        []
        """
        effects = (self.facts.get("history_effects") or {}).get("effects") or []
        return [e for e in effects if isinstance(e, dict)]

    def to_json(self) -> dict[str, Any]:
        special = ("findings", "matrix", "harness_errors", "status")
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in special}
        return {
            "format": RESULTS_FORMAT,
            **d,
            "status": self.status.value,
            "matrix": matrix_to_json(self.matrix),
            "findings": [f.to_json() for f in self.findings],
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
        conformance.results.run_result.ResultsFileError: /nonexistent/results.json: cannot read it (No such file or
        directory)
        """
        path = Path(path)
        d = read_json_file(path, "a results file", ResultsFileError)
        if not isinstance(d, dict) or d.get("format") != RESULTS_FORMAT:
            found = d.get("format") if isinstance(d, dict) else type(d).__name__
            raise ResultsFileError(
                f"{path}: not a gather-conformance results file of format {RESULTS_FORMAT} (format: {found!r})"
            )
        try:
            return cls.from_json(d)
        except (KeyError, TypeError, ValueError) as exc:
            raise ResultsFileError(f"{path}: damaged results file ({type(exc).__name__}: {exc})") from None


class ResultsFileError(ValueError):
    """A file given as results that is not one."""
