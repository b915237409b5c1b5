"""Run an oracle in a persistent worker process, so that a crash or a hang is
an :class:`~conformance.core.outcome.Outcome` and never the end of the run.

An :class:`IsolatedOracle` starts one worker (``python -m
conformance.execution.worker``, see :mod:`conformance.execution.process`),
which imports the framework once, then feeds it cases over a pipe. A worker
that dies (segfault, abort, ``os._exit``, killed) on a case that a fresh worker
dies on too turns it into ``Outcome.crashed``; a case with no answer within ``timeout``
seconds kills the worker and becomes ``Outcome.timed_out``. Either way the
next case starts a fresh worker, and the same case asked again is answered
from memory (shrinking never waits out the same hang twice). A worker that
cannot start again marks the oracle :attr:`~IsolatedOracle.broken`: one crash
outcome says why, every later case is ``Outcome.not_run``. The caller never
dies and never hangs.

>>> import numpy as np
>>> with IsolatedOracle("numpy", "oracles.numpy_oracle", timeout=5) as numpy_oracle:  # doctest: +SKIP
...     numpy_oracle.run("numpy.take", np.arange(12).reshape(4, 3), np.array([3, 1])).describe()
'value int64[2, 3]'

Batches travel in one message and come back case by case, so a batch costs
one round trip but keeps a per-case timeout:
``numpy_oracle.run_many([("numpy.take", x, i, {"axis": 1}), ...])``.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance.core.case import Case, CaseLike, as_case
from conformance.core.judgement import Judgement
from conformance.core.oracle import Capabilities, OracleInfo, Reproducer
from conformance.core.outcome import Kind, Outcome
from conformance.execution import clock
from conformance.execution.clock import CaseClock
from conformance.execution.cores import CORES
from conformance.execution.loading import OracleUnavailable, WorkerStartError
from conformance.execution.process import Died, NoAnswer, WorkerProcess, crash_outcome, killed_from_outside

if TYPE_CHECKING:
    from typing import Self

DEFAULT_TIMEOUT = 1.0
"""Seconds of its worker's CPU one case may take once the worker is up (see :mod:`conformance.execution.clock`).
A gather on the suite's arrays (64 data elements at most) takes microseconds, and compilation has its own
limit (:data:`WARM_UP_LIMIT`), so a second of CPU is a wide margin; every case past it costs the limit, then twice
the limit with every other worker stopped (:data:`CONFIRM_FACTOR`): at 5 s, the confirmed hangs of a default
campaign stopped the machine's other workers for about a minute."""

DEFAULT_STARTUP_TIMEOUT = 180.0
"""Seconds a worker may take to import its framework and warm up."""

CONFIRM_FACTOR = 2.0
"""A case that passed its limit runs again alone, in a fresh worker warmed up by a same-shape in-range
case (under the same longer limit, or :data:`WARM_UP_LIMIT` on an oracle that compiles), under this many
times the limit."""

WARM_UP_LIMIT = 60.0
"""Seconds of CPU a compiling oracle's warm-up case (a compilation) may take: never a case's own limit."""

SLOWEST_KEPT = 5
"""How many of an oracle's slowest confirmed cases the run facts list."""

UNREPEATED_KEPT = 5
"""How many of an oracle's unrepeated crashes (:meth:`IsolatedOracle._repeated`) the run facts list, each with the
crash and what a fresh worker answered: a history effect of the framework's process, to look into."""

OVER_MEMORY = "no answer within the limits: its worker held"
"""How a timeout outcome begins where the case was stopped at the memory cap
(:data:`~conformance.execution.clock.MEMORY_CAP`)."""

ENDED = "the run has ended"
"""Why an ended oracle (:meth:`IsolatedOracle.end`) runs nothing more."""

MEMO_SIZE = 256
"""How many timed-out or crashed cases an oracle remembers."""

RECENT_KEPT = 4
"""How many of the cases its worker ran before it an oracle remembers for a case (:meth:`IsolatedOracle.before`):
what a history effect is recorded with (:mod:`conformance.campaign.confirmation`)."""

BEFORE_SIZE = 8192
"""For how many cases (the most recent) an oracle remembers what its worker ran before them."""

Wire = tuple[str, Any, Any, dict[str, Any]]
"""A case as it travels to the worker: ``(op, data, indices, attrs)``."""


class ReproducerUnavailable(RuntimeError):
    """The worker could not write a reproducer (broken, crashed, or the oracle raised)."""


