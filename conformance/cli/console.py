"""The console: a progress bar on a terminal, a plain line every few seconds
elsewhere (CI logs), and the closing summary.

>>> from conformance.results.run_result import RunResult
>>> print(closing_summary(RunResult({}, 0, {}, {"numpy": 40}, 2.0, {}, []), [], "reports/index.html"))
40 oracle runs in 2.0 s · 0 findings (0 new, 0 known) · 0 raw discrepancies
report: reports/index.html
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

from conformance.core.vocabulary import GateFailure, GateProblem, RunStatus
from conformance.report.views import finding_order
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult

PLAIN_EVERY_S = 15.0
"""Seconds between progress lines when the output is not a terminal (a CI
log shows life at least this often, even while one case runs long)."""


class PlainProgress:
    """Lines for logs: one when a phase starts, one when it ends, and one at
    least every ``every`` seconds in between (phase, done of total, rate,
    findings so far), from a thread of its own, so that a long atlas
    condition or a slow case still shows life.

    >>> import io
    >>> out = io.StringIO()
    >>> p = PlainProgress(out, every=3600)
    >>> p.phase("atlas", 2); p.advance(findings=1); p.advance(findings=1); p.close()
    >>> [line.split(" · ")[0] for line in out.getvalue().splitlines()]
    ['[atlas] started: 0/2', '[atlas] ended: 2/2']
    """

    def __init__(self, out: TextIO = sys.stderr, every: float = PLAIN_EVERY_S) -> None:
        self.out, self.every = out, every
        self.name, self.done, self.findings, self.start = "", 0, 0, time.monotonic()
        self.total: int | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, name="progress-lines", daemon=True)
        self._beat.start()

    def phase(self, name: str, total: int | None) -> None:
        with self._lock:
            if self.name:
                self._line("ended")
            self.name, self.total, self.done, self.start = name, total, 0, time.monotonic()
            self._line("started")

    def advance(self, *, findings: int) -> None:
        with self._lock:
            self.done += 1
            self.findings = findings

    def _heartbeat(self) -> None:
        while not self._closed.wait(self.every):
            with self._lock:
                if self.name:
                    self._line("")

    def _line(self, what: str) -> None:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        of = f"/{self.total}" if self.total else ""
        head = f"[{self.name}] {what + ': ' if what else ''}{self.done}{of}"
        print(
            f"{head} · {self.done / elapsed:.1f}/s · {elapsed:.0f} s · {self.findings} findings so far",
            file=self.out,
            flush=True,
        )

    def close(self) -> None:
        with self._lock:
            if self.name and not self._closed.is_set():
                self._line("ended")
        self._closed.set()


class BarProgress:
    """A rich progress bar: phase, bar, count, rate, findings, time left."""

    def __init__(self, deadline_s: float | None) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("[bold]{task.description:<9}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>7} · {task.fields[findings]} findings"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            transient=False,
        )
        self._bar.start()
        self._task: Any = None
        self._start = time.monotonic()

    def phase(self, name: str, total: int | None) -> None:
        if self._task is not None:
            self._bar.update(self._task, total=self._bar.tasks[self._task].completed)
        self._task = self._bar.add_task(name, total=total, rate="", findings=0)
        self._start = time.monotonic()

    def advance(self, *, findings: int) -> None:
        done = self._bar.tasks[self._task].completed + 1
        rate = f"{done / max(time.monotonic() - self._start, 1e-9):.1f}/s"
        self._bar.update(self._task, advance=1, findings=findings, rate=rate)

    def close(self) -> None:
        self._bar.stop()


def progress_for(stream: TextIO, deadline_s: float | None) -> PlainProgress | BarProgress:
    """A bar on a terminal, plain lines otherwise."""
    return BarProgress(deadline_s) if stream.isatty() else PlainProgress(stream)


def finding_line(f: Finding, changed: bool = False) -> str:
    """One finding: status, how many raw examples, the signature in words."""
    return f"  {'CHANGED' if changed else f.status.upper():<7} {f.count:>5}x  {f.signature.words()}"


def closing_summary(
    result: RunResult, new: Sequence[Finding], report: str, problems: Sequence[GateProblem] = ()
) -> str:
    """The last lines of a run: figures, then only the new findings, worst
    first as the report lists them (known ones counted), then other
    problems, then the report's path."""
    runs = sum(result.cases.values())
    known = len(result.findings) - len(new)
    found = f"{len(result.findings)} findings ({len(new)} new, {known} known)"
    head = f"{runs} oracle runs in {result.seconds:.1f} s · {found}"
    lines = [f"{head} · {result.raw_discrepancies} raw discrepancies"]
    if result.status is not RunStatus.COMPLETE:
        lines.append(f"run {result.status}: results are partial")
    if new:
        lines.append("new findings (status, raw examples, signature):")
        lines += [finding_line(f) for f in sorted(new, key=finding_order)]
    others = [str(p) for p in problems if p.kind is not GateFailure.NEW]
    lines += [f"  {p}" for p in others]
    if problems:
        lines.append(f"{len(problems)} differences from the baseline (`gather-conformance check` fails on them)")
    lines.append(f"report: {report}")
    return "\n".join(lines)
