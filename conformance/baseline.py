"""The baseline: accepted discrepancies, reviewed like code (``conformance/baseline.json``).

Each entry names a behaviour by signature fields, each an exact string or an
``fnmatch`` pattern (``"torch.*"``, ``"*"``), plus ``tags``: a finding matches
when every entry tag (a pattern too) matches one of its tags (a subset
test). ``versions`` is a PEP 440 specifier set on the oracle's version
(``">=2.13,<2.14"``; pre-releases and nightlies such as ``0.10.3.dev20260101``
are compared as PEP 440 says). Every entry has a ``note`` (what the behaviour
is), ``at_fault`` (framework, spec or docs) and a ``link``. The file carries
a ``format`` version and is validated (:func:`validate`) before use: an entry
that names nothing (``{}`` would match everything) or an invalid specifier is
an error, never a silent pass.

:func:`check` returns the problems without touching the run: a finding no
entry matches (new behaviour), and an entry that matches no finding although
its oracle ran at a version in range and its op was in the campaign (fixed
upstream, or the suite lost its power). :func:`statuses` says, per finding,
which entry (if any) accepts it.

>>> entry = Entry(op="numpy.take", oracle="numpy", outcome="value instead of error", tags=("0-d",), versions=">=2,<3", note="n", link="l")
>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "", ("in-range", "0-d"))
>>> entry.matches(sig)
True
>>> Entry(op="numpy.take", versions="<2").matches(sig)
False
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from conformance.findings import Finding, RunResult, Signature
from conformance.model import OpKey

DEFAULT_PATH = Path(__file__).with_name("baseline.json")
BASELINE_FORMAT = 1
"""Version of the baseline file layout (its ``"format"`` key)."""
SIGNATURE_FIELDS = ("op", "oracle", "device", "mode", "outcome", "policy")
AT_FAULT = ("framework", "spec", "docs")


class BaselineError(ValueError):
    """A baseline file that is not one (names the file and what is wrong)."""


def in_range(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies the PEP 440 specifier set ``spec`` (empty: any).
    Local labels (``+cpu``) are ignored; pre-releases and dev builds count.

    >>> in_range("2.13.0+cpu", ">=2.13,<2.14"), in_range("1.31.1", "==1.30.*"), in_range("0.10.2", "")
    (True, False, True)
    >>> in_range("0.10.2.dev20260101", ">=0.10.2")   # a nightly before the release
    False
    """
    try:
        parsed = Version(version)
    except InvalidVersion:
        return False
    return SpecifierSet(spec).contains(Version(parsed.public), prereleases=True)


@dataclass(frozen=True)
class Entry:
    """One accepted discrepancy (see the module docstring)."""

    op: str = "*"
    oracle: str = "*"
    device: str = "*"
    mode: str = "*"
    outcome: str = "*"
    policy: str = "*"
    tags: tuple[str, ...] = ()
    versions: str = ""
    note: str = ""
    link: str = ""
    at_fault: str = ""

    def matches(self, sig: Signature) -> bool:
        """Whether ``sig`` is this behaviour (at a version in range)."""
        if not all(fnmatchcase(getattr(sig, f), getattr(self, f)) for f in SIGNATURE_FIELDS):
            return False
        if not all(any(fnmatchcase(t, want) for t in sig.tags) for want in self.tags):
            return False
        return in_range(sig.version, self.versions)

    def describe(self) -> str:
        tags = f" tags {list(self.tags)}" if self.tags else ""
        return f"{self.op} on {self.oracle} {self.versions or '(any version)'}: {self.outcome}, policy {self.policy}{tags}"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "tags": list(self.tags)}


REQUIRED = ("op", "oracle", "outcome", "versions", "note", "at_fault", "link")
KNOWN = tuple(f.name for f in fields(Entry))


