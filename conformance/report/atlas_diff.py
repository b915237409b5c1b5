"""What an upgrade changed in the probe atlas: the cells whose behaviour (or
error class) differs between an old atlas and a new one, in the words the
report leads with: ``2.13.0 → 2.14.0: clamps → raises``.

>>> from conformance.results.atlas import Atlas, AtlasCell
>>> def cell(version, behaviour, error=None):
...     return AtlasCell("size", "element gather", "torch.gather", "torch", version, behaviour, error,
...     behaviour == "raises", {})
>>> [c.words() for c in atlas_changes(Atlas([cell("2.13.0", "clamps")]),
...     Atlas([cell("2.14.0", "raises", "index out of range")]))]
['2.13.0 → 2.14.0: clamps → raises (index out of range)']
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.cases.probes import condition, condition_order
from conformance.core.behaviour import severity
from conformance.results.atlas import Atlas, AtlasCell, CellKey

ERROR_BEHAVIOURS = frozenset({"raises", "wrong error", "internal error"})
"""Behaviours whose cell also names the error class."""
GONE = "—"
"""A cell that one of the two atlases does not have."""


def cell_words(cell: AtlasCell | None) -> str:
    """A cell's behaviour in words, with its error class where it raised.

    >>> from conformance.results.atlas import AtlasCell
    >>> cell_words(AtlasCell("size", "element gather", "t.g", "t", "1", "raises", "index out of range", True, {}))
    'raises (index out of range)'
    >>> cell_words(None)
    '—'
    """
    if cell is None:
        return GONE
    if cell.error_class and cell.behaviour in ERROR_BEHAVIOURS:
        return f"{cell.behaviour} ({cell.error_class})"
    return str(cell.behaviour)


def condition_words(key: str) -> str:
    """A condition in words (its key where it is not a known condition).

    >>> condition_words("size"), condition_words("no-such")
    ('index size', 'no-such')
    """
    try:
        return condition(key).words
    except KeyError:
        return key


@dataclass(frozen=True)
class AtlasChange:
    """One cell that differs between two atlases (``before`` / ``after``: None where absent)."""

    before: AtlasCell | None
    after: AtlasCell | None

    @property
    def cell(self) -> AtlasCell:
        shown = self.after or self.before
        assert shown is not None, "a change has at least one side"
        return shown

    @property
    def key(self) -> CellKey:
        return self.cell.key

    def versions(self) -> str:
        """``2.13.0 → 2.14.0``, or the one version where it did not change."""
        old, new = (c.version if c else "" for c in (self.before, self.after))
        return f"{old} → {new}" if old and new and old != new else new or old

    def words(self) -> str:
        """``2.13.0 → 2.14.0: clamps → raises`` (see the module docstring)."""
        return f"{self.versions()}: {cell_words(self.before)} → {cell_words(self.after)}"

    def where(self) -> str:
        """The cell: op, oracle, condition in words and class.

        >>> from conformance.results.atlas import AtlasCell
        >>> AtlasChange(None,
        ...     AtlasCell("size", "element gather", "torch.gather", "torch", "2", "raises", None, True, {})).where()
        'torch.gather on torch: index size (element gather)'
        """
        c = self.cell
        return f"{c.op} on {c.oracle}: {condition_words(c.condition)} ({c.eq_class})"

    def order(self) -> tuple[int, int, int, str, str]:
        """Changes of behaviour before cells that came or went; the most alarming first, then in probe order."""
        both = self.before is not None and self.after is not None
        worst = max(severity(c.behaviour) for c in (self.before, self.after) if c is not None)
        return (0 if both else 1, -worst, condition_order(self.cell.condition), self.cell.op, self.cell.oracle)

    def to_json(self) -> dict[str, str]:
        c = self.cell
        return {
            "condition": c.condition,
            "eq_class": c.eq_class,
            "op": c.op,
            "oracle": c.oracle,
            "versions": self.versions(),
            "before": cell_words(self.before),
            "after": cell_words(self.after),
        }


def atlas_changes(old: Atlas, new: Atlas) -> list[AtlasChange]:
    """Every cell whose words (:func:`cell_words`) differ, or that only one
    atlas has, ordered by :meth:`AtlasChange.order`.

    >>> from conformance.results.atlas import Atlas
    >>> atlas_changes(Atlas([]), Atlas([]))
    []
    """
    before = {c.key: c for c in old.cells}
    after = {c.key: c for c in new.cells}
    changes = [
        AtlasChange(before.get(k), after.get(k))
        for k in dict.fromkeys([*before, *after])
        if cell_words(before.get(k)) != cell_words(after.get(k))
    ]
    return sorted(changes, key=AtlasChange.order)
