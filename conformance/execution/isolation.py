"""Run an oracle in a persistent worker process, so that a crash or a hang is
an :class:`~oracles.base.Outcome` and never the end of the run.

An :class:`IsolatedOracle` starts one worker with the ``spawn`` context (fork
breaks CUDA and TensorFlow), imports the framework there once, then feeds it
cases over a pipe. A worker that dies (segfault, abort, ``os._exit``, killed)
turns the case it was running into ``Outcome.crashed``; a case with no answer
within ``timeout`` seconds kills the worker and becomes ``Outcome.timed_out``.
Either way the next case starts a fresh worker. The caller never dies and
never hangs.

>>> import numpy as np
>>> with IsolatedOracle("numpy", "oracles.numpy_oracle", timeout=5) as numpy_oracle:  # doctest: +SKIP
...     numpy_oracle.run("numpy.take", np.arange(12).reshape(4, 3), np.array([3, 1])).describe()
'value int64[2, 3]'

Batches travel in one message and come back case by case, so a batch costs
one round trip but keeps a per-case timeout:
``numpy_oracle.run_many([("numpy.take", x, i, {"axis": 1}), ...])``.
"""

from __future__ import annotations

import faulthandler
import importlib
import importlib.util
import itertools
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import ModuleType
from typing import Any

from conformance.machine import thread_facts
from conformance.model import CaseLike, ErrorClass, InProcessOracle, OracleInfo, Outcome, as_case

DEFAULT_TIMEOUT = 20.0
"""Seconds one case may take once the worker is up."""

DEFAULT_STARTUP_TIMEOUT = 180.0
"""Seconds a worker may take to import its framework and warm up."""

_CONTEXT = multiprocessing.get_context("spawn")


class WorkerStartError(RuntimeError):
    """A worker could not import or find its oracle (or died doing so)."""


class OracleUnavailable(WorkerStartError, LookupError):
    """The oracle's module loaded but it has no oracle by that name here."""


# -- the worker side ----------------------------------------------------------


