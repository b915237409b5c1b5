"""The report: a self-contained folder that opens from disk with no network.

:func:`build_report` turns one run, several shards of one run (merged), or two
runs (compared) into ``index.html`` (:mod:`~conformance.report.html`),
``findings.json`` (the merged :class:`~conformance.results.run_result.RunResult`),
``summary.md`` (:mod:`~conformance.report.markdown`, for CI logs and
pull-request comments), ``comparison.json`` when comparing, and one file per
reproduction script (``scripts/<finding>_<oracle>.py``), ONNX model
(``models/<finding>.onnx``) and upstream issue text (``upstream/<finding>.md``,
:mod:`~conformance.report.upstream`) so that each can be downloaded.

The probe atlas (``atlas.json``, :mod:`conformance.results.atlas`) comes with each
run: passed in (``atlases``, one per run, as :func:`load_atlases` reads
them beside the results), carried by the run (an ``atlas`` attribute), or,
for one run, the ``atlas.json`` already in the report folder (where the
campaign writes it) when its versions are the run's. Without one the page
says so and shows the sampled matrix instead.

>>> import tempfile
>>> from conformance.results.run_result import RunResult
>>> out = Path(tempfile.mkdtemp())
>>> build_report([RunResult({"versions": {"numpy": "2.4.6"}}, 0, {}, {"numpy": 1}, 0.5, {}, [])], out).name
'index.html'
>>> sorted(p.name for p in out.iterdir())
['findings.json', 'index.html', 'summary.md']
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape as html_escape
from pathlib import Path
from typing import Any

from conformance.report.atlas_diff import atlas_changes
from conformance.report.atlas_match import AtlasLinks
from conformance.report.facts_view import oracle_facts
from conformance.report.html import render_html
from conformance.report.markdown import markdown_summary
from conformance.report.runs import Comparison, compare_runs, merge_runs
from conformance.report.upstream import UPSTREAM_DIR, issue_text, upstream_path
from conformance.report.views import ANCHOR_PREFIX, MODELS_DIR, SCRIPTS_DIR, finding_views
from conformance.results.atlas import Atlas
from conformance.results.run_result import RunResult

REPORT_FILES = ("index.html", "findings.json", "summary.md", "comparison.json")
"""The files at the top of a report folder that the report writes (and so owns)."""
OWNED_PATTERNS = (
    *REPORT_FILES,
    f"{SCRIPTS_DIR}/{ANCHOR_PREFIX}*.py",
    f"{MODELS_DIR}/{ANCHOR_PREFIX}*.onnx",
    f"{UPSTREAM_DIR}/{ANCHOR_PREFIX}*.md",
)
"""Every file a report may have written into its folder, as glob patterns."""


def load_runs(paths: Iterable[str | Path]) -> list[RunResult]:
    """The runs in ``results.json`` files (a FileNotFoundError if one is missing).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "results.json"
    >>> RunResult({}, 5, {}, {}, 1.0, {}, []).save(path)
    >>> [r.seed for r in load_runs([path])]
    [5]
    """
    return [RunResult.load(p) for p in paths]


ATLAS_FILE = "atlas.json"
"""The probe atlas's file, beside a run's ``results.json``."""


def atlas_path(path: str | Path) -> Path:
    """Where the atlas of a run folder or results file is.

    >>> atlas_path("/runs/a").as_posix(), atlas_path("/runs/a/results.json").as_posix()
    ('/runs/a/atlas.json', '/runs/a/atlas.json')
    """
    path = Path(path)
    return path / ATLAS_FILE if path.is_dir() or not path.suffix else path.parent / ATLAS_FILE


def load_atlases(paths: Iterable[str | Path]) -> list[Atlas | None]:
    """The atlas beside each run (a folder or a results file), None where
    there is none; a damaged one raises :class:`~conformance.results.atlas.AtlasFileError` (a ValueError).

    >>> import tempfile
    >>> load_atlases([tempfile.mkdtemp()])
    [None]
    """
    return [Atlas.load(p) if p.is_file() else None for p in map(atlas_path, paths)]


def carried_atlas(run: RunResult) -> Atlas | None:
    """The atlas a run carries, if it does (an ``atlas`` attribute: an Atlas or its JSON).

    >>> carried_atlas(RunResult({}, 0, {}, {}, 1.0, {}, [])) is None
    True
    """
    value: Any = getattr(run, "atlas", None)
    if isinstance(value, Atlas) or value is None:
        return value
    return Atlas.from_json(value) if isinstance(value, dict) else None


def matches_run(atlas: Atlas, run: RunResult) -> bool:
    """Whether an atlas can be the run's: every oracle both know is at the same version.

    >>> from conformance.results.atlas import AtlasCell
    >>> run = RunResult({"oracles": {"torch": {"version": "2.13.0"}}}, 0, {}, {}, 1.0, {}, [])
    >>> cell = AtlasCell("size", "element gather", "torch.gather", "torch", "2.12.0", "raises", None, True, {})
    >>> matches_run(Atlas([cell]), run), matches_run(Atlas([]), run)
    (False, True)
    """
    versions = {name: info.get("version") for name, info in oracle_facts(run.facts).items()}
    return all(versions.get(c.oracle, c.version) == c.version for c in atlas.cells)


def report_atlases(
    runs: Sequence[RunResult], atlases: Sequence[Atlas | None] | None, out_dir: Path, *, compare: bool
) -> tuple[Atlas | None, Atlas | None]:
    """``(the shown run's atlas, the old run's atlas when comparing)``: see the module docstring.

    >>> run = RunResult({}, 0, {}, {}, 1.0, {}, [])
    >>> report_atlases([run], [Atlas([])], Path("/nonexistent"), compare=False)
    (Atlas(cells=[], errors=[], skipped=[]), None)
    """
    given = list(atlases) if atlases is not None else [carried_atlas(r) for r in runs]
    if len(given) != len(runs):
        raise ValueError(f"{len(given)} atlases for {len(runs)} runs")
    if compare:
        return given[1], given[0]
    shown = next((a for a in given if a is not None), None)
    beside = out_dir / ATLAS_FILE
    if shown is None and len(runs) == 1 and beside.is_file():
        candidate = Atlas.load(beside)
        shown = candidate if matches_run(candidate, runs[0]) else None
    return shown, None


def report_outputs(out_dir: Path) -> list[Path]:
    """The files in ``out_dir`` that a report wrote (see :data:`OWNED_PATTERNS`).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "scripts").mkdir(); _ = (d / "scripts" / "f-1_numpy.py").write_text("")
    >>> _ = (d / "results.jsonl").write_text(""); [p.relative_to(d).as_posix() for p in report_outputs(d)]
    ['scripts/f-1_numpy.py']
    """
    return sorted({p for pattern in OWNED_PATTERNS for p in out_dir.glob(pattern) if p.is_file()})


def clear_outputs(out_dir: Path) -> None:
    """Remove what an earlier report wrote into ``out_dir`` (its files, then
    its ``scripts/`` and ``models/`` folders if that left them empty); other
    files (``results.json``, a user's) stay.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "models").mkdir(); _ = (d / "models" / "f-1.onnx").write_bytes(b"")
    >>> _ = (d / "index.html").write_text(""); _ = (d / "notes.txt").write_text("")
    >>> clear_outputs(d); sorted(p.name for p in d.iterdir())
    ['notes.txt']
    """
    for path in report_outputs(out_dir):
        path.unlink()
    for sub in (SCRIPTS_DIR, MODELS_DIR, UPSTREAM_DIR):
        folder = out_dir / sub
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def report_run(runs: Sequence[RunResult], *, compare: bool) -> tuple[RunResult, Comparison | None]:
    """The run a report shows and, when comparing, how it differs from the
    old one: shards merged (:func:`~conformance.report.runs.merge_runs`), or
    exactly two runs, old then new, compared; a ValueError otherwise.

    >>> run = RunResult({}, 0, {}, {}, 1.0, {}, [])
    >>> report_run([run, run], compare=True)[1].is_empty()
    True
    """
    if not compare:
        return merge_runs(runs), None
    if len(runs) != 2:
        raise ValueError(f"compare needs exactly two results (old, new), got {len(runs)}")
    return runs[1], compare_runs(runs[0], runs[1])


def report_files(
    run: RunResult, comparison: Comparison | None, atlas: Atlas | None = None, old_atlas: Atlas | None = None
) -> dict[str, str | bytes]:
    """Every file of the report folder: relative path -> content.

    >>> sorted(report_files(RunResult({}, 0, {}, {}, 1.0, {}, []), None))
    ['findings.json', 'index.html', 'summary.md']
    """
    changes = (
        atlas_changes(old_atlas, atlas)
        if comparison is not None and atlas is not None and old_atlas is not None
        else None
    )
    files: dict[str, str | bytes] = {}
    links = AtlasLinks(atlas, run.findings) if atlas is not None else None
    for view in finding_views(run.findings):
        files.update({path: text for _, path, text in view.scripts})
        files[upstream_path(view.anchor)] = issue_text(view.finding, run.facts, links)
        if view.onnx_file and view.finding.onnx_model_b64:
            files[view.onnx_file] = base64.b64decode(view.finding.onnx_model_b64)
    files["findings.json"] = json.dumps(run.to_json(), indent=1, default=str)
    if comparison is not None:
        files["comparison.json"] = json.dumps(
            comparison.to_json() | {"atlas": [c.to_json() for c in changes or ()]}, indent=1
        )
    files["summary.md"] = markdown_summary(run, comparison, atlas=atlas, changes=changes)
    files["index.html"] = render_html(run, comparison, atlas=atlas, old_atlas=old_atlas)
    return files


class ReportAbandoned(Exception):
    """A report built in the background was given up before it wrote anything (:class:`WriteGate`)."""


@dataclass
class WriteGate:
    """Lets a report built in the background be given up before it writes,
    never halfway through: :func:`build_report` writes while holding ``lock``,
    and only if the gate is still open (else :class:`ReportAbandoned`).

    >>> gate = WriteGate(); gate.close(); gate.open
    False
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    open: bool = True

    def close(self) -> None:
        """No write starts after this; one under way ends first."""
        with self.lock:
            self.open = False


def pending_page(why: str, command: str) -> str:
    """The ``index.html`` of a report not built yet: why, and the command that builds it.

    >>> "gather-conformance report r" in pending_page("cut short", "gather-conformance report r")
    True
    """
    return (
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>gather-conformance: report not built</title>'
        f"<h1>The report was not built</h1><p>{html_escape(why)}</p>"
        f"<p>Build it from the results saved beside this page: <code>{html_escape(command)}</code></p></html>\n"
    )


def build_report(
    runs: Sequence[RunResult],
    out_dir: Path,
    *,
    compare: bool = False,
    atlases: Sequence[Atlas | None] | None = None,
    gate: WriteGate | None = None,
) -> Path:
    """Write the report folder (see the module docstring) and return the path
    of its ``index.html``.

    Without ``compare``, ``runs`` are shards of one run and are merged (a
    ValueError if their facts differ); with ``compare``, exactly two: the old
    run then the new one, and the report shows the new one and what changed
    (the atlas cells an upgrade changed first, given both runs' atlases).
    ``atlases``: one per run (None where a run has none), as
    :func:`load_atlases` reads them. What an earlier report wrote into
    ``out_dir`` is removed first (:func:`clear_outputs`); nothing is touched
    if the runs cannot be combined.
    ``gate``: for a report built in the background, which may be given up
    (:class:`WriteGate`) until the moment it writes.
    """
    out_dir = Path(out_dir)
    run, comparison = report_run(runs, compare=compare)
    atlas, old_atlas = report_atlases(runs, atlases, out_dir, compare=compare)
    files = report_files(run, comparison, atlas, old_atlas)
    gate = gate or WriteGate()
    with gate.lock:
        if not gate.open:
            raise ReportAbandoned(f"{out_dir}: the report was given up before it was written")
        _write(files, out_dir)
    return out_dir / "index.html"


def _write(files: dict[str, str | bytes], out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    clear_outputs(out_dir)
    for name, content in files.items():
        path = out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


__all__ = [
    "ATLAS_FILE",
    "OWNED_PATTERNS",
    "REPORT_FILES",
    "ReportAbandoned",
    "WriteGate",
    "build_report",
    "clear_outputs",
    "load_atlases",
    "load_runs",
    "pending_page",
    "report_files",
]
