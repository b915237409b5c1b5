"""Time is never evidence on its own (issue 27, points 1 to 3): a case is
timed on its worker's CPU, so that busy neighbours cannot make it look hung;
one that passes its limit is confirmed alone, in a fresh warmed-up worker,
before it is a timeout, and one that then answers is judged on its answer,
its time kept as a figure; an oracle that compiles compiles each shape
signature outside the case's limit; no more workers run cases at once than
the machine's slots allow."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from fake_oracles import PATH

from conformance.core.outcome import Kind
from conformance.execution import clock
from conformance.execution.cores import CORES
from conformance.execution.fanout import run_on_all
from conformance.execution.isolation import IsolatedOracle

pytestmark = pytest.mark.timeout(180)

X = np.arange(12, dtype=np.int64).reshape(4, 3)
I = np.array([3, 1], dtype=np.int64)


def test_a_case_slow_only_once_is_judged_on_its_answer_and_its_time_is_a_figure(tmp_path: Path) -> None:
    with IsolatedOracle("fake-any", PATH, timeout=1.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="slow-once", marker=str(tmp_path / "m"), cpu_s=3.0)
        timing = oracle.timing()
    assert outcome.kind is Kind.VALUE and np.array_equal(outcome.value, X[I])
    assert (timing["confirmed"], timing["hangs"]) == (1, 0), timing
    assert [s["limit_s"] for s in timing["slowest"]] == [1.0] and "numpy.take" in timing["slowest"][0]["case"]


def test_a_case_that_works_past_its_limit_again_when_alone_is_a_timeout(tmp_path: Path) -> None:
    with IsolatedOracle("fake-any", PATH, timeout=0.5) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="works", cpu_s=30.0)
        timing = oracle.timing()
    assert outcome.kind is Kind.TIMEOUT and outcome.seconds == 0.5
    assert (timing["confirmed"], timing["hangs"], timing["slowest"]) == (1, 1, []), timing


def test_a_worker_killed_from_outside_once_is_judged_on_the_answer_it_gives_alone(tmp_path: Path) -> None:
    """A SIGKILL the harness did not send (the OOM killer, while other processes held the memory) is the
    machine, not the framework: the case runs again alone and is judged on its answer (u11, stop 36: an
    OpenVINO worker killed while two campaigns shared 23 GB was a 'crash' finding that failed the gate)."""
    with IsolatedOracle("fake-any", PATH, timeout=5.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="killed-once", marker=str(tmp_path / "m"))
        timing = oracle.timing()
    assert outcome.kind is Kind.VALUE and np.array_equal(outcome.value, X[I]), outcome.describe()
    assert (timing["killed"], timing["confirmed"], timing["hangs"]) == (1, 1, 0), timing


def test_a_worker_killed_again_when_alone_is_a_crash_by_sigkill() -> None:
    with IsolatedOracle("fake-any", PATH, timeout=5.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="killed")
        timing = oracle.timing()
    assert outcome.kind is Kind.CRASH and outcome.signal == signal.SIGKILL, outcome.describe()
    assert timing["killed"] == 1, timing


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="no /proc: a worker's RAM is not read on this platform")
def test_a_case_whose_memory_grows_without_end_is_stopped_at_the_cap_as_a_timeout(monkeypatch) -> None:
    """Two default checks side by side on 24 GB: both replayed OpenVINO's ONNX GatherND with batch_dims 2**63-1,
    whose worker grew to 7.6 GB each within its time limit, and the machine ran out of memory (stop 37).
    Stopped at the cap, the case is what it was on a big quiet machine: no answer (a timeout), confirmed alone."""
    monkeypatch.setattr(clock, "MEMORY_CAP", 400 * 2**20)
    with IsolatedOracle("fake-any", PATH, timeout=5.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="grows")
        timing = oracle.timing()
    assert outcome.kind is Kind.TIMEOUT and outcome.seconds == 5.0, outcome.describe()
    assert "past the 0.390625 GiB cap" in outcome.message, outcome.message
    assert (timing["confirmed"], timing["hangs"]) == (1, 1) and 400 <= timing["peak_mib"] < 800, timing


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_a_worker_starved_by_busy_processes_is_timed_on_its_own_cpu() -> None:
    """Four busy loops share one core with the worker: the case takes several
    times its CPU time on the wall clock, past its limit, and still answers
    without a confirmation."""
    before = os.sched_getaffinity(0)
    core = min(before)
    os.sched_setaffinity(0, {core})  # the loops inherit it
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        with IsolatedOracle("fake-any", PATH, timeout=2.0) as oracle:
            oracle.start()
            assert oracle.pid is not None
            os.sched_setaffinity(oracle.pid, {core})  # started by the spawner thread, whose affinity it has
            start = time.monotonic()
            outcome = oracle.run("numpy.take", X, I, do="works", cpu_s=0.6)
            wall = time.monotonic() - start
            timing = oracle.timing()
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
        os.sched_setaffinity(0, before)
    assert outcome.kind is Kind.VALUE
    assert timing["confirmed"] == 0, timing
    assert wall > 2.0, f"the loops did not slow the case ({wall:.2f} s): the test shows nothing"


def test_a_compiling_oracle_compiles_each_shape_signature_outside_the_case_limit() -> None:
    with IsolatedOracle("fake-compiles", PATH, timeout=1.0) as oracle:
        first = oracle.run("numpy.take", X, I, compile_s=2.0)
        same_shape = oracle.run("numpy.take", X + 1, I[::-1].copy(), compile_s=2.0)
        other_shape = oracle.run("numpy.take", X, I[:1], compile_s=2.0)
        timing = oracle.timing()
    assert [o.kind for o in (first, same_shape, other_shape)] == [Kind.VALUE] * 3
    assert (timing["warm_ups"], timing["confirmed"]) == (2, 0), timing


def test_no_more_workers_run_cases_at_once_than_the_machine_slots_allow() -> None:
    cases = [("numpy.take", X, I, {"do": "slow"})] * 2
    with IsolatedOracle("fake-any", PATH) as a, IsolatedOracle("fake-slow", PATH) as b:
        a.start(), b.start()
        try:
            CORES.configure(1)
            start = time.monotonic()
            outcomes = run_on_all([a, b], {"fake-any": cases, "fake-slow": cases})
            one_at_a_time = time.monotonic() - start
            figures = CORES.figures()
        finally:
            CORES.configure(None)
    assert all(o.kind is Kind.VALUE for got in outcomes.values() for o in got)
    assert figures == {"workers": 1, "most_at_once": 1}
    assert one_at_a_time >= 4 * 0.4  # fake-slow's SLOW_SECONDS, four cases in turn


def test_numpy_wrap_with_int64_min_really_hangs_and_stays_a_timeout() -> None:
    """NumPy 2.4's ``take(mode="wrap")`` loops for ever on an index of INT64_MIN
    (checked by hand: ``timeout 5 python -c ...`` exits 124)."""
    with IsolatedOracle("numpy", "oracles.numpy_oracle", timeout=1.0) as oracle:
        outcome = oracle.run("numpy.take", np.arange(5.0), np.array([np.iinfo(np.int64).min]), mode="wrap")
        timing = oracle.timing()
    assert outcome.kind is Kind.TIMEOUT
    assert (timing["warm_ups"], timing["confirmed"], timing["hangs"]) == (1, 1, 1), timing


def test_a_compiling_oracle_first_call_that_no_warm_up_can_precede_gets_the_warm_up_limit() -> None:
    """Empty data has no in-range index, and an index that is 0 already makes the warm-up the case itself:
    the first call of such a signature compiles inside the case, so it runs under the warm-up's limit."""
    with IsolatedOracle("fake-compiles", PATH, timeout=1.0) as oracle:
        empty = oracle.run("numpy.take", np.zeros((0, 3), np.int64), np.zeros((0,), np.int64), compile_s=2.0)
        zero = oracle.run("numpy.take", X, np.array([0, 0]), compile_s=2.0)
        timing = oracle.timing()
    assert [o.kind for o in (empty, zero)] == [Kind.VALUE] * 2
    assert (timing["warm_ups"], timing["confirmed"]) == (0, 0), timing


