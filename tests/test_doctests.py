"""Every docstring example in ``conformance/`` (sub-packages included) and ``oracles/base.py`` runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import conformance

MODULES = sorted(
    ["conformance"] + [m.name for m in pkgutil.walk_packages(conformance.__path__, "conformance.")] + ["oracles.base"]
)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests_pass(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {name}"
