"""A run's facts as the report shows them: nested facts flattened to
``a.b -> text`` pairs, and lists of records (the oracles with their versions)
as tables.

>>> flatten_facts({"cores": 2, "oracles": [{"name": "jax", "version": "0.10.2"}]})
{'cores': '2', 'oracles.jax.version': '0.10.2'}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

FactTable = tuple[str, list[str], list[list[str]]]
"""``(title, columns, rows of cell texts)``."""


def fact_text(value: Any) -> str:
    """A fact's value as text: lists of words joined, the rest as JSON.

    >>> fact_text(["numpy.take", "numpy.take_along_axis"]), fact_text(2), fact_text("cpu")
    ('numpy.take, numpy.take_along_axis', '2', 'cpu')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    return json.dumps(value, default=str)


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
        if isinstance(v, dict):
            out.update(flatten_facts(v, f"{prefix}{k}."))
        elif rows is not None and all("name" in row for row in rows):
            for row in rows:
                out.update(flatten_facts({n: x for n, x in row.items() if n != "name"}, f"{prefix}{k}.{row['name']}."))
        else:
            out[f"{prefix}{k}"] = fact_text(v)
    return out


def fact_tables(facts: Mapping[str, Any]) -> tuple[dict[str, str], list[FactTable]]:
    """Facts split for display: flat ``key -> text`` pairs, and a
    :data:`FactTable` per list of records (such as the oracles with their
    versions).

    >>> fact_tables({"cores": 2, "oracles": {"jax": {"version": "0.10.2"}}})
    ({'cores': '2'}, [('oracles', ['name', 'version'], [['jax', '0.10.2']])])
    """
    flat = flatten_facts({k: v for k, v in facts.items() if table_rows(v) is None})
    tables = []
    for k, value in facts.items():
        rows = table_rows(value)
        if rows is not None:
            columns = list(dict.fromkeys(c for row in rows for c in row))
            tables.append((k, columns, [[fact_text(row.get(c, "")) for c in columns] for row in rows]))
    return flat, tables
