"""Loading an oracle plug-in by module name, and the errors of failing to.

Used in a worker (see :mod:`conformance.execution.worker`) and, for
``get(name, isolated=False)``, in this process. A module is a dotted name (an
entry point's value) or a path to a ``.py`` file (how tests hand fake oracles
to a worker); nothing here names the ``oracles`` package.

>>> load_oracle("conformance.core.case", "numpy")
Traceback (most recent call last):
    ...
AttributeError: module 'conformance.core.case' has no attribute 'oracles_here'
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType

from conformance.core.oracle import InProcessOracle


class WorkerStartError(RuntimeError):
    """A worker could not import or find its oracle (or died doing so)."""


class OracleUnavailable(WorkerStartError, LookupError):
    """The oracle's module loaded but it has no oracle by that name here."""


def load_module(module: str) -> ModuleType:
    """Import ``module``: a dotted name, or a path to a ``.py`` file.

    >>> load_module("conformance.core.case").__name__
    'conformance.core.case'
    """
    if not module.endswith(".py"):
        return importlib.import_module(module)
    name = "_oracle_module_" + os.path.splitext(os.path.basename(module))[0]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, module)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load oracle module from {module}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
    return loaded


def load_oracle(module: str, name: str) -> InProcessOracle:
    """The oracle called ``name`` among ``module.oracles_here()``; an
    :class:`OracleUnavailable` naming the ones that are there if it is not."""
    oracles = load_module(module).oracles_here()
    for oracle in oracles:
        if oracle.name == name:
            return oracle
    raise OracleUnavailable(f"{module} has no oracle {name!r} here (it has {[o.name for o in oracles]})")