def test_a_worker_waiting_for_its_own_child_process_is_not_idle() -> None:
    """An oracle that compiles in a child process (IREE's ``iree-compile``) uses no CPU of its own meanwhile:
    that is no deadlock, so the case runs to its answer within the wall-clock backstop."""
    with IsolatedOracle("fake-any", PATH, timeout=2.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="waits-on-child", child_s=3.0)
        timing = oracle.timing()
    assert outcome.kind is Kind.VALUE
    assert timing["confirmed"] == 0, timing


def test_a_signature_whose_warm_up_hung_costs_its_warm_up_limit_once() -> None:
    """A shape signature that does not compile within the warm-up's generous
    limit (OpenVINO's ONNX front end on ``batch_dims=2**63-1``) hangs whatever
    the case's index values: that warm-up confirms the case's timeout, and the
    case itself is not given the warm-up's limit again, nor a second run alone
    (it used to wait the warm-up limit three times, minutes with every other
    worker stopped). Regression test: a default campaign stalled 3 minutes on
    one atlas condition."""
    with IsolatedOracle("fake-compiles", PATH, timeout=0.5, warm_up_limit=2.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, compile_s=60.0)
        timing, restarts = oracle.timing(), oracle.restarts
    assert outcome.kind is Kind.TIMEOUT and outcome.seconds == 0.5
    assert (timing["warm_ups"], timing["confirmed"], timing["hangs"]) == (1, 1, 1), timing
    assert restarts == 1  # after the warm-up's hang only: no worker for a confirmation


