"""Every oracle's reproducer, run as a user would: written into a directory
of its own and run by a fresh interpreter from another one. A case where the
framework really differs from the reference exits 1 printing REPRODUCED; a
case where it agrees exits 0 printing "not reproduced". A case that crashed
or hung an oracle runs in a child process with a time limit, so that the
script neither dies nor hangs.

All scripts run at once (a few in parallel): importing TensorFlow dominates.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance import reference
from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.oracle import Reproducer
from conformance.core.outcome import Outcome
from conformance.execution.scripts import EAGER, save
from oracles import jax_oracle, numpy_oracle, onnx_oracle, tensorflow_oracle, torch_oracle
from oracles._common import FrameworkOracle, MissingUnit, OpUnit, when_installed
from oracles.base import Oracle, classify_message
from oracles.numpy_oracle import NUMPY_PRELUDE

MODULES = (numpy_oracle, torch_oracle, tensorflow_oracle, onnx_oracle, jax_oracle)
ORACLES: dict[str, Oracle] = {o.name: o for m in MODULES for o in m.oracles_here()}
HANG_LIMIT = 4.0
"""The ``--time-limit`` the hang reproducer runs under."""


class UnitFake(FrameworkOracle):
    """A NumPy-like oracle whose one unit (``numpy.take``) is ``call``."""

    def __init__(self, call: str, ops: tuple[str, ...] = ("numpy.take",)) -> None:
        from conformance.core.oracle import OracleInfo

        info = OracleInfo("fake-unit", "numpy", np.__version__, "cpu", "eager", ops)
        super().__init__(
            info, NUMPY_PRELUDE + "\nimport os\nimport signal\nimport time\n", EAGER, [OpUnit("numpy.take", call)]
        )


def expected(case: Case, policy: str | None = None) -> Outcome:
    """What the reference says ``case`` must do (under ``policy``, default the op's own), as an Outcome."""
    try:
        value = reference(case.op, case.data, case.indices, policy=policy, check_dtypes=False, **case.attrs)
        return Outcome.returned(np.asarray(value))
    except Exception as exc:  # noqa: BLE001 - the reference's error is the expected outcome
        return Outcome.raised(exc, classify_message(str(exc)))


@dataclass(frozen=True)
class Example:
    """One reproducer to write and run: ``reproduced`` is the verdict it must print."""

    id: str
    oracle: Oracle
    case: Case
    reproduced: bool
    observed: Outcome | None = None
    args: tuple[str, ...] = ()
    policy: str | None = None

    def reproducer(self) -> Reproducer:
        return self.oracle.reproducer(self.case, expected(self.case, self.policy), self.observed)


def _case(op: str, data: Any, indices: Any, **attrs: Any) -> Case:
    return Case(op, np.asarray(data), np.asarray(indices), attrs)


X = np.arange(3.0)
TABLE: tuple[tuple[str, Case, bool] | tuple[str, Case, bool, str], ...] = (
    # numpy.advanced_indexing (today's script calls np.advanced_indexing, which does not exist); the second case
    # expects the value the reference gives under the "clip" policy, where NumPy raises an IndexError
    ("numpy", _case("numpy.advanced_indexing", np.arange(6).reshape(2, 3), [[1, 2], [0, 0]]), False),
    ("numpy", _case("numpy.advanced_indexing", np.arange(6).reshape(2, 3), [[1, 5]]), True, "clip"),
    ("numpy", _case("numpy.take", X, [3], axis=0, mode="raise"), False),  # both raise an index error
    ("torch", _case("torch.gather", np.array([[1, 2], [3, 4]], np.int32), [[1], [0]], dim=1), False),
    (
        "torch",
        _case("torch.gather", np.array([[np.nan, 1.0]], BFLOAT16), [[0, 1]], dim=1),
        True,
    ),  # NaN 0x7FC0 -> 0xFFFF
    ("torch", _case("torch.take_along_dim", X, [3], dim=0), True),  # wraps instead of raising
    # tf.gather out of range: eager raises (as the reference does), XLA clamps to the last element
    ("tensorflow", _case("tensorflow.gather", X, [3], axis=0, batch_dims=0), False),
    ("tensorflow-xla", _case("tensorflow.gather", X, [3], axis=0, batch_dims=0), True),
    ("tensorflow-xla", _case("tensorflow.gather_nd", np.arange(6.0).reshape(2, 3), [[1, 2]], batch_dims=0), False),
    (
        "tensorflow",
        _case("tensorflow.gather", np.zeros((3, 0)), [5], axis=0, batch_dims=0),
        True,
    ),  # empty output: unchecked
    (
        "onnxruntime",
        _case("onnx.GatherElements-13", np.array([[1.5, 2.5], [3.5, 4.5]], BFLOAT16), [[1, 0]], axis=1),
        False,
    ),
    (
        "onnxruntime",
        _case("onnx.GatherElements-13", np.array([[1 + 2j, 3]], np.complex64), [[0, 7]], axis=1),
        True,
    ),  # dtype error
    ("onnx-reference", _case("onnx.Gather-13", np.array(["a", "bé", "c"]), [2, 0], axis=0), False),
    ("onnx-reference", _case("onnx.GatherElements-13", np.arange(6.0).reshape(2, 3), [[0, 1], [1, 0]], axis=-1), True),
    (
        "jax",
        _case("jax.numpy.take", np.arange(4, dtype=np.int64), [3, -1], axis=None, mode=None, fill_value=None),
        False,
    ),
    (
        "jax",
        _case(
            "jax.numpy.take_along_axis",
            np.zeros((2, 0)),
            np.zeros((2, 1), np.int64),
            axis=1,
            mode=None,
            fill_value=None,
        ),
        True,
    ),  # an empty axis fills 0.0, not the default NaN
)

FAKES = (
    Example(
        "fake-segfault",
        UnitFake("os.kill(os.getpid(), signal.SIGSEGV)"),
        _case("numpy.take", X, [1], axis=0),
        True,
        Outcome.crashed(signal.SIGSEGV, None),
    ),
    Example(
        "fake-hang",
        UnitFake("time.sleep(600)"),
        _case("numpy.take", X, [1], axis=0),
        True,
        Outcome.timed_out(1.0),
        ("--time-limit", str(HANG_LIMIT)),
    ),
    Example(
        "fake-crash-fixed",
        UnitFake("np.take(data, indices, **attrs)"),
        _case("numpy.take", X, [1], axis=0),
        False,
        Outcome.crashed(signal.SIGSEGV, None),
    ),
)

EXAMPLES = [
    Example(
        f"{name}:{case.op}:{'differs' if differs else 'agrees'}:{i}",
        ORACLES[name],
        case,
        differs,
        policy=policy[0] if policy else None,
    )
    for i, (name, case, differs, *policy) in enumerate(TABLE)
    if name in ORACLES
] + list(FAKES)


@dataclass(frozen=True)
class Ran:
    text: str
    attachments: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def _write_and_run(example: Example, root: Path) -> Ran:
    reproducer = example.reproducer()
    path = save(reproducer, root / example.id.replace(":", "_"))
    elsewhere = root / "cwd"
    elsewhere.mkdir(exist_ok=True)
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(path), *example.args],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return Ran(
        reproducer.text,
        tuple(reproducer.attachments),
        proc.returncode,
        proc.stdout,
        proc.stderr,
        time.monotonic() - start,
    )


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """Every example's reproducer, written and run (four at a time, the TensorFlow ones first)."""
    root = tmp_path_factory.mktemp("reproducers")
    ordered = sorted(EXAMPLES, key=lambda e: not e.oracle.name.startswith("tensorflow"))
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip([e.id for e in ordered], pool.map(lambda e: _write_and_run(e, root), ordered)))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_reproducer_says_whether_the_discrepancy_is_still_there(example: Example, ran: dict[str, Ran]) -> None:
    result = ran[example.id]
    lines = result.stdout.splitlines()
    verdict = "REPRODUCED" if example.reproduced else "not reproduced"
    assert lines and lines[-1] == verdict, f"{example.id}: want {verdict}\n{result.stdout}\n{result.stderr[-3000:]}"
    assert result.returncode == (1 if example.reproduced else 0), result.stderr[-3000:]
    assert any(line.startswith("expected:") for line in lines), result.stdout
    assert any(line.startswith("observed:") for line in lines), result.stdout


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_reproducer_is_standalone(example: Example, ran: dict[str, Ran]) -> None:
    imports = [line for line in ran[example.id].text.splitlines() if line.lstrip().startswith(("import ", "from "))]
    assert not [line for line in imports if "conformance" in line or "oracles" in line], imports


