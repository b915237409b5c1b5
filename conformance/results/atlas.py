"""The behaviour atlas as a run writes it (``atlas.json``): one cell per
(condition, class, op, oracle), built by :mod:`conformance.campaign.atlas_runner`.

A cell (:class:`AtlasCell`) is one (condition, class, op, oracle):

* ``behaviour``: the judge's word (:func:`~conformance.judge.verdict.judge`, the
  same judge as the campaign's), or ``harness error`` when the suite itself
  failed on the probe (its reference or judging raised);
* ``error_class``: the oracle's normalized error class, if it raised;
* ``documented``: whether the verdict conforms, i.e. the op did what its docs say;
* ``example``: the case (:meth:`Case.to_json <conformance.core.case.Case.to_json>`,
  so ``Case.from_json(cell.example)`` rebuilds it) with ``reference`` and
  ``observed``, the short descriptions of what the docs give and what the
  oracle did (and ``message``, the start of its error message);
* ``probes`` and ``seen``: how many probe cases the cell aggregates and the
  distinct behaviours among them;
* ``cases``: where it aggregates more than one, each case in probe order, what
  sets it apart (its ``attrs`` and index dtype, ``indices``) and what the oracle
  did on it (``behaviour``, ``documented``, ``observed``): a cell shows one
  example, and this says what every mode did (JAX 0.10.2's ``jnp.take`` on bool
  indices returns a value in "fill", raises in "clip", reads index 0 in "wrap");
* ``roots``: the root cause of each departing probe case, computed by the
  campaign's own rule (:class:`RootSighting`): the report links a cell to the
  finding that stands for it by comparing these, never by parsing words.

**One cell per (condition, class, op, oracle).** The class is part of the key
because one op can appear in two classes (``numpy.take`` is a block gather,
and with ``axis=None`` a flattened one). Where a cell aggregates several probe
cases (the modes of ``numpy.take``, ``jnp.take``, ``jnp.take_along_axis``;
the three dtypes of ``dtype-min``/``dtype-max``), it shows the **first
non-conforming** one in probe order (mode selector, then dtype), or the first
if all conform: a cell is green only if every case in it conforms.

>>> cell = AtlasCell("size", "block gather", "numpy.take", "numpy", "2.4.6", "raises", "index out of range", True, {})
>>> Atlas.from_json(Atlas([cell]).to_json()).cell("size", "block gather", "numpy.take", "numpy") == cell
True
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from conformance.cases.probes import CONDITIONS
from conformance.core.behaviour import Behaviour
from conformance.core.encoding import read_json_file
from conformance.core.outcome import ErrorClass
from conformance.judge.signature import Signature

ATLAS_FORMAT = 1
"""Version of the ``atlas.json`` layout (its ``"format"`` key)."""
MESSAGE_CHARS = 200

CellKey = tuple[str, str, str, str]
"""(condition key, equivalence class value, op key, oracle name)."""


@dataclass(frozen=True)
class RootSighting:
    """A departing probe case's root cause as the campaign computes it
    (:meth:`conformance.judge.judged.Judged.signature`) with the behaviour
    words its example fits: what links a cell to the finding that stands for
    it once the sightings settle (:func:`conformance.judge.rootcause.merged_into`).

    >>> r = RootSighting(Signature("t.g", "t", "1", "cpu", "eager", "wrong value", "ambiguous", ("bad index",)),
    ...                  frozenset({Behaviour.WRAPS, Behaviour.CLAMPS}))
    >>> RootSighting.from_json(r.to_json()) == r
    True
    """

    signature: Signature
    fits: frozenset[Behaviour] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {"signature": self.signature.to_json(), "fits": sorted(w.value for w in self.fits)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RootSighting:
        return cls(Signature.from_json(d["signature"]), frozenset(Behaviour(w) for w in d.get("fits", ())))


@dataclass(frozen=True)
class AtlasCell:
    """One (condition, class, op, oracle): see the module docstring. ``roots``:
    the root causes of the cell's departing probe cases (none where it conforms)."""

    condition: str
    eq_class: str
    op: str
    oracle: str
    version: str
    behaviour: Behaviour
    error_class: ErrorClass | None
    documented: bool
    example: dict[str, Any]
    probes: int = 1
    seen: tuple[Behaviour, ...] = ()
    roots: tuple[RootSighting, ...] = ()
    cases: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        """Words become vocabulary members (the file's, or a test's)."""
        object.__setattr__(self, "behaviour", Behaviour(self.behaviour))
        object.__setattr__(self, "error_class", ErrorClass(self.error_class) if self.error_class else None)
        object.__setattr__(self, "seen", tuple(Behaviour(b) for b in self.seen))

    @property
    def key(self) -> CellKey:
        return (self.condition, self.eq_class, self.op, self.oracle)

    @property
    def declared(self) -> bool:
        """True where the oracle declared the inputs not supported without running its framework
        (it cannot express them at all): the cell says what the oracle assumes, not what the framework does."""
        return self.behaviour is Behaviour.UNSUPPORTED

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("seen", "roots", "cases")}
        d["behaviour"] = self.behaviour.value
        d["error_class"] = self.error_class.value if self.error_class else None
        d |= {"seen": [b.value for b in self.seen], "roots": [r.to_json() for r in self.roots]}
        return d | ({"cases": [dict(c) for c in self.cases]} if self.cases else {})

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AtlasCell:
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: v for k, v in d.items() if k in known}
        values["seen"] = tuple(values.get("seen", ()))
        values["roots"] = tuple(RootSighting.from_json(r) for r in values.get("roots", ()))
        values["cases"] = tuple(dict(c) for c in values.get("cases", ()))
        return cls(**values)


