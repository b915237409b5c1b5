"""Which findings stand behind an atlas cell: for each departing probe case
of the cell, its root cause as the campaign computed it (the cell's
:class:`~conformance.results.atlas.RootSighting` records), settled the way the
campaign settles its own sightings (:func:`conformance.judge.rootcause.merged_into`
over the run's findings), then looked up among the findings. Typed identities
are compared; nothing is parsed back out of words.

>>> import numpy as np
>>> from dataclasses import replace
>>> from conformance.core.behaviour import Behaviour
>>> from conformance.core.case import Case
>>> from conformance.judge.signature import Signature
>>> from conformance.results.atlas import AtlasCell, RootSighting
>>> from conformance.results.finding import Finding
>>> sig = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
...     ("bad index",))
>>> ambiguous = RootSighting(replace(sig, policy=Behaviour.AMBIGUOUS), frozenset({Behaviour.WRAPS, Behaviour.CLAMPS}))
>>> cell = AtlasCell("size", "element gather", "torch.gather", "torch", "2.13.0", "ambiguous", None, False, {},
...                  roots=(ambiguous,))
>>> f = Finding(sig, Case("torch.gather", np.arange(5.0), np.array([-1]), {"dim": 0}), None, {})
>>> [g.signature.words() for g in cell_findings(cell, FindingIndex([f]))]
['torch.gather on torch 2.13.0 (cpu, eager): value instead of error, observed policy wraps, for bad index']
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.core.behaviour import Behaviour
from conformance.judge.rootcause import family, merged_into
from conformance.judge.signature import Signature
from conformance.results.atlas import Atlas, AtlasCell
from conformance.results.finding import Finding


def op_family(op: str) -> str:
    """An op key's family, or the key itself where it is none.

    >>> op_family("onnx.Gather-13"), op_family("weird")
    ('onnx.Gather', 'weird')
    """
    try:
        return family(op)
    except ValueError:
        return op


class FindingIndex:
    """A run's findings by root cause, for matching cells quickly."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        # every mode a finding shows in (execution modes of one framework are one finding): a cell of any of them;
        # and the root causes building renamed into it (a cell that recorded one before the rename)
        self.by: dict[Signature, Finding] = {s: f for f in findings for s in f.built_from}
        self.by |= {s: f for f in findings for s in f.member_signatures()}

    def standing_for(self, sig: Signature, fits: frozenset[Behaviour]) -> Finding | None:
        """The finding that a sighting's root cause settled into, or None."""
        return self.by.get(merged_into(sig, fits, self.by) or sig)


def cell_findings(cell: AtlasCell, index: FindingIndex) -> list[Finding]:
    """The findings behind a cell that departs from its docs (none behind one
    that conforms), each once, in the order of the cell's cases."""
    if cell.documented:
        return []
    found = (index.standing_for(r.signature, r.fits) for r in cell.roots)
    return list({id(f): f for f in found if f is not None}.values())


class AtlasLinks:
    """For one report: the first atlas cell that links to each finding (by
    :func:`cell_findings` over all the run's findings, as the atlas tables link
    them) and the cells of each (condition, class), found in one pass over the
    atlas (one pass per finding made a report of 210 findings and 7,440 cells
    spend most of its time here).

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.results.atlas import RootSighting
    >>> sig = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
    ...     ("bad index",))
    >>> cell = AtlasCell("size", "element gather", "torch.gather", "torch", "2.13.0", "wraps", None, False, {},
    ...                  roots=(RootSighting(sig),))
    >>> f = Finding(sig, Case("torch.gather", np.arange(5.0), np.array([5]), {"dim": 0}), None, {})
    >>> links = AtlasLinks(Atlas([cell]), [f])
    >>> links.first_cell(f) is cell, [c.oracle for c in links.alike(cell)]
    (True, ['torch'])
    """

    def __init__(self, atlas: Atlas, findings: Sequence[Finding]) -> None:
        index = FindingIndex(findings)
        self._first: dict[str, AtlasCell] = {}
        self._alike: dict[tuple[str, str], list[AtlasCell]] = {}
        for c in atlas.cells:
            self._alike.setdefault((c.condition, c.eq_class), []).append(c)
            for f in cell_findings(c, index):
                self._first.setdefault(f.signature.key(), c)

    def first_cell(self, finding: Finding) -> AtlasCell | None:
        """The first cell (in atlas order) that links to ``finding``, or None."""
        return self._first.get(finding.signature.key())

    def alike(self, cell: AtlasCell) -> list[AtlasCell]:
        """Every cell of ``cell``'s condition and class (``cell`` among them)."""
        return self._alike.get((cell.condition, cell.eq_class), [])
