"""Running oracles: find the plug-ins (entry points), run each in a worker
process of its own so that a crash or a hang is an outcome, run several at
once, and say what ran where. The campaign reaches the frameworks only through
here; it never imports the ``oracles`` package.
"""

from conformance.execution.environment import describe, format_oracles_table, run_facts
from conformance.execution.fanout import run_on_all
from conformance.execution.isolation import (
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TIMEOUT,
    IsolatedOracle,
    ReproducerUnavailable,
)
from conformance.execution.loading import OracleUnavailable, WorkerStartError
from conformance.execution.registry import ORACLE_MODULES, available, discover, get, infos, module_for, registered

__all__ = [
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "ORACLE_MODULES",
    "IsolatedOracle",
    "OracleUnavailable",
    "ReproducerUnavailable",
    "WorkerStartError",
    "available",
    "describe",
    "discover",
    "format_oracles_table",
    "get",
    "infos",
    "module_for",
    "registered",
    "run_facts",
    "run_on_all",
]
