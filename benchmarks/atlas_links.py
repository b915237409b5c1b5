"""How many atlas cells that depart from the docs link to the finding that stands for them (issue 20's figure).

Run: ``python benchmarks/atlas_links.py RUN_FOLDER`` (the ``--out`` of ``gather-conformance run``, holding
``atlas.json`` and ``results.json``). A cell is matched to its findings as the report matches it
(:func:`conformance.report.atlas_match.cell_findings`: the typed root causes the campaign recorded for the
cell's departing probes, settled as the campaign settles its sightings), never by parsing words. It prints the
atlas's cells, those that depart from their op's docs, how many of those link to a finding, and each unlinked
one, said as *orphan* where a finding of the cell's oracle and op family exists (the report would say "no
finding stands for this cell" while one of its kind does) or as *alone* where none does::

    /tmp/al1: 812 atlas cells, 96 depart from the docs (12 where the docs are silent); 96 link to a finding
    /tmp/al1: 0 unlinked while a finding of their oracle and op family exists

Its exit status is 1 where some cell is an orphan, else 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.report.atlas_match import FindingIndex, cell_findings, op_family
from conformance.report.atlas_view import is_silent
from conformance.results.atlas import Atlas, AtlasCell
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult


def kinds(findings: Sequence[Finding]) -> set[tuple[str, str]]:
    """The (oracle, op family) of every finding: where an unlinked cell is an orphan."""
    return {(s.oracle, op_family(s.op)) for f in findings for s in f.mode_signatures()}


def unlinked(cells: Sequence[AtlasCell], findings: Sequence[Finding]) -> list[tuple[AtlasCell, bool]]:
    """Each departing cell that links to no finding, with whether it is an orphan
    (a finding of its oracle and op family exists).

    >>> unlinked([], [])
    []
    """
    index, known = FindingIndex(findings), kinds(findings)
    return [
        (c, (c.oracle, op_family(c.op)) in known) for c in cells if not c.documented and not cell_findings(c, index)
    ]


def describe(cell: AtlasCell) -> str:
    """One line naming a cell and what it did."""
    roots = f"{len(cell.roots)} root cause(s) recorded" if cell.roots else "no root cause recorded"
    return f"{cell.condition} | {cell.op} on {cell.oracle}: {cell.behaviour.value} ({roots})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("run_folder", type=Path, help="a run's --out folder (with atlas.json and results.json)")
    args = parser.parse_args(argv)
    folder: Path = args.run_folder
    missing = [n for n in ("atlas.json", "results.json") if not (folder / n).is_file()]
    if missing:
        print(f"run_folder: {folder} must hold {' and '.join(missing)} (a run with its atlas)", file=sys.stderr)
        return 2
    cells = Atlas.load(folder / "atlas.json").cells
    findings = RunResult.load(folder / "results.json").findings
    departing = [c for c in cells if not c.documented]
    silent = sum(is_silent(c) for c in departing)
    lost = unlinked(cells, findings)
    orphans = [c for c, orphan in lost if orphan]
    print(
        f"{folder}: {len(cells)} atlas cells, {len(departing)} depart from the docs ({silent} where the docs are"
        f" silent); {len(departing) - len(lost)} link to a finding"
    )
    for c, orphan in lost:
        print(f"  {'orphan' if orphan else 'alone'}: {describe(c)}")
    print(f"{folder}: {len(orphans)} unlinked while a finding of their oracle and op family exists")
    return 1 if orphans else 0


if __name__ == "__main__":
    sys.exit(main())
