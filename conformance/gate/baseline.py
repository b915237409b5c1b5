"""The baseline: accepted root causes, reviewed like code, each with the
reproducers that show it (``conformance/gate/baseline.json``, format 3; format 2 still reads).

Each entry names one root cause (:mod:`conformance.judge.rootcause`) by its fields,
each an exact string or an ``fnmatch`` pattern (``"torch.*"``): op family,
oracle, device, mode, outcome, observed policy and ``condition`` (matched
element by element). ``versions`` is a PEP 440 specifier set on the oracle's
version (``">=2.13,<2.14"``; pre-releases and nightlies such as
``0.10.3.dev20260101`` compare as PEP 440 says). Every entry has a ``note``
(what the behaviour is), ``at_fault`` (framework, spec or docs), a ``link``
and its ``reproducers``: exact cases (``Case.to_json()``: op key, data,
indices, attributes) that :mod:`conformance.gate.replay` runs on the installed
frameworks, so the gate notices a fix upstream or a changed behaviour
without depending on what a random campaign happens to draw. The file
carries a ``format`` version and is validated (:func:`validate`) before use:
an entry that names nothing, an invalid specifier or a reproducer that is
not a case is an error, never a silent pass.

:func:`check` returns the problems without touching the run: a finding no
entry matches (a new root cause), and each replayed entry that is fixed or
changed. :func:`accepting` says which entry (if any) accepts a finding.

>>> entry = Entry(op="numpy.take", oracle="numpy", outcome="value instead of error",
...     condition=("precondition: 0-d input",), versions=">=2,<3")
>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "",
...     ("precondition: 0-d input",))
>>> entry.matches(sig), Entry(op="numpy.take", versions="<2").matches(sig)
(True, False)
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import asdict, dataclass, fields, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from conformance.core.behaviour import Behaviour
from conformance.core.vocabulary import FindingStatus, GateFailure, GateProblem, ReplayStatus
from conformance.judge import rootcause
from conformance.judge.signature import Signature
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult

DEFAULT_PATH = Path(__file__).with_name("baseline.json")
BASELINE_FORMAT = 3
"""Version of the baseline file layout (its ``"format"`` key); 3 added ``oracles`` (an entry's execution modes)."""
READ_FORMATS = (2, BASELINE_FORMAT)
"""Layouts this version reads (format 2 is format 3 without ``oracles``)."""
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
    """One accepted root cause (see the module docstring)."""

    op: str = "*"
    oracle: str = "*"
    device: str = "*"
    mode: str = "*"
    outcome: str = "*"
    policy: str = "*"
    condition: tuple[str, ...] = ()
    versions: str = ""
    note: str = ""
    link: str = ""
    at_fault: str = ""
    reproducers: tuple[dict[str, Any], ...] = ()
    standalone: bool = True
    """False where the behaviour shows only after other cases ran in the same
    process (torch.compile's caches): replay lists the entry as skipped."""
    oracles: tuple[str, ...] = ()
    """The other execution modes (oracle names, of ``oracle``'s framework) in
    which this root cause shows: one fact, one entry (any ``mode`` of these)."""

    def matches(self, sig: Signature) -> bool:
        """Whether ``sig`` is this root cause (at a version in range).

        >>> e = Entry(op="t.g", oracle="t", mode="eager", outcome="crash", oracles=("t-compile",))
        >>> sig = Signature("t.g", "t-compile", "1", "cpu", "compile", "crash", "", ())
        >>> e.matches(sig), e.matches(replace(sig, oracle="t-other"))
        (True, False)
        """
        if sig.op != self.op and not fnmatchcase(sig.op, self.op):  # most entries are of another op: cheap tests first
            return False
        words = sig.to_json()
        if sig.oracle in self.oracles:
            words = {**words, "oracle": self.oracle, "mode": self.mode}  # another mode of the same fact
        if not all(fnmatchcase(words[f], getattr(self, f)) for f in SIGNATURE_FIELDS):
            return False
        if len(self.condition) != len(sig.tags) or not all(
            fnmatchcase(t, want) for t, want in zip(sig.tags, self.condition)
        ):
            return False
        return in_range(sig.version, self.versions)

    def accepts(self, sig: Signature, fits: Collection[Behaviour] = ()) -> bool:
        """Whether a single sighting ``sig`` (``fits``: the behaviour words
        that fit its example) is this root cause once settled
        (:func:`~conformance.judge.rootcause.settled_forms`): how a reproducer
        replayed alone is judged."""
        return any(self.matches(s) for s in rootcause.settled_forms(sig, fits))

    def describe(self) -> str:
        pol = f", policy {self.policy}" if self.policy else ""
        versions, condition = self.versions or "(any version)", ", ".join(self.condition) or "any input"
        on = ", ".join((self.oracle, *self.oracles))
        return f"{self.op} on {on} {versions}: {self.outcome}{pol}, for {condition}"

    def to_json(self) -> dict[str, Any]:
        d = {**asdict(self), "condition": list(self.condition), "reproducers": list(self.reproducers)}
        modes = {"oracles": list(self.oracles)} if self.oracles else {}
        return {k: v for k, v in d.items() if k != "oracles"} | modes

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entry:
        tuples = {k: tuple(d.get(k, ())) for k in ("condition", "reproducers", "oracles")}
        return cls(**{**d, **tuples})


REQUIRED = ("op", "oracle", "outcome", "versions", "note", "at_fault", "link", "reproducers")
KNOWN = tuple(f.name for f in fields(Entry))
CASE_KEYS = ("op", "data", "indices", "attrs")


def entry_problems(d: Any) -> list[str]:
    """What is wrong with one entry as JSON (empty if nothing).

    >>> entry_problems({})[:2]
    ['missing op', 'missing oracle']
    >>> entry_problems({**Entry(op="a", oracle="b", outcome="c", note="n", link="l", at_fault="docs").to_json(),
    ...     "versions": "banana"})
    ["versions 'banana' is not a PEP 440 specifier set"]
    """
    if not isinstance(d, dict):
        return [f"an entry must be an object, got {type(d).__name__}"]
    problems = [f"missing {k}" for k in REQUIRED if k not in d]
    problems += [f"unknown key {k!r} (known: {', '.join(KNOWN)})" for k in d if k not in KNOWN]
    problems += [
        f"{k} must be a string"
        for k in KNOWN
        if k not in ("condition", "reproducers", "standalone", "oracles") and k in d and not isinstance(d[k], str)
    ]
    if not isinstance(d.get("standalone", True), bool):
        problems.append("standalone must be true or false")
    for key in ("condition", "oracles"):
        if not isinstance(d.get(key, []), list) or not all(isinstance(t, str) for t in d.get(key, [])):
            problems.append(f"{key} must be a list of strings")
    reproducers = d.get("reproducers", [])
    if not isinstance(reproducers, list) or not all(
        isinstance(c, dict) and all(k in c for k in CASE_KEYS) for c in reproducers
    ):
        problems.append(f"reproducers must be a list of cases (objects with {', '.join(CASE_KEYS)})")
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

    >>> validate({"format": 2, "entries": [{}]})[0]
    'baseline: entry 1: missing op'
    >>> validate([])
    ['baseline: not a baseline (expected an object with "format" and "entries")']
    """
    if not isinstance(data, dict) or "entries" not in data:
        return [f'{source}: not a baseline (expected an object with "format" and "entries")']
    problems = (
        []
        if data.get("format") in READ_FORMATS
        else [f"{source}: format must be {' or '.join(map(str, READ_FORMATS))}, got {data.get('format')!r}"]
    )
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
    return [Entry.from_json(e) for e in data["entries"]]


def accepting(finding: Finding, entries: list[Entry]) -> Entry | None:
    """The first entry that accepts ``finding`` in its own mode, where every
    execution mode in which it shows is accepted (by that entry or another),
    or None (it is new: in some mode at least)."""
    found = [next((e for e in entries if e.matches(s)), None) for s in finding.member_signatures()]
    return found[0] if all(found) else None


def annotated(result: RunResult, entries: list[Entry]) -> RunResult:
    """A copy of ``result`` with each finding marked ``known`` (with the
    entry's note and link) or ``new``; ``result`` itself is not changed."""
    findings = []
    for f in result.findings:
        entry = accepting(f, entries)
        findings.append(
            replace(
                f,
                status=FindingStatus.KNOWN if entry else FindingStatus.NEW,
                baseline_note=entry.note if entry else None,
                baseline_link=entry.link if entry else None,
            )
        )
    return replace(result, findings=findings)


def new_findings(result: RunResult, entries: list[Entry]) -> list[Finding]:
    """The findings no baseline entry accepts, in the run's order."""
    return [f for f in result.findings if accepting(f, entries) is None]


def check(result: RunResult, entries: list[Entry], *, questions_fail: bool = False) -> list[GateProblem]:
    """Problems, one line each: ``new: ...`` per new bug or hazard no entry accepts (a new question too with
    ``questions_fail``; otherwise questions are reported, never failing),
    ``fixed upstream: ...`` and ``changed: ...`` per replayed entry
    (``result.replay``), ``harness error: ...`` per error in the suite itself,
    and ``nothing tested`` when no oracle ran a single case. ``result`` is not changed."""
    problems = [
        GateProblem(GateFailure.NEW, f"{f.title()} ({f.kind.value})")
        for f in new_findings(result, entries)
        if f.kind.fails_gate or questions_fail
    ]
    for r in result.replay:
        status = ReplayStatus(r["status"])
        if status is ReplayStatus.FIXED:
            detail = f"{r['entry']}: {r['detail']} (update or remove the baseline entry)"
            problems.append(GateProblem(GateFailure.FIXED_UPSTREAM, detail))
        elif status is ReplayStatus.CHANGED:
            problems.append(GateProblem(GateFailure.CHANGED, f"{r['entry']}: {r['detail']}"))
    problems += [GateProblem(GateFailure.HARNESS_ERROR, f"in {h.stage}: {h.error}") for h in result.harness_errors]
    if not sum(result.cases.values()):
        problems.append(GateProblem(GateFailure.NOTHING_TESTED, "no oracle ran a single case"))
    return problems


# -- drafting entries for review -----------------------------------------------------

_NOTES: tuple[tuple[str, str, str], ...] = (
    # (outcome|policy pattern, what it is, who is at fault)
    ("value instead of error|wraps", "accepts an index the documented policy rejects and wraps it", "docs"),
    ("value instead of error|clamps*", "accepts an out-of-range index and clamps it instead of raising", "framework"),
    ("value instead of error|*fills", "fills where the docs say it raises", "framework"),
    ("value instead of error|", "accepts what the documented preconditions reject", "docs"),
    ("dtype rejected|*", "rejects a dtype the docs list as supported", "framework"),
    ("spec silent|*", "does this where the docs are silent", "spec"),
    ("error instead of value*|*", "raises where the documented semantics give a value", "framework"),
    ("internal error|*", "fails with an internal error", "framework"),
    ("*", "differs from the documented semantics", "framework"),
)


def _note(outcome: str, policy: str) -> tuple[str, str]:
    key = f"{outcome}|{policy}"
    return next((n, f) for pattern, n, f in _NOTES if fnmatchcase(key, pattern))


def draft_entries(findings: list[Finding]) -> list[dict[str, Any]]:
    """Baseline entries (JSON-able) for ``findings``, one per root cause, for a
    person to review: the exact identity (with the other execution modes in
    which it shows as ``oracles``: one fact, one entry), versions pinned to the release
    series seen, the finding's minimal case as reproducer, the op's doc as
    link and a note that starts with ``TODO`` (the drafted guess of what it
    is and who is at fault).

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.core.outcome import Outcome
    >>> sig = Signature("onnx.Gather", "onnxruntime", "1.31.1", "cpu", "session", "wrong shape", "",
    ...     ("in-range", "0-d"))
    >>> f = Finding(sig, Case("onnx.Gather-13", np.zeros(1), np.zeros(1, np.int64), {"axis": 0}),
    ...     Outcome.returned(np.zeros(1)), {})
    >>> e = draft_entries([f])[0]
    >>> e["op"], e["condition"], e["versions"], e["note"][:5], len(e["reproducers"])
    ('onnx.Gather', ['in-range', '0-d'], '>=1.31,<1.32', 'TODO:', 1)
    >>> modes = {"onnxruntime": "session", "onnxruntime-noopt": "session (no optimizations)"}
    >>> draft_entries([replace(f, modes=modes)])[0]["oracles"]
    ['onnxruntime-noopt']
    """
    from conformance.spec.catalog import spec

    entries = []
    for f in findings:
        s = f.signature
        release = (Version(s.version).release + (0,))[:2] if s.version else (0, 0)
        note, fault = _note(s.to_json()["outcome"], s.to_json()["policy"])
        for words in _covering([s, *f.same_trigger]):
            entries.append(
                {
                    "op": s.op,
                    "oracle": s.oracle,
                    "device": s.device,
                    "mode": s.mode,
                    "outcome": words["outcome"],
                    "policy": words["policy"],
                    "condition": words["tags"],
                    "versions": f">={release[0]}.{release[1]},<{release[0]}.{release[1] + 1}",
                    "note": f"TODO: review. {s.oracle} {note} ({s.words()})",
                    "at_fault": fault,
                    "link": spec(f.case.op).doc,
                    "reproducers": [f.case.to_json()],
                }
                | ({"oracles": others} if (others := [o for o in f.modes if o != s.oracle]) else {})
            )
    return entries


def _covering(signatures: list[Signature]) -> list[dict[str, Any]]:
    """The outcome, policy and condition of entries that accept every one of ``signatures`` (a finding's own and
    those merged into it by their trigger), as few as can: one per length of condition, ``*`` wherever they differ.
    A drafted entry accepts the finding it was drafted from (regression: IREE's crash on ``extreme`` merged a crash
    on ``oob-above``, and an entry for the first alone left the finding new).

    >>> from conformance.core.vocabulary import Condition
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "crash", "", ("extreme",))
    >>> _covering([sig, replace(sig, condition=Condition.parse(["oob-above"]))])
    [{'outcome': 'crash', 'policy': '', 'tags': ['*']}]
    """
    by_length: dict[int, list[dict[str, Any]]] = {}
    for sig in signatures:
        words = sig.to_json()
        by_length.setdefault(len(sig.tags), []).append({**words, "tags": list(sig.tags)})
    return [
        {
            "outcome": _common([w["outcome"] for w in group]),
            "policy": _common([w["policy"] for w in group]),
            "tags": [_common(list(column)) for column in zip(*(w["tags"] for w in group), strict=True)],
        }
        for group in by_length.values()
    ]


def _common(values: list[str]) -> str:
    """The value all share, else the pattern ``*``."""
    return values[0] if all(v == values[0] for v in values) else "*"
