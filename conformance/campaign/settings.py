"""What a campaign is asked to do (:class:`Settings`) and where it reports
progress (:class:`Progress`); shared by the campaign, the finding builder and
the commands.

>>> Settings(max_examples=5).per_class(), Settings(budget_s=30).per_class()
(5, 1000000)
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from conformance.campaign.shrinker import SHRINK_EVALS

DEFAULT_EXAMPLES = 60
"""Examples per equivalence class of the default campaign (seed 0)."""
PROBE_TIMEOUT_S = 1.0
"""Per-case limit of the probe atlas in CPU seconds of the worker (a few probes hang some frameworks for
good; each costs this, then twice this alone before it is a hang: see :mod:`conformance.execution.isolation`,
whose drawn-case default it equals)."""
DRAW_SHARE, SHRINK_SHARE = 0.6, 0.22
"""Of a time budget: drawing gets the first 60% (the oracles' start-up and
the atlas included), shrinking the next 22%; past that, findings keep their
first example, and the rest is for writing the report."""
STARTUP_SHARE = 0.25
"""Of a time budget: oracles whose workers have not started by then are left
out of the run (and named), so that a slow start cannot eat the budget."""
ATLAS_SHARE = 0.3
"""Of a time budget: the probe atlas ends by then (start-up included)."""
PROBE_RUN_S = 0.01
"""What a budget assumes one probe case on one oracle costs, to choose the
atlas subset a short budget runs (whole conditions, first to last: the same
subset for the same budget on any machine); a slow machine that still runs
past the atlas's share skips the rest of it, and says so."""
HARD_END_SHARE = 0.85
"""Of a time budget: whatever phase the run is in then, it is cut short and
written (the rest is for the report and the exit)."""
GRACE_S = 1.0
"""Seconds a stopped campaign's work gets to come to a stop on its own before
what was found so far is written without it."""
WAIT_STEP_S = 0.1
"""How often the campaign's caller looks at the stop event and the clock."""
MIN_BUDGET_S, MIN_BUDGET_PER_ORACLE_S = 20.0, 2.0
"""The shortest budget worth running: this much for the atlas's first
conditions, drawing and the report, plus this much per oracle to start its
worker (a shorter one is refused before any work, naming the minimum)."""


def min_budget(oracles: int) -> float:
    """The shortest meaningful ``--budget`` for a campaign on ``oracles`` oracles.

    >>> min_budget(1), min_budget(10)
    (22.0, 40.0)
    """
    return MIN_BUDGET_S + MIN_BUDGET_PER_ORACLE_S * oracles


STOP_EXIT_S = 5.0
"""From a stop signal (SIGINT, SIGTERM) to the exit: the most a run cut short
may take to write what it found (CI runners kill 10-30 s after SIGTERM)."""
STOP_WATCHDOG_S = 3 * STOP_EXIT_S
"""From a stop signal to a forced exit, whatever the process is doing: a
watchdog outside the interpreter's lock (:func:`faulthandler.dump_traceback_later`)
writes every thread's stack to stderr and exits with status 1, so that a run
stuck after a stop still ends before a CI runner's SIGKILL, and says where it was stuck."""


class Stop(threading.Event):
    """A stop request that remembers when it came (``at``, :func:`time.monotonic`):
    a run cut short by a signal leaves by ``at +`` :data:`STOP_EXIT_S`.

    >>> stop = Stop(); stop.at is None
    True
    >>> stop.set(); first = stop.at; stop.set(); stop.at == first and stop.is_set()
    True
    """

    at: float | None = None

    def set(self) -> None:
        if self.at is None:
            self.at = time.monotonic()
        super().set()


@dataclass(frozen=True)
class Settings:
    """What a campaign draws and how long it may take.

    ``max_examples`` is per equivalence class (default :data:`DEFAULT_EXAMPLES`
    when there is no ``budget_s``); ``budget_s`` bounds the whole run;
    ``shard = (i, n)`` judges only the drawn cases ``k`` with ``k % n == i``
    (every shard draws the same stream). ``atlas`` runs the probe atlas first
    (:mod:`conformance.results.atlas`; the commands always do, on isolated oracles: some
    probes hang frameworks, and only an isolated oracle has a time limit).
    """

    seed: int | None = 0
    max_examples: int | None = None
    budget_s: float | None = None
    ops: tuple[str, ...] | None = None
    shard: tuple[int, int] = (0, 1)
    shrink_evals: int = SHRINK_EVALS
    atlas: bool = False
    probe_timeout: float = PROBE_TIMEOUT_S

    def per_class(self) -> int:
        if self.max_examples is not None:
            return self.max_examples
        return DEFAULT_EXAMPLES if self.budget_s is None else 10**6

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "ops": list(self.ops) if self.ops else None,
            "shard": list(self.shard),
            "max_examples_per_class": self.per_class(),
        }


class Progress(Protocol):
    """Where the campaign says how it is doing (the console implements it)."""

    def phase(self, name: str, total: int | None) -> None: ...

    def advance(self, *, findings: int) -> None: ...
