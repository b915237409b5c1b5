"""The layer contract EXTENDING.md promises, held true.

The code is a stack of floors, one package each (two siblings share a floor
where neither needs the other): a module imports only from its own package
and from the floors below it, siblings never import each other, no import
cycle exists between modules, ``conformance`` never imports the ``oracles``
plug-ins, the top of ``conformance/`` holds only the package's public API and
one-line compatibility shims, and only ``conformance.cli.main`` knows
argparse. The tables that must agree (behaviours, index policies) are checked
here too.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path

import pytest

from conformance.core.behaviour import BEHAVIOURS, Behaviour
from conformance.core.blame import Operand, Rule
from conformance.core.outcome import ErrorClass, Kind
from conformance.core.vocabulary import (
    ConditionKind,
    DtypeArg,
    ErrorGroup,
    FindingStatus,
    Flag,
    GateFailure,
    Layout,
    MismatchKind,
    Pattern,
    Regime,
    ReplayStatus,
    RunStatus,
    Support,
)
from conformance.judge.verdict import CANDIDATES
from conformance.spec.policy import POLICIES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("conformance", "oracles")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("conformance.core",),  # the shared vocabulary and data model: imports nothing of ours
    ("conformance.spec",),  # the reference and the catalog: what each op must do
    ("conformance.cases",),  # class cases, values, Hypothesis strategies, probes, translation
    ("conformance.execution",),  # workers, isolation, dispatch to several oracles, reproducer scripts
    ("oracles",),  # the plug-ins: one module per framework
    ("conformance.judge",),  # verdicts, root causes, dtype support, the single-case judge
    ("conformance.results",),  # what a run writes: findings, run results, the stream, the atlas file
    ("conformance.campaign",),  # dispatch, the atlas runner, sightings, shrinkers, finding builder
    ("conformance.gate", "conformance.report"),  # the CI gate and the report: siblings
    ("conformance.upgrade",),  # upgrade studies: one environment per framework version, what changed between them
    ("conformance.cli",),  # argument checks, commands, console, argparse
)
"""The floors, bottom first (see the module docstring)."""

ROOT_MODULES = {"conformance": "conformance.spec", "conformance.pytest_plugin": "conformance.gate"}
"""Modules at the top of ``conformance/`` and the floor they re-export: the
public API (``conformance.reference``, ``gather_multiaxis``) and the shim of
the README's ``pytest_plugins = ["conformance.pytest_plugin"]``."""

