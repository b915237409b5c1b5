"""A small, deterministic, real campaign on the in-process oracles."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import oracles
from conformance.campaign.dispatch import evaluate
from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.campaign.shrinker import shrink
from conformance.cases.class_case import ClassCase
from conformance.core.behaviour import Behaviour
from conformance.results.run_result import RunResult
from conformance.spec.plans import EqClass

pytestmark = pytest.mark.timeout(300) if hasattr(pytest.mark, "timeout") else []


@pytest.fixture(scope="module")
def local_oracles():
    # isolated: the fuzzer reaches numpy.take(mode="wrap") with int64 extremes, which loops for ever (a case time limit
    # needs a worker)
    names = [n for n in ("numpy", "torch", "jax") if n in oracles.available()]
    started = [oracles.get(n) for n in names]
    yield started
    for o in started:
        o.close()


@pytest.fixture(scope="module")
def small_run(local_oracles, tmp_path_factory) -> tuple[RunResult, str]:
    out = tmp_path_factory.mktemp("campaign")
    return run_campaign(local_oracles, Settings(seed=3, max_examples=40), out_dir=out), str(out)


def test_campaign_writes_results_json_that_round_trips(small_run) -> None:
    result, out = small_run
    loaded = RunResult.load(f"{out}/results.json")
    assert [f.signature for f in loaded.findings] == [f.signature for f in result.findings]
    assert (
        json.loads(Path(f"{out}/results.json").read_text())["figures"]["class_cases"] == result.figures["class_cases"]
    )


def test_campaign_is_deterministic_for_a_seed(local_oracles) -> None:
    a = run_campaign(local_oracles, Settings(seed=5, max_examples=15, shrink_evals=5))
    b = run_campaign(local_oracles, Settings(seed=5, max_examples=15, shrink_evals=5))
    assert [f.signature.key() for f in a.findings] == [f.signature.key() for f in b.findings]


def test_raw_discrepancies_collapse_onto_fewer_findings(small_run) -> None:
    result, _ = small_run
    assert result.raw_discrepancies > len(result.findings) > 0
    assert sum(f.count for f in result.findings) == result.raw_discrepancies


def test_torch_take_along_dim_wrapping_negatives_with_a_dim_conforms_as_numpy_does(local_oracles) -> None:
    """Its docs defer to NumPy's take_along_axis, which wraps negatives once (issue 22): no finding."""
    if not any(o.name == "torch" for o in local_oracles):
        pytest.skip("torch is not available")
    infos = {o.name: o.info() for o in local_oracles}
    cc = ClassCase(EqClass.ELEMENT, (2, 5), (2, 3), 1, 0, "float32", "int64", "negative", False, "contiguous", 0, 1)
    j = next(j for j in evaluate(cc, local_oracles, infos) if j.case.op == "torch.take_along_dim")
    assert j.verdict.conforms and j.verdict.behaviour is Behaviour.WRAPS


def test_jax_clip_clamps_the_raw_index_like_numpy(local_oracles) -> None:
    if not any(o.name == "jax" for o in local_oracles):
        pytest.skip("jax is not available")
    infos = {o.name: o.info() for o in local_oracles}

    def judged(mode: int):
        cc = ClassCase(EqClass.BLOCK, (4,), (3,), 0, 0, "int32", "int64", "negative", False, "contiguous", mode, 0)
        return {j.case.op: j for j in evaluate(cc, local_oracles, infos)}

    numpy_clip, jax_clip = judged(2)["numpy.take"], judged(2)["jax.numpy.take"]
    assert numpy_clip.case.attrs["mode"] == jax_clip.case.attrs["mode"] == "clip"
    assert np.array_equal(numpy_clip.case.indices, jax_clip.case.indices)
    # NumPy documents and does -1 -> 0; jnp.take implements numpy.take, and
    # JAX 0.10 clamps the raw value too: both conform, policy "clamps (raw)".
    assert numpy_clip.verdict.conforms and numpy_clip.verdict.behaviour is Behaviour.CLAMPS_RAW
    assert jax_clip.verdict.conforms and jax_clip.verdict.behaviour is Behaviour.CLAMPS_RAW


def test_torch_gather_rejects_negatives_as_documented(local_oracles) -> None:
    infos = {o.name: o.info() for o in local_oracles}
    cc = ClassCase(EqClass.ELEMENT, (3, 2), (3, 2), 0, 0, "float32", "int64", "negative", False, "contiguous", 0, 1)
    j = next(j for j in evaluate(cc, local_oracles, infos) if j.case.op == "torch.gather")
    assert j.verdict.conforms and j.verdict.behaviour is Behaviour.RAISES


