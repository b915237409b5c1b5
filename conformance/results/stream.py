"""``results.jsonl``: a campaign's results streamed to disk while it runs.

One JSON object per line, each with a ``"type"``: a ``header`` (format
version, facts, seed, budget, shard), one ``judged`` line per drawn case that
was run (every oracle's verdict on every op, compactly), one ``discrepancy``
line the first time each signature is met (the full case, the reference's and
the oracle's outcome, so a finding can be rebuilt without re-running
anything), ``harness_error`` lines, ``finding`` lines once shrunk, and an
``end`` line. Lines are flushed after every drawn case, so a campaign killed
at any moment (SIGKILL, out of memory, a CI timeout) leaves what it had done,
and :func:`read_stream` rebuilds a :class:`~conformance.results.run_result.RunResult`
from it.

>>> import io, json
>>> buf = io.StringIO()
>>> s = ResultStream(buf)
>>> s.header(facts={}, seed=0, budget={}, shard=(0, 1))
>>> s.end(seconds=1.5, status=RunStatus.COMPLETE)
>>> [json.loads(line)["type"] for line in buf.getvalue().splitlines()]
['header', 'end']
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from conformance.core.case import Case
from conformance.core.outcome import Outcome
from conformance.core.vocabulary import Mismatch, RunStatus
from conformance.core.word import Word
from conformance.judge.signature import Signature
from conformance.results.finding import Finding, HarnessError, ranked
from conformance.results.run_result import Matrix, MatrixKey, RunResult

STREAM_FORMAT = 1
"""Version of the ``results.jsonl`` layout (in the header line)."""


class Record(Word):
    """The ``type`` of a line of the stream."""

    HEADER = "header"
    JUDGED = "judged"
    DISCREPANCY = "discrepancy"
    HARNESS_ERROR = "harness_error"
    FINDING = "finding"
    END = "end"


class StreamError(ValueError):
    """A file that is not a readable results stream (names the file and the problem)."""


class ResultStream:
    """Writes the lines; every write is flushed (see the module docstring)."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out

    @classmethod
    def create(cls, path: Path) -> ResultStream:
        """A stream writing to ``path`` (replacing an older one)."""
        return cls(path.open("w", encoding="utf-8"))

    def _write(self, record: dict[str, Any]) -> None:
        self._out.write(json.dumps(record, default=str) + "\n")
        self._out.flush()

    def header(
        self, *, facts: dict[str, Any], seed: int | None, budget: dict[str, Any], shard: tuple[int, int]
    ) -> None:
        self._write(
            {
                "type": Record.HEADER.value,
                "format": STREAM_FORMAT,
                "facts": facts,
                "seed": seed,
                "budget": budget,
                "shard": list(shard),
            }
        )

    def judged(self, class_case: dict[str, Any], verdicts: list[dict[str, Any]]) -> None:
        self._write({"type": Record.JUDGED.value, "class_case": class_case, "verdicts": verdicts})

    def record(self, kind: Record, payload: dict[str, Any]) -> None:
        """A ``discrepancy``, ``harness_error`` or ``finding`` line."""
        self._write({"type": kind.value, **payload})

    def end(self, *, seconds: float, status: RunStatus) -> None:
        self._write({"type": Record.END.value, "seconds": seconds, "status": status.value})

    def close(self) -> None:
        self._out.close()


def records(path: Path) -> Iterator[dict[str, Any]]:
    """The stream's records; a truncated last line (a killed writer) is skipped,
    any other damage is a :class:`StreamError` naming the file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise StreamError(f"{path}: cannot read it ({exc.strerror})") from None
    if not lines:
        raise StreamError(f"{path}: empty, not a results stream")
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except ValueError:
            if number == len(lines):  # the writer was killed mid-line
                return
            raise StreamError(f"{path}: line {number} is not JSON") from None
        if number == 1 and (record.get("type") != Record.HEADER or record.get("format") != STREAM_FORMAT):
            raise StreamError(f"{path}: not a results stream of format {STREAM_FORMAT} (first line: {line[:80]!r})")
        yield record


def rebuild(path: Path) -> RunResult:
    """The run a stream records, as far as it got: the matrix and case counts
    from the ``judged`` lines, shrunk findings where the run got that far and
    the first example of every other signature, harness errors; status
    ``partial`` when the stream has no ``end`` line (the writer was killed)."""
    header: dict[str, Any] = {}
    matrix: Matrix = {}
    cases: Counter[str] = Counter()
    raw = 0
    firsts: dict[str, Finding] = {}
    shrunk: dict[str, Finding] = {}
    errors: list[HarnessError] = []
    end: dict[str, Any] = {}
    for r in records(path):
        kind = Record(r["type"])
        if kind is Record.HEADER:
            header = r
        elif kind is Record.JUDGED:
            for v in r["verdicts"]:
                cases[v["oracle"]] += 1
                cell = matrix.setdefault(MatrixKey(v["op"], v["regime"], v["data_family"]), {}).setdefault(
                    v["oracle"], {}
                )
                cell[v["behaviour"]] = cell.get(v["behaviour"], 0) + 1
                raw += not Mismatch.parse(v["outcome"]).conforms
        elif kind is Record.DISCREPANCY:
            sig = Signature.from_json(r["signature"])
            firsts[sig.key()] = Finding(
                sig,
                Case.from_json(r["case"]),
                Outcome.from_json(r["reference"]),
                {sig.oracle: Outcome.from_json(r["outcome"])},
                first_seen_s=r["seconds"],
                seed=header.get("seed"),
                class_case=r["class_case"],
            )
        elif kind is Record.FINDING:
            f = Finding.from_json({k: v for k, v in r.items() if k != "type"})
            shrunk[f.signature.key()] = f
        elif kind is Record.HARNESS_ERROR:
            errors.append(HarnessError.from_json(r))
        elif kind is Record.END:
            end = r
    findings = [shrunk.get(k, f) for k, f in firsts.items()] + [f for k, f in shrunk.items() if k not in firsts]
    findings = ranked(findings)  # the execution modes of one fact: one finding, worst first, as the run lists them
    return RunResult(
        facts=header.get("facts", {}),
        seed=header.get("seed"),
        budget=header.get("budget", {}),
        cases=dict(cases),
        seconds=end.get("seconds", 0.0),
        matrix=matrix,
        findings=findings,
        raw_discrepancies=raw,
        harness_errors=errors,
        status=RunStatus(end.get("status", RunStatus.PARTIAL)),
    )
