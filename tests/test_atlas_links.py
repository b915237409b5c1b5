"""``benchmarks/atlas_links.py`` (issue 20's figure): a departing atlas cell
that links to no finding is an orphan where a finding of its oracle and op
family exists, and alone where none does; a linked cell is neither."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np

from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.outcome import Outcome
from conformance.judge.signature import Signature
from conformance.results.atlas import AtlasCell, RootSighting
from conformance.results.finding import Finding

SIG = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps", ("bad index",))


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "atlas_links.py"
    spec = importlib.util.spec_from_file_location("atlas_links", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cell(op: str, roots: tuple[RootSighting, ...]) -> AtlasCell:
    return AtlasCell("size", "element gather", op, "torch", "2.13.0", "wraps", None, False, {}, roots=roots)


def test_a_departing_cell_is_linked_orphan_or_alone_by_the_reports_typed_match() -> None:
    unlinked = _bench().unlinked
    finding = Finding(SIG, Case("torch.gather", np.arange(5.0), np.array([-1]), {"dim": 0}), None, {})
    linked = _cell("torch.gather", (RootSighting(SIG),))
    orphan = _cell("torch.gather", (RootSighting(replace(SIG, policy=Behaviour.CLAMPS)),))
    alone = _cell("torch.index_select", ())
    assert unlinked([linked, orphan, alone], [finding]) == [(orphan, True), (alone, False)]
    assert unlinked([replace(orphan, documented=True)], [finding]) == []


def test_a_cell_of_any_mode_of_a_finding_merged_across_modes_links_to_it() -> None:
    """Findings that differ only in the execution mode are one finding
    (issue 21); the cell of the mode that is not the finding's own used to
    link to nothing (a default run: 246 of 947 departing cells, jax-default,
    paddle-static, the onnxruntime modes...)."""
    from conformance.report.atlas_match import FindingIndex, cell_findings
    from conformance.results.finding import across_modes

    case = Case("torch.gather", np.arange(5.0), np.array([-1]), {"dim": 0})
    compiled_sig = replace(SIG, oracle="torch-compile", mode="compile (inductor)")
    eager = Finding(SIG, case, None, {}, framework="torch")
    compiled = Finding(compiled_sig, case, None, {}, framework="torch")
    (merged,) = across_modes([eager, compiled])
    cell = replace(_cell("torch.gather", (RootSighting(compiled_sig),)), oracle="torch-compile")
    assert cell_findings(cell, FindingIndex([merged])) == [merged]
    assert _bench().unlinked([cell], [merged]) == []


def test_a_cell_whose_root_cause_building_renamed_links_to_the_finding_it_became() -> None:
    """A default run's one orphan: 'dtype-min | jax.advanced_indexing on jax' recorded its root cause as drawn
    ('fills or garbage' beyond int32); building named it 'reads the low 32 bits' on an example it built, and the
    cell linked to nothing. The finding keeps the root causes it was built from (also through its JSON)."""
    from conformance.report.atlas_match import FindingIndex, cell_findings

    drawn = replace(SIG, policy=Behaviour.FILLS_OR_GARBAGE)
    case = Case("torch.gather", np.arange(5.0), np.array([-1]), {"dim": 0})
    finding = Finding(SIG, case, Outcome.returned(np.zeros(1)), {}, framework="torch", built_from=[drawn])
    again = Finding.from_json(finding.to_json())
    assert again.built_from == [drawn]
    assert cell_findings(_cell("torch.gather", (RootSighting(drawn),)), FindingIndex([again])) == [again]
