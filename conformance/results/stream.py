"""``results.jsonl``: a campaign's results streamed to disk while it runs.

One JSON object per line, each with a ``"type"``: a ``header`` (format
version, facts, seed, budget, shard), one ``judged`` line per drawn case that
was run (every oracle's verdict on every op, compactly), one ``discrepancy``
line the first time each signature is met (the full case, the reference's and
the oracle's outcome, so a finding can be rebuilt without re-running
anything), ``harness_error`` lines, ``replay`` lines (a baseline entry's
reproducers replayed by ``check``), ``renamed`` lines (a root cause named on
an example built or found while findings are built: its new signature and
that example), ``finding`` lines once shrunk, and an ``end`` line. Lines are flushed after every drawn case, so a
campaign killed
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
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from conformance.core.case import Case
from conformance.core.outcome import Outcome
from conformance.core.vocabulary import Mismatch, RunStatus
from conformance.core.word import Word
from conformance.judge.rootcause import example_words, merged_into
from conformance.judge.signature import Signature
from conformance.results.finding import Finding, HarnessError, ranked
from conformance.results.run_result import Matrix, MatrixKey, RunResult, history_summary

STREAM_FORMAT = 1
"""Version of the ``results.jsonl`` layout (in the header line)."""


class Record(Word):
    """The ``type`` of a line of the stream."""

    HEADER = "header"
    JUDGED = "judged"
    DISCREPANCY = "discrepancy"
    HARNESS_ERROR = "harness_error"
    FINDING = "finding"
    RENAMED = "renamed"
    REPLAY = "replay"
    HISTORY_EFFECT = "history_effect"
    """A finding a fresh worker of its oracle did not confirm (:mod:`conformance.campaign.confirmation`): no finding."""
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
        """A ``discrepancy``, ``harness_error``, ``renamed``, ``finding`` or ``replay`` line."""
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


def settled(firsts: dict[str, Finding]) -> dict[str, Finding]:
    """First sightings with the campaign's settling rule applied
    (:func:`~conformance.judge.rootcause.merged_into`, in order of first
    sighting): a behaviour one example cannot name goes to the root cause it
    belongs to, as :meth:`Sightings.settle <conformance.campaign.sightings.Sightings.settle>` does."""
    out = dict(firsts)
    for key, f in sorted(firsts.items(), key=lambda kv: kv[1].first_seen_s or 0.0):
        own = f.outcomes.get(f.signature.oracle)
        seen = [g.signature for g in out.values()]
        target = merged_into(f.signature, example_words(f.case, own), seen) if own is not None else None
        if target is None or key not in out:
            continue
        del out[key]
        if target.key() in out:
            kept = out[target.key()]
            out[target.key()] = replace(kept, count=kept.count + f.count)
        else:
            out[target.key()] = replace(f, signature=target)
    return out


def renamed(
    found: dict[str, Finding], renames: list[tuple[str, str]], firsts: dict[str, Finding]
) -> dict[str, Finding]:
    """``found`` (settled first sightings, by signature key) after the renames
    the run made while building its findings (``renames``: old key, new key, in
    order; a root cause named on an example built or found to tell its
    behaviour): each old root cause's sightings go to the new one, whose
    first example is ``firsts[new]`` where it has none of its own."""
    out = dict(found)
    for old, new in renames:
        gone = out.pop(old, None)
        if gone is None:
            continue
        kept = out.get(new)
        out[new] = (
            replace(firsts[new], count=gone.count) if kept is None else replace(kept, count=kept.count + gone.count)
        )
    return out


def _framework(header: dict[str, Any], oracle: str) -> str:
    """The framework of ``oracle`` as the stream's header states it ("" where it does not).

    >>> _framework({"facts": {"oracles": {"jax-default": {"framework": "jax"}}}}, "jax-default"), _framework({}, "x")
    ('jax', '')
    """
    oracles = header.get("facts", {}).get("oracles", {})
    return str(oracles.get(oracle, {}).get("framework", "")) if isinstance(oracles, dict) else ""


def rebuild(path: Path) -> RunResult:
    """The run a stream records, as far as it got: the matrix and case counts
    from the ``judged`` lines, the replayed baseline entries, harness errors,
    and the findings the run reached the same verdict on: where the run ended
    (an ``end`` line), its ``finding`` lines, exactly the findings of its
    ``results.json``; where it was killed, the shrunk findings it got to and
    the first example of every other signature, settled by the same rule the
    run uses (:func:`settled`, then the renames it made: :func:`renamed`), with
    status ``partial``."""
    header: dict[str, Any] = {}
    matrix: Matrix = {}
    cases: Counter[str] = Counter()
    raw = 0
    firsts: dict[str, Finding] = {}
    shrunk: dict[str, Finding] = {}
    errors: list[HarnessError] = []
    replayed: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    renames: list[tuple[str, str]] = []
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
        elif kind in (Record.DISCREPANCY, Record.RENAMED):
            sig = Signature.from_json(r["signature"])
            if kind is Record.RENAMED:
                renames.append((Signature.from_json(r["from"]).key(), sig.key()))
            firsts.setdefault(
                sig.key(),
                Finding(
                    sig,
                    Case.from_json(r["case"]),
                    Outcome.from_json(r["reference"]),
                    {sig.oracle: Outcome.from_json(r["outcome"])},
                    first_seen_s=r["seconds"],
                    seed=header.get("seed"),
                    class_case=r["class_case"],
                    framework=_framework(header, sig.oracle),
                ),
            )
        elif kind is Record.FINDING:
            f = Finding.from_json({k: v for k, v in r.items() if k != "type"})
            shrunk[f.signature.key()] = f
        elif kind is Record.HARNESS_ERROR:
            errors.append(HarnessError.from_json(r))
        elif kind is Record.REPLAY:
            replayed.append({k: v for k, v in r.items() if k != "type"})
        elif kind is Record.HISTORY_EFFECT:
            history.append({k: v for k, v in r.items() if k != "type"})
        elif kind is Record.END:
            end = r
    unconfirmed = {Signature.from_json(h["signature"]).key() for h in history}
    shrunk = {k: f for k, f in shrunk.items() if k not in unconfirmed}
    firsts = {k: f for k, f in firsts.items() if k not in unconfirmed}
    facts = header.get("facts", {})
    if end:  # confirmed, as the run's facts say (a run cut short confirms nothing)
        facts = facts | {"history_effects": history_summary(history)}
    found = list(shrunk.values()) if end else list(renamed(settled({**firsts, **shrunk}), renames, firsts).values())
    findings = ranked(found)  # the execution modes of one fact: one finding, worst first, as the run lists them
    return RunResult(
        facts=facts,
        seed=header.get("seed"),
        budget=header.get("budget", {}),
        cases=dict(cases),
        seconds=end.get("seconds", 0.0),
        matrix=matrix,
        findings=findings,
        raw_discrepancies=raw,
        harness_errors=errors,
        status=RunStatus(end.get("status", RunStatus.PARTIAL)),
        replay=replayed,
    )
