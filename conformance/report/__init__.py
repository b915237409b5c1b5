"""The report: a self-contained folder that opens from disk with no network.

:func:`build_report` turns one run, several shards of one run (merged), or two
runs (compared) into ``index.html`` (:mod:`~conformance.report.html`),
``findings.json`` (the merged :class:`~conformance.findings.RunResult`),
``summary.md`` (:mod:`~conformance.report.markdown`, for CI logs and
pull-request comments), ``comparison.json`` when comparing, and one file per
reproduction script (``scripts/<finding>_<oracle>.py``) and ONNX model
(``models/<finding>.onnx``) so that each can be downloaded.

>>> import tempfile
>>> from conformance.findings import RunResult
>>> out = Path(tempfile.mkdtemp())
>>> build_report([RunResult({"versions": {"numpy": "2.4.6"}}, 0, {}, {"numpy": 1}, 0.5, {}, [])], out).name
'index.html'
>>> sorted(p.name for p in out.iterdir())
['findings.json', 'index.html', 'summary.md']
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from conformance.findings import RunResult
from conformance.report.html import render_html
from conformance.report.markdown import markdown_summary
from conformance.report.runs import Comparison, compare_runs, merge_runs
from conformance.report.views import ANCHOR_PREFIX, MODELS_DIR, SCRIPTS_DIR, finding_views

REPORT_FILES = ("index.html", "findings.json", "summary.md", "comparison.json")
"""The files at the top of a report folder that the report writes (and so owns)."""
OWNED_PATTERNS = (*REPORT_FILES, f"{SCRIPTS_DIR}/{ANCHOR_PREFIX}*.py", f"{MODELS_DIR}/{ANCHOR_PREFIX}*.onnx")
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
    for sub in (SCRIPTS_DIR, MODELS_DIR):
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


def report_files(run: RunResult, comparison: Comparison | None) -> dict[str, str | bytes]:
    """Every file of the report folder: relative path -> content.

    >>> sorted(report_files(RunResult({}, 0, {}, {}, 1.0, {}, []), None))
    ['findings.json', 'index.html', 'summary.md']
    """
    files: dict[str, str | bytes] = {}
    for view in finding_views(run.findings):
        files.update({path: text for _, path, text in view.scripts})
        if view.onnx_file and view.finding.onnx_model_b64:
            files[view.onnx_file] = base64.b64decode(view.finding.onnx_model_b64)
    files["findings.json"] = json.dumps(run.to_json(), indent=1, default=str)
    if comparison is not None:
        files["comparison.json"] = json.dumps(comparison.to_json(), indent=1)
    files["summary.md"] = markdown_summary(run, comparison)
    files["index.html"] = render_html(run, comparison)
    return files


def build_report(runs: Sequence[RunResult], out_dir: Path, *, compare: bool = False) -> Path:
    """Write the report folder (see the module docstring) and return the path
    of its ``index.html``.

    Without ``compare``, ``runs`` are shards of one run and are merged (a
    ValueError if their facts differ); with ``compare``, exactly two: the old
    run then the new one, and the report shows the new one and what changed.
    What an earlier report wrote into ``out_dir`` is removed first
    (:func:`clear_outputs`); nothing is touched if the runs cannot be combined.
    """
    run, comparison = report_run(runs, compare=compare)
    files = report_files(run, comparison)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    clear_outputs(out_dir)
    for name, content in files.items():
        path = out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return out_dir / "index.html"


__all__ = ["OWNED_PATTERNS", "REPORT_FILES", "build_report", "clear_outputs", "load_runs", "report_files"]
