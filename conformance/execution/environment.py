"""The facts a run is worthless without: the machine, the thread settings and
every oracle's version, device, mode and ops.

Framework facts (versions, thread pools) come from the discovery worker (see
:func:`conformance.execution.registry.discover`), so this process imports no framework.

>>> info = OracleInfo("numpy", "numpy", "2.4.6", "cpu", "eager", ("numpy.take", "numpy.take_along_axis"))
>>> print(format_oracles_table([info]))
oracle  framework  version  device  mode   ops
numpy   numpy      2.4.6    cpu     eager  numpy.take, numpy.take_along_axis
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from conformance.core.machine import machine_facts
from conformance.core.oracle import OracleInfo
from conformance.execution.registry import discover, infos


def run_facts(*, refresh: bool = False) -> dict[str, Any]:
    """:func:`machine_facts`, plus the frameworks' thread settings and every
    available oracle's info, plus why each missing module is missing.

    >>> facts = run_facts()                     # doctest: +SKIP
    >>> facts["threads"]["torch"]               # doctest: +SKIP
    {'num_threads': 2, 'num_interop_threads': 2}
    """
    reports = discover(refresh=refresh)
    threads: dict[str, Any] = {}
    absent: dict[str, str] = {}
    for report in reports:
        facts = dict(report.facts)
        absent.update(facts.pop("unavailable", {}))
        threads.update(facts)
    return {
        **machine_facts(),
        "threads": threads,
        "oracles": [_info_json(info) for info in infos()],
        "unavailable": {
            **{
                report.module: report.problem
                for report in reports
                if report.problem or not (report.infos or report.facts.get("unavailable"))
            },
            **absent,
        },
    }


def _info_json(info: OracleInfo) -> dict[str, Any]:
    d = asdict(info)
    d["ops"] = list(info.ops)
    return d


def format_oracles_table(infos: Sequence[OracleInfo]) -> str:
    """One line per oracle: name, framework, version, device, mode and ops,
    columns aligned (see the module docstring)."""
    header = ("oracle", "framework", "version", "device", "mode", "ops")
    rows = [header] + [(i.name, i.framework, i.version, i.device, i.mode, ", ".join(i.ops) or "-") for i in infos]
    widths = [max(len(row[c]) for row in rows) for c in range(len(header) - 1)]
    return "\n".join("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]).rstrip() for row in rows)


def describe(*, refresh: bool = False) -> str:
    """What ``gather-conformance oracles`` prints: the oracles table, the
    modules that gave none (and why), and the machine and thread facts.

    >>> print(describe())                       # doctest: +SKIP
    oracle      framework   version  device  mode   ops
    numpy       numpy       2.4.6    cpu     eager  numpy.take, numpy.take_along_axis
    ...
    """
    facts = run_facts(refresh=refresh)
    infos = [OracleInfo(**{**o, "ops": tuple(o["ops"])}) for o in facts["oracles"]]
    lines = [format_oracles_table(infos)]
    asked = [i for i in infos if i.on_request]
    if asked:
        lines += ["", "run only when named (--oracles), never in a default campaign:"]
        lines += [f"  {i.name}: {i.on_request}" for i in asked]
    if facts["unavailable"]:
        lines += ["", "not available here:"]
        lines += [
            f"  {module}: {problem or 'no oracle on this machine'}" for module, problem in facts["unavailable"].items()
        ]
    lines += [
        "",
        f"python {facts['python']} on {facts['platform']}",
        f"cpu {facts['cpu']} ({facts['cores_usable']} of {facts['cores']} cores usable)",
    ]
    lines += [f"threads {name}: {_pairs(settings)}" for name, settings in sorted(facts["threads"].items())]
    if facts["thread_env"]:
        lines.append(f"environment: {_pairs(facts['thread_env'])}")
    return "\n".join(lines)


def _pairs(mapping: dict[str, Any]) -> str:
    """``a=1, b=2``.

    >>> _pairs({"a": 1, "b": 2})
    'a=1, b=2'
    """
    return ", ".join(f"{k}={v}" for k, v in mapping.items())
