"""A run's facts as the report shows them: nested facts flattened to
``a.b -> text`` pairs, lists of records (the oracles with their versions) as
tables, durations in human units and no raw JSON (``null`` is a dash).

>>> flatten_facts({"cores": 2, "oracles": [{"name": "jax", "version": "0.10.2"}]})
{'cores': '2', 'oracles.jax.version': '0.10.2'}
>>> human_duration(20.0), human_duration(0.0004), human_duration(95)
('20.0 s', '400 µs', '1.6 min')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FactTable = tuple[str, list[str], list[list[str]]]
"""``(title, columns, rows of cell texts)``."""

NONE_TEXT = "—"
"""How a missing value (JSON ``null``) reads."""


def human_duration(seconds: float | None) -> str:
    """A duration in the unit a person reads it in: µs, ms, s, min or h,
    with two or three significant digits (never ``2e+04 ms``).

    >>> [human_duration(s) for s in (0.0000123, 0.0123, 0.41, 3.25, 19.4, 61.0, 7200.0)]
    ['12 µs', '12.3 ms', '0.41 s', '3.25 s', '19.4 s', '1.0 min', '2.0 h']
    >>> human_duration(None), human_duration(0)
    ('—', '0 s')
    """
    if seconds is None:
        return NONE_TEXT
    s = float(seconds)
    if s == 0:
        return "0 s"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs" if s >= 1e-5 else f"{s * 1e6:.2g} µs"
    if s < 1:
        ms = s * 1e3
        return f"{ms:.2f} ms" if ms < 10 else f"{ms:.1f} ms" if ms < 100 else f"{s:.2f} s"
    if s < 60:
        return f"{s:.2f} s" if s < 10 else f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def number_text(value: float) -> str:
    """A number for people: thousands separated, else 3 significant digits (2 decimals under 10).

    >>> number_text(4118), number_text(3.5714), number_text(61.24), number_text(1234.5), number_text(20.0)
    ('4,118', '3.57', '61.2', '1,234', '20.0')
    """
    if isinstance(value, int) or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def fact_text(value: Any) -> str:
    """A fact's value as text: words joined, ``None`` a dash, records as
    ``key: value`` pairs; never raw JSON.

    >>> fact_text(["numpy.take", "numpy.take_along_axis"]), fact_text(2), fact_text("cpu"), fact_text(None)
    ('numpy.take, numpy.take_along_axis', '2', 'cpu', '—')
    >>> fact_text({"num_threads": 2, "x": None}), fact_text([0, 1]), fact_text({}), fact_text(True)
    ('num_threads: 2, x: —', '0, 1', '—', 'yes')
    """
    if value is None:
        return NONE_TEXT
    if isinstance(value, str):
        return value or NONE_TEXT
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {fact_text(v)}" for k, v in value.items()) or NONE_TEXT
    if isinstance(value, (list, tuple)):
        return ", ".join(fact_text(v) for v in value) or NONE_TEXT
    return str(value)


def _is_flat_record(value: Any) -> bool:
    return isinstance(value, dict) and not any(isinstance(x, dict) for x in value.values())


def table_rows(value: Any) -> list[dict[str, Any]] | None:
    """A list of dicts, or a dict of flat dicts (``facts["oracles"]``: name ->
    info), as table rows (a dict's keys become a ``name`` column); else None.

    >>> table_rows({"jax": {"version": "0.10.2"}}), table_rows({"a": 1})
    ([{'name': 'jax', 'version': '0.10.2'}], None)
    """
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return value
    if isinstance(value, dict) and value and all(_is_flat_record(v) for v in value.values()):
        return [{"name": k} | {c: x for c, x in v.items() if c != "name"} for k, v in value.items()]
    return None


def flatten_facts(facts: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested facts as ``a.b -> text``; a list of dicts with a ``name`` (the
    oracles) flattens by name.

    >>> flatten_facts({"versions": {"torch": "2.13.0"}, "oracles": [{"name": "jax", "version": "0.10.2"}]})
    {'versions.torch': '2.13.0', 'oracles.jax.version': '0.10.2'}
    """
    out: dict[str, str] = {}
    for k, v in facts.items():
        rows = table_rows(v) if isinstance(v, list) else None
        if isinstance(v, dict) and v:
            out.update(flatten_facts(v, f"{prefix}{k}."))
        elif rows is not None and all("name" in row for row in rows):
            for row in rows:
                out.update(flatten_facts({n: x for n, x in row.items() if n != "name"}, f"{prefix}{k}.{row['name']}."))
        else:
            out[f"{prefix}{k}"] = fact_text(v)
    return out


def fact_tables(facts: Mapping[str, Any]) -> tuple[dict[str, str], list[FactTable]]:
    """Facts split for display: flat ``key -> text`` pairs (empty ones left
    out), and a :data:`FactTable` per list of records (such as the oracles
    with their versions).

    >>> fact_tables({"cores": 2, "missing": {}, "oracles": {"jax": {"version": "0.10.2"}}})
    ({'cores': '2'}, [('oracles', ['name', 'version'], [['jax', '0.10.2']])])
    """
    flat = {
        k: v
        for k, v in flatten_facts({k: v for k, v in facts.items() if table_rows(v) is None}).items()
        if v != NONE_TEXT
    }
    tables = []
    for k, value in facts.items():
        rows = table_rows(value)
        if rows is not None:
            columns = list(dict.fromkeys(c for row in rows for c in row))
            tables.append((k, columns, [[fact_text(row.get(c, "")) for c in columns] for row in rows]))
    return flat, tables


def oracle_facts(facts: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each oracle's info (framework, version, device, mode, ops) by name,
    whether the facts hold them as a list or as a dict.

    >>> oracle_facts({"oracles": [{"name": "jax", "framework": "jax"}]})["jax"]["framework"]
    'jax'
    >>> oracle_facts({"oracles": {"tf-xla": {"framework": "tensorflow"}}})["tf-xla"]["framework"]
    'tensorflow'
    """
    rows = table_rows(facts.get("oracles")) or []
    return {str(r["name"]): dict(r) for r in rows if "name" in r}


def framework_versions(facts: Mapping[str, Any]) -> list[str]:
    """``framework version`` for every framework the run's oracles use, once each.

    >>> framework_versions({"oracles": {"tf": {"framework": "tensorflow", "version": "2.21.0"},
    ...                                 "tf-xla": {"framework": "tensorflow", "version": "2.21.0"}}})
    ['tensorflow 2.21.0']
    """
    out = [
        f"{info.get('framework') or name} {info.get('version') or '?'}" for name, info in oracle_facts(facts).items()
    ]
    return list(dict.fromkeys(out))


TIME_COLUMNS = (
    ("workers", "workers", None),
    ("start", "start_s", "s"),
    ("compiles cold", "compiles_cold", None),
    ("compile cold", "compile_cold_s", "s"),
    ("compiles warm", "compiles_warm", None),
    ("compile warm", "compile_warm_s", "s"),
    ("warm-ups in memory", "warm_ups_in_memory", None),
    ("runs", "runs", None),
    ("run", "run_s", "s"),
    ("confirmed", "confirmed", None),
    ("hangs", "hangs", None),
    ("peak MiB", "peak_mib", None),
)
"""The time table's columns: ``(heading, field of an oracle's timing, "s" for seconds)``."""


def oracle_timing(facts: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each oracle's time figures (``facts["timing"]["oracles"]``; a run written before the phases were kept
    holds them at ``facts["timing"]`` itself).

    >>> oracle_timing({"timing": {"phases_s": {}, "oracles": {"jax": {"runs": 3}}}}), oracle_timing({})
    ({'jax': {'runs': 3}}, {})
    """
    timing = facts.get("timing")
    if not isinstance(timing, Mapping):
        return {}
    oracles = timing.get("oracles", timing)
    return {str(k): dict(v) for k, v in oracles.items() if isinstance(v, Mapping)}


def time_table(facts: Mapping[str, Any]) -> FactTable | None:
    """Where each oracle's time went, slowest first (start-up, compilations cold and warm, runs, each with their
    seconds): a slow oracle shows without a profiler. None where the facts have no time figures.

    >>> title, columns, rows = time_table({"timing": {"oracles": {
    ...     "numpy": {"workers": 1, "start_s": 0.2, "runs": 40, "run_s": 0.01},
    ...     "jax": {"workers": 1, "start_s": 1.5, "compiles_cold": 9, "compile_cold_s": 4.1, "runs": 40,
    ...             "run_s": 0.3}}}})
    >>> columns[:5], rows[0][:5], rows[1][4]
    (['oracle', 'workers', 'start', 'compiles cold', 'compile cold'], ['jax', '1', '1.50 s', '9', '4.10 s'], '—')
    """
    oracles = oracle_timing(facts)
    if not oracles:
        return None

    def total(figures: Mapping[str, Any]) -> float:
        return sum(float(figures.get(f) or 0.0) for _, f, unit in TIME_COLUMNS if unit == "s")

    rows = []
    for name, figures in sorted(oracles.items(), key=lambda item: -total(item[1])):
        cells = [name]
        for _, field, unit in TIME_COLUMNS:
            value = figures.get(field)
            cells.append(NONE_TEXT if value is None else human_duration(value) if unit == "s" else fact_text(value))
        rows.append(cells)
    return "time per oracle", ["oracle", *(heading for heading, _, _ in TIME_COLUMNS)], rows


def phases_text(facts: Mapping[str, Any]) -> str | None:
    """The seconds of each phase of the run, in order, as one line; None where the facts do not hold them.

    >>> phases_text({"timing": {"phases_s": {"starting": 0.5, "atlas": 62.0, "drawing": 30.1}}})
    'starting 0.50 s · atlas 1.0 min · drawing 30.1 s'
    """
    timing = facts.get("timing")
    phases = timing.get("phases_s") if isinstance(timing, Mapping) else None
    if not isinstance(phases, Mapping) or not phases:
        return None
    return " · ".join(f"{name} {human_duration(seconds)}" for name, seconds in phases.items())
