"""The upgrade gate: what departs from the docs at a version where the version
before did not (:func:`departures`), and the exit status it gives.

A departure, from one version to the next, is

* an atlas cell documented before (or absent) and not documented now;
* a root cause found now that the version before did not have;
* a baseline entry whose reproducers conformed before and show it again, or
  that showed its root cause before and now show another (``changed``);
* and, at any version, a harness error (the suite itself failed: nothing it
  says about that version can be trusted).

What got better (a cell now documented, a finding gone, an entry fixed
upstream) is reported, never a failure.

>>> from conformance.upgrade.timeline import build_timeline
>>> from conformance.results.run_result import RunResult
>>> t = build_timeline(["1", "2"], [RunResult({}, 0, {}, {"x": 1}, 1.0, {}, [])] * 2, [None, None], [])
>>> departures(t), exit_status(departures(t))
([], 0)
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.upgrade.timeline import Timeline

PASS, FAIL = 0, 1
"""Exit statuses of the gate (usage errors and the tool's own failures are the CLI's 2 and 3)."""


@dataclass(frozen=True)
class Departure:
    """One thing that departs from the docs now and did not before."""

    step: str
    """``1.31.1 → 1.32.0``, or the version (a harness error)."""
    what: str
    """``atlas cell``, ``new finding``, ``baseline entry`` or ``harness error``."""
    words: str

    def line(self) -> str:
        """One line for the console and the report.

        >>> Departure("1 → 2", "new finding", "x").line()
        '1 → 2: new finding: x'
        """
        return f"{self.step}: {self.what}: {self.words}"


def departures(timeline: Timeline) -> list[Departure]:
    """Every departure (see the module docstring), step by step."""
    out: list[Departure] = []
    for step in timeline.steps:
        i, where = step.index, step.words()
        out += [
            Departure(where, "atlas cell", f"{c.where()}: {c.change(i).words()}")
            for c in timeline.cells
            if c.departs(i)
        ]
        out += [Departure(where, "new finding", f.words()) for f in timeline.findings if i in f.appeared()]
        out += [
            Departure(
                where,
                "baseline entry",
                f"{e.entry.describe()}: {e.statuses[i - 1]} → {e.statuses[i]}: {e.details[i]}",
            )
            for e in timeline.entries
            if e.departs(i)
        ]
    for label, run in zip(timeline.labels, timeline.runs):
        out += [Departure(label, "harness error", f"{h.stage}: {h.error}") for h in run.harness_errors]
    return out


def exit_status(found: list[Departure]) -> int:
    """:data:`FAIL` when anything departs from the docs that did not before, else :data:`PASS`."""
    return FAIL if found else PASS