def test_shrink_reaches_a_minimal_case_with_the_predicate() -> None:
    cc = ClassCase(EqClass.FLAT, (4, 4), (3, 2), None, 0, "float64", "int64", "negative", True, "fortran", 3, 1234)
    small = shrink(cc, lambda c: np.prod(c.data_shape) >= 2)
    assert np.prod(small.data_shape) == 2 and small.index_shape == () and small.layout == "contiguous"


def test_without_a_budget_shrinking_has_no_deadline_so_the_machine_cannot_change_findings(
    local_oracles, monkeypatch
) -> None:
    """Shrinking used to end a quarter of the run's time after drawing: on a
    busy machine fewer root causes were shrunk, named (the examples that tell
    policies apart) or met new faults, so the findings and the gate depended on
    the machine. Without a budget only its evaluation count bounds it."""
    from conformance.campaign import runner

    deadlines: list[float | None] = []
    build = runner.build_findings

    def spy(*args, **kwargs):
        deadlines.append(kwargs["shrink_end"])
        return build(*args, **kwargs)

    monkeypatch.setattr(runner, "build_findings", spy)
    run_campaign(local_oracles[:1], Settings(seed=5, max_examples=3, shrink_evals=2))
    run_campaign(local_oracles[:1], Settings(seed=5, max_examples=3, shrink_evals=2, budget_s=60))
    assert deadlines[0] is None and deadlines[1] is not None


def test_root_causes_left_when_a_stop_comes_keep_their_first_example_and_render_no_script(
    local_oracles, monkeypatch
) -> None:
    """A stop (SIGTERM) while the findings are built: each root cause left is
    kept as found, with no reproducer rendered (a script per oracle, an ONNX
    model: on a loaded machine building 300 of them took a minute after the
    signal, where the run has 5 s to leave)."""
    from conformance.campaign import runner

    build = runner.build_findings

    def stopped(*args, **kwargs):
        kwargs["halt"].set()  # the stop comes as the findings start to be built
        return build(*args, **kwargs)

    monkeypatch.setattr(runner, "build_findings", stopped)
    result = run_campaign(local_oracles[:1], Settings(seed=0, max_examples=20, shrink_evals=2))
    assert result.findings and all(f.scripts == {} for f in result.findings), [f.scripts for f in result.findings]


def test_a_stop_during_a_shrink_evaluates_no_further_candidate(local_oracles, monkeypatch) -> None:
    """A stop while a root cause is being shrunk: the candidates left are
    rejected unevaluated and the finding keeps its first example with no
    script. (Loaded, a SIGTERM in the shrinking of a default run took 13.7 s
    to exit: the shrinks going on took the CPU that writing the results needed.)"""
    import threading

    from conformance.campaign import runner

    build, calls = runner.build_findings, []
    halt_of: list[threading.Event] = []

    def capture(*args, **kwargs):
        halt_of.append(kwargs["halt"])
        return build(*args, **kwargs)

    oracle = local_oracles[0]
    run_many = oracle.run_many

    def counted(cases, **kwargs):
        if halt_of:  # shrinking: the second candidate brings the stop
            calls.append(len(cases))
            if len(calls) == 2:
                halt_of[0].set()
        return run_many(cases, **kwargs)

    monkeypatch.setattr(runner, "build_findings", capture)
    monkeypatch.setattr(oracle, "run_many", counted)
    result = run_campaign([oracle], Settings(seed=0, max_examples=20, shrink_evals=50))
    assert len(calls) == 2, calls
    assert result.findings and all(f.scripts == {} for f in result.findings)


class _FlakyTake:
    """NumPy's take, in process, that raises on its first few calls only (a flaky framework)."""

    name = "flaky"

    def __init__(self, failures: int) -> None:
        from conformance.core.oracle import Capabilities

        self.failures, self.capabilities = failures, Capabilities()

    def info(self):
        from conformance.core.oracle import OracleInfo

        return OracleInfo("flaky", "numpy", "1", "cpu", "eager", ("numpy.take",))

    def run_many(self, cases, *, timeout=None):
        from conformance.core.outcome import ErrorClass, Outcome

        out = []
        for c in cases:
            self.failures -= 1
            try:
                if self.failures >= 0:
                    raise RuntimeError("flaky")
                out.append(Outcome.returned(np.asarray(np.take(c.data, c.indices, **c.attrs))))
            except IndexError as exc:
                out.append(Outcome.raised(exc, ErrorClass.INDEX_OUT_OF_RANGE))
            except Exception as exc:  # noqa: BLE001 - an error is an outcome
                out.append(Outcome.raised(exc, ErrorClass.OTHER))
        return out

    def reproducer(self, case, reference, observed=None):
        raise NotImplementedError


