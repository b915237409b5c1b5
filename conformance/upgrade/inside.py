"""What the upgrade study asks inside one of its environments, with that
environment's interpreter (``python -m conformance.upgrade.inside ...``), so
that every answer comes from the environment itself, never from the request:

* ``describe OUT FRAMEWORK [NAME...]``: the installed version of the framework
  and of the other distributions named (``importlib.metadata``), the Python,
  and every oracle that can run there with the distribution that provides its
  framework (how the study picks that framework's oracles), plus the oracle
  modules that failed to load; one JSON object written to ``OUT``.
* ``scripts REQUEST OUT``: standalone reproducer scripts
  (:func:`~conformance.campaign.finding_builder.reproducers`) for the cases in
  the JSON file ``REQUEST`` (a list of ``{"oracle": name, "case": Case JSON}``),
  written to ``OUT`` as a list of ``{"script": text or null, "model": base64
  or null, "error": text}``, one per case.

>>> describe("no-such-framework", [])["versions"]   # doctest: +SKIP
{'no-such-framework': None}
>>> main(["frobnicate"])
2
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

INSIDE_FORMAT = 1
"""Version of the ``describe`` answer (its ``"format"`` key)."""
USAGE = "usage: python -m conformance.upgrade.inside describe OUT FRAMEWORK [NAME...] | scripts REQUEST OUT"


def installed_versions(names: Sequence[str]) -> dict[str, str | None]:
    """The installed version of each distribution (None where it is not installed).

    >>> installed_versions(["numpy", "no-such-distribution"])["no-such-distribution"] is None
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def providers(module: str) -> list[str]:
    """The distributions (normalized names) that provide a top-level module.

    >>> providers("numpy"), providers("no_such_module")
    (['numpy'], [])
    """
    from importlib.metadata import packages_distributions

    from packaging.utils import canonicalize_name

    return sorted({canonicalize_name(d) for d in packages_distributions().get(module.split(".")[0], [])})


def describe(framework: str, names: Sequence[str]) -> dict[str, Any]:
    """The ``describe`` answer (see the module docstring)."""
    from conformance.execution import registry

    reports = registry.discover()
    oracles = [{**info.to_json(), "distributions": providers(info.framework)} for info in registry.infos()]
    problems = {r.module: r.problem for r in reports if r.problem and not r.problem.startswith("not installed")}
    return {
        "format": INSIDE_FORMAT,
        "python": platform.python_version(),
        "versions": installed_versions(list(dict.fromkeys([framework, *names]))),
        "oracles": oracles,
        "problems": problems,
    }


def scripts(wanted: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reproducer script per wanted case (see the module docstring); a
    script that cannot be written says why instead."""
    from conformance.campaign.finding_builder import reproducers
    from conformance.core.case import Case
    from conformance.execution import registry
    from conformance.judge.verdict import reference_outcome

    loaded: dict[str, Any] = {}
    out: list[dict[str, Any]] = []
    for item in wanted:
        try:
            name = item["oracle"]
            if name not in loaded:
                loaded[name] = registry.get(name, isolated=False)
            case = Case.from_json(item["case"])
            texts, model = reproducers(case, reference_outcome(case), [loaded[name]], {})
            out.append({"script": texts.get(name), "model": model, "error": ""})
        except Exception as exc:  # noqa: BLE001 - a script we cannot write is noted, never fatal
            out.append({"script": None, "model": None, "error": f"{type(exc).__name__}: {exc}"})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 3 and args[0] == "describe":
        Path(args[1]).write_text(json.dumps(describe(args[2], args[3:])), encoding="utf-8")
        return 0
    if len(args) == 3 and args[0] == "scripts":
        wanted = json.loads(Path(args[1]).read_text(encoding="utf-8"))
        Path(args[2]).write_text(json.dumps(scripts(wanted)), encoding="utf-8")
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