def test_the_hang_reproducer_stops_at_its_time_limit(ran: dict[str, Ran]) -> None:
    result = ran["fake-hang"]
    assert f"no answer within {HANG_LIMIT:g} s" in result.stdout
    assert result.seconds < HANG_LIMIT + 15, result.seconds


def test_the_crash_reproducer_names_the_signal(ran: dict[str, Ran]) -> None:
    assert "observed: the child died of signal SIGSEGV" in ran["fake-segfault"].stdout


def test_tensorflow_eager_and_xla_scripts_differ_in_their_mode(ran: dict[str, Ran]) -> None:
    if not {"tensorflow", "tensorflow-xla"} <= set(ORACLES):
        pytest.skip("no TensorFlow")
    eager, xla = (
        next(r for k, r in ran.items() if k.startswith(f"{n}:tensorflow.gather:"))
        for n in ("tensorflow", "tensorflow-xla")
    )
    assert "jit_compile=True" in xla.text and "jit_compile" not in eager.text
    assert (
        "observed: error (index out of range) InvalidArgumentError" in eager.stdout
        and "observed: value float64 [1] = [2.]" in xla.stdout
    )


def test_small_inputs_are_literal_arrays_and_scripts_print_the_expected_and_observed_values(
    ran: dict[str, Ran],
) -> None:
    for key, result in ran.items():
        inputs = [
            line for line in result.text.splitlines() if line.startswith(("data = ", "indices = ", "EXPECTED_VALUE = "))
        ]
        assert inputs and not [line for line in inputs if "b64decode" in line], (
            key,
            inputs,
        )  # every input here is small and exact
    torch_nan = next(r for k, r in ran.items() if k.startswith("torch:torch.gather:differs"))
    assert "data = np.array([[np.nan, 1]], dtype=ml_dtypes.bfloat16)" in torch_nan.text
    numpy_take = next(r for k, r in ran.items() if k.startswith("numpy:numpy.advanced_indexing:agrees"))
    assert numpy_take.stdout.splitlines()[:2] == [
        "expected: value int64 [2] = [5, 0]",
        "observed: value int64 [2] = [5, 0]",
    ]
    assert "# The reference expects: value int64[2] = [5, 0]" in numpy_take.text


