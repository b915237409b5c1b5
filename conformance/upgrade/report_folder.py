"""The upgrade report: one folder (``--out``, default ``reports/upgrade/``).

* ``index.html``: the verdict and what departs now that did not before; the
  versions really installed (requested, installed, Python, environment,
  relaxed pins, times); then per step (a version and the next) the atlas
  cells whose behaviour changed with their probe case and reproducer script,
  the findings that appeared or disappeared (with their scripts), the
  baseline entries fixed upstream (with their reproducers); with three or
  more versions, a timeline per cell, finding and entry (which version
  changed what); every table also in ``summary.md``.
* ``upgrade.json`` (format :data:`UPGRADE_FORMAT`): all of it, machine-readable.
* ``steps/<a>_to_<b>/``: the full two-run report of each step
  (:func:`conformance.report.build_report` with ``compare=True``).
* ``versions/<label>/``: each version's own run folder and report (written by its campaign).
* ``scripts/``: the reproducers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import ChoiceLoader, FileSystemLoader
from markupsafe import Markup

from conformance.core.behaviour import behaviour_css, css_class
from conformance.core.case import Case
from conformance.execution.scripts import values_text
from conformance.report import build_report
from conformance.report.atlas_diff import cell_words
from conformance.report.html import TEMPLATES as REPORT_TEMPLATES
from conformance.report.html import environment as report_environment
from conformance.report.markdown import table, table_cell
from conformance.upgrade.study import Study, script_name
from conformance.upgrade.timeline import NOT_THERE, CellTimeline, FindingTimeline
from conformance.upgrade.verdict import exit_status

UPGRADE_FORMAT = 1
"""Version of the ``upgrade.json`` layout (its ``"format"`` key)."""
TEMPLATES = Path(__file__).resolve().parent / "templates"
STEPS_DIR = "steps"
MAX_VALUES = 16
"""Arrays of at most this many elements are shown with their values."""


def array_words(a: np.ndarray) -> str:
    """An array as ``dtype[shape]``, with its values when small.

    >>> array_words(np.array([-1, 4])), array_words(np.zeros((20, 3), np.float32))
    ('int64[2] = [-1, 4]', 'float32[20, 3]')
    """
    shape = ", ".join(map(str, a.shape))
    values = values_text(a) if a.size <= MAX_VALUES else ""
    return f"{a.dtype.name}[{shape}]{values}"


def case_words(example: dict[str, Any]) -> str:
    """A probe case (an atlas cell's ``example``, or a baseline reproducer) in one line.

    >>> from conformance.core.encoding import encode_array
    >>> case_words({"op": "numpy.take", "data": encode_array(np.arange(3)), "indices": encode_array(np.array([5])),
    ...             "attrs": {"axis": 0}, "reference": "error IndexError", "observed": "value int64[1]"})
    'numpy.take(data int64[3] = [0, 1, 2], indices int64[1] = [5], axis=0): docs error IndexError; observed ...'
    """
    try:
        case = Case.from_json(example)
    except (KeyError, TypeError, ValueError) as exc:
        return f"(no case: {type(exc).__name__}: {exc})"
    attrs = "".join(f", {k}={v!r}" for k, v in case.attrs.items())
    text = (
        f"{case.op}(data {array_words(np.asarray(case.data))}, indices {array_words(np.asarray(case.indices))}{attrs})"
    )
    said = [f"{w} {example[k]}" for k, w in (("reference", "docs"), ("observed", "observed")) if example.get(k)]
    return text + (": " + "; ".join(said) if said else "")


def step_folder(labels: tuple[str, str]) -> str:
    """The folder of a step's two-run report.

    >>> step_folder(("1.31.1", "1.32.0"))
    'steps/1.31.1_to_1.32.0'
    """
    safe = ["".join(ch if ch.isalnum() or ch in ".-" else "_" for ch in label) for label in labels]
    return f"{STEPS_DIR}/{safe[0]}_to_{safe[1]}"


def finding_script(study: Study, number: int, t: FindingTimeline) -> tuple[str, str] | None:
    """``(file name, text)`` of a finding's own reproducer, from the last version that has it."""
    i = max(n for n, present in enumerate(t.present()) if present)
    finding = t.findings[i]
    assert finding is not None
    text = finding.scripts.get(finding.signature.oracle)
    if not text:
        return None
    return script_name("finding", number, study.timeline.labels[i], finding.signature.oracle), text


def cell_rows(study: Study) -> list[dict[str, Any]]:
    """One row per cell that changes somewhere: words per version, changes, example and scripts."""
    labels = study.timeline.labels
    rows = []
    for k, c in enumerate(study.timeline.cells, start=1):
        changes = c.changes()
        scripts = [
            name
            for i in changes
            for name in (script_name("cell", k, labels[i], c.cell.oracle),)
            if name in study.scripts
        ]
        departs = [i for i in changes if c.departs(i)]
        rows.append(
            {
                "number": k,
                "where": c.where(),
                "words": c.words(),
                "classes": [css_class(x.behaviour) if x is not None else "" for x in c.cells],
                "documented": c.documented(),
                "changes": changes,
                "departs": departs,
                "steps": [f"{labels[i - 1]} → {labels[i]}: {c.change(i).words().split(': ', 1)[1]}" for i in changes],
                "example": case_words(_example(c, changes)),
                "scripts": scripts,
            }
        )
    return rows


def _example(c: CellTimeline, changes: Sequence[int]) -> dict[str, Any]:
    """The probe case a cell row shows: the one that departs from the docs at its last change."""
    for i in reversed(changes):
        change = c.change(i)
        side = change.after if change.after is not None and not change.after.documented else change.before
        if side is not None:
            return side.example
    return c.cell.example


def finding_rows(study: Study) -> list[dict[str, Any]]:
    """One row per root cause that appears or disappears somewhere."""
    labels = study.timeline.labels
    rows = []
    for k, t in enumerate(study.timeline.findings, start=1):
        script = finding_script(study, k, t)
        rows.append(
            {
                "number": k,
                "words": t.words(),
                "present": t.present(),
                "appeared": [labels[i] for i in t.appeared()],
                "disappeared": [labels[i] for i in t.disappeared()],
                "example": case_words(t.finding.case.to_json() | {"observed": _observed(t)}),
                "script": script[0] if script else None,
            }
        )
    return rows


def _observed(t: FindingTimeline) -> str:
    f = t.finding
    outcome = f.outcomes.get(f.signature.oracle)
    return outcome.describe() if outcome is not None else ""


def entry_rows(study: Study, *, changed_only: bool) -> list[dict[str, Any]]:
    """One row per replayed baseline entry (only those whose status changes, with ``changed_only``)."""
    labels = study.timeline.labels
    rows = []
    for k, e in enumerate(study.timeline.entries, start=1):
        if changed_only and not e.changes():
            continue
        fixed = [labels[i] for i in e.fixed_at()]
        scripts = [
            script_name("entry", k, labels[i], o, r)
            for i in e.fixed_at()
            for o in study.oracles
            for r in range(1, len(e.entry.reproducers) + 1)
        ]
        rows.append(
            {
                "number": k,
                "entry": e.entry.describe(),
                "statuses": list(e.statuses),
                "details": list(e.details),
                "fixed": fixed,
                "departs": [labels[i] for i in range(1, len(labels)) if e.departs(i)],
                "reproducers": [case_words(c) for c in e.entry.reproducers[:3]],
                "scripts": [s for s in scripts if s in study.scripts],
            }
        )
    return rows


def version_rows(study: Study) -> list[dict[str, Any]]:
    """One row per version: what was asked, what the environment really got, and the run's figures."""
    rows = []
    for label, v in zip(study.timeline.labels, study.versions):
        f, r = v.facts, v.result
        undocumented = sum(not c.documented for c in v.atlas.cells) if v.atlas else None
        statuses = [x.get("status", "") for x in r.replay]
        rows.append(
            {
                "label": label,
                "requested": f.request.requirement,
                "installed": f.installed,
                "python": f.python,
                "tool": f.tool,
                "environment": "cached" if f.cached else "built",
                "environment_s": round(f.seconds, 1),
                "path": f.path,
                "relaxed": ", ".join(f"{p} → {v or 'none'}" for p, v in f.relaxed.items()),
                "campaign_s": round(v.seconds, 1),
                "findings": len(r.findings),
                "cells": len(v.atlas.cells) if v.atlas else None,
                "undocumented": undocumented,
                "replay": {s: statuses.count(s) for s in dict.fromkeys(statuses)},
                "report": f"{v.folder.relative_to(study.plan.out).as_posix()}/index.html",
            }
        )
    return rows


def step_rows(study: Study) -> list[dict[str, Any]]:
    """One row per step: counts of what changed, and where its two-run report is."""
    rows = []
    for s in study.timeline.steps:
        rows.append(
            {
                "from": s.labels[0],
                "to": s.labels[1],
                "words": s.words(),
                "atlas": [{"words": c.words(), "where": c.where(), **c.to_json()} for c in s.atlas],
                "appeared": [f.signature.words() for f in s.comparison.appeared],
                "disappeared": [f.signature.words() for f in s.comparison.disappeared],
                "fixed_upstream": [e.entry.describe() for e in s.fixed],
                "departures": [d.line() for d in study.departures if d.step == s.words()],
                "report": f"{step_folder(s.labels)}/index.html",
            }
        )
    return rows


def upgrade_json(study: Study) -> dict[str, Any]:
    """``upgrade.json`` (see the module docstring)."""
    t = study.timeline
    status = exit_status(study.departures)
    return {
        "format": UPGRADE_FORMAT,
        "framework": study.plan.framework,
        "oracles": study.oracles,
        "left_out": study.left_out,
        "seed": study.plan.seed,
        "max_examples": study.plan.max_examples,
        "versions": [
            {
                **v.facts.to_json(),
                "label": label,
                "campaign_s": round(v.seconds, 1),
                "folder": row["report"].rsplit("/", 1)[0],
            }
            for label, v, row in zip(t.labels, study.versions, version_rows(study))
        ],
        "steps": step_rows(study),
        "timeline": {
            "labels": t.labels,
            "cells": [c.to_json() for c in t.cells],
            "findings": [f.to_json() for f in t.findings],
            "baseline": [e.to_json() for e in t.entries],
        },
        "departures": [d.line() for d in study.departures],
        "verdict": "fail" if status else "pass",
        "exit_status": status,
        "environments_s": round(study.environments_s, 1),
        "wall_s": round(study.wall_s, 1),
    }


def headline(study: Study) -> str:
    """The report's first line.

    The verdict says FAIL when anything departs from the docs that did not before.
    """
    t = study.timeline
    verdict = f"FAIL: {len(study.departures)} new departures from the docs" if study.departures else "pass"
    return f"{study.plan.framework} {' → '.join(t.labels)}: {verdict}"


def markdown(study: Study) -> str:
    """``summary.md``: the same content as the page, as Markdown tables."""
    t = study.timeline
    lines = [f"## gather-conformance upgrade: {headline(study)}", ""]
    plan = study.plan
    figures = (
        f"Oracles: {', '.join(study.oracles)} · seed {plan.seed} · {plan.max_examples} drawn cases per class · "
        f"environments {study.environments_s:.0f} s · wall time {study.wall_s:.0f} s"
    )
    lines += [figures, ""]
    header = [
        "version",
        "requested",
        "python",
        "environment",
        "campaign",
        "findings",
        "cells not documented",
        "baseline replay",
    ]
    rows = [
        [
            r["installed"],
            r["requested"],
            r["python"],
            f"{r['environment']} ({r['tool']}, {r['environment_s']:.0f} s)"
            + (f"; relaxed {r['relaxed']}" if r["relaxed"] else ""),
            f"{r['campaign_s']:.0f} s",
            str(r["findings"]),
            "—" if r["undocumented"] is None else f"{r['undocumented']} of {r['cells']}",
            ", ".join(f"{k} {n}" for k, n in r["replay"].items()) or "—",
        ]
        for r in version_rows(study)
    ]
    lines += table(header, rows) + [""]
    if study.departures:
        lines += ["**Departs from the docs now, and did not before** (the gate fails):", ""]
        lines += [f"- {table_cell(d.line())}" for d in study.departures] + [""]
    else:
        lines += ["**Nothing departs from the docs that did not before** (the gate passes).", ""]
    for s in step_rows(study):
        lines += [f"### {s['words']}", ""]
        if not (s["atlas"] or s["appeared"] or s["disappeared"] or s["fixed_upstream"]):
            lines += ["Nothing changed: every atlas cell, finding and baseline reproducer behaves as before.", ""]
        if s["atlas"]:
            lines += [f"{len(s['atlas'])} atlas cells changed:", ""]
            lines += table(["change", "where"], [[c["words"], c["where"]] for c in s["atlas"]]) + [""]
        for key, words in (
            ("appeared", "Findings that appeared"),
            ("disappeared", "Findings that disappeared"),
            ("fixed_upstream", "Baseline entries fixed upstream"),
        ):
            if s[key]:
                lines += [f"{words} ({len(s[key])}):", ""] + [f"- {table_cell(x)}" for x in s[key]] + [""]
        lines += [f"Full comparison: `{s['report']}`", ""]
    if len(t.labels) > 2 and (t.cells or t.findings):
        lines += ["### Timeline", ""]
        lines += table(
            ["cell", *t.labels], [[r["where"], *_marked(r["words"], r["changes"])] for r in cell_rows(study)]
        )
        lines += [""]
        lines += table(
            ["finding", *t.labels],
            [[r["words"], *("found" if p else NOT_THERE for p in r["present"])] for r in finding_rows(study)],
        )
        lines += [""]
    changed = entry_rows(study, changed_only=True)
    if changed:
        lines += ["### Baseline entries whose replay changed", ""]
        lines += table(["entry", *t.labels], [[r["entry"], *r["statuses"]] for r in changed]) + [""]
    return "\n".join(lines)


def _marked(words: Sequence[str], changes: Sequence[int]) -> list[str]:
    """Words per version, those that changed in bold.

    >>> _marked(["raises", "wraps"], [1])
    ['raises', '**wraps**']
    """
    return [f"**{w}**" if i in changes else w for i, w in enumerate(words)]


def page(study: Study) -> str:
    """``index.html``."""
    env = report_environment()
    env.loader = ChoiceLoader([FileSystemLoader(TEMPLATES), FileSystemLoader(REPORT_TEMPLATES)])
    t = study.timeline
    context = {
        "title": f"gather-conformance upgrade: {study.plan.framework} {' → '.join(t.labels)}",
        "headline": headline(study),
        "study": study,
        "labels": t.labels,
        "versions": version_rows(study),
        "steps": step_rows(study),
        "cells": cell_rows(study),
        "findings": finding_rows(study),
        "entries": entry_rows(study, changed_only=True),
        "entries_total": len(t.entries),
        "departures": [d.line() for d in study.departures],
        "behaviour_css": Markup(behaviour_css()),
        "cell_words": cell_words,
    }
    return env.get_template("upgrade.html.j2").render(context)


def write_report(study: Study) -> Path:
    """Write the folder (see the module docstring); the path of its ``index.html``."""
    out = study.plan.out
    t = study.timeline
    for s in t.steps:
        i = s.index
        build_report(
            [t.runs[i - 1], t.runs[i]],
            out / step_folder(s.labels),
            compare=True,
            atlases=[t.atlases[i - 1], t.atlases[i]],
        )
    files: dict[str, str] = dict(study.scripts)
    for k, f in enumerate(t.findings, start=1):
        script = finding_script(study, k, f)
        if script:
            files[script[0]] = script[1]
    files["upgrade.json"] = json.dumps(upgrade_json(study), indent=1, default=str)
    files["summary.md"] = markdown(study)
    files["index.html"] = page(study)
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out / "index.html"
