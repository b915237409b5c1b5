"""The worker process: ``python -m conformance.execution.worker READ_FD WRITE_FD PARENT_PID``.

Started by :class:`conformance.execution.process.WorkerProcess` as a module of
its own (never through ``multiprocessing``'s spawn, which re-runs the caller's
``__main__``), it talks to its parent over two inherited pipes carrying
:class:`multiprocessing.connection.Connection` messages (pickles); stdout and
stderr stay the frameworks'. It dies with its parent whatever kills the parent:
``PR_SET_PDEATHSIG`` on Linux (works even while a case spins in C holding the
GIL), and a watchdog thread that exits once the parent pid changes.

The protocol, parent -> worker: first a job, ``("oracle", settings)`` or
``("discover", settings)`` (``settings``: ``sys_path``, ``fault_log``, and
``module`` + ``name`` + ``progress`` or ``modules``); then, for an oracle,
``("run", seq, [(op, data, indices, attrs), ...])``,
``("reproducer", seq, case, reference, observed)`` or ``("stop",)``.

Worker -> parent: ``("ready", info, thread_facts, pid, ready_at)`` (``ready_at``: its ``time.monotonic()``, one clock
for every process of the machine) or ``("failed", is_missing, message)`` once; then ``("outcomes", seq, [outcome,
...], spent, compiled)`` chunks in order (``spent``: None, or why the chunk's last case left the worker unable to run
another, its last message; ``compiled``: per outcome, the compilations its case made afresh and took from the disk
cache, as the oracle's optional ``compilations()`` counts them, or None where it cannot; the index of the running case
is kept in the ``progress`` file, an int64 the parent maps too) and ``("reproducer", seq, reproducer, problem)``. A
discovery worker sends ``("module", module, infos, thread_facts, problem)`` per module.

An answer that is not an ndarray is a protocol error, decided here:

>>> class Lazy:
...     name = "lazy"
...     def run_in_process(self, op, data, indices, attrs):
...         return Outcome.returned(None)
>>> _run_case(Lazy(), "numpy.take", None, None, {}).describe()
'protocol error: returned a NoneType instead of an array'
"""

from __future__ import annotations

import ctypes
import faulthandler
import mmap
import os
import pickle
import signal
import struct
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from conformance.core.case import Case
from conformance.core.judgement import Judgement
from conformance.core.machine import thread_facts
from conformance.core.oracle import InProcessOracle
from conformance.core.outcome import ErrorClass, Outcome
from conformance.execution.artefact_cache import compiled_folder
from conformance.execution.loading import OracleUnavailable, load_module, load_oracle

Compiled = tuple[int, int] | None
"""What one case compiled: ``(afresh, taken from the disk cache)``, or None where its oracle cannot tell."""

FLUSH_SECONDS = 0.02
"""A worker running a batch sends what it has at least this often (and at the end)."""

WATCHDOG_SECONDS = 0.5
"""How often the watchdog thread checks that the parent is still there."""

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when ``parent`` dies (Linux), and
    a watchdog thread end it once the parent pid changes (everywhere)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the watchdog alone
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCHDOG_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


_fault_file: Any = None


def enable_fault_log(path: str) -> None:
    """Have faulthandler write a fatal signal's traceback to ``path`` (the
    parent quotes it in the crash outcome)."""
    global _fault_file
    _fault_file = open(path, "w")  # noqa: SIM115 - must stay open for the life of the process
    faulthandler.enable(file=_fault_file)


def _send_outcomes(
    conn: Connection,
    seq: int,
    outcomes: list[Outcome],
    spent: str | None = None,
    compiled: list[Compiled] | None = None,
) -> None:
    """Send ``("outcomes", seq, outcomes, spent, compiled)``, turning an outcome that
    cannot travel into an error outcome; ``spent``: why the last of them left
    this process unable to run another, in the same message (a separate one
    could be left unread when that case was the batch's last); ``compiled``: for
    each outcome, what its case compiled (:data:`Compiled`)."""
    compiled = compiled if compiled is not None else [None] * len(outcomes)
    try:
        conn.send(("outcomes", seq, outcomes, spent, compiled))
    except (TypeError, AttributeError, ValueError, pickle.PicklingError):  # pickling failed: say so instead of dying
        conn.send(("outcomes", seq, [_travelling(o) for o in outcomes], spent, compiled))


def _travelling(outcome: Outcome) -> Outcome:
    try:
        pickle.dumps(outcome)
        return outcome
    except Exception as exc:  # noqa: BLE001
        return Outcome.raised(exc, ErrorClass.OTHER)


def _run_case(oracle: InProcessOracle, op: str, data: Any, indices: Any, attrs: dict[str, Any]) -> Outcome:
    try:
        answer: Any = oracle.run_in_process(op, data, indices, attrs)
    except Exception as exc:  # noqa: BLE001 - unsupported_reason or classify raised: still an outcome
        return Outcome.raised(exc, ErrorClass.OTHER)
    return Outcome.checked(answer)