class AtlasFileError(ValueError):
    """A file given as an atlas that is not one (or of another format)."""


@dataclass
class Atlas:
    """The cells, in condition order (then class, catalog op, oracle), the
    harness errors met while building them (``condition``, ``eq_class``, ``op``, ``error``),
    and the cells it did not run (``condition``, ``eq_class``, ``op``, ``oracle``,
    ``why``: a short budget's subset, a deadline, a stop); empty for a whole atlas."""

    cells: list[AtlasCell]
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)

    def keys(self) -> set[CellKey]:
        """Every cell's key."""
        return {c.key for c in self.cells}

    def declared(self) -> list[AtlasCell]:
        """The cells declared rather than observed (:attr:`AtlasCell.declared`)."""
        return [c for c in self.cells if c.declared]

    def cell(self, condition: str, eq_class: str, op: str, oracle: str) -> AtlasCell:
        """The cell with this key (a KeyError if there is none)."""
        for c in self.cells:
            if c.key == (condition, eq_class, op, oracle):
                return c
        raise KeyError((condition, eq_class, op, oracle))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": ATLAS_FORMAT,
            "conditions": [c.to_json() for c in CONDITIONS],
            "cells": [c.to_json() for c in self.cells],
            "errors": list(self.errors),
            "skipped": list(self.skipped),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Atlas:
        return cls([AtlasCell.from_json(c) for c in d["cells"]], list(d.get("errors", ())), list(d.get("skipped", ())))

    def save(self, path: str | Path) -> None:
        """Write atomically (a reader never sees half a file, and two threads that save at once each rename a
        whole file of their own into place)."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1, default=str), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Atlas:
        """Read an ``atlas.json``; an :class:`AtlasFileError` naming the file and
        what is wrong with it if it is not one.

        >>> Atlas.load("/nonexistent/atlas.json")
        Traceback (most recent call last):
        ...
        conformance.results.atlas.AtlasFileError: /nonexistent/atlas.json: cannot read it (No such file or directory)
        """
        path = Path(path)
        d = read_json_file(path, "an atlas file", AtlasFileError)
        if not isinstance(d, dict) or "cells" not in d or "format" not in d:
            raise AtlasFileError(
                f'{path}: not a gather-conformance atlas file (expected an object with "format" and "cells")'
            )
        if d["format"] != ATLAS_FORMAT:
            raise AtlasFileError(
                f"{path}: atlas format {d['format']!r} is not supported (this version reads format {ATLAS_FORMAT})"
            )
        try:
            return cls.from_json(d)
        except (KeyError, TypeError, ValueError) as exc:
            raise AtlasFileError(f"{path}: damaged atlas file ({type(exc).__name__}: {exc})") from None