def entry_problems(d: Any) -> list[str]:
    """What is wrong with one entry as JSON (empty if nothing).

    >>> entry_problems({})[:2]
    ['missing op', 'missing oracle']
    >>> entry_problems({**Entry(op="a", oracle="b", outcome="c", note="n", link="l", at_fault="docs").to_json(), "versions": "banana"})
    ["versions 'banana' is not a PEP 440 specifier set"]
    """
    if not isinstance(d, dict):
        return [f"an entry must be an object, got {type(d).__name__}"]
    problems = [f"missing {k}" for k in REQUIRED if k not in d]
    problems += [f"unknown key {k!r} (known: {', '.join(KNOWN)})" for k in d if k not in KNOWN]
    problems += [f"{k} must be a string" for k in KNOWN if k != "tags" and k in d and not isinstance(d[k], str)]
    if not isinstance(d.get("tags", []), list) or not all(isinstance(t, str) for t in d.get("tags", [])):
        problems.append("tags must be a list of strings")
    if any(d.get(k) in ("", "*") for k in ("op", "oracle", "outcome")):
        problems.append("op, oracle and outcome must name something (an entry matching everything hides every finding)")
    if isinstance(d.get("versions"), str):
        try:
            SpecifierSet(d["versions"])
        except InvalidSpecifier:
            problems.append(f"versions {d['versions']!r} is not a PEP 440 specifier set")
    if "at_fault" in d and d["at_fault"] not in AT_FAULT:
        problems.append(f"at_fault must be one of {', '.join(AT_FAULT)}, got {d['at_fault']!r}")
    return problems


def validate(data: Any, source: str = "baseline") -> list[str]:
    """Every problem of a baseline document, each naming the entry.

    >>> validate({"format": 1, "entries": [{}]})[0]
    'baseline: entry 1: missing op'
    >>> validate([])
    ['baseline: not a baseline (expected an object with "format" and "entries")']
    """
    if not isinstance(data, dict) or "entries" not in data:
        return [f'{source}: not a baseline (expected an object with "format" and "entries")']
    problems = [] if data.get("format") == BASELINE_FORMAT else [f"{source}: format must be {BASELINE_FORMAT}, got {data.get('format')!r}"]
    problems += [f"{source}: unknown key {k!r}" for k in data if k not in ("format", "about", "entries")]
    if not isinstance(data["entries"], list):
        return problems + [f"{source}: entries must be a list"]
    for n, entry in enumerate(data["entries"], start=1):
        problems += [f"{source}: entry {n}: {p}" for p in entry_problems(entry)]
    return problems


