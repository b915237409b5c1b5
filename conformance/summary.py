"""A short Markdown summary of a run (``summary.md``), for CI logs and
pull-request comments: the totals, the findings (new first), the matrix cells
that do not conform and, when comparing, what changed.

>>> from conformance.findings import RunResult
>>> print(markdown_summary(RunResult({"versions": {"numpy": "2.4.6"}}, 7, {}, {"numpy": 40}, 2.0, {}, [])))
## gather-conformance: 0 findings (0 new, 0 known)
<BLANKLINE>
seed 7 · 40 cases in 2.0 s (20 cases/s) · 0 raw discrepancies · versions.numpy 2.4.6
<BLANKLINE>
No findings.
<BLANKLINE>
"""

from __future__ import annotations

from conformance.findings import RunResult
from conformance.report import Comparison, cell_summary, finding_views, flatten_facts, severity, split_key

MAX_ROWS = 30
"""Rows per Markdown table before "... and N more"."""


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell.

    >>> _cell("a|b\\nc")
    'a\\\\|b c'
    """
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table, cut at :data:`MAX_ROWS`.

    >>> _table(["a"], [["1"]])
    ['| a |', '|---|', '| 1 |']
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_ROWS} more (see the HTML report)")
    return lines


def headline(run: RunResult) -> str:
    """The first line: how many findings, how many new."""
    new = sum(f.status == "new" for f in run.findings)
    n = len(run.findings)
    return f"## gather-conformance: {n} finding{'s' * (n != 1)} ({new} new, {n - new} known)"


def facts_line(run: RunResult) -> str:
    """Seed, cases, time, throughput and versions in one line."""
    cases = sum(run.cases.values())
    rate = f" ({cases / run.seconds:.0f} cases/s)" if run.seconds else ""
    versions = [f"{k.removeprefix('oracles.').removesuffix('.version')} {v}" for k, v in flatten_facts(run.facts).items() if "version" in k]
    return " · ".join([f"seed {run.seed}", f"{cases} cases in {run.seconds:.1f} s{rate}", f"{run.raw_discrepancies} raw discrepancies", *versions])


def nonconforming_cells(run: RunResult) -> list[list[str]]:
    """``[row, oracle, behaviours]`` for every matrix cell where something did not conform, worst first."""
    rows = []
    for key, cells in run.matrix.items():
        op, regime, family = split_key(key)
        for oracle, counts in cells.items():
            worst = max((severity(b) for b, n in counts.items() if n), default=0)
            if worst > 0:
                rows.append((worst, [f"{op} · {regime} · {family}".rstrip(" ·"), oracle, cell_summary(counts)]))
    return [r for _, r in sorted(rows, key=lambda wr: -wr[0])]


def comparison_lines(comparison: Comparison) -> list[str]:
    """The "changes since the old run" section."""
    lines = ["### Changes since the compared run", ""]
    if comparison.is_empty():
        return lines + ["Nothing changed.", ""]
    for label, found in (("Appeared", comparison.appeared), ("Disappeared", comparison.disappeared)):
        lines += [f"**{label}** ({len(found)}):" if found else f"**{label}**: none"]
        lines += [f"- {f.signature.words()}" for f in found[:MAX_ROWS]]
        lines.append("")
    if comparison.changed or comparison.fact_changes:
        rows = [[c.what, c.key, c.before, c.after] for c in comparison.fact_changes + comparison.changed]
        lines += _table(["what", "where", "before", "after"], rows) + [""]
    return lines


def markdown_summary(run: RunResult, comparison: Comparison | None = None) -> str:
    """The whole ``summary.md`` (see the module docstring)."""
    lines = [headline(run), "", facts_line(run), ""]
    views = finding_views(run.findings)
    if views:
        rows = [
            [f"F{v.number}", v.finding.status.upper() if v.finding.status == "new" else v.finding.status, v.words, str(v.finding.count), f"{v.finding.first_seen_s:.2f} s"]
            for v in views
        ]
        lines += _table(["#", "status", "signature", "examples", "first seen"], rows) + [""]
    else:
        lines += ["No findings.", ""]
    cells = nonconforming_cells(run)
    if cells:
        lines += ["### Behaviour matrix: cells that do not conform", ""] + _table(["row", "oracle", "behaviours"], cells) + [""]
    if comparison is not None:
        lines += comparison_lines(comparison)
    return "\n".join(lines)
