"""The report page: one self-contained ``index.html`` (CSS and JS inline),
rendered from the Jinja2 templates in ``conformance/templates/``. The
behaviour colours and the legend come from :mod:`conformance.behaviour`.

>>> from conformance.findings import RunResult
>>> page = render_html(RunResult({}, None, {}, {}, 0.0, {}, []))
>>> "No findings" in page, ".b-crash {" in page
(True, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from conformance.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.behaviour import BEHAVIOURS, behaviour_css, css_class, legend
from conformance.dtypes import summary
from conformance.findings import RunResult
from conformance.model import Kind
from conformance.report.facts_view import fact_tables, fact_text, flatten_facts
from conformance.report.matrix_view import matrix_rows, oracle_columns
from conformance.report.runs import Comparison
from conformance.report.views import KIND_BEHAVIOUR, finding_views, throughput

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


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


def environment() -> Environment:
    """The Jinja2 environment of the report templates (autoescape on).

    >>> environment().filters["css"]("clamps (raw)")
    'b-clamps-raw'
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
    return env


def page_context(run: RunResult, comparison: Comparison | None, title: str) -> dict[str, Any]:
    """Everything the page template shows.

    >>> sorted(page_context(RunResult({"cores": 2}, 0, {}, {"numpy": 1}, 1.0, {}, []), None, "t")["oracles"])
    ['numpy']
    """
    oracles = oracle_columns(run)
    views = finding_views(run.findings)
    facts, tables = fact_tables(run.facts)
    return {
        "title": title,
        "run": run,
        "figures": flatten_facts({k: v for k, v in run.figures.items() if not isinstance(v, dict)}),
        "facts": facts,
        "fact_tables": tables,
        "oracles": oracles,
        "rows": matrix_rows(run.matrix, oracles, run.findings),
        "anchors": {v.finding.signature.key(): (v.anchor, v.number) for v in views},
        "findings": views,
        "legend": legend(),
        "behaviour_css": Markup(behaviour_css()),
        "kind_css": Markup(kind_css()),
        "throughput": throughput(run),
        "comparison": comparison,
        "new_count": sum(f.status == "new" for f in run.findings),
        "known_count": sum(f.status != "new" for f in run.findings),
        "total_cases": sum(run.cases.values()),
        **dtype_table(run.dtype_support),
    }


def dtype_table(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The dtype-support table: one row per (op, oracle, argument), one column per dtype seen.

    >>> t = dtype_table([{"op": "t.g", "oracle": "t", "arg": "index", "dtype": "int32", "documented": False, "statuses": {"rejected (dtype unsupported)": 2}}])
    >>> t["dtype_names"], t["dtype_rows"][0]["cells"]["int32"]["word"]
    (['int32'], 'rejected (dtype unsupported)')
    """
    names = sorted({r["dtype"] for r in rows}, key=lambda d: (DATA_DTYPES + INDEX_DTYPES + (d,)).index(d))
    table: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rows:
        word = summary(r["statuses"])
        css = "b-conforms" if word == "accepted" else "b-garbage" if word == "wrong" else "b-raises"
        cells = table.setdefault((r["op"], r["oracle"], r["arg"]), {})
        cells[r["dtype"]] = {"word": word, "documented": r["documented"], "css": css}
    return {"dtype_names": names, "dtype_rows": [{"op": o, "oracle": n, "arg": a, "cells": c} for (o, n, a), c in sorted(table.items())]}


def render_html(run: RunResult, comparison: Comparison | None = None, title: str = "gather-conformance report") -> str:
    """The report page as one self-contained HTML string (see the module docstring)."""
    return environment().get_template("report.html.j2").render(page_context(run, comparison, title))