def load(path: str | Path | None = None) -> list[Entry]:
    """The entries of a baseline file (default: the packaged one); a
    :class:`BaselineError` naming the file and every problem if it is not valid."""
    path = Path(path or DEFAULT_PATH)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline ({exc.strerror})") from None
    except ValueError as exc:
        raise BaselineError(f"{path}: the baseline is not JSON ({exc})") from None
    problems = validate(data, str(path))
    if problems:
        raise BaselineError("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    return [Entry(**{**e, "tags": tuple(e.get("tags", ()))}) for e in data["entries"]]


def could_see(entry: Entry, result: RunResult) -> bool:
    """Whether the campaign could have seen ``entry``: an oracle it names ran
    at a version in range, on an op it names that the campaign covered."""
    oracles = result.facts.get("oracles", {})
    ops = result.budget.get("ops")
    for name, info in oracles.items():
        if not (fnmatchcase(name, entry.oracle) and in_range(info["version"], entry.versions)):
            continue
        if not (fnmatchcase(info.get("device", ""), entry.device) and fnmatchcase(info.get("mode", ""), entry.mode)):
            continue
        covered = [k for k in info.get("ops", ()) if ops is None or k in ops or OpKey.parse(k).family in ops]
        if any(fnmatchcase(k, entry.op) for k in covered):
            return True
    return False


def accepting(finding: Finding, entries: list[Entry]) -> Entry | None:
    """The first entry that accepts ``finding``, or None (it is new)."""
    return next((e for e in entries if e.matches(finding.signature)), None)


def annotated(result: RunResult, entries: list[Entry]) -> RunResult:
    """A copy of ``result`` with each finding marked ``known`` (with the
    entry's note and link) or ``new``; ``result`` itself is not changed."""
    findings = []
    for f in result.findings:
        entry = accepting(f, entries)
        findings.append(replace(f, status="known" if entry else "new", baseline_note=entry.note if entry else None,
                                baseline_link=entry.link if entry else None))  # fmt: skip
    return replace(result, findings=findings)


def check(result: RunResult, entries: list[Entry]) -> list[str]:
    """Problems, one line each: ``new: ...`` per finding no entry accepts,
    ``vanished: ...`` per entry no finding matches although it could have,
    ``harness error: ...`` per error in the suite itself, and ``nothing
    tested`` when no oracle ran a single case. ``result`` is not changed."""
    problems = [f"new: {f.signature.words()}" for f in result.findings if accepting(f, entries) is None]
    for e in entries:
        if could_see(e, result) and not any(e.matches(f.signature) for f in result.findings):
            problems.append(f"vanished: {e.describe()} ({e.note[:80]})")
    problems += [f"harness error in {h.stage}: {h.error}" for h in result.harness_errors]
    if not sum(result.cases.values()):
        problems.append("nothing tested: no oracle ran a single case")
    return problems


# -- seeding a baseline from a campaign -------------------------------------------

_NOTES: tuple[tuple[str, str, str], ...] = (
    # (outcome/policy pattern, what it is, who is at fault)
    ("value instead of error|wraps", "accepts an index the documented policy rejects and wraps it (Python-style)", "docs"),
    ("value instead of error|clamps*", "accepts an out-of-range index and clamps it instead of raising", "framework"),
    ("value instead of error|zero-fills", "reads an out-of-range index as 0 instead of raising", "framework"),
    ("value instead of error|garbage", "returns a value no index policy explains where the docs say it raises", "framework"),
    ("value instead of error|", "accepts shapes/attributes the documented preconditions reject", "docs"),
    ("error instead of value (dtype unsupported)|*", "rejects a dtype the catalog (from the docs) lists as supported", "docs"),
    ("wrong error (dtype unsupported)|*", "reports an unsupported dtype before the precondition the reference checks", "spec"),
    ("error instead of value*|*", "raises where the documented semantics give a value (edge case: 0-d or empty)", "framework"),
    ("wrong shape|*", "returns a result of another shape than the documented semantics", "framework"),
    ("*", "differs from the documented semantics", "framework"),
)


def _note(outcome: str, policy: str) -> tuple[str, str]:
    key = f"{outcome}|{policy}"
    return next((n, f) for pattern, n, f in _NOTES if fnmatchcase(key, pattern))


def seed_entries(result: RunResult, link: str = "") -> list[dict[str, Any]]:
    """Baseline entries (JSON-able) that accept every finding of ``result``:
    one per (op with ONNX opsets folded into ``-*``, oracle, outcome, policy),
    its tags the ones all its findings share, the versions pinned to the
    release series seen, and a drafted note to be reviewed.

    >>> from conformance.findings import Finding, Case
    >>> import numpy as np
    >>> from conformance.model import Outcome
    >>> sig = Signature("onnx.Gather-13", "onnxruntime", "1.31.1", "cpu", "session", "wrong shape", "", ("in-range", "0-d"))
    >>> f = Finding(sig, Case("onnx.Gather-13", np.zeros(1), np.zeros(1, np.int64), {}), Outcome.returned(np.zeros(1)), {})
    >>> r = RunResult({}, 0, {}, {}, 0.0, {}, [f])
    >>> e = seed_entries(r)[0]
    >>> e["op"], e["tags"], e["versions"]
    ('onnx.Gather-*', ['0-d', 'in-range'], '>=1.31,<1.32')
    """
    groups: dict[tuple[str, ...], list[Signature]] = {}
    for f in result.findings:
        s = f.signature
        key = OpKey.parse(s.op)
        op = f"{key.family}-*" if key.opset is not None else str(key)
        groups.setdefault((op, s.oracle, s.device, s.mode, s.outcome, s.policy), []).append(s)
    entries = []
    for (op, oracle, device, mode, outcome, policy), sigs in groups.items():
        shared = sorted(set.intersection(*(set(s.tags) for s in sigs)))
        major_minor = (Version(sigs[0].version).release + (0,))[:2]
        nxt = (major_minor[0], major_minor[1] + 1)
        note, fault = _note(outcome, policy)
        entries.append({
            "op": op, "oracle": oracle, "device": device, "mode": mode, "outcome": outcome, "policy": policy,
            "tags": shared, "versions": f">={major_minor[0]}.{major_minor[1]},<{nxt[0]}.{nxt[1]}",
            "note": f"{note} (seen: {'; '.join(sorted({', '.join(s.tags) for s in sigs}))[:200]}). Drafted from the seed campaign; review.",
            "at_fault": fault, "link": link,
        })  # fmt: skip
    return entries