def test_a_finding_a_flaky_oracle_does_not_show_again_keeps_its_first_outcome_with_its_first_example() -> None:
    """A finding whose re-runs conform (a flaky oracle) is its first example
    with the outcome that example was judged on. (It was shown with the re-run's
    outcome: an OpenVINO finding's example had indices [2, 3, 2] and a message
    about indices {2, 2, 2}.)"""
    from conformance.judge.judged import judged_alone

    oracle = _FlakyTake(3)
    result = run_campaign([oracle], Settings(seed=1, max_examples=3, ops=("numpy.take",)))
    flaky = [f for f in result.findings if "flaky" in (f.outcomes["flaky"].message or "")]
    assert len(flaky) == 1, [f.signature.words() for f in result.findings]
    for finding in result.findings:  # each shown with the outcome its own example was judged on
        assert judged_alone(finding.case, oracle.info(), finding.outcomes["flaky"]).signature() == finding.signature


class _Clip:
    """A stand-in oracle in one of two modes of a framework: numpy.take in mode "clip" whatever the op asks."""

    def __init__(self, name: str) -> None:
        from conformance.core.oracle import Capabilities

        self.name, self.capabilities = name, Capabilities()

    def info(self):
        from conformance.core.oracle import OracleInfo

        return OracleInfo(self.name, "clipper", "1", "cpu", self.name, ("numpy.take",))

    def run_many(self, cases, *, timeout=None):
        from conformance.core.outcome import Outcome

        return [Outcome.returned(np.take(c.data, c.indices, axis=c.attrs.get("axis"), mode="clip")) for c in cases]

    def reproducer(self, case, reference, observed=None, judgement=None):
        from conformance.core.oracle import Reproducer

        return Reproducer(self.name, f"# {self.name} on {case.data.tolist()} {case.indices.tolist()}")


def test_a_fact_shown_in_two_modes_is_shrunk_once_and_each_modes_script_is_on_that_case(monkeypatch) -> None:
    """The modes of one fact are one finding, shown with its first mode's case. Each mode shrank it again, and
    for a crash every candidate that still crashed cost a worker start (70 starts of Paddle and TensorFlow
    workers, the last minute of a default campaign); the second mode's script was on another case than the
    one shown. The second mode now tries the first mode's case and is shrunk only where that does not show it."""
    from conformance.campaign import finding_builder

    shrunk: list[str] = []
    keeps = finding_builder._keeps
    monkeypatch.setattr(
        finding_builder,
        "_keeps",
        lambda sig, op, oracle, *a, **k: shrunk.append(oracle.name) or keeps(sig, op, oracle, *a, **k),
    )
    result = run_campaign([_Clip("clip-b"), _Clip("clip-a")], Settings(seed=1, max_examples=20, ops=("numpy.take",)))
    assert result.findings and set(shrunk) == {"clip-a"}, (len(result.findings), shrunk)
    for f in result.findings:
        shown = f"{f.case.data.tolist()} {f.case.indices.tolist()}"
        assert f.modes.keys() == {"clip-a", "clip-b"} and f.signature.oracle == "clip-a", f.modes
        assert f.scripts == {"clip-a": f"# clip-a on {shown}", "clip-b": f"# clip-b on {shown}"}, f.scripts


class _Crashes(_Clip):
    """A stand-in whose framework dies on any index out of range (as Paddle's gather does), counting those cases."""

    crashes = 0

    def run_many(self, cases, *, timeout=None):
        from conformance.core.outcome import Outcome

        out = []
        for c in cases:
            n = np.asarray(c.data).shape[c.attrs.get("axis") or 0] if np.asarray(c.data).ndim else 0
            bad = np.asarray(c.indices).size and not ((c.indices >= -n) & (c.indices < n)).all()
            self.crashes += bool(bad)
            out.append(Outcome.crashed(11, None) if bad else Outcome.returned(np.take(c.data, c.indices, axis=0)))
        return out


def test_shrinking_a_crash_stops_after_a_bounded_number_of_candidates_that_crash() -> None:
    """Each candidate that still crashes costs a worker start (Paddle 1.4 s): cutting one Paddle crash's arrays
    down ran 27 of them, 50 s of the last minute of a default campaign. Counted, not timed: the same on any machine."""
    from conformance.campaign import finding_builder
    from conformance.campaign.sightings import Sightings

    oracle = _Crashes("crashes")
    infos = {"crashes": oracle.info()}
    cc = ClassCase(EqClass.BLOCK, (4, 4, 4), (4, 4), 0, 0, "int32", "int64", "oob-above", False, "contiguous", 0, 3)
    judged = evaluate(cc, [oracle], infos, ["numpy.take"])
    sig = next(j.signature() for j in judged if not j.verdict.conforms)
    spend = finding_builder.Spend(sig)
    keeps = finding_builder._keeps(sig, "numpy.take", oracle, infos, Sightings(start=0.0), spend)
    oracle.crashes = 0
    small = shrink(cc, keeps, max_evals=60)
    assert oracle.crashes == finding_builder.CRASHES_PER_SHRINK and spend.over(), oracle.crashes
    assert small.size() < cc.size()