def test_only_the_case_itself_is_confirmed_alone_its_warm_up_runs_beside_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every other worker is stopped while a case is confirmed; the fresh
    worker's warm-up (a whole compilation on an oracle that compiles, up to
    the warm-up limit) used to run inside that stop too, and on a busy machine
    an oracle whose signature hangs held every other oracle for minutes.
    Regression test: a loaded default campaign stalled in its atlas for 8 minutes."""
    alone: list[bool] = []
    run_batch = IsolatedOracle._run_batch

    def spy(self: IsolatedOracle, batch: list, limit: float) -> dict:
        alone.append(CORES._alone_thread is not None)
        return run_batch(self, batch, limit)

    monkeypatch.setattr(IsolatedOracle, "_run_batch", spy)
    with IsolatedOracle("fake-any", PATH, timeout=1.0) as oracle:
        outcome = oracle.run("numpy.take", X, I, do="slow-once", marker=str(tmp_path / "m"), cpu_s=3.0)
    assert outcome.kind is Kind.VALUE
    assert alone == [False, False, True]  # the case, its warm-up in a fresh worker, the case alone


def test_a_reproducer_asked_while_another_thread_holds_the_only_slot_does_not_deadlock() -> None:
    """``reproducer`` took the oracle's lock, then a slot (to start the
    worker); ``run_many`` takes a slot, then the lock: findings built in
    threads at once (one per oracle) deadlocked a campaign. Both now take a
    slot first."""
    import threading

    took = threading.Event()
    with IsolatedOracle("fake-any", PATH, timeout=5.0) as oracle:
        done: list[str] = []

        def run_with_the_only_slot() -> None:
            with CORES.held():
                took.set()
                time.sleep(0.5)  # the reproducer call below now waits, holding whatever it holds
                done.append(oracle.run("numpy.take", X, I, do="returns").describe())

        try:
            CORES.configure(1)
            runner = threading.Thread(target=run_with_the_only_slot, daemon=True)
            runner.start()
            took.wait(10)
            asker = threading.Thread(
                target=lambda: done.append(type(oracle.reproducer(_case(), _ref())).__name__), daemon=True
            )
            asker.start()
            runner.join(60)
            asker.join(60)
            deadlocked = runner.is_alive() or asker.is_alive()
        finally:
            CORES.configure(None)  # (frees a deadlocked pair: a second slot)
    assert not deadlocked
    assert len(done) == 2, done


def _case():
    from conformance.core.case import Case

    return Case("numpy.take", X, I, {})


def _ref():
    from conformance.core.outcome import Outcome

    return Outcome.returned(X[I])


def test_slots_are_served_first_come_first_served() -> None:
    """An oracle asking for a slot again the moment it let go of one used to
    win it over others that waited: with every oracle running ahead through the
    atlas, four oracles waited ten minutes for their first batch. Now the slot
    goes to whoever asked first."""
    import threading

    from conformance.execution.cores import Cores

    cores, order, lines = Cores(1), [], []

    def ask(name: str) -> None:
        lines.append(name)
        with cores.held():
            order.append(name)

    with cores.held():  # the slot is taken: "b", then "c" line up; then "a" lets go and asks again
        for name in ("b", "c"):
            threading.Thread(target=ask, args=(name,), daemon=True).start()
            while lines[-1:] != [name]:
                time.sleep(0.01)
            time.sleep(0.05)  # inside wait_for now
    ask("a")
    deadline = time.monotonic() + 10
    while len(order) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert order == ["b", "c", "a"]


def test_closed_cores_turn_away_a_thread_waiting_for_a_slot_and_new_workers_until_configured_again() -> None:
    """Regression: at the exit of a loaded `run --budget 90` that went on without oracles still starting, their
    threads took slot after slot and started worker after worker while the exit's clean-up waited on each (52 s
    after the report). The CLI closes the cores at exit; a closed one turns every waiting thread away."""
    from conformance.execution.cores import Cores, CoresClosed

    cores = Cores(1)
    got: list[str] = []

    def wait_for_a_slot() -> None:
        try:
            with cores.held():
                got.append("slot")
        except CoresClosed:
            got.append("turned away")

    with cores.held():
        waiter = threading.Thread(target=wait_for_a_slot)
        waiter.start()
        time.sleep(0.2)
        cores.close()
        waiter.join(5)
    assert got == ["turned away"]
    with pytest.raises(CoresClosed):
        cores.may_start()
    cores.configure(1)
    cores.may_start()
    with cores.held():
        pass
