"""Isolation: every way a case can go wrong is recorded as its outcome, and the
next case runs in a fresh worker. Uses the fakes in ``fake_oracles.py``."""

from __future__ import annotations

import signal
import time

import numpy as np
import pytest
from fake_oracles import PATH, TABLE

import oracles
from conformance.execution.environment import format_oracles_table, machine_facts, run_facts
from conformance.execution.isolation import CONFIRM_FACTOR, IsolatedOracle
from conformance.execution.loading import OracleUnavailable
from conformance.execution.registry import discover, get, module_for, registered
from oracles import Kind, OracleInfo, Outcome

pytestmark = pytest.mark.timeout(60)

X = np.arange(12, dtype=np.int64).reshape(4, 3)
I = np.array([3, 1], dtype=np.int64)
TIMEOUT = 1.5


@pytest.fixture(scope="module")
def any_oracle():
    """One worker for the whole module, as a pytest/hypothesis user would keep it."""
    with registered(TABLE), get("fake-any", timeout=TIMEOUT) as oracle:
        yield oracle


def run(oracle: IsolatedOracle, do: str) -> Outcome:
    return oracle.run("numpy.take", X, I, do=do)


def test_a_returned_value_comes_back_bit_for_bit_from_the_same_worker(any_oracle):
    pid = any_oracle.pid
    first, second = run(any_oracle, "returns"), run(any_oracle, "returns")
    assert first.kind is Kind.VALUE and np.array_equal(first.value, X[I]) and first.value.dtype == X.dtype
    assert second.kind is Kind.VALUE and any_oracle.pid == pid


def test_a_raised_error_is_recorded_with_its_type_message_and_class_and_keeps_the_worker(any_oracle):
    pid = any_oracle.pid
    outcome = run(any_oracle, "raises")
    assert (outcome.kind, outcome.error_type, outcome.error_class) == (
        Kind.ERROR,
        "IndexError",
        oracles.ErrorClass.INDEX_OUT_OF_RANGE,
    )
    assert "out of bounds" in outcome.message
    assert any_oracle.pid == pid


@pytest.mark.parametrize(
    ("do", "sig", "code", "words"),
    [
        ("segfault", signal.SIGSEGV, None, "SIGSEGV"),
        ("abort", signal.SIGABRT, None, "SIGABRT"),
        ("exit", None, 3, "code 3"),
    ],
)
def test_a_crash_is_recorded_with_its_signal_or_exit_code_and_the_next_case_gets_a_fresh_worker(
    any_oracle, do, sig, code, words
):
    pid = any_oracle.pid
    crash = run(any_oracle, do)
    assert (crash.kind, crash.signal, crash.exit_code) == (Kind.CRASH, sig, code)
    assert words in crash.message and "numpy.take" in crash.message
    after = run(any_oracle, "returns")
    assert after.kind is Kind.VALUE and np.array_equal(after.value, X[I])
    assert any_oracle.pid not in (None, pid)


def test_a_segfault_quotes_the_frame_that_faulted(any_oracle):
    assert "string_at" in run(any_oracle, "segfault").message


def test_a_crash_a_fresh_worker_does_not_repeat_is_its_answer_there_and_counted_unrepeated():
    """CI at 65f5d42: MLX's take_along_axis on an empty bfloat16 axis crashed a worker that had run other cases (while
    shrinking), read stray bytes in a fresh process, and its reproducer said "not reproduced". A crash stands only
    where a fresh worker crashes on the case too (as its reproducer runs it): at once where it was the worker's first
    case, else once run again in one (a repeated crash is counted as such)."""
    with registered(TABLE), get("fake-any", timeout=TIMEOUT) as oracle:
        run(oracle, "returns")  # history
        answer = run(oracle, "segfault-after")
        assert answer.kind is Kind.VALUE and np.array_equal(answer.value, X[I]), answer.describe()
        assert run(oracle, "segfault").kind is Kind.CRASH  # after a case: a fresh worker crashes too
        assert run(oracle, "segfault").kind is Kind.CRASH  # remembered: no worker runs it again
        timing = oracle.timing()
        assert (timing["unrepeated"], timing["crashes"]) == (1, 1), timing
        (seen,) = timing["unrepeated_cases"]  # both answers, to look into
        assert "SIGSEGV" in seen["crashed"] and seen["fresh"].startswith("value") and "segfault-after" in seen["case"]
        assert run(oracle, "segfault-after").kind is Kind.VALUE  # an answer is not remembered: run again, so again
    with registered(TABLE), get("fake-any", timeout=TIMEOUT) as oracle:
        assert run(oracle, "segfault").kind is Kind.CRASH  # a fresh worker's first case: it stands at once
        assert oracle.timing()["crashes"] == 0, oracle.timing()


