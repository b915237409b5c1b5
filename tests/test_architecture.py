"""The structure EXTENDING.md promises, held true: layers without import
cycles, ``conformance`` never importing ``oracles``, modules of one job (at
most 400 lines), and the tables that must agree (catalog, oracles, behaviours,
policies)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conformance.behaviour import BEHAVIOURS, Behaviour
from conformance.compare import CANDIDATES
from conformance.policy import POLICIES

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("conformance", "oracles")
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
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
    return {name: {m for m in deps if not (modules[m].name == "__init__.py" and name.startswith(m + "."))} for name, deps in graph.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
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


def test_no_import_cycle_between_modules() -> None:
    assert _cycle(_graph()) == []


def test_conformance_never_imports_the_oracles_package() -> None:
    offenders = {m: sorted(d for d in deps if d.split(".")[0] == "oracles") for m, deps in _graph().items() if m.startswith("conformance")}
    assert {m: d for m, d in offenders.items() if d} == {}


def test_cycle_detection_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("path", sorted(_modules().values()), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_has_at_most_400_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_LINES


def test_only_the_cli_knows_argparse() -> None:
    users = sorted(m for m, p in _modules().items() if "argparse" in {n.split(".")[0] for n in _raw_imports(p)})
    assert users == ["conformance.cli"]


def _raw_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_every_behaviour_has_a_severity_colour_and_meaning() -> None:
    assert set(BEHAVIOURS) == set(Behaviour)
    assert all(look.meaning and look.background.startswith("#") for look in BEHAVIOURS.values())


def test_every_index_policy_is_a_classification_candidate() -> None:
    tried = {p.name for p, _ in CANDIDATES}
    # the documented-strict policies (error) are what "raises" means; every value-giving policy must be tried
    giving = {name for name, p in POLICIES.items() if p.out_of_range != "error"}
    assert giving <= tried
