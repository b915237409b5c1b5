"""An oracle's answer to a case does not depend on the cases its worker ran
before: a worker keeps compiled models, programs and sessions between cases,
and a framework that keeps state in them made one case's answer another's.

Regressions, both found as findings whose own scripts did not reproduce:
OpenVINO 2026.4.1's compiled GatherElements refused every valid input after
one whose indices shape it refused; Paddle 3.3.1's static graphs, run in the
global scope, answered int8 indices with None in a fresh worker and with an
internal error after an int64 run (pinned by its own test in
test_oracles_mlx_paddle_array_api.py: the probes' order here does not show
it). Here each installed oracle's worker runs
the atlas's probes of a few conditions (valid ones, in four index dtypes and
five data dtypes, signed and unsigned of one width next to each other: a
compiled module keyed on the bytes' width alone would answer int8 data with
the uint8 module; issue 43), then probes that fail or read elsewhere (an index equal to the size or to
minus the size, an index dimension larger than the data's, a batch
mismatch, int64 data), then the first ones again, in one batch: both runs of
each case must give the same answer, the same kind, error class, dtype and
shape, and an answer right the first time must be right the second time
(values may otherwise differ where a framework reads memory it does not own:
Paddle's take_along_axis on int8 indices does, run to run)."""

from __future__ import annotations

import pytest

from conformance.campaign.atlas_runner import _plan
from conformance.core.case import Case
from conformance.core.outcome import Kind, Outcome
from conformance.execution import registry
from conformance.judge.verdict import reference_outcome
from tests.test_oracles_conform import ORACLES

FIRST = (
    "index-int8",
    "data-uint8",
    "index-uint8",
    "data-int8",
    "in-range",
    "data-uint16",
    "index-int32",
    "data-int16",
)
"""In this order: the narrow index dtypes first, as a fresh worker's first cases, the data dtype changing between
valid probes (uint8, int8, float32, uint16, int16): signed and unsigned of one width in turn."""
BETWEEN = ("size", "index-dim-larger", "batch-mismatch", "data-int64", "minus-size")


def _right(case: Case, answer: Outcome) -> bool:
    """Whether ``answer`` holds the reference's values (in whatever dtype the framework answers)."""
    ref = reference_outcome(case)
    if answer.kind is not Kind.VALUE or ref.kind is not Kind.VALUE:
        return False
    assert answer.value is not None and ref.value is not None
    return answer.value.shape == ref.value.shape and answer.value.tolist() == ref.value.tolist()


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_an_answer_does_not_depend_on_the_cases_the_worker_ran_before(name: str) -> None:
    ops = ORACLES[name].info().ops
    pairs, _ = _plan(ops)
    first = [
        c
        for p, c in sorted(
            (pc for pc in pairs if pc[0].condition in FIRST), key=lambda pc: FIRST.index(pc[0].condition)
        )
    ]
    between = [c for p, c in pairs if p.condition in BETWEEN]
    assert first and between
    with registry.get(name) as worker:
        answers = worker.run_many([*first, *between, *first])
    before, after = answers[: len(first)], answers[-len(first) :]
    differ = [
        f"{c.op} {c.indices.dtype}: {a.describe()} then {b.describe()}"
        for c, a, b in zip(first, before, after, strict=True)
        if a.describe() != b.describe()
    ]
    pairs_of_answers = zip(first, before, after, strict=True)
    turned_wrong = [f"{c.op} {c.data.dtype}" for c, a, b in pairs_of_answers if _right(c, a) and not _right(c, b)]
    assert not differ and not turned_wrong, (differ, turned_wrong)
