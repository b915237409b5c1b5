"""The run's own figures, as the report shows them: the headline the console
prints (the same numbers, in the same words), and the run facts as a
readable table with one definition of each rate and durations in human units.

>>> run = RunResult({}, 0, {}, {"numpy": 40}, 2.0, {}, [],
...     figures={"class_cases": 8, "oracle_runs": 40, "loop_seconds": 1.6})
>>> console_head(run)
'40 oracle runs in 2.0 s · 0 findings (0 new, 0 known) · 0 raw discrepancies'
>>> rates(run.figures)
(5.0, 25.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.core.vocabulary import FindingStatus
from conformance.report.facts_view import NONE_TEXT, fact_text, human_duration, number_text, phases_text
from conformance.results.run_result import RunResult

BUDGET_LABELS: dict[str, str] = {
    "max_examples": "examples (all classes)",
    "max_examples_per_class": "examples per class",
    "budget_s": "time budget",
    "ops": "ops",
    "shard": "shard",
    "shrink_evals": "shrink evaluations per finding",
}
"""How the campaign settings (``RunResult.budget``) read."""


def console_head(run: RunResult) -> str:
    """The first line of the console's closing summary (``conformance.cli.console``), word for word.

    >>> console_head(RunResult({}, 0, {}, {"a": 3, "b": 4}, 19.43, {}, [], raw_discrepancies=2))
    '7 oracle runs in 19.4 s · 0 findings (0 new, 0 known) · 2 raw discrepancies'
    """
    runs = sum(run.cases.values())
    new = sum(f.status is FindingStatus.NEW for f in run.findings)
    known = len(run.findings) - new
    head = f"{runs} oracle runs in {run.seconds:.1f} s · {len(run.findings)} findings ({new} new, {known} known)"
    return f"{head} · {run.raw_discrepancies} raw discrepancies"


def _number(figures: Mapping[str, Any], key: str) -> float | None:
    value = figures.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def rates(figures: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """``(cases/s, oracle runs/s)``, the one definition of each: drawn class
    cases over the drawing time (the probe atlas's time left out), and oracle
    runs over the time up to the end of drawing (as ``conformance.campaign.sightings``
    computes them; recomputed so that merged shards get them too).

    >>> rates({"class_cases": 240, "oracle_runs": 4118, "loop_seconds": 77.2, "atlas_seconds": 10.0})
    (3.57, 53.34)
    >>> rates({})
    (None, None)
    """
    cases, runs, loop = (
        _number(figures, "class_cases"),
        _number(figures, "oracle_runs"),
        _number(figures, "loop_seconds"),
    )
    drawing = loop - (_number(figures, "atlas_seconds") or 0.0) if loop else None
    per_case = round(cases / drawing, 2) if cases is not None and drawing else None
    per_run = round(runs / loop, 2) if runs is not None and loop else None
    return per_case, per_run


def budget_text(key: str, value: Any) -> str:
    """One campaign setting in words.

    >>> budget_text("budget_s", None), budget_text("ops", None), budget_text("shard", [0, 1]), budget_text("budget_s",
    ...     90)
    ('no limit', 'all', '1 of 1', '1.5 min')
    """
    if key == "budget_s":
        return "no limit" if value is None else human_duration(value)
    if key == "ops" and value is None:
        return "all"
    if key == "shard" and isinstance(value, (list, tuple)) and len(value) == 2:
        return f"{value[0] + 1} of {value[1]}"
    return fact_text(value)


def run_rows(run: RunResult) -> list[tuple[str, str]]:
    """The run facts table: ``(what, value)`` rows, each readable, none empty.

    >>> run = RunResult({"case_timeout_s": 20.0}, 0, {"budget_s": None}, {"numpy": 40}, 2.0, {}, [],
    ...                 figures={"class_cases": 8, "oracle_runs": 40, "loop_seconds": 1.6, "shrink_seconds": 0.4})
    >>> for row in run_rows(run): print(row)
    ('status', 'complete')
    ('seed', '0')
    ('wall time', '2.00 s')
    ('drawing', '1.60 s: 8 class cases (5.00 cases/s)')
    ('oracle runs', '40 (25.0 runs/s)')
    ('shrinking', '0.40 s')
    ('raw discrepancies', '0, as 0 findings (root causes)')
    ('harness errors', '0')
    ('time limit per case', '20.0 s')
    ('time budget', 'no limit')
    """
    f = run.figures
    per_case, per_run = rates(f)
    rows = [
        ("status", run.status.value),
        ("seed", fact_text(run.seed) if run.seed is not None else "none (derandomized)"),
    ]
    rows.append(("wall time", human_duration(run.seconds) + (f" ({run.seconds:.1f} s)" if run.seconds >= 60 else "")))
    atlas_s = _number(f, "atlas_seconds")
    if atlas_s:
        cells = f.get("atlas_cells")
        rows.append(
            (
                "probe atlas",
                human_duration(atlas_s) + (f": {number_text(int(cells))} cells" if isinstance(cells, int) else ""),
            )
        )
    loop = _number(f, "loop_seconds")
    if loop is not None:
        drawn = f.get("class_cases")
        rate = f" ({number_text(per_case)} cases/s)" if per_case is not None else ""
        rows.append(("drawing", f"{human_duration(loop - (atlas_s or 0.0))}: {fact_text(drawn)} class cases{rate}"))
    runs = sum(run.cases.values())
    rows.append(
        ("oracle runs", f"{number_text(runs)}" + (f" ({number_text(per_run)} runs/s)" if per_run is not None else ""))
    )
    shrink = _number(f, "shrink_seconds")
    if shrink is not None:
        rows.append(("shrinking", human_duration(shrink)))
    if (phases := phases_text(run.facts)) is not None:
        rows.append(("phases", phases))
    rows.append(
        ("raw discrepancies", f"{number_text(run.raw_discrepancies)}, as {len(run.findings)} findings (root causes)")
    )
    rows.append(("harness errors", str(len(run.harness_errors))))
    if "history_effects" in run.facts:
        rows.append(("history effects", f"{len(run.history_effects)} (findings a fresh worker did not confirm)"))
    timeout = run.facts.get("case_timeout_s")
    if isinstance(timeout, (int, float)):
        rows.append(("time limit per case", human_duration(timeout)))
    for key, value in run.budget.items():
        if key != "seed":
            rows.append((BUDGET_LABELS.get(key, key.replace("_", " ")), budget_text(key, value)))
    return [(k, v) for k, v in rows if v and v != NONE_TEXT]


def oracle_runs(run: RunResult) -> list[tuple[str, str, str]]:
    """``(oracle, runs, share of all runs)`` per oracle, most runs first.

    >>> oracle_runs(RunResult({}, 0, {}, {"numpy": 30, "jax": 10}, 2.0, {}, []))
    [('numpy', '30', '75%'), ('jax', '10', '25%')]
    """
    total = sum(run.cases.values()) or 1
    return [(o, number_text(n), f"{100 * n / total:.0f}%") for o, n in sorted(run.cases.items(), key=lambda on: -on[1])]