def load_module(module: str) -> ModuleType:
    """Import ``module``: a dotted name, or a path to a ``.py`` file (how tests
    hand fake oracles to a worker).

    >>> load_module("oracles.base").__name__
    'oracles.base'
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
    spec.loader.exec_module(loaded)
    return loaded


def load_oracle(module: str, name: str) -> InProcessOracle:
    """The oracle called ``name`` among ``module.oracles_here()``; an
    :class:`OracleUnavailable` naming the ones that are there if it is not."""
    oracles = load_module(module).oracles_here()
    for oracle in oracles:
        if oracle.name == name:
            return oracle
    raise OracleUnavailable(f"{module} has no oracle {name!r} here (it has {[o.name for o in oracles]})")


_fault_file: Any = None


def enable_fault_log(path: str) -> None:
    """Have faulthandler write a fatal signal's traceback to ``path`` (the
    parent quotes it in the crash outcome)."""
    global _fault_file
    _fault_file = open(path, "w")  # noqa: SIM115 - must stay open for the life of the process
    faulthandler.enable(file=_fault_file)


FLUSH_SECONDS = 0.02
"""A worker running a batch sends what it has at least this often (and at the end)."""


def _send_outcomes(conn: Connection, seq: int, outcomes: list[Outcome]) -> None:
    """Send, turning a value that cannot travel into an error outcome."""
    try:
        conn.send(("outcomes", seq, outcomes))
    except (TypeError, AttributeError, ValueError, pickle.PicklingError):  # pickling failed: say so instead of dying
        conn.send(("outcomes", seq, [_travelling(o) for o in outcomes]))


def _travelling(outcome: Outcome) -> Outcome:
    try:
        pickle.dumps(outcome)
        return outcome
    except Exception as exc:  # noqa: BLE001
        return Outcome.raised(exc, ErrorClass.OTHER)


def _serve_batch(conn: Connection, oracle: InProcessOracle, progress: Any, seq: int, cases: list[tuple]) -> None:
    """Run a batch, recording in ``progress`` which case is running and sending
    outcomes in chunks (every :data:`FLUSH_SECONDS` and at the end)."""
    pending: list[Outcome] = []
    last_flush = time.monotonic()
    for index, (op, data, indices, attrs) in enumerate(cases):
        progress.value = index
        pending.append(_run_case(oracle, op, data, indices, attrs))
        if index == len(cases) - 1 or time.monotonic() - last_flush >= FLUSH_SECONDS:
            _send_outcomes(conn, seq, pending)
            pending, last_flush = [], time.monotonic()


def _run_case(oracle: InProcessOracle, op: str, data: Any, indices: Any, attrs: dict[str, Any]) -> Outcome:
    try:
        return oracle.run_in_process(op, data, indices, attrs)
    except Exception as exc:  # unsupported_reason or classify raised: still an outcome
        return Outcome.raised(exc, ErrorClass.OTHER)


def _worker_main(conn: Connection, fault_log: str, progress: Any, module: str, name: str) -> None:
    """Entry point of a worker: load the oracle, say ready, answer cases.

    Messages in: ``("run", seq, [(op, data, indices, attrs), ...])`` or
    ``("stop",)``. Out: ``("ready", info, facts, pid)`` or ``("failed",
    is_missing, message)`` once, then ``("outcomes", seq, [outcome, ...])``
    chunks, in order; ``progress.value`` is the index of the running case.
    """
    enable_fault_log(fault_log)
    try:
        oracle = load_oracle(module, name)
        info = oracle.info()
        warm_up = getattr(oracle, "warm_up", None)
        if callable(warm_up):
            warm_up()
    except BaseException as exc:  # noqa: BLE001 - report any startup failure to the parent
        conn.send(("failed", isinstance(exc, OracleUnavailable), f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", info, thread_facts(), os.getpid()))
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the parent is gone
            return
        if message[0] == "stop":
            return
        _, seq, cases = message
        _serve_batch(conn, oracle, progress, seq, cases)


# -- the parent side ----------------------------------------------------------


@dataclass(frozen=True)
class _Died:
    """The worker process ended: ``exitcode`` as multiprocessing reports it."""

    exitcode: int | None
    fault: str


@dataclass(frozen=True)
class _NoAnswer:
    seconds: float


def _signal_name(number: int) -> str:
    """``"SIGSEGV"`` for 11.

    >>> _signal_name(6)
    'SIGABRT'
    """
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def crash_outcome(died: _Died, what: str) -> Outcome:
    """The outcome for a worker that died while doing ``what``; a negative
    exit code is the signal that killed it.

    >>> crash_outcome(_Died(-11, ""), "running numpy.take").describe()
    'crash (signal 11)'
    >>> crash_outcome(_Died(3, ""), "running numpy.take").message
    'worker exited with code 3 while running numpy.take'
    """
    code = died.exitcode
    if code is not None and code < 0:
        message = f"worker died with {_signal_name(-code)} while {what}"
        outcome = Outcome.crashed(-code, None, message)
    else:
        outcome = Outcome.crashed(None, code, f"worker exited with code {code} while {what}")
    if died.fault:
        outcome.message = f"{outcome.message}: {died.fault}"
    return outcome


def _summarize_fault(path: str) -> str:
    """The first line and innermost frame of what faulthandler wrote, if anything."""
    try:
        with open(path) as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError:
        return ""
    frames = [line for line in lines if line.startswith("File ")]
    return "; ".join(lines[:1] + frames[:1])


def _stop_process(process: multiprocessing.process.BaseProcess, conn: Connection, fault_log: str, grace: float) -> None:
    """Ask a worker to stop, then kill it if it does not; remove its log."""
    if process.is_alive() and grace > 0:
        try:
            conn.send(("stop",))
        except (OSError, ValueError):
            pass
        process.join(grace)
    if process.is_alive():
        process.kill()
        process.join(5)
    conn.close()
    try:
        os.unlink(fault_log)
    except OSError:
        pass


class WorkerProcess:
    """A spawned process running ``target(conn, fault_log, *args)`` and the
    parent's end of its pipe; ``fault_log`` is where faulthandler writes."""

    def __init__(self, target: Any, args: tuple, name: str) -> None:
        parent_end, child_end = _CONTEXT.Pipe()
        fd, self.fault_log = tempfile.mkstemp(prefix=f"{name}-", suffix=".fault")
        os.close(fd)
        self.conn = parent_end
        self.process = _CONTEXT.Process(target=target, args=(child_end, self.fault_log, *args), name=name, daemon=True)
        self.process.start()
        child_end.close()
        self._finalizer = weakref.finalize(self, _stop_process, self.process, self.conn, self.fault_log, 1.0)

    def send(self, message: tuple) -> bool:
        """Send; False if the worker is already gone."""
        try:
            self.conn.send(message)
            return True
        except (OSError, ValueError):
            return False

    def receive(self, timeout: float) -> tuple | _Died | _NoAnswer:
        """The next message, or why there is none."""
        try:  # the child's end closes when it dies, so EOF is death: no need to watch the sentinel
            if not self.conn.poll(timeout):
                return _NoAnswer(timeout)
            return self.conn.recv()
        except (EOFError, OSError):
            pass
        self.process.join(5)
        return _Died(self.process.exitcode, _summarize_fault(self.fault_log))

    def kill(self) -> None:
        """End the process now (no goodbye: it may be stuck)."""
        self._finalizer.detach()
        _stop_process(self.process, self.conn, self.fault_log, grace=0)

    def close(self) -> None:
        """Ask the process to stop, kill it if it will not."""
        self._finalizer()