def case_key(case: Wire) -> bytes:
    """A digest of everything that decides an outcome: op, both arrays (bytes,
    dtype, shape) and attributes.

    >>> x = np.arange(3)
    >>> case_key(("numpy.take", x, np.array([1]), {})) == case_key(("numpy.take", x.copy(), np.array([1]), {}))
    True
    >>> case_key(("numpy.take", x, np.array([1]), {})) == case_key(("numpy.take", x, np.array([1], np.int8), {}))
    False
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((case[0], sorted(case[3].items(), key=lambda kv: kv[0]))).encode())
    for a in (np.asarray(case[1]), np.asarray(case[2])):
        digest.update(repr((a.dtype.str, a.shape)).encode())
        digest.update(repr(a.tolist()).encode() if a.dtype.kind == "O" else np.ascontiguousarray(a).tobytes())
    return digest.digest()


def shape_signature(case: Wire) -> str:
    """What a compiling framework compiles once for: op, attributes, and each
    array's dtype, shape and strides (never the values).

    >>> a = shape_signature(("t.g", np.zeros((2, 3)), np.array([1]), {"axis": 1}))
    >>> a == shape_signature(("t.g", np.ones((2, 3)), np.array([0]), {"axis": 1})), a == shape_signature(("t.g",
    ...     np.zeros((3, 2)).T, np.array([0]), {"axis": 1}))
    (True, False)
    """
    arrays = [(a.dtype.str, a.shape, a.strides) for a in map(np.asarray, case[1:3])]
    return repr((case[0], sorted(case[3].items(), key=lambda kv: kv[0]), arrays))


def warm_up_case(case: Wire) -> Wire | None:
    """``case`` with every index 0 (an in-range case of the same shape
    signature), laid out as the case's indices are (strides kept, negative
    ones too); None where the indices are no array or the data is empty (no
    index is in range there: what would warm up is the case itself).

    >>> op, data, idx, attrs = warm_up_case(("t.g", np.arange(4), np.array([7, -9])[::-1], {}))
    >>> idx.tolist(), idx.strides
    ([0, 0], (-8,))
    """
    indices = case[2]
    if not isinstance(indices, np.ndarray) or np.asarray(case[1]).size == 0:
        return None
    return (case[0], case[1], _zeros_like_strided(indices), case[3])


def _zeros_like_strided(a: np.ndarray) -> np.ndarray:
    """Zeros of ``a``'s dtype and shape with ``a``'s very strides."""
    if a.dtype.hasobject or a.flags.c_contiguous or a.flags.f_contiguous:
        return np.zeros_like(a, order="K")
    low = sum(s * (n - 1) for s, n in zip(a.strides, a.shape, strict=True) if s < 0 and n > 0)
    high = sum(s * (n - 1) for s, n in zip(a.strides, a.shape, strict=True) if s > 0 and n > 0)
    buffer = np.zeros(max(high - low + a.itemsize, a.itemsize) // a.itemsize + 1, a.dtype)
    return np.ndarray(a.shape, a.dtype, buffer=buffer, offset=-low, strides=a.strides)


class _Worker(WorkerProcess):
    """A worker serving one oracle: spawned when constructed, ready after :meth:`ready`."""

    def __init__(self, module: str, name: str) -> None:
        super().__init__("oracle", {"module": module, "name": name}, f"oracle-{name}")
        self.name = name
        self.ran = 0
        """Cases it has answered, warm-ups aside: a crash on its first case is a fresh process's own."""
        self.spawned = time.monotonic()
        self.start_s = 0.0
        """Seconds from its spawning to its oracle loaded (the framework imported), once :meth:`ready`: when the
        worker said it was ready, not when it was first needed (a spare loads ahead and waits)."""

    def ready(self, startup_timeout: float) -> None:
        """Wait until the oracle has loaded (``info`` and ``facts`` set); raises :class:`WorkerStartError`."""
        self.info, self.facts = self._handshake(self.name, startup_timeout)

    def _handshake(self, name: str, timeout: float) -> tuple[OracleInfo, dict[str, Any]]:
        reply = self.receive(timeout)
        if isinstance(reply, tuple) and reply[0] == "ready":  # ("ready", info, facts, pid, its time.monotonic())
            self.start_s = max(reply[4] - self.spawned, 0.0)
            return reply[1], reply[2]
        self.kill()
        if isinstance(reply, tuple):  # ("failed", is_missing, message)
            raise (OracleUnavailable if reply[1] else WorkerStartError)(f"oracle {name!r}: {reply[2]}")
        if isinstance(reply, Died):
            raise _StartDied(crash_outcome(reply, f"starting oracle {name!r}").message)
        raise _StartDied(f"oracle {name!r} did not start within {timeout:g} s")


class _StartDied(WorkerStartError):
    """The worker died or hung while starting: perhaps bad luck, worth another try."""


