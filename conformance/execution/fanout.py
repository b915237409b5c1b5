"""Run each oracle's batch at the same time: the work is in the worker
processes, so one thread per oracle, each waiting on its worker's pipe, keeps
every worker busy at once.

>>> import numpy as np
>>> class Doubler:
...     name = "doubler"
...     def run_many(self, cases):
...         return [Outcome.returned(np.asarray(c[1]) * 2) for c in cases]
>>> run_on_all([Doubler()], {"doubler": [("numpy.take", np.array([1]), np.array([0]))]})["doubler"][0].value.tolist()
[2]
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from conformance.core.case import CaseLike
from conformance.core.outcome import Outcome


class BatchRunner(Protocol):
    """An oracle that runs a batch: an :class:`~conformance.execution.isolation.IsolatedOracle`,
    or an in-process oracle."""

    name: str

    def run_many(self, cases: Sequence[CaseLike]) -> list[Any]: ...


def run_on_all(
    oracles: Sequence[BatchRunner], cases_per_oracle: Mapping[str, Sequence[CaseLike]]
) -> dict[str, list[Outcome]]:
    """Each oracle's outcomes for its cases (``cases_per_oracle[oracle.name]``,
    none if absent), all oracles running at once. Every answer is
    :meth:`Outcome.checked <conformance.core.outcome.Outcome.checked>` (an in-process oracle that
    returns a list is a protocol error here too). An exception in one oracle's
    batch is raised here once every batch is done.
    """
    results: dict[str, list[Outcome]] = {}
    errors: list[BaseException] = []

    def run(oracle: BatchRunner) -> None:
        try:
            cases = list(cases_per_oracle.get(oracle.name, ()))
            results[oracle.name] = [Outcome.checked(o) for o in oracle.run_many(cases)] if cases else []
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(exc)

    names = [o.name for o in oracles]
    if len(set(names)) != len(names):
        raise ValueError(f"each oracle once, please: {names}")
    threads = [threading.Thread(target=run, args=(o,), name=f"run-{o.name}", daemon=True) for o in oracles[1:]]
    for thread in threads:
        thread.start()
    if oracles:
        run(oracles[0])  # the first in this thread: one fewer to start
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return {name: results[name] for name in names}
