"""The baseline: accepted discrepancies, reviewed like code (``conformance/baseline.json``).

Each entry names a behaviour by signature fields, each an exact string or an
``fnmatch`` pattern (``"torch.*"``, ``"*"``), plus ``tags``: a finding matches
when every entry tag (a pattern too) matches one of its tags (a subset
test). ``versions`` is a range of the oracle's version (``">=2.4,<3"``,
comparisons on the numeric release parts). Every entry has a ``note`` (what
the behaviour is and who is at fault: framework, spec or docs) and a ``link``.

:func:`check` returns the problems: a finding no entry matches (new
behaviour), and an entry that matches no finding although its oracle ran at
a version in range and its op was in the campaign (fixed upstream, or the
suite lost its power).

>>> entry = Entry(op="numpy.take", oracle="numpy", outcome="value instead of error", tags=("0-d",), versions=">=2,<3", note="n", link="l")
>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "", ("in-range", "0-d"))
>>> entry.matches(sig)
True
>>> Entry(op="numpy.take", versions="<2").matches(sig)
False
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from conformance.findings import RunResult, Signature

DEFAULT_PATH = Path(__file__).with_name("baseline.json")
SIGNATURE_FIELDS = ("op", "oracle", "device", "mode", "outcome", "policy")


def _release(version: str) -> tuple[int, ...]:
    """``"2.13.0+cpu"`` -> ``(2, 13, 0)``."""
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0])[:4])


def in_range(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies a comma-separated range such as ``">=2.4,<3"``.

    >>> in_range("2.13.0+cpu", ">=2.13,<2.14"), in_range("1.31.1", "==1.30.*"), in_range("0.10.2", "")
    (True, False, True)
    """
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        op, ver = re.match(r"(==|!=|>=|<=|>|<)?\s*(.*)", clause).groups()  # type: ignore[union-attr]
        op = op or "=="
        if ver.endswith(".*"):
            prefix = _release(ver[:-2])
            ok = _release(version)[: len(prefix)] == prefix
            if (op == "==") != ok:
                return False
            continue
        a, b = _release(version), _release(ver)
        width = max(len(a), len(b))
        a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
        if not {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]:
            return False
    return True


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
    at_fault: str = ""  # "framework", "spec" or "docs"

    def matches(self, sig: Signature, version_only: bool = True) -> bool:
        """Whether ``sig`` is this behaviour (at a version in range)."""
        if not all(fnmatchcase(getattr(sig, f), getattr(self, f)) for f in SIGNATURE_FIELDS):
            return False
        if not all(any(fnmatchcase(t, want) for t in sig.tags) for want in self.tags):
            return False
        return in_range(sig.version, self.versions)

    def describe(self) -> str:
        tags = f" tags {list(self.tags)}" if self.tags else ""
        return f"{self.op} on {self.oracle} {self.versions or '(any version)'}: {self.outcome}, policy {self.policy}{tags}"

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Entry":
        d = dict(d)
        d["tags"] = tuple(d.get("tags", ()))
        return cls(**d)


def load(path: str | Path | None = None) -> list[Entry]:
    """The entries of a baseline file (default: the packaged one)."""
    data = json.loads(Path(path or DEFAULT_PATH).read_text())
    return [Entry.from_json(e) for e in data["entries"]]


def _ran(entry: Entry, result: RunResult) -> bool:
    """Whether the campaign could have seen ``entry``: an oracle it names ran
    at a version in range, on an op it names that the campaign covered."""
    oracles = result.facts.get("oracles", {})
    ops = result.budget.get("ops")
    for name, info in oracles.items():
        if not (fnmatchcase(name, entry.oracle) and in_range(info["version"], entry.versions)):
            continue
        if not (fnmatchcase(info.get("device", ""), entry.device) and fnmatchcase(info.get("mode", ""), entry.mode)):
            continue
        covered = [k for k in info.get("ops", ()) if ops is None or k in ops or k.split("-")[0] in ops]
        if any(fnmatchcase(k, entry.op) for k in covered):
            return True
    return False


def annotate(result: RunResult, entries: list[Entry]) -> None:
    """Mark each finding ``known`` (with the note and link) or ``new``."""
    for f in result.findings:
        entry = next((e for e in entries if e.matches(f.signature)), None)
        f.status = "known" if entry else "new"
        f.baseline_note = entry.note if entry else None
        f.baseline_link = entry.link if entry else None


def check(result: RunResult, entries: list[Entry]) -> list[str]:
    """Problems, one line each: ``new: ...`` per finding no entry accepts,
    ``vanished: ...`` per entry no finding matches although it could have."""
    annotate(result, entries)
    problems = [f"new: {f.signature.words()}" for f in result.findings if f.status == "new"]
    for e in entries:
        if _ran(e, result) and not any(e.matches(f.signature) for f in result.findings):
            problems.append(f"vanished: {e.describe()} ({e.note[:80]})")
    return problems


def main_check(args: argparse.Namespace) -> int:
    """``gather-conformance check``: run the deterministic CI campaign (the
    ``run`` options apply) or read ``args.results``, compare with
    ``args.baseline`` (default: the packaged one), print each problem;
    1 if there is any, else 0."""
    from conformance.campaign import main_run

    if getattr(args, "results", None):
        result = RunResult.load(args.results)
    else:
        main_run(args)
        result = RunResult.load(Path(getattr(args, "out", "reports")) / "results.json")
    problems = check(result, load(getattr(args, "baseline", None)))
    for p in problems:
        print(p)
    print(f"{len(result.findings)} findings, {len(problems)} problems against the baseline")
    return 1 if problems else 0


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
        op = re.sub(r"-\d+$", "-*", s.op)
        groups.setdefault((op, s.oracle, s.device, s.mode, s.outcome, s.policy), []).append(s)
    entries = []
    for (op, oracle, device, mode, outcome, policy), sigs in groups.items():
        shared = sorted(set.intersection(*(set(s.tags) for s in sigs)))
        major_minor = _release(sigs[0].version)[:2]
        nxt = (major_minor[0], major_minor[1] + 1)
        note, fault = _note(outcome, policy)
        entries.append({
            "op": op, "oracle": oracle, "device": device, "mode": mode, "outcome": outcome, "policy": policy,
            "tags": shared, "versions": f">={major_minor[0]}.{major_minor[1]},<{nxt[0]}.{nxt[1]}",
            "note": f"{note} (seen: {'; '.join(sorted({', '.join(s.tags) for s in sigs}))[:200]}). Drafted from the seed campaign; review.",
            "at_fault": fault, "link": link,
        })  # fmt: skip
    return entries
