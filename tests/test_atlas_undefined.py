"""An answer that depends on memory is named so in every mode of its framework,
so that two atlases of the same versions agree (issue 27, point 1).

Regression: Paddle 3.3.1's static graph answered ``paddle.gather`` with
``axis=-4`` on rank-3 data with a value on some runs and an IndexError on
others (loaded default atlases of 4d696d3 differed in that one cell), while
its eager mode returned a rank-4 value: a read outside the input's shape."""

from __future__ import annotations

import numpy as np
import pytest

from conformance.campaign.atlas_runner import run_atlas
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import ErrorClass, Outcome
from conformance.judge.verdict import reference_outcome

CONDITION = "axis-minus-r-minus-1"


class _Paddle:
    """The reference's answers, except on an axis below -rank: eager returns
    a value of the stray rank-4 shape; the static mode alternates between
    that and an IndexError, call by call (as Paddle did by hand)."""

    capabilities = Capabilities()

    def __init__(self, mode: str, first_raises: bool = False) -> None:
        self.name = "paddle" if mode == "eager" else f"paddle-{mode}"
        self.mode, self.raises = mode, first_raises

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, "paddle", "3.3.1", "cpu", self.mode, ("paddle.gather",))

    def _one(self, case) -> Outcome:
        axis = case.attrs.get("axis")
        if isinstance(axis, int) and axis < -case.data.ndim:
            if self.mode == "static":
                self.raises = not self.raises
                if not self.raises:
                    return Outcome.raised(IndexError("out of bound"), ErrorClass.INDEX_OUT_OF_RANGE)
            return Outcome.returned(np.zeros((case.indices.size, *case.data.shape), case.data.dtype))
        return reference_outcome(case)

    def run_many(self, cases, *, timeout=None):
        return [self._one(c) for c in cases]


def _cells(first_raises: bool) -> dict[str, tuple[str, str | None]]:
    oracles = [_Paddle("eager"), _Paddle("static", first_raises)]
    atlas = run_atlas(oracles, {o.name: o.info() for o in oracles}, ["paddle.gather"])
    return {
        c.oracle: (str(c.behaviour), None if c.error_class is None else str(c.error_class))
        for c in atlas.cells
        if c.condition == CONDITION
    }


def test_a_read_outside_the_input_shape_in_one_mode_names_every_mode_garbage_whatever_the_other_answered() -> None:
    assert (
        _cells(first_raises=False)
        == _cells(first_raises=True)
        == {
            "paddle": ("garbage", None),
            "paddle-static": ("garbage", None),
        }
    )


@pytest.mark.parametrize("first_raises", [False, True])
def test_the_cell_keeps_its_own_answer_beside_the_proof(first_raises) -> None:
    oracles = [_Paddle("eager"), _Paddle("static", first_raises)]
    atlas = run_atlas(oracles, {o.name: o.info() for o in oracles}, ["paddle.gather"])
    static = atlas.cell(CONDITION, "block gather", "paddle.gather", "paddle-static")
    eager = atlas.cell(CONDITION, "block gather", "paddle.gather", "paddle")
    assert "which the gather of no axis" in eager.example["undefined"]
    assert static.example["undefined"].startswith("paddle answered this probe so")
    assert static.roots == eager.roots and eager.roots
    assert static.example["observed"] == (
        "error IndexError (index out of range)" if first_raises else "value float32[3, 2, 5, 2]"
    )


class _Explained(_Paddle):
    """On an axis below -rank, the gather of the data's last axis with stray
    values (a shape an axis explains), as a mode beside one that raises."""

    def _one(self, case) -> Outcome:
        axis = case.attrs.get("axis")
        if isinstance(axis, int) and axis < -case.data.ndim:
            if self.mode == "eager":
                return Outcome.raised(IndexError("out of bound"), ErrorClass.INDEX_OUT_OF_RANGE)
            shape = (*case.data.shape[:-1], case.indices.size)
            return Outcome.returned(np.full(shape, 1e-44, case.data.dtype))
        return reference_outcome(case)


def test_an_error_beside_a_stray_value_whose_shape_an_axis_explains_keeps_its_class() -> None:
    """TensorFlow's XLA mode reads stray data on an empty axis while its eager
    mode raises: stray values of a shape some axis gives prove nothing about
    the op's checks, and the error is a fact of the version."""
    oracles = [_Explained("eager"), _Explained("xla")]
    atlas = run_atlas(oracles, {o.name: o.info() for o in oracles}, ["paddle.gather"])
    cell = atlas.cell(CONDITION, "block gather", "paddle.gather", "paddle")
    assert (str(cell.behaviour), str(cell.error_class)) == ("wrong error", "index out of range")
    assert "undefined" not in atlas.cell(CONDITION, "block gather", "paddle.gather", "paddle-xla").example


def test_the_cell_popup_says_why_the_answer_is_undefined() -> None:
    from conformance.report.atlas_view import atlas_tables

    oracles = [_Paddle("eager"), _Paddle("static", first_raises=True)]
    infos = {o.name: o.info() for o in oracles}
    atlas = run_atlas(oracles, infos, ["paddle.gather"])
    described = {n: {"framework": i.framework, "version": i.version, "mode": i.mode} for n, i in infos.items()}
    records: list[dict] = []
    atlas_tables(atlas, [], {}, described, evidence_out=records)
    undefined = [dict(r["r"])["undefined"] for r in records if "undefined" in dict(r["r"])]
    assert undefined and all("the gather of no axis of data of shape (2, 5, 2) has" in u for u in undefined)
