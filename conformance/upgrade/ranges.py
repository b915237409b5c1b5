"""Baseline version ranges that follow what an upgrade study observed: a draft
for review (``gather-conformance upgrade ... --update-baseline PATH``).

Each entry's PEP 440 range (``versions``) is **widened** to cover the
versions where its reproducers still reproduce, and **narrowed** to leave out
those where they conform (fixed) or show another root cause (changed), and
otherwise kept as it was: versions nobody tested keep the range's verdict.
Bounds move by release series (a reproduction on 1.30.0 below ``>=1.31``
widens to ``>=1.30``; one on 1.32.0 above ``<1.32`` to ``<1.33``), never past
a version seen fixed; a fixed version above (below) every reproducing one
becomes the upper (lower) bound; one between them is left out with ``!=``.

>>> adjusted(">=1.31,<1.32", {"1.30.0": True, "1.31.1": True, "1.32.0": False})
'>=1.30,<1.32'
>>> adjusted(">=1.31,<1.32", {"1.31.1": True, "1.32.0": True})
'>=1.31,<1.33'
>>> adjusted(">=1.31,<1.32", {"1.30.0": False, "1.31.1": False})
'>=1.31,<1.31.1'
>>> adjusted(">=2.2,<2.5", {"2.2.6": True, "2.3.5": False, "2.4.6": True})
'>=2.2,<2.5,!=2.3.5'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from conformance.gate import baseline as bl
from conformance.upgrade.timeline import CHANGED, FIXED, REPRODUCES, EntryTimeline


@dataclass
class Bounds:
    """A range as a lower bound, an upper bound and excluded versions (any may be absent)."""

    lower: Specifier | None = None
    upper: Specifier | None = None
    excluded: list[Specifier] = field(default_factory=list)

    def contains(self, v: Version) -> bool:
        return all(s.contains(v, prereleases=True) for s in self.specifiers())

    def specifiers(self) -> list[Specifier]:
        return [s for s in (self.lower, self.upper) if s is not None] + self.excluded

    def text(self) -> str:
        return ",".join(str(s) for s in self.specifiers())


def _series(v: Version, step: int = 0) -> str:
    """``X.Y`` of ``v`` (``step=1``: the next series, ``X.(Y+1)``)."""
    release = (*v.release, 0)[:2]
    return f"{release[0]}.{release[1] + step}"


def _wildcard_bounds(version: str) -> tuple[str, str]:
    """``==1.31.*`` as ``(>=1.31, <1.32)``."""
    parts = [int(p) for p in version.removesuffix(".*").split(".")]
    upper = [*parts[:-1], parts[-1] + 1]
    return ">=" + ".".join(map(str, parts)), "<" + ".".join(map(str, upper))


def bounds(spec: str) -> Bounds | None:
    """A specifier set as :class:`Bounds` (``==X.*``, ``~=`` and ``==X`` turned
    into bounds), or None where it uses an operator that has none (``===``).

    >>> bounds("==1.31.*").text(), bounds("~=0.9.1").text(), bounds("").text()
    ('>=1.31,<1.32', '>=0.9.1,<0.10', '')
    """
    out = Bounds()
    for s in SpecifierSet(spec):
        parts: list[str]
        if s.operator == "==" and s.version.endswith(".*"):
            parts = list(_wildcard_bounds(s.version))
        elif s.operator == "~=":
            release = s.version.split(".")
            parts = [f">={s.version}", "<" + ".".join([*release[:-2], str(int(release[-2]) + 1)])]
        elif s.operator == "==":
            parts = [f">={s.version}", f"<={s.version}"]
        elif s.operator in (">=", ">", "<", "<=", "!="):
            parts = [str(s)]
        else:
            return None
        for p in map(Specifier, parts):
            if p.operator == "!=":
                out.excluded.append(p)
            elif p.operator in (">=", ">"):
                out.lower = p if out.lower is None or not out.lower.contains(Version(p.version), True) else out.lower
            else:
                out.upper = p if out.upper is None or not out.upper.contains(Version(p.version), True) else out.upper
    return out


def adjusted(spec: str, observed: Mapping[str, bool]) -> str:
    """``spec`` widened to every version observed reproducing (True) and
    narrowed to leave out every one observed not to (False): see the module
    docstring. A range :func:`bounds` cannot read is returned as it was."""
    b = bounds(spec)
    if b is None:
        return spec
    seen = {Version(Version(v).public): ok for v, ok in observed.items() if _is_version(v)}
    good = sorted(v for v, ok in seen.items() if ok)
    bad = sorted(v for v, ok in seen.items() if not ok)
    for v in good:
        b.excluded = [s for s in b.excluded if s.contains(v, prereleases=True)]
        if b.lower is not None and not b.lower.contains(v, prereleases=True):
            floor = Version(_series(v))
            blockers = [n for n in bad if floor <= n < v]
            b.lower = Specifier(f">{blockers[-1]}" if blockers else f">={_series(v)}")
        if b.upper is not None and not b.upper.contains(v, prereleases=True):
            ceiling = Version(_series(v, 1))
            blockers = [n for n in bad if v < n < ceiling]
            b.upper = Specifier(f"<{blockers[0]}" if blockers else f"<{_series(v, 1)}")
    for n in bad:
        if not b.contains(n):
            continue
        if all(n > v for v in good):
            b.upper = Specifier(f"<{n}")
        elif all(n < v for v in good):
            b.lower = Specifier(f">{n}")
        else:
            b.excluded.append(Specifier(f"!={n}"))
    return b.text()


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


@dataclass(frozen=True)
class RangeChange:
    """One entry whose range the draft changes, and why."""

    entry: bl.Entry
    new: str
    observed: dict[str, str]
    """Installed version -> replay status."""

    def kind(self) -> str:
        """``widened``, ``narrowed`` or ``widened and narrowed`` (on the versions observed)."""
        old, new = SpecifierSet(self.entry.versions), SpecifierSet(self.new)
        wider = any(new.contains(v, True) and not old.contains(v, True) for v in self._versions())
        narrower = any(old.contains(v, True) and not new.contains(v, True) for v in self._versions())
        return " and ".join(w for w, on in (("widened", wider), ("narrowed", narrower)) if on) or "rewritten"

    def _versions(self) -> list[Version]:
        return [Version(Version(v).public) for v in self.observed if _is_version(v)]

    def line(self) -> str:
        """One line of the summary the command prints.

        >>> entry = bl.Entry(op="onnx.Gather", oracle="onnxruntime", outcome="wrong value", versions=">=1.31,<1.32")
        >>> print(RangeChange(entry, ">=1.31,<1.33", {"1.31.1": "reproduces", "1.32.0": "reproduces"}).line())
        widened: onnx.Gather on onnxruntime wrong value, for any input:
        >=1.31,<1.32 → >=1.31,<1.33 (reproduces on 1.31.1, 1.32.0)
        """
        by: dict[str, list[str]] = {}
        for v, status in self.observed.items():
            by.setdefault(status, []).append(v)
        seen = "; ".join(f"{status} on {', '.join(vs)}" for status, vs in by.items())
        e = self.entry
        where = f"{e.op} on {e.oracle} {e.outcome}{f', policy {e.policy}' if e.policy not in ('', '*') else ''}"
        condition = ", ".join(e.condition) or "any input"
        return f"{self.kind()}: {where}, for {condition}: {e.versions or 'any version'} → {self.new} ({seen})"


def range_changes(timelines: Sequence[EntryTimeline], installed: Sequence[str]) -> list[RangeChange]:
    """The entries whose range changes, from their replay at the versions ``installed``."""
    out = []
    for t in timelines:
        observed = {v: s for v, s in zip(installed, t.statuses) if s in (REPRODUCES, FIXED, CHANGED)}
        try:
            new = adjusted(t.entry.versions, {v: s == REPRODUCES for v, s in observed.items()})
        except InvalidSpecifier:
            continue
        if SpecifierSet(new) != SpecifierSet(t.entry.versions):
            out.append(RangeChange(t.entry, new, observed))
    return out


def draft_baseline(
    source: Path, entries: Sequence[bl.Entry], changes: Sequence[RangeChange], note: str
) -> dict[str, Any]:
    """The baseline of ``source`` (its ``entries``, in order) with the changed
    ranges, as a format-2 document; its ``about`` says it is a draft and why."""
    new = {id(c.entry): c.new for c in changes}
    try:
        about = str(json.loads(source.read_text(encoding="utf-8")).get("about", ""))
    except (OSError, ValueError, AttributeError):
        about = ""
    return {
        "format": bl.BASELINE_FORMAT,
        "about": f"{about} {note}".strip(),
        "entries": [replace(e, versions=new.get(id(e), e.versions)).to_json() for e in entries],
    }
