"""The findings section's order and filters: every finding is one root
cause; new ones first (most alarming first, :func:`~conformance.report.views.finding_order`),
then the ones where the docs say nothing (``spec silent``: recorded, never a
violation), then the known ones (in the baseline), collapsed. Each finding
carries what the page's filter reads: framework, op family, behaviour,
status, and the text the search box matches.

>>> import numpy as np
>>> from conformance.core.case import Case
>>> from conformance.results.finding import Finding
>>> from conformance.judge.signature import Signature
>>> from conformance.core.outcome import Outcome
>>> from conformance.report.views import finding_views
>>> def f(outcome, status="new"):
...     sig = Signature("onnx.Gather", "onnxruntime", "1.31.1", "cpu", "session", outcome, "wraps", ("negative",))
...     return Finding(sig, Case("onnx.Gather-1", np.zeros(3), np.array([-1])), Outcome.returned(np.zeros(1)), {},
...     status=status)
>>> groups = finding_groups(finding_views([f("spec silent"), f("wrong value"), f("wrong value", "known")]), {})
>>> [(g.key, len(g.items)) for g in groups]
[('new', 1), ('silent', 1), ('known', 1)]
>>> groups[0].items[0].filters["framework"], groups[0].items[0].filters["behaviour"]
('onnx', 'wraps')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.vocabulary import FindingStatus, MismatchKind
from conformance.report.atlas_match import op_family
from conformance.report.views import FindingView

OPEN_NEW_UP_TO = 8
"""New findings' cards open on load when there are at most this many (else their one-line summaries)."""

FILTERS = ("kind", "framework", "op", "behaviour", "status")
"""What the page's findings filter selects on (plus free text)."""


@dataclass(frozen=True)
class Item:
    """A finding with what the filter reads."""

    view: FindingView
    filters: Mapping[str, str]
    search: str


@dataclass(frozen=True)
class Group:
    """One group of the findings section."""

    key: str  # "new", "silent" or "known"
    title: str
    note: str
    items: list[Item]
    open: bool  # its cards open on load


def framework_of(oracle: str, op: str, oracles: Mapping[str, Mapping[str, Any]]) -> str:
    """An oracle's framework (its facts), else the op's prefix.

    >>> framework_of("tensorflow-xla", "tensorflow.gather", {}), framework_of("x", "t.g", {"x": {"framework": "jax"}})
    ('tensorflow', 'jax')
    """
    return str(oracles.get(oracle, {}).get("framework") or op.split(".", 1)[0])


def behaviour_of(view: FindingView) -> str:
    """The behaviour a finding is filed under: the observed policy, else its outcome.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.results.finding import Finding
    >>> from conformance.judge.signature import Signature
    >>> from conformance.core.outcome import Outcome
    >>> from conformance.report.views import finding_views
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "internal error", "", ())
    >>> ref = Outcome.returned(np.zeros(1))
    >>> behaviour_of(finding_views([Finding(sig, Case("t.g", np.zeros(1), np.zeros(1, int)), ref, {})])[0])
    'internal error'
    """
    sig = view.finding.signature
    return sig.policy.value if sig.policy else str(sig.outcome)


def item(view: FindingView, oracles: Mapping[str, Mapping[str, Any]]) -> Item:
    """A finding with its filter values and search text (what the finding is about, not its outcomes' text)."""
    f = view.finding
    sig = f.signature
    framework = framework_of(sig.oracle, sig.op, oracles)
    filters = {
        "kind": f.kind.value,
        "framework": framework,
        "op": op_family(sig.op),
        "behaviour": behaviour_of(view),
        "status": f.status.value,
    }
    variants = " ".join(v for values in f.variants.values() for v in values)
    search = " ".join(
        [
            f"F{view.number}",
            framework,
            sig.oracle,
            sig.op,
            sig.version,
            sig.mode,
            str(sig.outcome),
            sig.policy.value if sig.policy else "",
            *sig.tags,
            variants,
            f.status.value,
        ]
    ).lower()
    return Item(view, filters, " ".join(search.split()))


def finding_groups(views: Sequence[FindingView], oracles: Mapping[str, Mapping[str, Any]]) -> list[Group]:
    """New, spec-silent and known findings, in that order, empty groups left out (see the module docstring)."""
    new: list[Item] = []
    silent: list[Item] = []
    known: list[Item] = []
    for v in views:
        sig, status = v.finding.signature, v.finding.status
        target = (
            silent if sig.outcome.kind is MismatchKind.SPEC_SILENT else new if status is FindingStatus.NEW else known
        )
        target.append(item(v, oracles))
    groups = [
        Group(
            "new",
            "New findings",
            "not in the baseline: each is one root cause, the most alarming first",
            new,
            len(new) <= OPEN_NEW_UP_TO,
        ),
        Group(
            "silent",
            "Spec silent",
            "the docs say nothing about these inputs: what the framework does is recorded, never a violation",
            silent,
            False,
        ),
        Group("known", "Known findings", "in the baseline (accepted, with a note), collapsed", known, False),
    ]
    return [g for g in groups if g.items]


def filter_options(groups: Sequence[Group]) -> dict[str, list[str]]:
    """The values each filter offers: those the findings have, sorted.

    >>> filter_options([])
    {'kind': [], 'framework': [], 'op': [], 'behaviour': [], 'status': []}
    """
    return {k: sorted({i.filters[k] for g in groups for i in g.items}) for k in FILTERS}