def test_a_nan_payload_is_written_as_bytes_with_its_values_in_a_comment() -> None:
    from conformance.execution.scripts import assignment

    payload = np.array([0x7FC00001, 0x3FC00000], dtype=np.uint32).view(np.float32)
    line = assignment("data", payload)
    assert "b64decode(" in line and line.rstrip().endswith("# [nan, 1.5] (bits exact only as bytes)")
    assert (
        assignment("data", np.array([np.nan, 1.5], np.float32)) == "data = np.array([np.nan, 1.5], dtype=np.float32)\n"
    )


def test_onnx_reproducers_embed_and_attach_their_model(ran: dict[str, Ran]) -> None:
    onnx_runs = {k: r for k, r in ran.items() if ":onnx." in k}
    if not onnx_runs:
        pytest.skip("no ONNX runtime")
    for result in onnx_runs.values():
        assert result.attachments == ("model.onnx",) and "MODEL = base64.b64decode(" in result.text
    assert any("InferenceSession" in r.text for r in onnx_runs.values()) and any(
        "ReferenceEvaluator" in r.text for r in onnx_runs.values()
    )


def test_an_op_listed_without_a_unit_fails_when_the_oracle_is_built() -> None:
    with pytest.raises(MissingUnit, match=r"'fake-unit' lists numpy.take_along_axis but has no unit"):
        UnitFake("np.take(data, indices, **attrs)", ops=("numpy.take", "numpy.take_along_axis"))
    with pytest.raises(MissingUnit):
        when_installed(("numpy",), lambda: [UnitFake("np.take(data, indices, **attrs)", ops=())])


def test_no_reproducer_for_a_case_the_oracle_does_not_run() -> None:
    with pytest.raises(ValueError, match="does not implement torch.gather"):
        ORACLES["numpy"].reproducer(_case("torch.gather", X, [0], dim=0), Outcome.returned(X[:1]))


class OpFake(FrameworkOracle):
    """A NumPy oracle whose one unit (``op``) is ``call``."""

    def __init__(self, op: str, call: str) -> None:
        from conformance.core.oracle import OracleInfo

        info = OracleInfo("fake-unit", "numpy", np.__version__, "cpu", "eager", (op,))
        super().__init__(info, NUMPY_PRELUDE, EAGER, [OpUnit(op, call)])


def _tagged(op: str, data: Any, indices: Any, regime: str, **attrs: Any) -> Case:
    from conformance.core.case import CaseTags

    return Case(op, np.asarray(data), np.asarray(indices), attrs, CaseTags(regime, "int64", "float"))


AS_FOUND = (
    # (what the finding is, the fake's call, the case): what the campaign calls a finding, its script must reproduce
    ("internal error", "1 // 0", _tagged("numpy.take", X, [5], "oob-above", axis=0, mode="raise")),
    (
        "wrong error (index error, expected shape or attribute error)",
        "np.zeros(1)[7]",  # IndexError: index 7 is out of bounds (a Python list's own is an internal error now)
        _tagged("numpy.take_along_axis", np.zeros((2, 3)), [0], "in-range", axis=1),
    ),
    ("shapes refused", "np.reshape(data, (7,))", _tagged("numpy.take", X, [1], "in-range", axis=0, mode="raise")),
    (
        "spec silent, observed policy wraps",  # the reference's value is the one candidate: the finding is the policy
        "np.take(data, indices, axis=attrs['axis'])",
        _tagged("onnx.Gather-1", X, [-1], "negative", axis=0),
    ),
    (
        "spec silent, observed policy raises",
        "np.take(data, np.array([9]), axis=attrs['axis'])",
        _tagged("onnx.Gather-1", X, [-1], "negative", axis=0),
    ),
)