class _Worker(WorkerProcess):
    """A worker serving one oracle; started and ready when constructed."""

    def __init__(self, module: str, name: str, startup_timeout: float) -> None:
        self.progress = _CONTEXT.RawValue("q", -1)
        super().__init__(_worker_main, (self.progress, module, name), f"oracle-{name}")
        self.info, self.facts, self.pid = self._handshake(name, startup_timeout)

    def _handshake(self, name: str, timeout: float) -> tuple[OracleInfo, dict[str, Any], int]:
        reply = self.receive(timeout)
        if isinstance(reply, tuple) and reply[0] == "ready":
            return reply[1], reply[2], reply[3]
        self.kill()
        if isinstance(reply, tuple):  # ("failed", is_missing, message)
            raise (OracleUnavailable if reply[1] else WorkerStartError)(f"oracle {name!r}: {reply[2]}")
        if isinstance(reply, _Died):
            raise WorkerStartError(crash_outcome(reply, f"starting oracle {name!r}").message)
        raise WorkerStartError(f"oracle {name!r} did not start within {timeout:g} s")


class IsolatedOracle:
    """An oracle behind a process boundary; same ``run`` as an in-process
    :class:`~oracles.base.Oracle` (see the module docstring).

    ``pid`` is the current worker's (None before the first case and after a
    crash); ``restarts`` counts workers started after a crash or timeout.
    Reuse one instance across many cases (e.g. a session-scoped pytest
    fixture, or :func:`oracles.shared`); the first case pays the import, so
    call :meth:`start` first when a per-example deadline is ticking.
    """

    def __init__(
        self,
        name: str,
        module: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        max_start_failures: int = 3,
    ) -> None:
        self.name = name
        self.module = module
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.max_start_failures = max_start_failures
        self.restarts = 0
        self._worker: _Worker | None = None
        self._info: OracleInfo | None = None
        self._facts: dict[str, Any] = {}
        self._seq = itertools.count()
        self._start_failures = 0
        self._broken: str | None = None
        self._owner = os.getpid()

    def __repr__(self) -> str:
        return f"IsolatedOracle({self.name!r}, {self.module!r}, timeout={self.timeout:g}, pid={self.pid})"

    @property
    def pid(self) -> int | None:
        return self._worker.pid if self._worker is not None and self._owner == os.getpid() else None

    @property
    def facts(self) -> dict[str, Any]:
        """Thread settings the worker reported at startup (see :func:`thread_facts`)."""
        self.start()
        return self._facts

    def start(self) -> None:
        """Start the worker now if none is running; raises :class:`WorkerStartError`."""
        if self._owner != os.getpid():  # we were forked: the worker belongs to the parent
            self._worker, self._owner = None, os.getpid()
        if self._worker is not None:
            return
        if self._broken:
            raise WorkerStartError(self._broken)
        try:
            self._worker = _Worker(self.module, self.name, self.startup_timeout)
        except WorkerStartError as exc:
            self._start_failures += 1
            if isinstance(exc, OracleUnavailable) or self._start_failures >= self.max_start_failures:
                self._broken = str(exc)
            raise
        self._start_failures = 0
        self._info, self._facts = self._worker.info, self._worker.facts

    def info(self) -> OracleInfo:
        """Version, device, mode and ops, as the worker's oracle reports them."""
        if self._info is None:
            self.start()
        assert self._info is not None
        return self._info

    def run(self, op: str, data: Any, indices: Any, **attrs: Any) -> Outcome:
        """One case; see :meth:`run_many`."""
        return self.run_many([(op, data, indices, attrs)])[0]

    def run_many(self, cases: Iterable[CaseLike], *, timeout: float | None = None) -> list[Outcome]:
        """One outcome per case, in order. The batch goes to the worker in one
        message and comes back in chunks; each case still has ``timeout``
        seconds (default ``self.timeout``). The case that crashes or hangs the
        worker gets that outcome, found through the worker's progress counter;
        cases it had finished but not yet sent are run again, with the rest of
        the batch, in a fresh worker."""
        wire = [(c.op, c.data, c.indices, dict(c.attrs)) for c in map(as_case, cases)]
        results: list[Outcome | None] = [None] * len(wire)
        todo = list(range(len(wire)))
        try:
            while todo:
                for position, outcome in self._run_batch([wire[i] for i in todo], timeout or self.timeout).items():
                    results[todo[position]] = outcome
                todo = [i for i in todo if results[i] is None]
        except BaseException:  # interrupted mid-batch (KeyboardInterrupt, pytest-timeout): state unknown
            self._discard()
            raise
        return results  # type: ignore[return-value]  # every slot is filled

    def _run_batch(self, batch: list[tuple], timeout: float) -> dict[int, Outcome]:
        """Outcomes by position in ``batch``: all of them, or those the worker
        sent plus the failure of the case it died or hung on."""
        worker = self._ready_worker()
        if isinstance(worker, Outcome):
            return dict.fromkeys(range(len(batch)), worker)
        seq = next(self._seq)
        worker.progress.value = -1
        if not worker.send(("run", seq, batch)):  # died between batches: not this batch's fault
            self._discard()
            return {}
        outcomes: list[Outcome] = []
        while len(outcomes) < len(batch):
            reply = worker.receive(timeout)
            if isinstance(reply, tuple):
                outcomes += reply[2] if reply[1] == seq else []
                continue
            failed_at = max(worker.progress.value, len(outcomes))
            op, data, indices, _ = batch[failed_at]
            return {**dict(enumerate(outcomes)), failed_at: self._failure(reply, op, data, indices)}
        return dict(enumerate(outcomes))

    def _ready_worker(self) -> _Worker | Outcome:
        """The running worker, or the crash outcome of failing to start one."""
        if self._worker is None and self._info is not None:
            self.restarts += 1
        try:
            self.start()
        except WorkerStartError as exc:
            return Outcome.crashed(None, None, f"worker could not start: {exc}")
        assert self._worker is not None
        return self._worker

    def _failure(self, reply: _Died | _NoAnswer, op: str, data: Any, indices: Any) -> Outcome:
        self._discard()
        if isinstance(reply, _NoAnswer):
            return Outcome.timed_out(reply.seconds)
        return crash_outcome(reply, f"running {op} on data {_shape(data)}, indices {_shape(indices)}")

    def _discard(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def close(self) -> None:
        """Stop the worker (a later case starts a new one)."""
        if self._worker is not None and self._owner == os.getpid():
            self._worker.close()
        self._worker = None

    def __enter__(self) -> "IsolatedOracle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _shape(a: Any) -> str:
    """``int64[4, 3]`` for an array, the type name otherwise."""
    return f"{a.dtype}{list(a.shape)}" if hasattr(a, "shape") and hasattr(a, "dtype") else type(a).__name__

