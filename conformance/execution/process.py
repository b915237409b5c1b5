"""The parent's side of one worker process: start it, talk to it, notice its
death or its silence, stop it.

A worker is ``python -m conformance.execution.worker`` (see that module for
the protocol), started with :class:`subprocess.Popen` so that nothing of the
caller's ``__main__`` runs again: a script with no ``if __name__ ==
"__main__":`` guard, or one piped to ``python -``, works. Every worker is
started from one long-lived thread, because ``PR_SET_PDEATHSIG`` fires when
the *thread* that started a process ends, and :func:`run_on_all` runs oracles
from short-lived threads.

>>> crash_outcome(Died(-11, ""), "running numpy.take").describe()
'crash (signal 11)'
"""

from __future__ import annotations

import mmap
import os
import queue
import signal
import site
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from conformance.core.outcome import Kind, Outcome
from conformance.execution.clock import CaseClock
from conformance.execution.cores import CORES

POLL_SECONDS = 0.25
"""While waiting for an answer, how often to check whether the worker is still alive."""

_ROOT = str(Path(__file__).resolve().parents[2])
"""The directory holding the ``conformance`` package, so a worker can import it."""


class _Spawner:
    """One daemon thread that runs every ``Popen`` of this process (see the
    module docstring); recreated in a forked child."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue[tuple[Callable[[], subprocess.Popen], Future]] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="worker-spawner", daemon=True).start()

    def _serve(self) -> None:
        while True:
            start, future = self.jobs.get()
            try:
                future.set_result(start())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

    def spawn(self, start: Callable[[], subprocess.Popen]) -> subprocess.Popen:
        future: Future[subprocess.Popen] = Future()
        self.jobs.put((start, future))
        return future.result()


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def _spawn(argv: list[str], pass_fds: tuple[int, ...]) -> subprocess.Popen:
    """``Popen(argv)`` from the spawner thread, stdin closed, fds passed."""
    global _spawner
    with _spawner_lock:
        if _spawner is None or _spawner.pid != os.getpid():
            _spawner = _Spawner()
        spawner = _spawner
    quiet = os.environ.get("GATHER_CONFORMANCE_WORKER_OUTPUT") != "show"
    out = subprocess.DEVNULL if quiet else None
    return spawner.spawn(
        lambda: subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, pass_fds=pass_fds, env=_worker_env()
        )
    )


QUIET_FRAMEWORKS = {"TF_CPP_MIN_LOG_LEVEL": "3", "GRPC_VERBOSITY": "ERROR", "ABSL_MIN_LOG_LEVEL": "3"}
"""Framework logging switched off in workers (a user's own setting wins). Workers'
stdout and stderr go nowhere (framework chatter is not a result: errors are
outcomes, crashes quote the fault log); ``GATHER_CONFORMANCE_WORKER_OUTPUT=show``
lets them through for debugging."""


def _worker_env() -> dict[str, str]:
    """This environment, with ``conformance`` importable even if it is not installed.

    >>> _ROOT in _worker_env().get("PYTHONPATH", "") or _ROOT in site.getsitepackages()
    True
    """
    env = {**QUIET_FRAMEWORKS, **os.environ}
    if _ROOT not in {*site.getsitepackages(), site.getusersitepackages()}:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)
    return env


@dataclass(frozen=True)
class Died:
    """The worker process ended: ``exitcode`` as Popen reports it (negative: the signal)."""

    exitcode: int | None
    fault: str


@dataclass(frozen=True)
class NoAnswer:
    seconds: float
    over_memory: int | None = None
    """Bytes the worker held where it was stopped for passing the memory cap
    (:data:`~conformance.execution.clock.MEMORY_CAP`)."""


def _signal_name(number: int) -> str:
    """``"SIGSEGV"`` for 11.

    >>> _signal_name(6)
    'SIGABRT'
    """
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def crash_outcome(died: Died, what: str) -> Outcome:
    """The outcome for a worker that died while doing ``what``; a negative
    exit code is the signal that killed it.

    >>> crash_outcome(Died(3, ""), "running numpy.take").message
    'worker exited with code 3 while running numpy.take'
    """
    code = died.exitcode
    if code is not None and code < 0:
        outcome = Outcome.crashed(-code, None, f"worker died with {_signal_name(-code)} while {what}")
    elif code is None:
        outcome = Outcome.crashed(None, None, f"worker stopped making sense while {what}")
    else:
        outcome = Outcome.crashed(None, code, f"worker exited with code {code} while {what}")
    if died.fault:
        outcome.message = f"{outcome.message}: {died.fault}"
    return outcome


def killed_from_outside(outcome: Outcome) -> bool:
    """Whether ``outcome`` is a worker ended by SIGKILL: the harness sends it
    only to a worker past its limit (a timeout, not a crash), to one it
    no longer waits for, or to every worker of a run that has ended
    (``IsolatedOracle.end``, whose cases are then not run), so a crash by SIGKILL came from outside, most
    often the kernel's OOM killer when the machine's memory ran out (other
    processes' memory counts too): the machine, not yet evidence.

    >>> import signal
    >>> killed_from_outside(Outcome.crashed(signal.SIGKILL, None)), killed_from_outside(Outcome.crashed(11, None))
    (True, False)
    """
    return outcome.kind is Kind.CRASH and outcome.signal == signal.SIGKILL


def _summarize_fault(path: str) -> str:
    """The first line and the faulting thread's innermost frame of what
    faulthandler wrote, if anything."""
    try:
        with open(path) as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError:
        return ""
    current = next((i for i, line in enumerate(lines) if line.startswith("Current thread")), 0)  # not the watchdog's
    frames = [line for line in lines[current:] if line.startswith("File ")]
    return "; ".join(lines[:1] + frames[:1])


def _temp_file(name: str, suffix: str, size: int = 0) -> str:
    fd, path = tempfile.mkstemp(prefix=f"{name}-", suffix=suffix)
    os.write(fd, b"\xff" * size)
    os.close(fd)
    return path


REAP_S = 60.0
"""How long a killed worker may take to be gone before the parent stops waiting for it."""


def _reap(process: subprocess.Popen) -> None:
    """Wait for a killed worker to be gone, up to :data:`REAP_S`, and never
    fail: a worker holding 6.5 GB took more than 5 s to die of SIGKILL on a
    loaded machine, and the ``TimeoutExpired`` of a 5 s wait reached its case
    as a 'protocol error' finding (the loaded check of seed 0)."""
    try:
        process.wait(REAP_S)
    except subprocess.TimeoutExpired:
        pass  # it has SIGKILL: the system ends it; Popen reaps it later


def _stop(
    process: subprocess.Popen,
    requests: Connection,
    replies: Connection,
    files: list[str],
    grace: float,
    reap: bool = True,
) -> None:
    """Ask a worker to stop, then kill it if it does not (and, with ``reap``,
    wait for it to be gone: :func:`_reap`); remove its files."""
    CORES.forget(process.pid)
    if process.poll() is None and grace > 0:
        try:
            requests.send(("stop",))
            process.wait(grace)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
    if process.poll() is None:
        process.kill()
        if reap:
            _reap(process)
    for conn in (requests, replies):
        conn.close()
    for path in files:
        try:
            os.unlink(path)
        except OSError:
            pass


class WorkerProcess:
    """A running ``python -m conformance.execution.worker`` doing ``job``
    (``"oracle"`` or ``"discover"``, with ``settings``), and the parent's ends
    of its pipes. ``progress()`` is the index of the case it is running."""

    def __init__(self, job: str, settings: dict[str, Any], name: str) -> None:
        child_reads, parent_writes = os.pipe()
        parent_reads, child_writes = os.pipe()
        self.fault_log = _temp_file(name, ".fault")
        self._progress_file = _temp_file(name, ".progress", 8)
        with open(self._progress_file, "r+b") as f:
            self._progress = mmap.mmap(f.fileno(), 8)
        argv = [
            sys.executable,
            "-m",
            "conformance.execution.worker",
            str(child_reads),
            str(child_writes),
            str(os.getpid()),
        ]
        CORES.may_start()
        try:
            self.process = _spawn(argv, (child_reads, child_writes))
        finally:
            os.close(child_reads)
            os.close(child_writes)
        CORES.track(self.process.pid)
        self.requests = Connection(parent_writes, readable=False)
        self.replies = Connection(parent_reads, writable=False)
        files = [self.fault_log, self._progress_file]
        self._finalizer = weakref.finalize(self, _stop, self.process, self.requests, self.replies, files, 1.0)
        self.send(
            (
                job,
                {**settings, "sys_path": list(sys.path), "fault_log": self.fault_log, "progress": self._progress_file},
            )
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def progress(self) -> int:
        """The index in the current batch of the case the worker is running (-1: none yet)."""
        return int(struct.unpack_from("q", self._progress, 0)[0])

    def reset_progress(self) -> None:
        struct.pack_into("q", self._progress, 0, -1)

    def send(self, message: tuple) -> bool:
        """Send; False if the worker is already gone."""
        try:
            self.requests.send(message)
            return True
        except (OSError, ValueError):
            return False

    def receive(self, timeout: float, clock: CaseClock | None = None) -> tuple | Died | NoAnswer:
        """The next message, or why there is none: the worker ended (EOF, or it
        exited while a grandchild holds the pipe), or its time ran out:
        ``clock``'s limit for the running case where given, else ``timeout``
        seconds of wall clock (the time workers spent stopped left out)."""
        start, paused0 = time.monotonic(), CORES.paused_s(self.pid)
        try:
            while True:
                if self.replies.poll(POLL_SECONDS):
                    return self.replies.recv()
                if self.process.poll() is not None:
                    if self.replies.poll(0):  # what it said before it went
                        return self.replies.recv()
                    break
                if clock is not None:
                    if clock.expired(self.progress()):
                        return NoAnswer(clock.limit(), clock.over_memory)
                elif time.monotonic() - start - (CORES.paused_s(self.pid) - paused0) >= timeout:
                    return NoAnswer(timeout)
        except (EOFError, OSError):
            pass
        except Exception as exc:  # noqa: BLE001 - an answer this side cannot unpickle
            self.kill()
            return Died(None, f"unreadable answer ({type(exc).__name__}: {exc})")
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        return Died(self.process.wait(), _summarize_fault(self.fault_log))

    def kill(self, reap: bool = True) -> None:
        """End the process now (no goodbye: it may be stuck); ``reap=False``:
        do not wait for it to be gone (the run is over, and a stop has seconds)."""
        if self._finalizer.detach() is not None:
            files = [self.fault_log, self._progress_file]
            _stop(self.process, self.requests, self.replies, files, grace=0, reap=reap)

    def close(self) -> None:
        """Ask the process to stop, kill it if it will not."""
        self._finalizer()