@pytest.mark.parametrize(("finding", "call", "case"), AS_FOUND, ids=[f for f, _, _ in AS_FOUND])
def test_a_campaign_script_reproduces_its_finding_whatever_the_error_class(
    finding: str, call: str, case: Case, tmp_path: Path
) -> None:
    """Regression (issue 26): scripts called "both raised" agreement, so an internal error, an error of
    another class and a shape refusal printed "not reproduced"; so did a ``spec silent`` policy (the
    reference's value, or an error, is what the framework does there). A script judges with the
    campaign's verdicts, printed into it, and names the expected and observed error class."""
    from conformance.judge.judged import judged_alone, judgement
    from conformance.judge.verdict import reference_outcome

    oracle = OpFake(case.op, call)
    (observed,) = oracle.run_many([case])
    seen = judged_alone(case, oracle.info(), observed)
    assert not seen.verdict.conforms and f": {finding}" in seen.signature().words(), seen.signature().words()
    reproducer = oracle.reproducer(case, reference_outcome(case), observed, judgement(case, oracle.info(), observed))
    (tmp_path / "elsewhere").mkdir()
    path = save(reproducer, tmp_path / "script")
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path / "elsewhere",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and lines[-1] == "REPRODUCED", proc.stdout + proc.stderr[-2000:]
    assert f"judged: {seen.signature().words()}" in proc.stdout
    if observed.error_class is not None:
        assert f"observed: error ({observed.error_class}) {observed.error_type}: " in proc.stdout
    if reference_outcome(case).error_class is not None:
        assert f"expected: error ({reference_outcome(case).error_class}) " in proc.stdout


def test_a_value_instead_of_an_error_on_an_empty_axis_reproduces_whatever_bytes_the_script_reads(tmp_path) -> None:
    """Regression (own scripts of the quiet check of seed 7): paddle.gather_nd on an empty axis returned zeros when
    the finding was built and other bytes when its script ran alone ([-1.24e-25, 4.57e-41, ...]); the script judged
    "a value no policy explains" and printed "not reproduced", while the campaign judges any value there
    "value instead of error, for empty axis". Where an error is expected and the finding names no behaviour,
    the script now judges a value none of its listed values is the way the campaign does."""
    from conformance.judge.judged import judged_alone, judgement
    from conformance.judge.verdict import reference_outcome

    case = _tagged("numpy.take", np.zeros((0, 4), np.float32), [0], "oob-above", axis=0, mode="raise")
    oracle = OpFake(case.op, "np.full((1, 4), -1.24e-25, np.float32)")  # what the script reads alone
    observed = Outcome.returned(np.zeros((1, 4), np.float32))  # what the campaign saw
    seen = judged_alone(case, oracle.info(), observed)
    assert seen.signature().words().endswith("value instead of error, for empty axis"), seen.signature().words()
    reproducer = oracle.reproducer(case, reference_outcome(case), observed, judgement(case, oracle.info(), observed))
    (tmp_path / "elsewhere").mkdir()
    proc = subprocess.run(
        [sys.executable, str(save(reproducer, tmp_path / "script"))],
        cwd=tmp_path / "elsewhere",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1] == "REPRODUCED", proc.stdout + proc.stderr[-2000:]


def test_a_stray_read_finding_is_shown_by_the_fill_bytes_a_later_read_may_find() -> None:
    """Regression (make test, stop 52): MLX's take_along_axis read 123456789 past a 1-element input in the campaign
    (spec silent, fills or garbage, for extreme); its script read 0 on each of its 20 runs, judged that value
    "conforms" as the fill's, and said "not reproduced". A read outside the input finds whatever bytes lie there."""
    from conformance.core.case import CaseTags
    from conformance.core.oracle import OracleInfo
    from conformance.judge.judged import judgement

    info = OracleInfo("mlx", "mlx", "0.32.4", "cpu", "eager", ("mlx.take_along_axis",))
    case = Case(
        "mlx.take_along_axis",
        np.array([7], np.int64),
        np.array([255], np.uint8),
        {"axis": 0},
        CaseTags("extreme", "int64", "uint8"),
    )
    j = judgement(case, info, Outcome.returned(np.array([123456789])))
    shown = {int(np.asarray(v).reshape(-1)[0]): shows for label, v, _, shows in j.values if label == "fills or garbage"}
    assert shown[0] is True and j.other[1] is True
    assert not any(shows for label, _, _, shows in j.values if label in ("wraps", "clamps"))  # in-range reads do not
