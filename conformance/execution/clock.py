"""A case's time, as the worker spent it: CPU seconds where the platform
tells them, so that other processes on a busy machine cannot make a case
look hung.

A worker's CPU time (all its threads, ``/proc/PID/stat``) only grows while
the worker runs; a case past its limit of CPU seconds has really worked that
long. A case that waits without working (a deadlock, a sleep) is caught
once its limit has passed on the wall clock while it used less than
:data:`IDLE_SHARE` of a core (a worker starved by a busy machine still gets
its share) and waits on no child process of its own (a compiler such as
``iree-compile``, whose CPU is not the worker's), and any case by the backstop, :data:`BACKSTOP` times the limit;
the wall clock leaves out the time the worker spent stopped while another
case ran alone (:meth:`~conformance.execution.cores.Cores.alone`). Where
there is no ``/proc``, the limit is on the wall clock (less the stopped time).

>>> clock = CaseClock(os.getpid(), [5.0], paused=lambda pid: 0.0)
>>> clock.expired(0)
False
>>> cpu_seconds(os.getpid()) is None or cpu_seconds(os.getpid()) > 0
True
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence

BACKSTOP = 3.0
"""A case may take this many times its limit on the wall clock, however little CPU it used."""

CHILD_GRACE = 1.0
"""Seconds a worker whose child process (its compiler) has just ended may still take before it looks idle: the
answer comes right after the child ends, and a look in between found neither CPU nor child (a flaky
``test_a_worker_waiting_for_its_own_child_process_is_not_idle``, stop 53)."""

IDLE_SHARE = 0.05
"""A case that has used less than this share of one core since it started, once its limit has passed on
the wall clock, is waiting on nothing that will come (a deadlock, a sleep), not starved by a busy machine."""

MEMORY_CAP = 3 * 2**30
"""Bytes of RAM (resident set) a worker may hold while it runs a case: past
them the case is stopped, as one past its time limit is (no answer within
the suite's limits). Without a cap a case whose memory grows without end
(OpenVINO's ONNX front end on GatherND with ``batch_dims`` 2**63-1 builds
nodes until it is stopped: 7.6 GB after its time limit) takes whatever the
machine has, and on a smaller or busier machine the kernel's OOM killer
decides what it was: the machine as evidence. A framework's own worker
holds 0.4-1.5 GB."""

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in os.sysconf_names else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") and "SC_PAGE_SIZE" in os.sysconf_names else 4096


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of process ``pid`` (every thread), or None
    where the platform does not say (no ``/proc``) or the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()  # after "pid (comm) ": state is field 3
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime: fields 14 and 15


def resident_bytes(pid: int) -> int | None:
    """Bytes of RAM process ``pid`` holds (its resident set), or None where
    the platform does not say (no ``/proc``) or the process is gone.

    >>> resident_bytes(os.getpid()) is None or resident_bytes(os.getpid()) > 2**20
    True
    """
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


def has_children(pid: int) -> bool:
    """Whether process ``pid`` has a live child (a compiler it waits for: its
    CPU time is not the worker's, so the worker only looks idle). Reads every
    ``/proc/*/stat``: asked only when a case already looks idle.

    >>> import subprocess, sys
    >>> child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    >>> has_children(os.getpid()) or not os.path.isdir("/proc"), child.kill(), child.wait() == -9
    (True, None, True)
    """
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat[stat.rindex(b")") + 2 :].split()[1]) == pid:  # ppid, field 4
            return True
    return False


class CaseClock:
    """The clock of one batch on one worker: ``limits[i]`` is case ``i``'s
    limit in seconds; :meth:`expired` is asked with the index of the running
    case and starts that case's clock when the index changes. ``paused(pid)``
    gives the seconds the worker has been stopped so far. A worker holding
    more than :data:`MEMORY_CAP` bytes has passed its limit too
    (:attr:`over_memory`: what it held); :attr:`peak` is the most it held
    while this clock looked."""

    def __init__(self, pid: int, limits: Sequence[float], paused: Callable[[int], float]) -> None:
        self.pid, self.limits, self.paused = pid, limits, paused
        self.index = -2
        self.cpu0: float | None = None
        self.wall0 = self.paused0 = 0.0
        self.cpu_used: float | None = None
        self.child_seen = -math.inf
        self.peak = 0
        self.over_memory: int | None = None

    def expired(self, index: int) -> bool:
        """Whether the case at ``index`` (of the batch; -1 before the first) has passed its limit."""
        index = max(index, 0)
        resident = resident_bytes(self.pid) or 0
        self.peak = max(self.peak, resident)
        if resident > MEMORY_CAP:
            self.over_memory = resident
            return True
        now, cpu = time.monotonic(), cpu_seconds(self.pid)
        if index != self.index:
            self.index, self.cpu0, self.wall0, self.paused0 = index, cpu, now, self.paused(self.pid)
            self.child_seen = -math.inf
            return False
        limit = self.limits[min(index, len(self.limits) - 1)]
        wall = now - self.wall0 - (self.paused(self.pid) - self.paused0)
        if cpu is None or self.cpu0 is None:
            return wall >= limit
        self.cpu_used = cpu - self.cpu0
        return self.cpu_used >= limit or self._idle(now, wall, limit) or wall >= BACKSTOP * limit

    def _idle(self, now: float, wall: float, limit: float) -> bool:
        """Past its limit on the wall clock with almost no CPU used, no child process now and none for the last
        :data:`CHILD_GRACE` seconds: waiting on nothing that will come."""
        if wall < limit or self.cpu_used is None or self.cpu_used >= IDLE_SHARE * wall:
            return False
        if has_children(self.pid):
            self.child_seen = now
        return now - self.child_seen >= CHILD_GRACE

    def limit(self) -> float:
        """The running case's limit (what a timeout outcome quotes)."""
        return self.limits[min(max(self.index, 0), len(self.limits) - 1)]
