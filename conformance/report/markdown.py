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

from conformance.behaviour import severity
from conformance.findings import MatrixKey, RunResult
from conformance.report.facts_view import flatten_facts
from conformance.report.runs import Comparison, cell_summary
from conformance.report.views import FindingView, finding_views

MAX_ROWS = 30
"""Rows per Markdown table before "... and N more"."""


def table_cell(text: str) -> str:
    """Text safe inside a Markdown table cell.

    >>> table_cell("a|b\\nc")
    'a\\\\|b c'
    """
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table, cut at :data:`MAX_ROWS`.

    >>> table(["a"], [["1"]])
    ['| a |', '|---|', '| 1 |']
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(table_cell(c) for c in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_ROWS} more (see the HTML report)")
    return lines


def headline(run: RunResult) -> str:
    """The first line: how many findings, how many new.

    >>> headline(RunResult({}, 0, {}, {}, 1.0, {}, []))
    '## gather-conformance: 0 findings (0 new, 0 known)'
    """
    new = sum(f.status == "new" for f in run.findings)
    n = len(run.findings)
    return f"## gather-conformance: {n} finding{'s' * (n != 1)} ({new} new, {n - new} known)"


def facts_line(run: RunResult) -> str:
    """Seed, cases, time, throughput and versions in one line.

    >>> facts_line(RunResult({"oracles": [{"name": "jax", "version": "0.10.2"}]}, 1, {}, {"jax": 3}, 0.0, {}, []))
    'seed 1 · 3 cases in 0.0 s · 0 raw discrepancies · jax 0.10.2'
    """
    cases = sum(run.cases.values())
    rate = f" ({cases / run.seconds:.0f} cases/s)" if run.seconds else ""
    facts = flatten_facts(run.facts).items()
    versions = [f"{k.removeprefix('oracles.').removesuffix('.version')} {v}" for k, v in facts if "version" in k]
    totals = [f"seed {run.seed}", f"{cases} cases in {run.seconds:.1f} s{rate}"]
    return " · ".join([*totals, f"{run.raw_discrepancies} raw discrepancies", *versions])


def row_words(key: MatrixKey) -> str:
    """A matrix row in words (an empty part left out).

    >>> row_words(MatrixKey("torch.gather", "negative", "int")), row_words(MatrixKey("t.g", "neg", ""))
    ('torch.gather · negative · int', 't.g · neg')
    """
    return " · ".join(part for part in (key.op, key.regime, key.data_family) if part)


def nonconforming_cells(run: RunResult) -> list[list[str]]:
    """``[row, oracle, behaviours]`` for every matrix cell where something did not conform, worst first.

    >>> k = MatrixKey("t.g", "neg", "int")
    >>> nonconforming_cells(RunResult({}, 0, {}, {}, 1.0, {k: {"a": {"conforms": 2}, "b": {"wraps": 1}}}, []))
    [['t.g · neg · int', 'b', 'wraps 1']]
    """
    rows = []
    for key, cells in run.matrix.items():
        for oracle, counts in cells.items():
            worst = max((severity(b) for b, n in counts.items() if n), default=0)
            if worst > 0:
                rows.append((worst, [row_words(key), oracle, cell_summary(counts)]))
    return [r for _, r in sorted(rows, key=lambda wr: -wr[0])]


def warning_lines(run: RunResult) -> list[str]:
    """What makes the run's numbers incomplete: its status, its harness errors.

    >>> from conformance.findings import HarnessError
    >>> errors = [HarnessError("judge", "KeyError: 'x'")]
    >>> for line in warning_lines(RunResult({}, 0, {}, {}, 1.0, {}, [], harness_errors=errors, status="partial")):
    ...     print(line)
    **Run partial**: the matrix and the findings cover only part of it.
    **1 harness error** (judge: KeyError: 'x')
    <BLANKLINE>
    """
    lines = []
    if run.status != "complete":
        lines.append(f"**Run {run.status}**: the matrix and the findings cover only part of it.")
    if run.harness_errors:
        n = len(run.harness_errors)
        shown = "; ".join(f"{e.stage}: {e.error}" for e in run.harness_errors[:3]) + ("; …" if n > 3 else "")
        lines.append(f"**{n} harness error{'s' * (n != 1)}** ({table_cell(shown)})")
    return lines + [""] if lines else []


def comparison_lines(comparison: Comparison) -> list[str]:
    """The "changes since the old run" section.

    >>> comparison_lines(Comparison())
    ['### Changes since the compared run', '', 'Nothing changed.', '']
    """
    lines = ["### Changes since the compared run", ""]
    if comparison.is_empty():
        return lines + ["Nothing changed.", ""]
    for label, found in (("Appeared", comparison.appeared), ("Disappeared", comparison.disappeared)):
        lines += [f"**{label}** ({len(found)}):" if found else f"**{label}**: none"]
        lines += [f"- {f.signature.words()}" for f in found[:MAX_ROWS]]
        lines.append("")
    if comparison.changed or comparison.fact_changes:
        rows = [[c.what, c.key, c.before, c.after] for c in comparison.fact_changes + comparison.changed]
        lines += table(["what", "where", "before", "after"], rows) + [""]
    return lines


def finding_row(view: FindingView) -> list[str]:
    """A finding's row in the findings table: number, status (NEW shouts), signature, examples, first seen.

    >>> import numpy as np
    >>> from conformance.findings import Case, Finding, Signature
    >>> from conformance.model import Outcome
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "crash", "", ("huge",))
    >>> f = Finding(sig, Case("t.g", np.zeros(1), np.zeros(1, int)), Outcome.returned(np.zeros(1)), {}, count=2)
    >>> finding_row(finding_views([f])[0])
    ['F1', 'NEW', 't.g on t 1 (cpu, eager): crash, for huge', '2', '0.00 s']
    """
    f = view.finding
    status = f.status.upper() if f.status == "new" else f.status
    return [f"F{view.number}", status, view.words, str(f.count), f"{f.first_seen_s:.2f} s"]


def markdown_summary(run: RunResult, comparison: Comparison | None = None) -> str:
    """The whole ``summary.md`` (see the module docstring)."""
    lines = [headline(run), "", facts_line(run), "", *warning_lines(run)]
    rows = [finding_row(v) for v in finding_views(run.findings)]
    if rows:
        lines += table(["#", "status", "signature", "examples", "first seen"], rows) + [""]
    else:
        lines += ["No findings.", ""]
    cells = nonconforming_cells(run)
    if cells:
        lines += ["### Behaviour matrix: cells that do not conform", ""]
        lines += table(["row", "oracle", "behaviours"], cells) + [""]
    if comparison is not None:
        lines += comparison_lines(comparison)
    return "\n".join(lines)
