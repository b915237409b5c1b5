"""Two ways to install: a framework's own CI installs the suite against the
framework version it builds, so every framework extra names the oldest
version it supports (a range, never an exact pin); this project's CI installs
exactly the versions of ``constraints-ci.txt`` (results depend on them), and
this environment (``make test``, tox) must hold exactly those."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
FRAMEWORK_EXTRAS = ("torch", "tensorflow", "onnx", "jax", "cupy")


def _extras() -> dict[str, list[Requirement]]:
    """The installed distribution's requirements, by extra (its Requires-Dist metadata)."""
    out: dict[str, list[Requirement]] = {}
    for line in importlib.metadata.requires("gather-conformance") or []:
        req = Requirement(line)
        found = re.search(r'extra == "([^"]+)"', str(req.marker or ""))
        out.setdefault(found.group(1) if found else "", []).append(req)
    return out


def _pins() -> dict[str, str]:
    lines = [line.split("#", 1)[0].strip() for line in (ROOT / "constraints-ci.txt").read_text().splitlines()]
    reqs = [Requirement(line) for line in lines if line]
    return {canonicalize_name(r.name): str(r.specifier) for r in reqs}


def test_every_framework_extra_names_its_oldest_supported_version_never_an_exact_pin() -> None:
    extras = _extras()
    for extra in FRAMEWORK_EXTRAS:
        assert extras.get(extra), f"extra {extra} is missing from the installed metadata"
        for req in extras[extra]:
            assert {s.operator for s in req.specifier} == {">="}, f"[{extra}] {req}: a lower bound only"


def test_the_torch_extra_resolves_torch_from_a_range() -> None:
    (torch,) = _extras()["torch"]
    assert (
        torch.specifier.contains("2.13.0") and torch.specifier.contains("2.14.1") and torch.specifier.contains("2.7.0")
    )
    assert not torch.specifier.contains("2.6.0"), "2.7 is the oldest (torch._dynamo.config.recompile_limit)"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib comes with Python 3.11")
def test_the_installed_metadata_is_the_pyproject_s() -> None:
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    installed = {k: sorted(str(Requirement(str(r).split(";")[0])) for r in v) for k, v in _extras().items() if k}
    assert {k: sorted(str(Requirement(r)) for r in v) for k, v in declared.items()} == installed, (
        "reinstall (make install): the metadata is older than pyproject.toml"
    )


def test_constraints_ci_pins_every_package_to_one_exact_version() -> None:
    pins = _pins()
    assert pins and all(re.fullmatch(r"==[0-9][^,*]*", spec) for spec in pins.values()), pins
    assert pins["torch"] == "==2.13.0", "the local CPU wheel: a range would pull CUDA builds"


def test_this_environment_has_exactly_the_pinned_versions() -> None:
    checked = {}
    for name, spec in _pins().items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        checked[name] = installed
        assert SpecifierSet(spec).contains(installed, prereleases=True), (
            f"{name} {installed} is installed, constraints-ci.txt pins {name}{spec}"
        )
    assert "numpy" in checked and "hypothesis" in checked
