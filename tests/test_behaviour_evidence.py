"""Every behaviour word proven by its example (issue 21): a finding or an
atlas cell names a behaviour only where exactly that candidate explains the
output; what a framework reads of an index beyond int32 (its low 32 bits, an
unsigned index read as signed) is a candidate, and where no drawn example
names it the campaign builds one; so are the data batch an index batch reads
where batch dimensions differ (b // k, a batch of 1 broadcast); atlas cells
store the values they judged."""

from __future__ import annotations

import time

import numpy as np
import pytest

from conformance.campaign.finding_builder import built
from conformance.campaign.runner import run_campaign
from conformance.campaign.settings import Settings
from conformance.campaign.sightings import First, Sightings
from conformance.cases.class_case import ClassCase
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.encoding import decode_array
from conformance.core.outcome import Outcome
from conformance.judge.rootcause import BEYOND_INT32, merged_into
from conformance.judge.verdict import (
    BATCH_READS,
    PolicyValues,
    batch_mapped,
    batch_reading,
    fitting_words,
    judge,
    observed_policy,
    reference_outcome,
)
from conformance.results.atlas import Atlas
from conformance.spec.plans import EqClass

NAMED = frozenset(
    {
        Behaviour.WRAPS,
        Behaviour.CLAMPS,
        Behaviour.CLAMPS_RAW,
        Behaviour.FILLS_OR_GARBAGE,
        Behaviour.LOW_32_BITS,
        Behaviour.SIGNED,
    }
)
TENS = np.arange(1, 6, dtype=np.float32) * 10  # no element equals another, none is 0


def _proven(case: Case, value: np.ndarray, word: Behaviour) -> bool:
    """Whether ``word`` and no other candidate explains ``value`` on ``case``."""
    values = PolicyValues(case)
    return observed_policy(Outcome.returned(value), values) is word and fitting_words(value, values) <= {word}


# -- the new candidates, judged on examples that tell them apart ---------------------------


def test_low_32_bits_of_an_int64_index_is_named_where_clamp_and_wrap_read_other_elements() -> None:
    case = Case("jax.numpy.take", TENS, np.array([2**32 + 1]), {"axis": 0}, CaseTags("extreme", "int64", "float"))
    assert _proven(case, np.array([20.0], np.float32), Behaviour.LOW_32_BITS)  # element 1: 2**32 + 1 mod 2**32
    assert _proven(case, np.array([50.0], np.float32), Behaviour.CLAMPS)  # the last element
    assert _proven(case, np.array([30.0], np.float32), Behaviour.WRAPS)  # (2**32 + 1) % 5 == 2


def test_an_unsigned_index_read_as_signed_is_named_apart_from_its_low_32_bits() -> None:
    tags = CaseTags("extreme", "uint64", "float")
    op = "tensorflow.experimental.numpy.take"  # NumPy's own take reads uint64 as intp, as documented (fancy indexing)
    case = Case(op, TENS, np.array([2**64 - 2], np.uint64), {"axis": 0, "mode": "raise"}, tags)
    assert _proven(case, np.array([40.0], np.float32), Behaviour.SIGNED)  # -2 wraps once: element 3
    last = np.array([50.0], np.float32)  # clamped, its low 32 bits clamped, and (2**64 - 2) % 5 == 4 all read it
    assert observed_policy(Outcome.returned(last), PolicyValues(case)) is Behaviour.AMBIGUOUS


def test_an_axis_too_short_to_tell_them_apart_names_nothing() -> None:
    case = Case("jax.numpy.take", TENS[:2], np.array([2**32 + 1]), {"axis": 0}, CaseTags("extreme", "int64", "float"))
    value = np.array([20.0], np.float32)  # element 1: the low 32 bits, and the last element (clamped)
    assert observed_policy(Outcome.returned(value), PolicyValues(case)) is Behaviour.AMBIGUOUS


def test_a_word_of_how_an_index_beyond_int32_is_read_stays_named() -> None:
    from conformance.judge.signature import Signature

    sig = Signature("jax.numpy.take", "jax", "0.10.2", "cpu", "eager", "wrong value", "reads the low 32 bits", ())
    sig = Signature(sig.op, sig.oracle, sig.version, sig.device, sig.mode, sig.outcome, sig.policy, BEYOND_INT32)
    assert merged_into(sig, {Behaviour.LOW_32_BITS}, [sig]) is None


# -- batch dimensions that differ: which data batch each index batch reads ----------------------

BATCHED = np.arange(2 * 3, dtype=np.float32).reshape(2, 3) * 10 + 10  # no element equals another
FOUR = np.array([[0], [1], [2], [0]])  # index batch 4 against data batch 2


def test_an_index_batch_k_times_the_data_batch_is_named_where_the_data_batch_tells_the_readings_apart() -> None:
    tags = CaseTags("in-range", "int64", "float")
    case = Case("onnx.GatherND-12", BATCHED, FOUR, {"batch_dims": 1}, tags)
    got = Outcome.returned(np.array([10, 20, 60, 40], np.float32))  # onnxruntime 1.31: batches 2, 3 read data batch 1
    v = judge(case, reference_outcome(case), got, PolicyValues(case))
    assert str(v.outcome) == "value instead of error" and v.behaviour is Behaviour.BATCH_DIVIDED
    assert batch_reading(case, np.array([10, 50, 30, 40], np.float32)) is None  # b % 2: no candidate of ours
    one = Case("onnx.GatherND-12", BATCHED[:1], FOUR, {"batch_dims": 1}, tags)
    assert batch_reading(one, np.array([10, 20, 30, 10], np.float32)) is Behaviour.AMBIGUOUS  # b // 4 == 0 always


