"""The machine's share: how many workers run cases at once, and one case run
alone.

A campaign on a 2-core runner used to start a dozen workers that all ran at
once, so each case's time depended on the others. :data:`CORES` bounds that:
a worker runs a batch (or starts) only while it holds one of ``n`` slots
(default: the cores this process may use, :func:`os.sched_getaffinity`); an
idle oracle holds none. :meth:`Cores.alone` runs one thing with every other
worker stopped (``SIGSTOP``, then ``SIGCONT``), the way a case that passed its
time limit is confirmed before it may be called a hang; the time the others
spent stopped is counted (:meth:`Cores.paused_s`) so that their own clocks
leave it out.

>>> cores = Cores(2)
>>> with cores.held(), cores.held():  # re-entrant within a thread
...     cores.busy
1
>>> cores.figures()
{'workers': 2, 'most_at_once': 1}
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import signal
import threading
import time
from collections.abc import Iterator


def machine_cores() -> int:
    """The cores this process may run on (its affinity mask where the platform has one).

    >>> machine_cores() >= 1
    True
    """
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


class CoresClosed(RuntimeError):
    """No worker may start or take a slot: the command is over (:meth:`Cores.close`)."""


class Cores:
    """``n`` slots for busy workers, the pids of live workers, and a way to
    stop all but one (see the module docstring)."""

    def __init__(self, n: int | None = None) -> None:
        self._slots = threading.Condition()
        self.n = n or machine_cores()
        self.busy = 0
        self.most = 0
        self._depth = threading.local()
        self._tickets = itertools.count()
        self._waiting: collections.deque[int] = collections.deque()
        self._pids: set[int] = set()
        self._alone = threading.Lock()
        self._alone_thread: int | None = None
        self._paused: dict[int, float] = {}  # pid -> seconds stopped before the current stop
        self._stopped: dict[int, float] = {}  # pid -> when its current stop began
        self._closed = False

    def configure(self, n: int | None) -> None:
        """At most ``n`` workers busy at once from now on (None: one per core); figures start again."""
        with self._slots:
            self.n, self.most, self._closed = n or machine_cores(), self.busy, False
            self._slots.notify_all()

    def close(self) -> None:
        """From now on (until :meth:`configure`), a thread waiting for a slot
        or to start a worker gets :class:`CoresClosed` instead: at the exit of
        a run that went on without oracles still starting, their threads
        started worker after worker while each one's clean-up waited on the
        last (52 s of a loaded `run --budget 90`, after its report)."""
        with self._slots:
            self._closed = True
            self._slots.notify_all()

    def figures(self) -> dict[str, int]:
        """What the run facts say: the slots there were, and the most ever held at once."""
        return {"workers": self.n, "most_at_once": self.most}

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold one slot for the block (waiting for one, first come first
        served; a thread that holds one already holds no second). Without the
        queue, an oracle that asks again the moment it lets go won the slot
        over and over: in a default campaign's atlas (each oracle running
        ahead), four oracles waited ten minutes for their first batch."""
        depth = getattr(self._depth, "n", 0)
        if depth == 0:
            with self._slots:
                ticket = next(self._tickets)  # first come, first served: no oracle starves
                self._waiting.append(ticket)
                try:
                    self._slots.wait_for(lambda: self._closed or self.busy < self.n and self._waiting[0] == ticket)
                finally:  # served, or interrupted while waiting: out of the line either way
                    self._waiting.remove(ticket)
                if self._closed:
                    self._slots.notify_all()
                    raise CoresClosed("the command is over: no slot for a new case or worker")
                self.busy += 1
                self.most = max(self.most, self.busy)
                self._slots.notify_all()  # the next in line, if a slot is left
        self._depth.n = depth + 1
        try:
            yield
        finally:
            self._depth.n = depth
            if depth == 0:
                with self._slots:
                    self.busy -= 1
                    self._slots.notify_all()

    def track(self, pid: int) -> None:
        """A worker started (it is stopped while another runs alone); waits while one does."""
        with self._slots:
            self._slots.wait_for(lambda: self._alone_thread in (None, threading.get_ident()))
            self._pids.add(pid)

    def forget(self, pid: int) -> None:
        with self._slots:
            self._pids.discard(pid)
            self._paused.pop(pid, None)

    def may_start(self) -> None:
        """Wait while another thread runs something alone (a worker started now would run beside it)."""
        with self._slots:
            self._slots.wait_for(lambda: self._closed or self._alone_thread in (None, threading.get_ident()))
            if self._closed:
                raise CoresClosed("the command is over: no new worker")

    @contextlib.contextmanager
    def alone(self, keep: int | None = None) -> Iterator[None]:
        """Every live worker stopped for the block but ``keep`` (the pid of
        the worker that runs alone, started before) and those this thread
        starts in it; one such block at a time."""
        with self._alone:
            with self._slots:
                self._alone_thread = threading.get_ident()
                now = time.monotonic()
                self._stopped = dict.fromkeys(self._pids - {keep}, now)
            _signal_all(set(self._stopped), signal.SIGSTOP)
            try:
                yield
            finally:
                _signal_all(set(self._stopped), signal.SIGCONT)
                with self._slots:
                    now = time.monotonic()
                    for pid, since in self._stopped.items():
                        self._paused[pid] = self._paused.get(pid, 0.0) + now - since
                    self._stopped, self._alone_thread = {}, None
                    self._slots.notify_all()

    def paused_s(self, pid: int) -> float:
        """Seconds worker ``pid`` has spent stopped so far (while others' cases ran alone).

        >>> Cores(1).paused_s(1)
        0.0
        """
        with self._slots:
            since = self._stopped.get(pid)
            return self._paused.get(pid, 0.0) + (time.monotonic() - since if since is not None else 0.0)


def _signal_all(pids: set[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


CORES = Cores()
"""The process's one pool of slots (``--workers`` configures it)."""
