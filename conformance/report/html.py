"""The report page: one self-contained ``index.html`` (CSS and JS inline, no
network), rendered from the Jinja2 templates in ``conformance/templates/``.

Its first screen is the probe atlas (:mod:`~conformance.report.atlas_view`),
preceded, when two runs are compared, by the atlas cells the upgrade changed
(:mod:`~conformance.report.atlas_diff`); then the dtype-support tables, the
findings (grouped, filterable), the sampled behaviour matrix (collapsed), the
legend in words and the run facts. Behaviour colours and meanings come from
:mod:`conformance.core.behaviour`.

>>> from conformance.results.run_result import RunResult
>>> page = render_html(RunResult({}, None, {}, {}, 0.0, {}, []))
>>> "No findings" in page, ".b-crash {" in page, 'id="atlas"' in page
(True, True, True)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from conformance.core.behaviour import BEHAVIOURS, Behaviour, behaviour_css, css_class, legend
from conformance.core.outcome import Kind
from conformance.core.vocabulary import FindingStatus
from conformance.report.arrays_view import attr_text
from conformance.report.atlas_diff import AtlasChange, atlas_changes
from conformance.report.atlas_match import AtlasLinks
from conformance.report.atlas_view import atlas_tables
from conformance.report.dtype_view import dtype_tables
from conformance.report.facts_view import (
    fact_tables,
    fact_text,
    framework_versions,
    human_duration,
    oracle_facts,
    time_table,
)
from conformance.report.finding_groups import FILTERS, filter_options, finding_groups
from conformance.report.matrix_view import matrix_rows, oracle_columns
from conformance.report.run_view import console_head, oracle_runs, run_rows
from conformance.report.runs import Comparison
from conformance.report.upstream import issue_text, upstream_path
from conformance.report.views import KIND_BEHAVIOUR, finding_views
from conformance.results.atlas import Atlas
from conformance.results.run_result import RunResult

TEMPLATES = Path(__file__).resolve().parent / "templates"

ALWAYS = frozenset({Behaviour.CONFORMS})
NEVER = frozenset(
    {
        Behaviour.GARBAGE,
        Behaviour.WRONG_ERROR,
        Behaviour.READS_AS_INT,
        Behaviour.BATCH_DIVIDED,
        Behaviour.BATCH_BROADCAST,
        Behaviour.INTERNAL,
        Behaviour.CRASH,
        Behaviour.TIMEOUT,
        Behaviour.PROTOCOL,
    }
)
NOT_JUDGED = frozenset({Behaviour.UNSUPPORTED, Behaviour.NOT_RUN, Behaviour.HARNESS_ERROR})


def conformance_of(behaviour: Behaviour) -> str:
    """Whether a behaviour conforms, in words (the legend's last column).

    >>> conformance_of(Behaviour.CONFORMS), conformance_of(Behaviour.WRAPS), conformance_of(Behaviour.CRASH)
    ('always', "where the op's docs say so", 'never')
    """
    if behaviour in ALWAYS:
        return "always"
    if behaviour in NEVER:
        return "never"
    if behaviour in NOT_JUDGED:
        return "not judged"
    return "where the op's docs say so"


def legend_rows() -> list[tuple[str, str, str, str]]:
    """``(word, css class, meaning, conforms)`` for every behaviour, mildest first.

    >>> legend_rows()[0]
    ('conforms', 'b-conforms', 'returned exactly what the documented semantics give', 'always')
    """
    return [(word, cls, meaning, conformance_of(Behaviour(word))) for word, cls, meaning in legend()]


def kind_class(kind: str) -> str:
    """The CSS class of an outcome kind's badge.

    >>> kind_class("value"), kind_class("protocol error")
    ('kind-value', 'kind-protocol-error')
    """
    return "kind-" + css_class(kind).removeprefix("b-")


def kind_css() -> str:
    """A CSS rule per outcome kind but ``value`` (which is no behaviour, see
    ``_style.css.j2``), coloured as the behaviour the kind counts as.

    >>> print(kind_css().splitlines()[0])
    .kind-error { background: #dbe9fb; color: #0d47a1; }
    """
    rules = []
    for kind, behaviour in KIND_BEHAVIOUR.items():
        if kind is not Kind.VALUE:
            look = BEHAVIOURS[behaviour]
            rules.append(f".{kind_class(kind.value)} {{ background: {look.background}; color: {look.foreground}; }}")
    return "\n".join(rules)


def script_json(value: Any) -> Markup:
    """JSON safe inside a ``<script type="application/json">`` (no ``<`` at all).

    >>> str(script_json({"a": "</script>"}))
    '{"a":"\\\\u003c/script>"}'
    """
    return Markup(json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c"))


def breakable(text: str) -> Markup:
    """Text (escaped) that may wrap after ``_`` and ``.``, never inside a word.

    >>> str(breakable("take_along_axis<"))
    'take_<wbr>along_<wbr>axis&lt;'
    """
    escaped = str(Markup.escape(text))
    return Markup(escaped.replace("_", "_<wbr>").replace(".", ".<wbr>"))


def interned(value: Any) -> dict[str, Any]:
    """Records whose every string is an index into one table of distinct
    strings (``{"s": table, "r": records}``): the atlas's evidence repeats
    the same words thousands of times, and a smaller page opens faster.

    >>> interned([{"a": ["x", "y"]}, {"a": ["x"]}])
    {'s': ['x', 'y'], 'r': [{'a': [0, 1]}, {'a': [0]}]}
    """
    table: dict[str, int] = {}

    def walk(x: Any) -> Any:
        if isinstance(x, str):
            return table.setdefault(x, len(table))
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(v) for v in x]
        return x

    records = walk(value)
    return {"s": list(table), "r": records}


def environment() -> Environment:
    """The Jinja2 environment of the report templates (autoescape on).

    >>> environment().filters["css"]("clamps (raw)"), environment().filters["duration"](20000)
    ('b-clamps-raw', '5.6 h')
    """
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html", "j2", "html.j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["css"] = css_class
    env.filters["kind_class"] = kind_class
    env.filters["fact"] = fact_text
    env.filters["duration"] = human_duration
    env.filters["breakable"] = breakable
    env.filters["attr"] = attr_text
    return env


def atlas_context(
    run: RunResult, atlas: Atlas | None, changes: list[AtlasChange] | None, anchors: dict[str, tuple[str, int]]
) -> dict[str, Any]:
    """The atlas tables and their evidence records (empty without an atlas)."""
    records: list[dict[str, Any]] = []
    if atlas is None:
        return {"atlas_tables": [], "atlas_evidence": script_json(interned(records))}
    tables = atlas_tables(atlas, run.findings, anchors, oracle_facts(run.facts), changes or (), records)
    return {"atlas_tables": tables, "atlas_evidence": script_json(interned(records))}


def page_context(
    run: RunResult,
    comparison: Comparison | None,
    title: str,
    atlas: Atlas | None = None,
    old_atlas: Atlas | None = None,
) -> dict[str, Any]:
    """Everything the page template shows.

    >>> sorted(page_context(RunResult({"cores": 2}, 0, {}, {"numpy": 1}, 1.0, {}, []), None, "t")["oracles"])
    ['numpy']
    """
    oracles = oracle_columns(run)
    views = finding_views(run.findings)
    links = AtlasLinks(atlas, run.findings) if atlas is not None else None
    for v in views:
        v.upstream, v.upstream_file = issue_text(v.finding, run.facts, links), upstream_path(v.anchor)
    anchors = {v.finding.signature.key(): (v.anchor, v.number) for v in views}
    groups = finding_groups(views, oracle_facts(run.facts))
    facts, tables = fact_tables({k: v for k, v in run.facts.items() if k not in ("case_timeout_s", "timing")})
    if (times := time_table(run.facts)) is not None:
        tables.insert(0, times)
    changes = (
        atlas_changes(old_atlas, atlas)
        if comparison is not None and atlas is not None and old_atlas is not None
        else None
    )
    return {
        "title": title,
        "run": run,
        "console_head": console_head(run),
        "versions": framework_versions(run.facts),
        "run_rows": run_rows(run),
        "facts": facts,
        "fact_tables": tables,
        "oracle_runs": oracle_runs(run),
        "oracles": oracles,
        "rows": matrix_rows(run.matrix, oracles, run.findings),
        "anchors": anchors,
        "findings": views,
        "groups": groups,
        "filters": FILTERS,
        "filter_options": filter_options(groups),
        "legend": legend_rows(),
        "behaviour_css": Markup(behaviour_css()),
        "kind_css": Markup(kind_css()),
        "comparison": comparison,
        "atlas_changes": changes,
        "new_count": sum(f.status is FindingStatus.NEW for f in run.findings),
        "known_count": sum(f.status is not FindingStatus.NEW for f in run.findings),
        "dtype_tables": dtype_tables(run.dtype_support),
        **atlas_context(run, atlas, changes, anchors),
    }


def render_html(
    run: RunResult,
    comparison: Comparison | None = None,
    title: str = "gather-conformance report",
    *,
    atlas: Atlas | None = None,
    old_atlas: Atlas | None = None,
) -> str:
    """The report page as one self-contained HTML string (see the module docstring)."""
    return environment().get_template("report.html.j2").render(page_context(run, comparison, title, atlas, old_atlas))