def test_an_onnxruntime_atlas_cell_of_an_index_batch_twice_the_data_batch_stores_the_values_that_prove_it() -> None:
    import oracles
    from conformance.campaign.atlas_runner import run_atlas

    if "onnxruntime" not in oracles.available():
        pytest.skip("needs onnxruntime")
    oracle = oracles.get("onnxruntime")
    try:
        atlas = run_atlas([oracle], {oracle.name: oracle.info()}, ["onnx.GatherND"])
    finally:
        oracle.close()
    cells = {(c.condition, c.op): c for c in atlas.cells}
    for op in ("onnx.GatherND-12", "onnx.GatherND-13"):
        multiple, data_1 = cells[("batch-multiple", op)], cells[("batch-data-1", op)]
        assert multiple.behaviour is Behaviour.BATCH_DIVIDED and data_1.behaviour is Behaviour.AMBIGUOUS
        case, observed = Case.from_json(multiple.example), decode_array(multiple.example["observed_value"])
        readings = {how: batch_mapped(case, how) for how in BATCH_READS}
        assert [how for how, v in readings.items() if v is not None and np.array_equal(v, observed)] == [
            Behaviour.BATCH_DIVIDED
        ]


# -- built examples: a JAX finding on int64, a NumPy finding on uint64 ---------------------------


def _built(oracle_name: str, op: str, index_dtype: str, drawn: np.ndarray, data: np.ndarray):
    """The finding's root cause and example after :func:`built`, from a drawn example that names nothing."""
    import oracles
    from conformance.campaign.dispatch import evaluate

    if oracle_name not in oracles.available():
        pytest.skip(f"needs {oracle_name}")
    oracle = oracles.get(oracle_name, isolated=False)
    infos = {oracle.name: oracle.info()}
    try:
        cc = ClassCase(
            EqClass.FLAT, data.shape, drawn.shape, None, 0, "float32", index_dtype, "extreme", False, "contiguous", 0, 0
        )
        j = next(j for j in evaluate(cc, [oracle], infos, [op], arrays=(data, drawn)) if not j.verdict.conforms)
        assert j.verdict.behaviour is Behaviour.AMBIGUOUS  # the drawn example cannot tell
        sightings = Sightings(time.monotonic())
        policy_less = j.signature().__class__(**{**j.signature().__dict__, "policy": None})
        sightings.first[policy_less] = First(cc, j, 0.0)
        sightings.counts[policy_less] = 1
        named = built(policy_less, sightings.first[policy_less], oracle, infos, sightings)
        return named, sightings.first[named].judged
    finally:
        oracle.close()


def test_a_jax_finding_beyond_int32_gets_an_example_that_shows_it_reads_the_low_32_bits() -> None:
    named, judged = _built("jax", "jax.numpy.take", "int64", np.array([2**32 + 1]), TENS[:2])
    assert named.policy is Behaviour.LOW_32_BITS and named.condition == BEYOND_INT32
    data, idx, got = judged.case.data, np.asarray(judged.case.indices), np.asarray(judged.outcome.value)
    assert data.shape == (5,) and idx.dtype == np.int64 and (idx >= 2**32).all()
    np.testing.assert_array_equal(got, data[idx.astype(np.int32)])  # the element its low 32 bits name
    assert _proven(judged.case, got, Behaviour.LOW_32_BITS)


# -- every finding and every atlas cell of a real campaign ------------------------------------

OPS = ("numpy.take", "numpy.take_along_axis", "jax.numpy.take", "torch.take_along_dim", "torch.gather")


@pytest.fixture(scope="module")
def evidence_run(tmp_path_factory):
    import oracles

    names = [n for n in ("numpy", "torch", "jax") if n in oracles.available()]
    started = [oracles.get(n) for n in names]
    out = tmp_path_factory.mktemp("evidence")
    try:
        result = run_campaign(started, Settings(seed=12, max_examples=12, ops=OPS, atlas=True), out_dir=out)
    finally:
        for o in started:
            o.close()
    return result, Atlas.load(out / "atlas.json")


def test_every_finding_naming_a_behaviour_has_an_example_only_that_candidate_explains(evidence_run) -> None:
    named = [f for f in evidence_run[0].findings if f.signature.policy in NAMED]
    assert named
    for f in named:
        for oracle in f.modes or [f.signature.oracle]:
            got = f.outcomes[oracle]
            assert got.value is not None and _proven(f.case, np.asarray(got.value), f.signature.policy), (
                f.signature.words()
            )


def test_every_atlas_cell_naming_a_behaviour_stores_the_values_that_prove_it(evidence_run) -> None:
    cells = [c for c in evidence_run[1].cells if c.behaviour in NAMED and c.oracle != "jax-default"]
    assert cells
    for c in cells:
        case = Case.from_json(c.example)
        observed = decode_array(c.example["observed_value"])
        assert "reference_value" in c.example or c.example["reference"].startswith("error")
        assert _proven(case, observed, c.behaviour), (c.condition, c.op, c.oracle, c.behaviour)