RENDERERS = ("conformance.report.html", "conformance.report.markdown")
"""The report's renderers: siblings that never import each other."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _imports(path: Path, modules: Mapping[str, Path]) -> set[str]:
    """Project modules ``path`` imports (at any depth: lazy imports count too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    # importing a.b.c runs a/__init__ and a/b/__init__: not an edge we count
    return {
        name: {m for m in deps if not (modules[m].name == "__init__.py" and name.startswith(m + "."))}
        for name, deps in graph.items()
    }


def floor_of(module: str, layers: Sequence[Sequence[str]] = LAYERS) -> tuple[int, str] | None:
    """``(floor number, package)`` of a module, or None where no floor holds it.

    >>> floor_of("conformance.judge.rootcause"), floor_of("conformance.report.html")
    ((5, 'conformance.judge'), (8, 'conformance.report'))
    """
    for n, floor in enumerate(layers):
        for package in floor:
            if module == package or module.startswith(package + "."):
                return n, package
    return None


def violations(graph: Mapping[str, set[str]], layers: Sequence[Sequence[str]] = LAYERS) -> list[str]:
    """Every import that breaks the contract: upward, between siblings, or of
    a module no floor holds (modules outside every floor are not checked).

    >>> violations({"conformance.core.x": {"conformance.judge.y"}, "conformance.judge.y": set()})
    ['conformance.core.x imports conformance.judge.y: upward (core is below judge)']
    """
    out = []
    for module, deps in sorted(graph.items()):
        here = floor_of(module, layers)
        if here is None:
            continue
        for dep in sorted(deps):
            there = floor_of(dep, layers)
            if there is None or there[1] == here[1]:
                continue
            if there[0] > here[0]:
                out.append(f"{module} imports {dep}: upward ({_short(here[1])} is below {_short(there[1])})")
            elif there[0] == here[0]:
                out.append(f"{module} imports {dep}: siblings on one floor ({_short(here[1])}, {_short(there[1])})")
    return out


def _short(package: str) -> str:
    return package.removeprefix("conformance.")


def _cycle(graph: Mapping[str, set[str]]) -> list[str]:
    """One import cycle, or []."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_every_import_goes_down_the_floors_and_never_between_siblings() -> None:
    assert violations(_graph()) == []


def test_a_planted_upward_or_sibling_import_is_caught() -> None:
    graph = _graph()
    planted = {**graph, "conformance.spec.catalog": graph["conformance.spec.catalog"] | {"conformance.campaign.runner"}}
    assert violations(planted) == [
        "conformance.spec.catalog imports conformance.campaign.runner: upward (spec is below campaign)"
    ]
    sibling = {**graph, "conformance.gate.junit": graph["conformance.gate.junit"] | {"conformance.report.views"}}
    assert violations(sibling) == [
        "conformance.gate.junit imports conformance.report.views: siblings on one floor (gate, report)"
    ]


def test_every_module_has_a_floor() -> None:
    homeless = [m for m in _modules() if floor_of(m) is None and m not in ROOT_MODULES and m not in PACKAGES]
    assert homeless == []


def test_the_top_of_conformance_holds_only_the_api_and_one_line_shims() -> None:
    top = sorted(p.name for p in (ROOT / "conformance").glob("*.py"))
    assert top == ["__init__.py", "pytest_plugin.py"]
    for name in ROOT_MODULES:
        if name != "conformance":
            lines = [line for line in _modules()[name].read_text().splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith("from "), f"{name} is more than one line of re-exports"


def test_the_root_modules_re_export_only_their_floor() -> None:
    graph = _graph()
    for name, package in ROOT_MODULES.items():
        assert graph[name] and all(d == package or d.startswith(package + ".") for d in graph[name]), (
            name,
            graph[name],
        )
    inside = {m for m, deps in graph.items() if m.startswith("conformance.") and deps & set(ROOT_MODULES)}
    assert inside == set(), "no module of the package imports its root (import the floor itself)"


def test_no_import_cycle_between_modules() -> None:
    assert _cycle(_graph()) == []


def test_cycle_detection_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_conformance_never_imports_the_oracles_package() -> None:
    offenders = {
        m: sorted(d for d in deps if d.split(".")[0] == "oracles")
        for m, deps in _graph().items()
        if m.startswith("conformance")
    }
    assert {m: d for m, d in offenders.items() if d} == {}


def test_the_report_renderers_never_import_each_other() -> None:
    graph = _graph()
    assert not (graph[RENDERERS[0]] & {RENDERERS[1]}) and not (graph[RENDERERS[1]] & {RENDERERS[0]})


def test_only_the_cli_knows_argparse() -> None:
    users = sorted(m for m, p in _modules().items() if "argparse" in {n.split(".")[0] for n in _raw_imports(p)})
    assert users == ["conformance.cli.main"]


def _raw_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_private_name_is_imported_from_another_module() -> None:
    offenders = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private and node.module.split(".")[0] in PACKAGES:
                    offenders.append(f"{name}: from {node.module} import {', '.join(private)}")
    assert offenders == []


def test_every_behaviour_has_a_severity_colour_and_meaning() -> None:
    assert set(BEHAVIOURS) == set(Behaviour)
    assert all(look.meaning and look.background.startswith("#") for look in BEHAVIOURS.values())


def test_every_index_policy_is_a_classification_candidate() -> None:
    tried = {p.name for p, _ in CANDIDATES}
    # the documented-strict policies (error) are what "raises" means; every value-giving policy must be tried
    giving = {name for name, p in POLICIES.items() if p.out_of_range != "error"}
    assert giving <= tried


@pytest.mark.parametrize("floor", [package for floor in LAYERS for package in floor])
def test_every_floor_exists(floor: str) -> None:
    assert floor in _modules(), f"{floor} is in LAYERS but is no package"


VOCABULARY: tuple[type[Enum], ...] = (
    Regime,
    Flag,
    Pattern,
    Layout,
    DtypeArg,
    ErrorGroup,
    MismatchKind,
    ConditionKind,
    FindingStatus,
    ReplayStatus,
    RunStatus,
    Support,
    GateFailure,
    Behaviour,
    Kind,
    ErrorClass,
    Rule,
    Operand,
)
"""The shared vocabulary (``conformance.core``): code elsewhere compares members, never the words."""


def _compared_words(path: Path) -> list[tuple[int, str]]:
    """``(line, word)`` of every string literal compared in ``path``: an operand
    of ``==``, ``!=``, ``in``, ``is`` (or an element of a tuple, list or set
    operand), an argument of ``startswith``/``endswith``, a ``match`` pattern."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        operands: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
        ):
            operands = list(node.args)
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        for op in operands:
            items = op.elts if isinstance(op, (ast.Tuple, ast.List, ast.Set)) else [op]
            found += [(i.lineno, i.value) for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    return found


def test_no_vocabulary_word_is_compared_as_a_string_outside_core() -> None:
    words = {m.value for enum in VOCABULARY for m in enum}  # type: ignore[attr-defined]
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {word!r}"
        for name, path in _modules().items()
        if not name.startswith("conformance.core")
        for line, word in _compared_words(path)
        if word in words
    ]
    assert offenders == []


def test_the_vocabulary_check_finds_a_compared_word(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('def f(status):\n    return status == "new" or status.startswith(("fixed", "x"))\n')
    assert _compared_words(planted) == [(2, "new"), (2, "fixed"), (2, "x")]