class IsolatedOracle:
    """An oracle behind a process boundary; same ``run`` and ``run_many`` as an
    in-process oracle (see the module docstring). Safe to share between threads
    (one case at a time).

    ``pid`` is the current worker's (None before the first case and after a
    crash); ``restarts`` counts workers started after a crash or timeout;
    ``broken`` says why no worker can start any more (None while one can).
    Reuse one instance across many cases; the first case pays the import, so
    call :meth:`start` first when a per-example deadline is ticking.
    """

    def __init__(
        self,
        name: str,
        module: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        warm_up_limit: float = WARM_UP_LIMIT,
        max_start_failures: int = 3,
    ) -> None:
        self.name = name
        self.warm_up_limit = warm_up_limit
        self.module = module
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.max_start_failures = max_start_failures
        self.restarts = 0
        self._worker: _Worker | None = None
        self._info: OracleInfo | None = None
        self._facts: dict[str, Any] = {}
        self._seq = itertools.count()
        self._broken: str | None = None
        self._memo: OrderedDict[bytes, Outcome] = OrderedDict()
        self._warmed: set[str] = set()  # shape signatures the current worker has run
        self._warm_failed: set[str] = set()  # those whose warm-up failed: never warmed again
        self._warm_hung: set[str] = set()  # those whose warm-up passed its generous limit: see _settled
        self._slowest: list[dict[str, Any]] = []
        self._unrepeated: list[dict[str, Any]] = []  # the first UNREPEATED_KEPT crashes a fresh worker answered
        self._counts = {
            "warm_ups": 0,
            "confirmed": 0,
            "hangs": 0,
            "spent": 0,
            "killed": 0,
            "crashes": 0,
            "unrepeated": 0,
            "peak_mib": 0,
            "workers": 0,
            "compiles_cold": 0,
            "compiles_warm": 0,
            "warm_ups_in_memory": 0,
            "runs": 0,
        }
        self._seconds = dict.fromkeys(("start_s", "compile_cold_s", "compile_warm_s", "run_s"), 0.0)
        self._recent: deque[str] = deque(maxlen=RECENT_KEPT)  # the current worker's last cases, in words
        self._before: OrderedDict[bytes, tuple[str, ...]] = OrderedDict()  # case key -> what its worker ran before
        self._spare: _Worker | None = None  # spawned ahead, once a case has spent a worker (see _spent)
        self._died = False
        """A case crashed a worker: from then on a spare loads ahead, as for a spent one (shrinking a crash, every
        candidate that still shows it costs a worker: Paddle's and TensorFlow's took 1.3-2 s each to start)."""
        self._confirming = False  # a case runs alone (see _confirmed): no spare loads
        self._fresh_failure = False  # the last failure was its worker's first case (see _repeated)
        self._lock = threading.RLock()
        self._owner = os.getpid()

    def __repr__(self) -> str:
        return f"IsolatedOracle({self.name!r}, {self.module!r}, timeout={self.timeout:g}, pid={self.pid})"

    @property
    def pid(self) -> int | None:
        return self._worker.pid if self._worker is not None and self._owner == os.getpid() else None

    @property
    def broken(self) -> str | None:
        """Why this oracle can start no worker any more, or None."""
        return self._broken

    @property
    def facts(self) -> dict[str, Any]:
        """Thread settings the worker reported at startup (see :func:`conformance.core.machine.thread_facts`)."""
        self.start()
        return self._facts

    def start(self) -> None:
        """Start the worker now if none is running; raises :class:`WorkerStartError`.

        A start that fails with an error (the module does not import, has no
        such oracle) breaks the oracle at once; one that dies or hangs is tried
        again, up to ``max_start_failures`` times in a row, then breaks it."""
        with CORES.held(), self._lock:  # a starting worker imports its framework: it holds a slot
            if self._owner != os.getpid():  # we were forked: the worker belongs to the parent
                self._worker, self._spare, self._owner = None, None, os.getpid()
            if self._worker is not None:
                return
            if self._broken:
                raise WorkerStartError(self._broken)
            for attempt in range(1, self.max_start_failures + 1):
                try:
                    worker, self._spare = self._spare or _Worker(self.module, self.name), None
                    worker.ready(self.startup_timeout)
                    break
                except _StartDied as exc:
                    if attempt == self.max_start_failures:
                        self._broken = f"{exc} ({attempt} attempts)"
                        raise WorkerStartError(self._broken) from None
                except WorkerStartError as exc:
                    self._broken = str(exc)
                    raise
            self._worker, self._info, self._facts = worker, worker.info, worker.facts
            self._counts["workers"] += 1
            self._seconds["start_s"] += worker.start_s
            if (self._counts["spent"] or self._died) and not self._confirming:  # the next one loads meanwhile
                self._spare = _Worker(self.module, self.name)

    @property
    def capabilities(self) -> Capabilities:
        """Isolated and bounded; compiling where its oracle says so (its worker starts to tell)."""
        return Capabilities(compiles=self.info().compiles, isolated=True, bounded=True)

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
        seconds of the worker's CPU time (default ``self.timeout``; see
        :mod:`conformance.execution.clock`), while the worker holds one of
        the machine's slots (:data:`~conformance.execution.cores.CORES`). On
        an oracle that compiles, each new shape signature is first run as a
        warm-up case (indices 0) outside that limit. The case that crashes
        the worker gets that outcome; one that passes its limit is confirmed
        (:meth:`_confirmed`) before it is a timeout; either is found through
        the worker's progress counter and remembered; cases the worker had
        finished but not yet sent run again, with the rest of the batch, in a fresh worker."""
        wire: list[Wire] = [(c.op, c.data, c.indices, dict(c.attrs)) for c in map(as_case, cases)]
        keys = [case_key(w) for w in wire]
        results: list[Outcome | None] = [None] * len(wire)
        todo = list(range(len(wire)))
        limit = timeout or self.timeout
        with CORES.held(), self._lock:
            try:
                while todo:
                    for i in todo:  # a case that hung or crashed before (perhaps earlier in this batch)
                        results[i] = self._remembered(keys[i])
                    todo = [i for i in todo if results[i] is None]
                    done = self._run_batch([wire[i] for i in todo], limit) if todo else {}
                    for position, (outcome, failed) in done.items():
                        if failed and (outcome.kind is Kind.TIMEOUT or killed_from_outside(outcome)):
                            outcome = self._settled(wire[todo[position]], limit, outcome)
                            failed = outcome.kind in (Kind.TIMEOUT, Kind.CRASH)
                        elif failed and outcome.kind is Kind.CRASH and not self._fresh_failure:
                            outcome = self._repeated(wire[todo[position]], limit, outcome)
                            failed = outcome.kind in (Kind.TIMEOUT, Kind.CRASH)
                        results[todo[position]] = outcome
                        if failed:
                            self._remember(keys[todo[position]], outcome)
                    todo = [i for i in todo if results[i] is None]
            except BaseException:  # interrupted mid-batch (KeyboardInterrupt, pytest-timeout): state unknown
                self._discard()
                raise
        return results  # type: ignore[return-value]  # every slot is filled

    def _settled(self, case: Wire, limit: float, first: Outcome) -> Outcome:
        """The outcome of a case whose ``first`` run passed its ``limit`` or
        whose worker something outside the harness killed
        (:func:`killed_from_outside`: the kernel's OOM killer, when the
        machine's memory runs out). A timeout at once where its shape signature's in-range warm-up already ran for
        its warm-up limit (:data:`WARM_UP_LIMIT`) in CPU seconds without an answer (a signature that
        does not compile or run in that long hangs whatever its index values;
        a second run alone would wait it out again), else :meth:`_confirmed`."""
        if first.kind is Kind.TIMEOUT and shape_signature(case) in self._warm_hung:
            return self._hung(limit, first)
        return self._confirmed(case, limit, first)

    def _repeated(self, case: Wire, limit: float, first: Outcome) -> Outcome:
        """The outcome of a case whose ``first`` run crashed a worker that had run other cases before it: the case runs
        again in a fresh worker (as its reproducer runs it, in a fresh process), and only a crash there too is a crash
        (counted as ``crashes``; a crash on a worker's first case stands at once: a default campaign's shrinking crashes
        worker after worker, and confirming each cost 80 s of 420). Where the fresh worker answers, its answer stands
        and the crash is counted as ``unrepeated``: it depended on what the worker had run before (MLX's take_along_axis
        on an empty bfloat16 axis crashed a worker that had run other cases while shrinking, and read stray bytes in a
        fresh process, so its reproducer said "not reproduced": CI at 65f5d42)."""
        if self._broken:
            return first
        outcome, _ = self._run_batch([case], limit).get(0, (first, True))  # _failure discarded the dead worker
        if outcome.kind is Kind.NOT_RUN:  # no worker could start again: the crash is all there is
            return first
        if outcome.kind is Kind.TIMEOUT or killed_from_outside(outcome):
            return self._settled(case, limit, outcome)
        self._counts["crashes" if outcome.kind is Kind.CRASH else "unrepeated"] += 1
        if outcome.kind is not Kind.CRASH and len(self._unrepeated) < UNREPEATED_KEPT:
            shape = f"{case[0]} on data {_shape(case[1])}, indices {_shape(case[2])}, {case[3]}"
            self._unrepeated.append({"case": shape, "crashed": first.message or "", "fresh": outcome.describe()})
        return outcome

    def _hung(self, limit: float, *seen: Outcome) -> Outcome:
        """A confirmed hang, counted: a timeout in the case's own ``limit`` (the same words whatever confirmed it,
        unless one of the runs ``seen`` passed the memory cap: then it says so, in that run's words)."""
        self._counts["confirmed"] += 1
        self._counts["hangs"] += 1
        hung = Outcome.timed_out(limit)
        hung.message = next((o.message for o in seen if (o.message or "").startswith(OVER_MEMORY)), hung.message)
        return hung

    def _confirmed(self, case: Wire, limit: float, first: Outcome) -> Outcome:
        """The outcome of a case whose ``first`` run passed its ``limit`` (or
        whose worker got a SIGKILL the harness did not send): run again alone
        (every other worker stopped), in a fresh worker that has just run a
        same-shape in-range case (:meth:`_warm`, beside the others: only the
        case itself runs alone), under :data:`CONFIRM_FACTOR` times the
        limit. Only a case that passes that too is a timeout (only one killed
        again is a crash); one that
        answers is judged on its answer, and its time is kept as a figure
        (:meth:`timing`), never as a behaviour."""
        if self._broken:  # ended (the run is over: end() killed the worker) or broken: nothing runs again
            return Outcome.not_run(f"oracle {self.name} is broken: {self._broken}")
        if first.kind is Kind.CRASH:
            self._counts["killed"] += 1
        self._discard()
        self._drop_spare()  # it would be stopped with the others, and a worker started alone must run
        self._confirming = True  # and none loads meanwhile
        try:
            self._warm(case, CONFIRM_FACTOR * limit)
            if shape_signature(case) in self._warm_hung:  # its warm-up hung too: see _settled
                return self._hung(limit, first)
            with CORES.alone(keep=self.pid):
                started = time.monotonic()
                done = self._run_batch([case], CONFIRM_FACTOR * limit)
                seconds = time.monotonic() - started
        finally:
            self._confirming = False
        outcome, _ = done.get(0, (Outcome.not_run(f"oracle {self.name}: the confirmation did not run"), False))
        if outcome.kind is Kind.TIMEOUT:
            return self._hung(limit, outcome, first)
        self._counts["confirmed"] += 1
        shape = f"{case[0]} on data {_shape(case[1])}, indices {_shape(case[2])}"
        self._slowest.append({"case": shape, "limit_s": limit, "confirmed_in_s": round(seconds, 3)})
        self._slowest = sorted(self._slowest, key=lambda d: -d["confirmed_in_s"])[:SLOWEST_KEPT]
        return outcome

    def _warm(self, case: Wire, limit: float) -> None:
        """Run ``case``'s same-shape in-range case (:func:`warm_up_case`) in
        the worker (starting one), under ``limit`` or, on an oracle that
        compiles, the warm-up limit; one that fails marks the signature as
        never warmed again (and hung, if it passed its limit)."""
        warm_up = warm_up_case(case)
        signature = shape_signature(case)
        if warm_up is None or signature in self._warm_failed or case_key(warm_up) == case_key(case):
            return
        self._counts["warm_ups"] += 1
        outcome, failed = self._run_batch([warm_up], limit).get(0, (None, True))
        if failed:
            self._warm_up_failed(signature, outcome is not None and outcome.kind is Kind.TIMEOUT)

    def _warm_up_failed(self, signature: str, hung: bool) -> None:
        """A warm-up of ``signature`` crashed or (``hung``) passed its limit: it is never warmed again."""
        self._warm_failed.add(signature)
        if hung:
            self._warm_hung.add(signature)

    def timing(self) -> dict[str, Any]:
        """What the run facts say of this oracle's time: its workers and the seconds they took to load (``start_s``),
        its compilations (warm-ups where it compiles) cold and warm (from the disk cache) with their seconds, warm-ups
        that compiled nothing, its other cases (``runs``, ``run_s``), warm-up cases run, cases confirmed after passing
        their limit, those that hung again, workers a case left unable to run another (``spent``), cases whose worker a
        SIGKILL from outside ended and that ran again alone (``killed``), crashes a fresh worker repeated (``crashes``)
        and those it answered instead (``unrepeated``, :meth:`_repeated`; the first few listed in ``unrepeated_cases``),
        the most RAM a worker held while this side looked (``peak_mib``), and the slowest of those that answered
        (figures, not behaviours).

        >>> IsolatedOracle("numpy", "oracles.numpy_oracle").timing()
        {'warm_ups': 0, 'confirmed': 0, 'hangs': 0, 'spent': 0, 'killed': 0, 'crashes': 0, 'unrepeated': 0,
         'peak_mib': 0, 'workers': 0, 'compiles_cold': 0, 'compiles_warm': 0, 'warm_ups_in_memory': 0, 'runs': 0,
         'start_s': 0.0,
         'compile_cold_s': 0.0, 'compile_warm_s': 0.0, 'run_s': 0.0, 'slowest': [], 'unrepeated_cases': []}
        """
        seconds = {k: round(v, 3) for k, v in self._seconds.items()}
        return {**self._counts, **seconds, "slowest": list(self._slowest), "unrepeated_cases": list(self._unrepeated)}

    def _remembered(self, key: bytes) -> Outcome | None:
        outcome = self._memo.get(key)
        if outcome is None:
            return None
        self._memo.move_to_end(key)
        return replace(outcome)

    def _remember(self, key: bytes, outcome: Outcome) -> None:
        self._memo[key] = replace(outcome)
        while len(self._memo) > MEMO_SIZE:
            self._memo.popitem(last=False)

    def _planned(self, batch: list[Wire], limit: float) -> tuple[list[Wire], list[float], list[int]]:
        """What the worker runs for ``batch``: each case, preceded by a
        warm-up case where the oracle
        compiles and the worker has not run its shape signature (never one that
        is the case itself: all its indices 0 already; where none can run, the
        case's own first call gets the warm-up's limit); each with its limit,
        and each case's position in the batch (-1: a warm-up)."""
        compiles = self._info is not None and self._info.compiles
        sent: list[Wire] = []
        limits: list[float] = []
        owner: list[int] = []
        for position, case in enumerate(batch):
            signature = shape_signature(case)
            compiling = compiles and signature not in self._warmed
            warm_up = warm_up_case(case) if compiling else None
            if warm_up is not None and (signature in self._warm_failed or case_key(warm_up) == case_key(case)):
                warm_up = None
            if warm_up is not None:
                sent.append(warm_up)
                limits.append(self.warm_up_limit)
                owner.append(-1)
                self._counts["warm_ups"] += 1
            self._warmed.add(signature)
            sent.append(case)
            # no warm-up could compile it (empty data, the case itself): its first call compiles, with time to
            # (not where a warm-up of its signature hung: that signature had its time)
            generous = compiling and warm_up is None and signature not in self._warm_hung
            limits.append(self.warm_up_limit if generous else limit)
            owner.append(position)
        return sent, limits, owner

    def _run_batch(self, batch: list[Wire], limit: float) -> dict[int, tuple[Outcome, bool]]:
        """(outcome, whether it is the worker's failure) by position in
        ``batch``: all of them, or those the worker sent plus the failure of
        the case it died or hung on (or, if no worker can start, the first
        case's crash and the rest not run). A warm-up that fails is no case's
        outcome: its signature is not warmed again, and the cases from it on run again."""
        worker = self._ready_worker()
        if isinstance(worker, Outcome):
            not_run = Outcome.not_run(f"oracle {self.name} is broken: {self._broken}")
            return {0: (worker, False), **{i: (replace(not_run), False) for i in range(1, len(batch))}}
        sent, limits, owner = self._planned(batch, limit)
        self._ran(sent)
        seq = next(self._seq)
        worker.reset_progress()
        if not worker.send(("run", seq, sent)):  # died between batches: not this batch's fault
            self._discard()
            return {}
        case_clock = CaseClock(worker.pid, limits, CORES.paused_s)
        try:
            return self._answers(worker, seq, sent, owner, case_clock)
        finally:  # what the clock saw while it waited, and what the worker holds after the batch
            held = max(case_clock.peak, clock.resident_bytes(worker.pid) or 0)
            self._counts["peak_mib"] = max(self._counts["peak_mib"], held >> 20)

    def _answers(
        self, worker: _Worker, seq: int, sent: list[Wire], owner: list[int], case_clock: CaseClock
    ) -> dict[int, tuple[Outcome, bool]]:
        """:meth:`_run_batch`'s outcomes, as the worker sends them for the ``sent`` cases."""
        outcomes: list[Outcome] = []
        while len(outcomes) < len(sent):
            reply = worker.receive(case_clock.limit(), case_clock)
            if isinstance(reply, tuple):  # ("outcomes", seq, outcomes, why the last one spent the worker, compiled)
                if reply[1] == seq:
                    self._clocked(reply[2], reply[4], owner[len(outcomes) :])
                    outcomes += reply[2]
                    if reply[3]:
                        return self._spent(sent[len(outcomes) - 1], owner[len(outcomes) - 1] < 0, outcomes, owner)
                continue
            failed_at = max(worker.progress(), len(outcomes))
            answered = {owner[i]: (o, False) for i, o in enumerate(outcomes) if owner[i] >= 0}
            if owner[failed_at] < 0:  # a warm-up failed: the next case and the rest run again
                self._discard()
                self._warm_up_failed(shape_signature(sent[failed_at]), isinstance(reply, NoAnswer))
                return answered
            op, data, indices, _ = sent[failed_at]
            self._fresh_failure = worker.ran + sum(o >= 0 for o in owner[:failed_at]) == 0
            self._died = self._died or isinstance(reply, Died)
            failure = self._failure(reply, f"running {op} on data {_shape(data)}, indices {_shape(indices)}")
            return {**answered, owner[failed_at]: (failure, True)}
        worker.ran += sum(o >= 0 for o in owner)
        return {owner[i]: (o, False) for i, o in enumerate(outcomes) if owner[i] >= 0}

    def _clocked(self, outcomes: list[Outcome], compiled: list[tuple[int, int] | None], owner: list[int]) -> None:
        """Count the worker's seconds for ``outcomes`` (each case's own, timed around its call in the worker). On an
        oracle that compiles, a warm-up is a compilation: warm where its case took one from the disk cache, cold
        where it compiled afresh, or where its oracle cannot tell (it keeps nothing: every process compiles afresh);
        one that compiled nothing (the worker had it in memory) is counted apart (``warm_ups_in_memory``). Every
        other case is a run (its first call compiles where no warm-up could)."""
        compiles = self._info is not None and self._info.compiles
        for outcome, made, position in zip(outcomes, compiled, owner, strict=False):
            count, seconds = CLOCKS[_compilation(made) if position < 0 and compiles else "run"]
            self._counts[count] += 1
            self._seconds[seconds] += outcome.seconds

    def _spent(
        self, last: Wire, warm_up: bool, outcomes: list[Outcome], owner: list[int]
    ) -> dict[int, tuple[Outcome, bool]]:
        """The worker said that its last case (``last``) left it unable to run
        another: the outcomes it sent stand (that case's too: what the
        framework did), the worker goes, and the rest of the batch runs again
        in a fresh one, with a spare loading ahead from then on (:meth:`start`).
        A warm-up that spends its worker is not warmed again (it would spend every worker)."""
        self._counts["spent"] += 1
        self._discard()
        if warm_up:
            self._warm_up_failed(shape_signature(last), False)
        return {owner[i]: (o, False) for i, o in enumerate(outcomes) if owner[i] >= 0}

    def _ready_worker(self) -> _Worker | Outcome:
        """The running worker; or, if none can start, the not-run outcome saying
        why (the case never reached the framework: no bogus crash finding)."""
        if self._broken:
            return Outcome.not_run(f"oracle {self.name} is broken: {self._broken}")
        if self._worker is None and self._info is not None:
            self.restarts += 1
        try:
            self.start()
        except WorkerStartError as exc:
            return Outcome.not_run(f"oracle {self.name}: worker could not start: {exc}")
        assert self._worker is not None
        return self._worker

    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer:
        """The worker's oracle's :class:`~conformance.core.oracle.Reproducer` for
        ``case`` (``observed``: what the oracle did, passed on when given); raises :class:`ReproducerUnavailable` saying
        why if the
        oracle is broken, its worker crashes or hangs, or its ``reproducer`` raises.
        A slot first, then the oracle (the order of :meth:`run_many`: the other
        order deadlocks threads that build findings at once)."""
        with CORES.held(), self._lock:
            worker = self._ready_worker()
            if isinstance(worker, Outcome):
                raise ReproducerUnavailable(
                    f"no reproducer from {self.name}: {worker.describe()}: {worker.message or ''}"
                )
            worker.send(
                ("reproducer", next(self._seq), case, reference, observed, judgement)
            )  # if it fails, receive says the worker died
            try:
                reply = worker.receive(self.timeout)
            except BaseException:
                self._discard()
                raise
            if isinstance(reply, tuple):  # ("reproducer", seq, reproducer or None, problem)
                if reply[2] is None:
                    raise ReproducerUnavailable(f"{self.name} could not write a reproducer for {case.op}: {reply[3]}")
                return reply[2]
            failure = self._failure(reply, f"writing a reproducer for {case.op}")
            raise ReproducerUnavailable(f"no reproducer from {self.name}: {failure.message}")

    def _failure(self, reply: Died | NoAnswer, what: str) -> Outcome:
        self._discard()
        if isinstance(reply, NoAnswer):
            outcome = Outcome.timed_out(reply.seconds)
            if reply.over_memory is not None:
                held, cap = reply.over_memory / 2**30, clock.MEMORY_CAP / 2**30
                outcome.message = f"{OVER_MEMORY} {held:.1f} GiB, past the {cap:g} GiB cap"
            return outcome
        return crash_outcome(reply, what)

    def _ran(self, sent: list[Wire]) -> None:
        """Note what the worker runs, in order: for each case, the cases it ran before (:meth:`before`)."""
        for case in sent:
            key = case_key(case)
            self._before[key] = tuple(self._recent)
            self._before.move_to_end(key)
            self._recent.append(_words(case))
        while len(self._before) > BEFORE_SIZE:
            self._before.popitem(last=False)

    def before(self, case: CaseLike) -> tuple[str, ...]:
        """The cases (at most :data:`RECENT_KEPT`, in words, oldest first) the worker had run before it last ran
        ``case``: empty where ``case`` was its first, or is not remembered.

        >>> IsolatedOracle("numpy", "oracles.numpy_oracle").before(("numpy.take", np.zeros(2), np.array([1]), {}))
        ()
        """
        c = as_case(case)
        return self._before.get(case_key((c.op, c.data, c.indices, dict(c.attrs))), ())

    def fresh(self, cases: Iterable[CaseLike]) -> list[Outcome]:
        """``cases`` run in a new worker (this one's, and any spare, stopped first): one outcome each, in order, as
        :meth:`run_many` gives them. What confirms a finding (:mod:`conformance.campaign.confirmation`): an answer
        that depended on what the worker had run before does not come back."""
        with self._lock:
            self._discard()
            self._drop_spare()
        return self.run_many(cases)

    def _discard(self) -> None:
        self._warmed.clear()  # a fresh worker has compiled nothing
        self._recent.clear()  # and run nothing
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def end(self) -> None:
        """Kill the worker now, without waiting for the case it may be running,
        and start no other: the run is over (cut short by a stop or its
        budget), and the work it abandoned, still running in its threads,
        must neither hold up the exit nor start workers (its cases are not run).

        >>> oracle = IsolatedOracle("numpy", "oracles.numpy_oracle")
        >>> oracle.end(); oracle.run("numpy.take", [1, 2], [0]).describe()
        'not run: oracle numpy is broken: the run has ended'
        """
        self._broken = self._broken or ENDED
        for worker in (self._worker, self._spare):
            if worker is not None and self._owner == os.getpid():
                worker.kill(reap=False)  # SIGKILL is enough: waiting for a big worker to be gone took seconds

    def close(self) -> None:
        """Stop the worker (a later case starts a new one)."""
        with self._lock:
            if self._worker is not None and self._owner == os.getpid():
                self._worker.close()
            if self._owner == os.getpid():
                self._drop_spare()
            self._worker = self._spare = None

    def _drop_spare(self) -> None:
        """Kill the spare worker, if one is loading (see :meth:`start`)."""
        if self._spare is not None:
            self._spare.kill()
            self._spare = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


CLOCKS = {
    "cold": ("compiles_cold", "compile_cold_s"),
    "warm": ("compiles_warm", "compile_warm_s"),
    "in memory": ("warm_ups_in_memory", "run_s"),
    "run": ("runs", "run_s"),
}
"""What a case's time counts as (:meth:`IsolatedOracle._clocked`): its count and its seconds in the timing figures."""


def _compilation(made: tuple[int, int] | None) -> str:
    """What a warm-up compiled, from its ``(afresh, from the disk cache)`` counts (None: its oracle cannot tell, and
    keeps nothing, so it compiled afresh).

    >>> [_compilation(m) for m in (None, (1, 0), (0, 1), (1, 1), (0, 0))]
    ['cold', 'cold', 'warm', 'warm', 'in memory']
    """
    if made is None or (made[0] and not made[1]):
        return "cold"
    return "warm" if made[1] else "in memory"


def _words(case: Wire) -> str:
    """A case in a few words: ``numpy.take on data float32[2, 3], indices int64[2], {'axis': 1}``."""
    op, data, indices, attrs = case
    return f"{op} on data {_shape(data)}, indices {_shape(indices)}, {attrs}"


def _shape(a: Any) -> str:
    """``int64[4, 3]`` for an array, the type name otherwise.

    >>> _shape(np.zeros((4, 3), np.int64)), _shape(None)
    ('int64[4, 3]', 'NoneType')
    """
    return f"{a.dtype}{list(a.shape)}" if hasattr(a, "shape") and hasattr(a, "dtype") else type(a).__name__
