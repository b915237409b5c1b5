"""Oracles: the frameworks' gathers behind one interface. Each module here is
a plug-in registered under the ``gather_conformance.oracles`` entry-point group
(see ``pyproject.toml`` and EXTENDING.md); the machinery that finds them and
runs them in worker processes lives in :mod:`conformance.execution`, and is
re-exported here for convenience.

>>> import oracles
>>> oracles.available()                                       # doctest: +SKIP
['numpy', 'torch', 'tensorflow', 'tensorflow-xla', 'onnxruntime', 'onnx-reference', 'jax']
>>> with oracles.get("onnxruntime") as ort:                   # doctest: +SKIP
...     ort.run("onnx.Gather-13", np.arange(12).reshape(4, 3), np.array([5])).describe()
'error Fail (index out of range)'

Importing this package imports no framework.
"""

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.execution import (
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TIMEOUT,
    IsolatedOracle,
    OracleUnavailable,
    WorkerStartError,
    available,
    describe,
    discover,
    get,
    infos,
    registered,
)
from oracles.base import Oracle

__all__ = [
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "Case",
    "ErrorClass",
    "IsolatedOracle",
    "Kind",
    "Oracle",
    "OracleInfo",
    "OracleUnavailable",
    "Outcome",
    "WorkerStartError",
    "available",
    "describe",
    "discover",
    "get",
    "infos",
    "registered",
]