def _serve_batch(conn: Connection, oracle: InProcessOracle, progress: mmap.mmap, seq: int, cases: list[tuple]) -> bool:
    """Run a batch, writing the running case's index to ``progress`` and
    sending outcomes in chunks (every :data:`FLUSH_SECONDS` and at the end).
    After a case that leaves this process unable to run another (the oracle's
    ``spent_by``, e.g. CUDA's sticky device-side assert), send what is done
    with the reason, and return False: the worker ends, and the rest of the
    batch runs in a fresh one. True while the worker can go on."""
    spent_by = getattr(oracle, "spent_by", None)
    counts = getattr(oracle, "compilations", lambda: None)
    pending: list[Outcome] = []
    compiled: list[Compiled] = []
    last_flush = time.monotonic()
    for index, (op, data, indices, attrs) in enumerate(cases):
        struct.pack_into("q", progress, 0, index)
        before = counts()
        outcome = _run_case(oracle, op, data, indices, attrs)
        pending.append(outcome)
        after = counts()
        compiled.append(None if before is None or after is None else (after[0] - before[0], after[1] - before[1]))
        why = spent_by(outcome) if callable(spent_by) else None
        if why or index == len(cases) - 1 or time.monotonic() - last_flush >= FLUSH_SECONDS:
            _send_outcomes(conn, seq, pending, why, compiled)
            pending, compiled, last_flush = [], [], time.monotonic()
        if why:
            return False
    return True


def _serve_reproducer(
    conn: Connection,
    oracle: Any,
    seq: int,
    case: Case,
    reference: Outcome,
    observed: Outcome | None,
    judgement: Judgement | None,
) -> None:
    """Send ``oracle``'s reproducer for ``case`` (``observed`` and ``judgement``
    passed on only when given: plug-ins may take just ``case`` and ``reference``), or why not."""
    try:
        args = (case, reference) if observed is None else (case, reference, observed)
        reproducer = oracle.reproducer(*args) if judgement is None else oracle.reproducer(*args, judgement=judgement)
    except Exception as exc:  # noqa: BLE001 - the parent raises it as a clear error
        conn.send(("reproducer", seq, None, f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("reproducer", seq, reproducer, ""))


def serve_oracle(requests: Connection, replies: Connection, settings: dict[str, Any]) -> None:
    """Load the oracle (one that compiles gets its folder of the artefact cache, if it has
    ``keep_compilations``), say ready (or why not), then answer until told to stop or the parent's end closes."""
    try:
        oracle = load_oracle(settings["module"], settings["name"])
        info = oracle.info()
        keep = getattr(oracle, "keep_compilations", None)
        if info.compiles and callable(keep) and (folder := compiled_folder(info.framework, info.version, info.device)):
            keep(folder)
    except BaseException as exc:  # noqa: BLE001 - report any startup failure to the parent
        replies.send(("failed", isinstance(exc, OracleUnavailable), f"{type(exc).__name__}: {exc}"))
        return
    with open(settings["progress"], "r+b") as f:
        progress = mmap.mmap(f.fileno(), 8)
    replies.send(("ready", info, thread_facts(), os.getpid(), time.monotonic()))
    while True:
        try:
            message = requests.recv()
        except EOFError:  # the parent is gone
            return
        if message[0] == "run":
            if not _serve_batch(replies, oracle, progress, message[1], message[2]):
                return
        elif message[0] == "reproducer":
            _serve_reproducer(replies, oracle, *message[1:])
        else:  # "stop"
            return


def serve_discovery(replies: Connection, settings: dict[str, Any]) -> None:
    """For each module, what its ``oracles_here()`` offers, or why it failed."""
    for module in settings["modules"]:
        try:
            loaded = load_module(module)
            infos = tuple(o.info() for o in loaded.oracles_here())
            absent = dict(getattr(loaded, "unavailable_here", dict)())  # optional: oracle -> why it cannot run here
            replies.send(("module", module, infos, {**thread_facts(), "unavailable": absent}, ""))
        except Exception as exc:  # noqa: BLE001 - a broken module is a fact to report, not a reason to stop
            replies.send(("module", module, (), thread_facts(), f"{type(exc).__name__}: {exc}"))


def main(argv: list[str]) -> None:
    """Entry point: guard against the parent's death, read the job, serve it."""
    read_fd, write_fd, parent = (int(a) for a in argv)
    die_with_parent(parent)
    # Ctrl-C, GNU timeout and a CI runner's cancel signal the whole process group: SIGINT and SIGTERM are the
    # parent's to handle (it ends us); a worker they killed made its running case a false 'crash' finding
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    requests, replies = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        kind, settings = requests.recv()
    except EOFError:
        return
    sys.path[:] = settings["sys_path"]
    enable_fault_log(settings["fault_log"])
    if kind == "oracle":
        serve_oracle(requests, replies, settings)
    else:
        serve_discovery(replies, settings)
    replies.close()


if __name__ == "__main__":
    main(sys.argv[1:])