def test_a_hang_is_a_timeout_once_confirmed_alone_and_the_next_case_gets_a_fresh_worker(any_oracle):
    run(any_oracle, "returns")  # warm, so the clock measures the hang only
    pid, start = any_oracle.pid, time.perf_counter()
    outcome = run(any_oracle, "hang")
    assert outcome.kind is Kind.TIMEOUT and outcome.seconds == TIMEOUT
    # the first try, then the confirmation: a warm-up and the case, each under CONFIRM_FACTOR times the limit
    assert time.perf_counter() - start < TIMEOUT * (1 + 2 * CONFIRM_FACTOR) + 10.0  # + two worker starts, loaded
    assert run(any_oracle, "returns").kind is Kind.VALUE and any_oracle.pid != pid


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("fake-returns", Kind.VALUE),
        ("fake-raises", Kind.ERROR),
        ("fake-segfault", Kind.CRASH),
        ("fake-abort", Kind.CRASH),
        ("fake-hang", Kind.TIMEOUT),
    ],
)
def test_each_misbehaving_oracle_is_recorded_as_its_outcome_twice_in_a_row(name, kind):
    with IsolatedOracle(name, PATH, timeout=1.0) as oracle:
        assert [o.kind for o in oracle.run_many([("numpy.take", X, I)] * 2)] == [kind, kind]


def test_a_batch_keeps_order_and_attributes_each_failure_to_its_own_case(any_oracle):
    plan = ["returns", "segfault", "raises", "hang", "returns"]
    outcomes = any_oracle.run_many([("numpy.take", X, I, {"do": do}) for do in plan])
    assert [o.kind for o in outcomes] == [Kind.VALUE, Kind.CRASH, Kind.ERROR, Kind.TIMEOUT, Kind.VALUE]
    assert outcomes[1].signal == signal.SIGSEGV


def test_a_crash_deep_in_a_long_batch_loses_none_of_the_cases_before_it(any_oracle):
    plan = ["returns"] * 300 + ["segfault"] + ["returns"] * 5
    outcomes = any_oracle.run_many([("numpy.take", X, I, {"do": do}) for do in plan])
    assert [o.kind for o in outcomes] == [Kind.VALUE] * 300 + [Kind.CRASH] + [Kind.VALUE] * 5
    assert all(np.array_equal(o.value, X[I]) for o in outcomes if o.kind is Kind.VALUE)


def test_an_unsupported_op_is_decided_in_the_worker_without_calling(any_oracle):
    outcome = any_oracle.run("onnx.Gather-13", X, I, do="segfault")
    assert outcome.kind is Kind.UNSUPPORTED and "onnx.Gather-13" in outcome.reason


def test_info_comes_from_the_worker():
    with registered(TABLE), get("fake-returns") as oracle:
        assert oracle.info() == OracleInfo("fake-returns", "fake", "0", "cpu", "eager", ("numpy.take",))


def test_closing_stops_the_worker_and_a_later_case_starts_another():
    oracle = IsolatedOracle("fake-returns", PATH, timeout=TIMEOUT)
    assert oracle.run("numpy.take", X, I).kind is Kind.VALUE
    process = oracle._worker.process
    oracle.close()
    assert process.poll() == 0 and oracle.pid is None
    assert oracle.run("numpy.take", X, I).kind is Kind.VALUE
    oracle.close()


def test_an_oracle_the_module_does_not_offer_is_unavailable_at_get():
    with registered({"fake-nothing": PATH}), pytest.raises(OracleUnavailable, match="fake-nothing"):
        get("fake-nothing")


def test_an_unknown_name_is_unavailable():
    with pytest.raises(OracleUnavailable, match="no oracle is called"):
        get("no-such-framework")


def test_in_process_get_returns_the_oracle_itself_with_the_same_run():
    with registered(TABLE):
        oracle = get("fake-returns", isolated=False)
    assert isinstance(oracle, oracles.Oracle) and oracle.name == "fake-returns"
    assert np.array_equal(oracle.run("numpy.take", X, I).value, X[I])


def test_names_map_to_modules_through_their_prefix():
    assert module_for("onnxruntime-cuda") == module_for("onnxruntime") == "oracles.onnx_oracle"
    assert module_for("torch-cuda") == "oracles.torch_oracle"


def test_discovery_lists_what_each_module_offers_and_survives_a_module_that_dies(tmp_path):
    killer = tmp_path / "killer_oracles.py"
    killer.write_text("import os\nos.abort()\n")
    with registered({**TABLE, "killer": str(killer)}, only=True):
        reports = discover(refresh=True)
        assert oracles.available() == list(TABLE)
    by_module = {r.module: r for r in reports}
    assert by_module[PATH].names == tuple(TABLE)
    assert "SIGABRT" in by_module[str(killer)].problem and by_module[str(killer)].transient


def test_run_facts_names_the_machine_and_every_available_oracle():
    with registered(TABLE, only=True):
        facts = run_facts(refresh=True)
    assert {"python", "platform", "cpu", "cores", "thread_env"} <= set(facts)
    assert [o["name"] for o in facts["oracles"]] == list(TABLE)
    assert machine_facts()["cores"] >= 1


def test_the_oracles_table_has_one_aligned_line_per_oracle():
    infos = [
        OracleInfo("numpy", "numpy", "2.4.6", "cpu", "eager", ("numpy.take",)),
        OracleInfo(
            "tensorflow-xla", "tensorflow", "2.21.0", "cpu", "xla", ("tensorflow.gather", "tensorflow.gather_nd")
        ),
    ]
    lines = format_oracles_table(infos).splitlines()
    assert lines[0].split() == ["oracle", "framework", "version", "device", "mode", "ops"]
    assert lines[2].endswith("tensorflow.gather, tensorflow.gather_nd")
    assert (
        len({line.index("version") if i == 0 else line.index(infos[i - 1].version) for i, line in enumerate(lines)})
        == 1
    )
