"""Faults stay faults, once, and the campaign never dies nor leaves workers
behind: workers start without the caller's ``__main__``, die with their
parent, answer protocol errors, break once, remember hangs, write
reproducers and run side by side. Uses the fakes in ``fake_oracles.py``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from fake_oracles import PATH, SLOW_SECONDS, TABLE, FakeOracle, fragile_module

from conformance.core.case import Case
from conformance.core.oracle import Reproducer
from conformance.core.outcome import Kind, Outcome
from conformance.execution import (
    IsolatedOracle,
    ReproducerUnavailable,
    WorkerStartError,
    discover,
    get,
    module_for,
    registered,
    run_on_all,
)
from conformance.execution.isolation import CONFIRM_FACTOR

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[1]
TESTS = str(Path(PATH).parent)
X = np.arange(12, dtype=np.int64).reshape(4, 3)
I = np.array([3, 1], dtype=np.int64)
TIMEOUT = 1.0

API_SCRIPT = """\
import numpy as np, oracles
x = np.arange(12).reshape(4, 3)
with oracles.get("numpy") as o:
    print(o.run("numpy.take", x, np.array([3, 1]), axis=0).value.tolist())
"""


def _python(args: list[str], cwd: Path, input: str | None = None, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GATHER_CONFORMANCE_NO_CACHE": "1", **env}
    return subprocess.run(
        [sys.executable, *args], check=False, cwd=cwd, env=env, input=input, capture_output=True, text=True, timeout=90
    )


# -- 1. workers start as their own module -------------------------------------


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_script_without_a_main_guard_runs_an_oracle_as_a_file_and_through_stdin(tmp_path, how):
    script = tmp_path / "use_oracles.py"
    script.write_text(API_SCRIPT)
    done = _python([str(script)], tmp_path) if how == "file" else _python(["-"], tmp_path, input=API_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[[9, 10, 11], [3, 4, 5]]"]


# -- 2. workers die with their parent ------------------------------------------


def _gone(pid: int) -> bool:
    """No such process, or a zombie nobody has reaped yet (it runs nothing)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_worker_spinning_in_c_dies_with_its_killed_parent(tmp_path, sig):
    parent_code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {TESTS!r})
        import numpy as np
        from fake_oracles import PATH
        from conformance.execution import IsolatedOracle
        oracle = IsolatedOracle("fake-spin", PATH, timeout=600)
        oracle.start()
        print(oracle.pid, flush=True)
        oracle.run("numpy.take", np.arange(3), np.array([1]))
    """)
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        worker = int(parent.stdout.readline())
        time.sleep(1.0)  # the worker is spinning now
        assert not _gone(worker)
        os.kill(parent.pid, sig)
        parent.wait(10)
        deadline = time.monotonic() + 5
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(worker), f"worker {worker} outlived its parent"
    finally:
        parent.kill()
        parent.wait()


# -- 3. faults stay faults, once -----------------------------------------------


@pytest.mark.parametrize(
    ("name", "words"),
    [("fake-none", "returned a NoneType"), ("fake-list", "returned a list"), ("fake-scalar", "returned a int64")],
)
def test_an_answer_that_is_not_an_ndarray_is_a_protocol_error_and_keeps_the_worker(name, words):
    with IsolatedOracle(name, PATH, timeout=5) as oracle:
        first = oracle.run("numpy.take", X, I)
        pid = oracle.pid
        assert first.kind is Kind.PROTOCOL and words in first.message
        assert oracle.run("numpy.take", X, I).kind is Kind.PROTOCOL and oracle.pid == pid


def test_an_in_process_answer_that_is_not_an_ndarray_is_a_protocol_error_too():
    outcomes = run_on_all(
        [FakeOracle("list"), FakeOracle("returns")],
        {"fake-list": [("numpy.take", X, I)], "fake-returns": [("numpy.take", X, I)]},
    )
    assert outcomes["fake-list"][0].kind is Kind.PROTOCOL and outcomes["fake-returns"][0].kind is Kind.VALUE


def test_an_oracle_whose_worker_cannot_restart_is_broken_once_and_its_cases_are_not_run(tmp_path):
    module = fragile_module(tmp_path)
    with IsolatedOracle("fragile", module, timeout=5) as oracle:
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE and oracle.broken is None
        cases = [("numpy.take", X, I, {"do": "segfault"})] + [("numpy.take", X, I)] * 4
        crash, *rest = oracle.run_many(cases)
        # no fresh worker could run it again (IsolatedOracle._repeated): the crash is all there is
        assert crash.kind is Kind.CRASH and crash.signal == signal.SIGSEGV
        # the cases after the crash never reached a framework: not run (no bogus crash finding), saying why
        assert [o.kind for o in rest] == [Kind.NOT_RUN] * 4, rest
        assert all("ImportError" in o.reason and "library is gone" in o.reason for o in rest)
        assert "library is gone" in oracle.broken
        start = time.perf_counter()
        later = oracle.run_many([("numpy.take", X, I)] * 50)
        assert [o.kind for o in later] == [Kind.NOT_RUN] * 50 and time.perf_counter() - start < 0.5
        with pytest.raises(WorkerStartError, match="library is gone"):
            oracle.start()


def test_a_worker_that_dies_while_starting_is_tried_max_start_failures_times_then_broken(tmp_path):
    module = tmp_path / "dies_on_import.py"
    module.write_text("import ctypes\nctypes.string_at(0)\n")
    with IsolatedOracle("dies", str(module), timeout=5, max_start_failures=2) as oracle:
        outcomes = oracle.run_many([("numpy.take", X, I)] * 3)
        assert [o.kind for o in outcomes] == [Kind.NOT_RUN] * 3
        assert "SIGSEGV" in outcomes[0].reason and "2 attempts" in oracle.broken


def test_the_per_case_timeout_is_a_keyword_of_get():
    with registered(TABLE), get("fake-hang", timeout=0.5) as oracle:
        start = time.perf_counter()
        outcome = oracle.run("numpy.take", X, I)
    # the first try, then the confirmation alone: a warm-up and the case, each under CONFIRM_FACTOR times the limit
    assert outcome.kind is Kind.TIMEOUT and outcome.seconds == 0.5
    assert time.perf_counter() - start < 0.5 * (1 + 2 * CONFIRM_FACTOR) + 10.0  # + two worker starts, loaded


def test_a_case_that_hung_is_answered_from_memory_the_second_time():
    with IsolatedOracle("fake-any", PATH, timeout=TIMEOUT) as oracle:
        start = time.perf_counter()
        first = oracle.run("numpy.take", X, I, do="hang")
        assert first.kind is Kind.TIMEOUT and time.perf_counter() - start >= TIMEOUT
        start = time.perf_counter()
        again = oracle.run_many([("numpy.take", X.copy(), I.copy(), {"do": "hang"})] * 3)  # equal, not the same objects
        assert [o.kind for o in again] == [Kind.TIMEOUT] * 3 and time.perf_counter() - start < 0.2
        assert again[0] == first and oracle.pid is None  # no worker was even started
        other = oracle.run_many([("numpy.take", X, I[:1], {"do": "hang"})] * 2)  # another case: runs once, remembered
        assert [o.kind for o in other] == [Kind.TIMEOUT] * 2
        assert oracle.run("numpy.take", X, I.astype(np.int32), do="returns").kind is Kind.VALUE


def test_a_case_that_crashed_is_remembered_but_a_returned_value_is_not():
    with IsolatedOracle("fake-any", PATH, timeout=5) as oracle:
        crash = oracle.run("numpy.take", X, I, do="abort")
        restarts = oracle.restarts
        assert oracle.run("numpy.take", X, I, do="abort") == crash and oracle.restarts == restarts
        oracle.run("numpy.take", X, I)
        pid = oracle.pid
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE and oracle.pid == pid


# -- 4. reproducers through the worker ----------------------------------------


def test_a_reproducer_is_written_by_the_worker():
    case = Case("numpy.take", X, I, {})
    with IsolatedOracle("fake-any", PATH, timeout=5) as oracle:
        reproducer = oracle.reproducer(case, Outcome.returned(X[I]))
    assert reproducer == Reproducer("fake-any", "print('fake-any', 'numpy.take', [4, 3], 'value')")


@pytest.mark.parametrize(("do", "words"), [("raises", "IndexError"), ("segfault", "SIGSEGV")])
def test_a_reproducer_that_fails_raises_a_clear_error_and_the_oracle_goes_on(do, words):
    with IsolatedOracle("fake-any", PATH, timeout=5) as oracle:
        with pytest.raises(ReproducerUnavailable, match=words):
            oracle.reproducer(Case("numpy.take", X, I, {"do": do}), Outcome.returned(X[I]))
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE


def test_a_broken_oracle_raises_instead_of_writing_a_reproducer(tmp_path):
    module = tmp_path / "gone.py"
    module.write_text("raise ImportError('no framework here')\n")
    with IsolatedOracle("gone", str(module)) as oracle:
        assert oracle.run("numpy.take", X, I).kind is Kind.NOT_RUN
        with pytest.raises(ReproducerUnavailable, match="broken.*no framework here"):
            oracle.reproducer(Case("numpy.take", X, I), Outcome.returned(X[I]))


# -- 5. concurrency ------------------------------------------------------------


def test_run_on_all_runs_every_oracles_batch_at_the_same_time():
    with IsolatedOracle("fake-slow", PATH, timeout=5) as slow, IsolatedOracle("fake-any", PATH, timeout=5) as mixed:
        slow.start(), mixed.start()
        cases = {"fake-slow": [("numpy.take", X, I)] * 2, "fake-any": [("numpy.take", X, I, {"do": "slow"})] * 2}
        start = time.perf_counter()
        outcomes = run_on_all([slow, mixed], cases)
        elapsed = time.perf_counter() - start
    assert {name: [o.kind for o in found] for name, found in outcomes.items()} == {
        name: [Kind.VALUE] * 2 for name in cases
    }
    assert elapsed < 3.5 * SLOW_SECONDS  # sequential: 4 * SLOW_SECONDS


def test_run_on_all_gives_an_oracle_without_cases_an_empty_list_and_keeps_failures_per_case():
    with IsolatedOracle("fake-any", PATH, timeout=TIMEOUT) as mixed, IsolatedOracle("fake-returns", PATH) as plain:
        outcomes = run_on_all(
            [mixed, plain], {"fake-any": [("numpy.take", X, I, {"do": d}) for d in ("exit", "returns")]}
        )
    assert outcomes["fake-returns"] == [] and [o.kind for o in outcomes["fake-any"]] == [Kind.CRASH, Kind.VALUE]


# -- 6. entry points, 7. discovery ---------------------------------------------


def test_an_oracle_an_outside_package_registers_as_an_entry_point_is_found_and_runs(tmp_path):
    dist = tmp_path / "myfw_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: myfw-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[gather_conformance.oracles]\nmyfw = my_oracle\n")
    (tmp_path / "my_oracle.py").write_text(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {TESTS!r})
        from fake_oracles import FakeOracle

        def oracles_here():
            return [FakeOracle("returns", "myfw")]
    """)
    )
    code = textwrap.dedent("""
        import numpy as np
        from conformance.execution import get, module_for
        print(module_for("myfw"), module_for("myfw-cuda"))
        with get("myfw") as oracle:
            print(oracle.info().name, oracle.run("numpy.take", np.arange(3), np.array([2])).value.tolist())
    """)
    done = _python(["-c", code], ROOT, PYTHONPATH=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["my_oracle my_oracle", "myfw [2]"]
    assert module_for("numpy") == "oracles.numpy_oracle"  # this process's table is untouched


def test_discovery_reports_the_import_error_of_a_module_that_fails_to_import(tmp_path):
    module = tmp_path / "needs_missing_framework.py"
    module.write_text("import no_such_framework_xyz\n")
    with registered({"missing": str(module)}, only=True):
        (report,) = discover(refresh=True)
    assert report.infos == () and not report.transient
    assert "ModuleNotFoundError" in report.problem and "no_such_framework_xyz" in report.problem


def test_a_worker_started_from_a_thread_outlives_that_thread():
    """PR_SET_PDEATHSIG fires when the starting *thread* ends: workers are started from one long-lived thread."""
    with IsolatedOracle("fake-returns", PATH, timeout=5) as oracle:
        starter = threading.Thread(target=oracle.start)
        starter.start()
        starter.join()
        pid = oracle.pid
        time.sleep(0.3)
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE and oracle.pid == pid


def test_what_the_oracle_observed_reaches_its_reproducer():
    with IsolatedOracle("fake-any", PATH, timeout=5) as oracle:
        reproducer = oracle.reproducer(Case("numpy.take", X, I), Outcome.returned(X[I]), Outcome.timed_out(5))
    assert reproducer.text.endswith("'value', 'timeout')")


def test_after_a_crash_the_next_worker_loads_while_the_current_one_runs() -> None:
    """A default campaign's shrinking: every candidate that still crashes Paddle or TensorFlow cost a worker start
    (1.3-2 s each, 70 of them, the last minute of the run). Once a case has crashed a worker, a spare loads ahead."""
    with IsolatedOracle("fake-any", PATH, timeout=5) as oracle:
        assert oracle.run("numpy.take", X, I, do="segfault").kind is Kind.CRASH  # its worker's first case
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE
        assert oracle._spare is not None, "no spare loading after a crash"
        # after a case: run again in a fresh worker (IsolatedOracle._repeated), the spare, and a new spare loads
        assert oracle.run("numpy.take", X, I[:1], do="segfault").kind is Kind.CRASH
        spare = oracle._spare
        assert spare is not None and oracle.timing()["crashes"] == 1, oracle.timing()
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE and oracle.pid == spare.pid  # the spare took over


def test_a_case_that_spends_its_worker_is_its_own_error_and_the_rest_of_the_batch_runs_in_a_fresh_worker() -> None:
    """Regression (GPU check, torch-cuda): a CUDA device-side assert poisons the process; every later case of
    the worker failed with it, and the campaign made some 1,600 'internal error' examples of cases that torch
    answers when run alone."""
    cases = [("numpy.take", X, I, {"do": do}) for do in ("returns", "sticky", "returns", "sticky", "returns")]
    with registered(TABLE), IsolatedOracle("fake-any", PATH, timeout=10) as oracle:
        outcomes = oracle.run_many(cases)
        assert [o.kind for o in outcomes] == [Kind.VALUE, Kind.ERROR, Kind.VALUE, Kind.ERROR, Kind.VALUE], outcomes
        assert oracle.timing()["spent"] == 2
        assert oracle.run("numpy.take", X, I).kind is Kind.VALUE  # the spare worker, already loaded
        assert oracle.restarts == 2


def test_a_batch_whose_last_case_spends_its_worker_leaves_no_crash_for_the_next_batch() -> None:
    """Regression (GPU check of 7d57ea8): when the spending case was the batch's last, its outcomes completed
    the batch and the separate 'spent' message stayed unread; the worker then exited, and the next batch's
    first case became 'torch.take on torch-cuda: crash (exit code 0)'. The reason now travels with the outcomes."""
    with registered(TABLE), IsolatedOracle("fake-any", PATH, timeout=10) as oracle:
        first = oracle.run_many([("numpy.take", X, I, {"do": "returns"}), ("numpy.take", X, I, {"do": "sticky"})])
        assert [o.kind for o in first] == [Kind.VALUE, Kind.ERROR], first
        time.sleep(0.5)  # the spent worker has exited by now
        after = oracle.run_many([("numpy.take", X, I, {"do": "returns"})] * 2)
        assert [o.kind for o in after] == [Kind.VALUE, Kind.VALUE], [o.describe() for o in after]
        assert oracle.timing()["spent"] == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_process_group_leaves_the_worker_running_its_case(sig) -> None:
    """Regression: GNU timeout (and a CI runner's cancel, and Ctrl-C) signals the whole process group; a worker
    that died of it made its running case a false crash finding ('numpy.take_along_axis on numpy: crash, for 0-d,
    in-range': 'worker died with SIGTERM'). The parent handles the signal and ends its workers itself."""
    with registered(TABLE), IsolatedOracle("fake-any", PATH, timeout=30) as oracle:
        oracle.start()
        pid = oracle.pid
        assert pid is not None
        threading.Timer(0.5, os.kill, (pid, sig)).start()
        outcome = oracle.run("numpy.take", X, I, do="works", cpu_s=1.5)
        assert outcome.kind is Kind.VALUE, outcome.describe()
        assert oracle.pid == pid


def test_a_worker_slow_to_die_of_sigkill_is_no_error_of_its_case() -> None:
    """Regression (loaded check of seed 0): an openvino-onnx worker holding 6.5 GB took more than 5 s to be gone
    after SIGKILL; the 5 s wait raised TimeoutExpired, and the case became 'onnx.GatherND on openvino-onnx:
    protocol error' (run_many raised TimeoutExpired), a NEW finding that failed the gate."""
    import subprocess
    from multiprocessing import Pipe

    from conformance.execution.process import _stop

    class SlowToDie:
        pid, waits = 2**22 + 12345, []

        def poll(self):
            return None

        def kill(self):
            pass

        def wait(self, timeout=None):
            self.waits.append(timeout)
            if len(self.waits) == 1:
                raise subprocess.TimeoutExpired("worker", timeout)
            return -9

    requests, replies = Pipe()
    process = SlowToDie()
    _stop(process, requests, replies, [], grace=0)  # type: ignore[arg-type]
    assert len(process.waits) == 1 and process.waits[0] >= 30


def test_a_worker_ended_with_the_run_is_killed_without_waiting_for_it_to_be_gone() -> None:
    """A run cut short ends its workers (``IsolatedOracle.end``): SIGKILL, and
    no wait for each to be gone (a worker holding gigabytes takes seconds to
    die on a loaded machine, and a stop has 5 s in all)."""
    from multiprocessing import Pipe

    from conformance.execution.process import _stop

    class Killed:
        pid, waits, kills = 2**22 + 12346, [], []

        def poll(self):
            return None

        def kill(self):
            self.kills.append(True)

        def wait(self, timeout=None):
            self.waits.append(timeout)
            return -9

    requests, replies = Pipe()
    process = Killed()
    _stop(process, requests, replies, [], grace=0, reap=False)  # type: ignore[arg-type]
    assert process.kills == [True] and process.waits == []
