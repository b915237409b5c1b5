"""Oracles: the frameworks' gathers behind one interface, run in worker
processes so that a crash or a hang is a result, not the end of the run.

>>> import oracles
>>> oracles.available()                                       # doctest: +SKIP
['numpy', 'torch', 'tensorflow', 'tensorflow-xla', 'onnxruntime', 'onnx-reference', 'jax']
>>> with oracles.get("onnxruntime") as ort:                   # doctest: +SKIP
...     ort.run("onnx.Gather-13", np.arange(12).reshape(4, 3), np.array([5])).describe()
'error Fail (index out of range)'
>>> print(oracles.describe())                                 # doctest: +SKIP

Importing this package imports no framework.
"""

from oracles.base import Case, ErrorClass, Kind, Oracle, OracleInfo, Outcome
from oracles.environment import describe, format_oracles_table, run_facts
from oracles.isolation import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, IsolatedOracle, OracleUnavailable, WorkerStartError
from oracles.registry import ORACLE_MODULES, available, close_all, discover, get, infos, module_for, registered, shared

__all__ = [
    "Case", "DEFAULT_STARTUP_TIMEOUT", "DEFAULT_TIMEOUT", "ErrorClass", "IsolatedOracle", "Kind", "ORACLE_MODULES",
    "Oracle", "OracleInfo", "OracleUnavailable", "Outcome", "WorkerStartError", "available", "close_all", "describe",
    "discover", "format_oracles_table", "get", "infos", "module_for", "registered", "run_facts", "shared",
]  # fmt: skip
