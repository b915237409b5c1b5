"""Run each oracle's batch at the same time: the work is in the worker
processes, so one thread per oracle, each waiting on its worker's pipe, keeps
every worker busy at once. Whatever an oracle answers is checked here
(:meth:`Outcome.checked <conformance.core.outcome.Outcome.checked>`): an
oracle that raises, or answers with the wrong count, gets a protocol error
on every case of its batch, never a crash of the caller.

The one time-limit rule lives here too: :func:`case_limit` says what limit a
case runs under on an oracle, from what the oracle declares
(:class:`~conformance.core.oracle.Capabilities`), never from its name.

>>> import numpy as np
>>> from conformance.core.oracle import Capabilities
>>> class Doubler:
...     name, capabilities = "doubler", Capabilities()
...     def run_many(self, cases, *, timeout=None):
...         return [Outcome.returned(np.asarray(c.data) * 2) for c in cases]
>>> run_on_all([Doubler()], {"doubler": [("numpy.take", np.array([1]), np.array([0]))]})["doubler"][0].value.tolist()
[2]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from conformance.core.case import Case, CaseLike, as_case
from conformance.core.judgement import Judgement
from conformance.core.oracle import Capabilities, Oracle, OracleInfo, Reproducer
from conformance.core.outcome import Outcome


def case_limit(capabilities: Capabilities, limit: float | None) -> float | None:
    """The time limit a case runs under on an oracle with ``capabilities``:
    ``limit`` where the oracle can bound a case at all, else None. An oracle
    that compiles gets the same limit: an isolated one compiles each shape
    signature in a warm-up case outside it
    (:meth:`~conformance.execution.isolation.IsolatedOracle.run_many`).

    >>> case_limit(Capabilities(isolated=True, bounded=True),
    ...     5.0), case_limit(Capabilities(compiles=True, bounded=True), 5.0)
    (5.0, 5.0)
    >>> case_limit(Capabilities(compiles=True), 5.0) is None
    True
    """
    return limit if capabilities.bounded else None


class Limited:
    """``oracle`` whose cases run under ``limit`` unless a call names another
    (see :func:`case_limit`): the atlas's limit carried into shrinking and replay.

    >>> import numpy as np
    >>> class Echo:
    ...     name, capabilities = "echo", Capabilities(bounded=True)
    ...     def run_many(self, cases, *, timeout=None): return [Outcome.timed_out(timeout)] * len(cases)
    >>> Limited(Echo(), 5.0).run_many([("t.g", np.zeros(1), np.zeros(1, int))])[0].seconds
    5.0
    """

    def __init__(self, oracle: Oracle, limit: float | None) -> None:
        self.oracle, self.name, self.limit = oracle, oracle.name, limit

    @property
    def capabilities(self) -> Capabilities:
        return self.oracle.capabilities

    def info(self) -> OracleInfo:
        return self.oracle.info()

    def run_many(self, cases: Sequence[CaseLike], *, timeout: float | None = None) -> list[Outcome]:
        limit = timeout if timeout is not None else case_limit(self.oracle.capabilities, self.limit)
        return self.oracle.run_many(cases, timeout=limit)

    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer:
        verdicts = {} if judgement is None else {"judgement": judgement}  # plug-ins may not take it
        return self.oracle.reproducer(case, reference, observed, **verdicts)


def answers(oracle: Oracle, cases: Sequence[CaseLike]) -> list[Outcome]:
    """The oracle's outcomes for ``cases``, each checked; a batch that fails
    as a whole (an oracle that raises, or answers with the wrong count) is a
    protocol error on every case.

    >>> import numpy as np
    >>> class Raises:
    ...     name = "raises"
    ...     def run_many(self, cases, *, timeout=None): raise RuntimeError("boom")
    >>> answers(Raises(), [("t.g", np.zeros(1), np.zeros(1, int))])[0].describe()
    'protocol error: run_many raised RuntimeError: boom'
    """
    batch = [as_case(c) for c in cases]
    try:
        got = list(oracle.run_many(batch))
    except Exception as exc:  # noqa: BLE001 - an oracle that raises has broken its contract
        return [Outcome.protocol_error(f"run_many raised {type(exc).__name__}: {exc}")] * len(batch)
    if len(got) != len(batch):
        return [Outcome.protocol_error(f"answered {len(got)} outcomes for {len(batch)} cases")] * len(batch)
    return [Outcome.checked(o) for o in got]


def run_on_all(
    oracles: Sequence[Oracle],
    cases_per_oracle: Mapping[str, Sequence[CaseLike]],
    done: Callable[[], None] | None = None,
) -> dict[str, list[Outcome]]:
    """Each oracle's outcomes for its cases (``cases_per_oracle[oracle.name]``,
    none if absent), all oracles running at once (see :func:`answers`);
    ``done`` is called once per oracle as its batch ends (progress). An
    exception that is no oracle's answer (a KeyboardInterrupt) is raised here
    once every batch is done.
    """
    results: dict[str, list[Outcome]] = {}
    errors: list[BaseException] = []

    def run(oracle: Oracle) -> None:
        try:
            cases = list(cases_per_oracle.get(oracle.name, ()))
            results[oracle.name] = answers(oracle, cases) if cases else []
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(exc)
        if done is not None:
            done()

    names = [o.name for o in oracles]
    if len(set(names)) != len(names):
        raise ValueError(f"each oracle once, please: {names}")
    busy = [o for o in oracles if cases_per_oracle.get(o.name)]
    if done is not None:
        for _ in range(len(oracles) - len(busy)):  # nothing to run: done at once
            done()
    threads = [threading.Thread(target=run, args=(o,), name=f"run-{o.name}", daemon=True) for o in busy[1:]]
    for thread in threads:
        thread.start()
    if busy:
        run(busy[0])  # the first in this thread: one fewer to start
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return {name: results.get(name, []) for name in names}
