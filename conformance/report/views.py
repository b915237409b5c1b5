"""The findings as the report shows them: in report order (new first, the
most alarming first), numbered, each with its inputs and every oracle's
outcome laid out next to the reference, its scripts and its model.

>>> import numpy as np
>>> from conformance.core.case import Case
>>> from conformance.judge.signature import Signature
>>> from conformance.core.outcome import Outcome
>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "clamps (raw)",
...     ("bad index",))
>>> f = Finding(sig, Case("numpy.take", np.arange(3), np.array([-1])), Outcome.returned(np.array([2])),
...             {"numpy": Outcome.returned(np.array([0]))}, scripts={"numpy": "print(1)"})
>>> [(v.number, v.anchor, [o.note for o in v.outcomes], v.scripts[0][1]) for v in finding_views([f])]
[(1, 'f-226a4e3b9b', ['', '1 of 1 elements differ'], 'scripts/f-226a4e3b9b_numpy.py')]
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from conformance.core.behaviour import UNKNOWN_SEVERITY, Behaviour, severity
from conformance.core.outcome import Kind, Outcome
from conformance.core.vocabulary import FindingStatus
from conformance.judge.cost import user_cost
from conformance.judge.kind import rank
from conformance.report.arrays_view import ArrayView, array_view, differing_coordinates, mismatch_note
from conformance.report.matrix_view import finding_family
from conformance.results.finding import Finding
from conformance.spec.basis import Basis, Ground, Silent
from conformance.spec.catalog import spec

SCRIPTS_DIR = "scripts"
"""The report folder's subfolder of reproduction scripts, ``<anchor>_<oracle>.py``."""
MODELS_DIR = "models"
"""The report folder's subfolder of ONNX models, ``<anchor>.onnx``."""
ANCHOR_PREFIX = "f-"
"""How every finding's anchor, and so its files' names, begins."""

KIND_BEHAVIOUR: dict[Kind, Behaviour] = {
    Kind.VALUE: Behaviour.WRONG_ERROR,  # a value where the reference raises: accepted bad input
    Kind.ERROR: Behaviour.RAISES,
    Kind.CRASH: Behaviour.CRASH,
    Kind.TIMEOUT: Behaviour.TIMEOUT,
    Kind.UNSUPPORTED: Behaviour.UNSUPPORTED,
    Kind.PROTOCOL: Behaviour.PROTOCOL,
    Kind.NOT_RUN: Behaviour.NOT_RUN,
}
"""The behaviour an outcome kind counts as, when a finding's severity comes from its kind."""


def kind_severity(kind: str) -> int:
    """How alarming a finding whose oracle gave this kind of outcome is
    (:data:`KIND_BEHAVIOUR`; an unknown word counts as an unknown behaviour).

    >>> kind_severity("crash"), kind_severity("error"), kind_severity("shape mismatch")
    (8, 2, 5)
    """
    try:
        return severity(KIND_BEHAVIOUR[Kind(kind)].value)
    except ValueError:
        return UNKNOWN_SEVERITY


def finding_anchor(finding: Finding) -> str:
    """A stable HTML id for a finding, from its signature key.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "clamps (raw)",
    ...     ("bad index",))
    >>> finding_anchor(Finding(sig, Case("numpy.take", np.zeros(1), np.zeros(1, int)), Outcome.unsupported(""), {}))
    'f-226a4e3b9b'
    """
    return ANCHOR_PREFIX + hashlib.sha1(finding.signature.key().encode()).hexdigest()[:10]


def finding_order(finding: Finding) -> tuple[int, tuple[int, int], int, int, int, str]:
    """Sort key: new before known, then bugs by severity, hazards, questions
    (:func:`~conformance.judge.kind.rank`), then by what it costs a user
    (:func:`~conformance.judge.cost.user_cost`), then the most alarming
    behaviour (a crash first), then the most frequent.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "crash", "", ())
    >>> finding_order(Finding(sig, Case("t.g", np.zeros(1), np.zeros(1, int)), None, {}, count=3))
    (0, (1, 2), 2, -8, -3, 't.g|t|1|cpu|eager|crash||')
    """
    subject = finding.outcomes.get(finding.signature.oracle)
    kind = subject.kind.value if subject is not None else str(finding.signature.outcome)
    policy = severity(finding.signature.policy) if finding.signature.policy else 0
    worst = max(policy, kind_severity(kind))
    new = 0 if finding.status is FindingStatus.NEW else 1
    sig = finding.signature
    return (new, rank(sig, finding.kind), user_cost(sig), -worst, -finding.count, sig.key())


def op_doc(op: str) -> tuple[str, str] | None:
    """The documentation link and policy note of a catalog op, if it is one.

    >>> op_doc("numpy.take")[0], op_doc("no.such-op")
    ('https://numpy.org/doc/stable/reference/generated/numpy.take.html', None)
    """
    try:
        s = spec(op)
    except ValueError:
        return None
    return s.doc, s.policy_note


def file_safe(name: str) -> str:
    """A word safe in a file name.

    >>> file_safe("onnxruntime-cpu/graph")
    'onnxruntime-cpu_graph'
    """
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def script_path(anchor: str, oracle: str) -> str:
    """Where a finding's reproduction script for an oracle goes in the report folder.

    >>> script_path("f-1", "tensorflow-xla")
    'scripts/f-1_tensorflow-xla.py'
    """
    return f"{SCRIPTS_DIR}/{anchor}_{file_safe(oracle)}.py"


def model_path(anchor: str) -> str:
    """Where a finding's ONNX model goes in the report folder.

    >>> model_path("f-1")
    'models/f-1.onnx'
    """
    return f"{MODELS_DIR}/{anchor}.onnx"


@dataclass
class OutcomeView:
    """An oracle's outcome next to the reference."""

    name: str
    outcome: Outcome
    note: str
    array: ArrayView | None
    diffs: list[tuple[int, ...]]
    is_subject: bool = False


@dataclass
class FindingView:
    """A finding with everything its section shows."""

    number: int
    anchor: str
    finding: Finding
    words: str
    family: str
    data: ArrayView
    indices: ArrayView
    outcomes: list[OutcomeView]
    scripts: list[tuple[str, str, str]]  # (oracle, file path in the report folder, text)
    onnx_file: str | None
    doc: tuple[str, str] | None
    basis: Ground | None = None
    upstream: str = ""
    """The finding's upstream issue text (:mod:`conformance.report.upstream`), set where the page is built."""
    upstream_file: str = ""

    @property
    def quoted(self) -> Basis | None:
        """The basis when it is a quoted sentence (None where the docs are silent)."""
        return self.basis if isinstance(self.basis, Basis) else None

    @property
    def silence(self) -> str:
        """Why the docs are silent on what the finding departs from ("" where they are quoted)."""
        return self.basis.reason if isinstance(self.basis, Silent) else ""


def outcome_views(finding: Finding) -> list[OutcomeView]:
    """The reference first, then the finding's own oracle, then the others.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("t.g", "b", "1", "cpu", "eager", "wrong value", "", ())
    >>> ref = Outcome.returned(np.array([1, 2]))
    >>> got = {"a": ref, "b": Outcome.returned(np.array([1, 3]))}
    >>> for v in outcome_views(Finding(sig, Case("t.g", np.zeros(1), np.zeros(1, int)), ref, got)):
    ...     print(v.name, v.note, v.diffs, v.is_subject)
    reference  [] False
    b 1 of 2 elements differ [(1,)] True
    a agrees with the reference [] False
    """
    ref = finding.reference
    views = [OutcomeView("reference", ref, "", array_view(ref.value) if ref.value is not None else None, [])]
    for name in sorted(finding.outcomes, key=lambda o: (o != finding.signature.oracle, o)):
        got = finding.outcomes[name]
        diffs = differing_coordinates(ref, got)
        array = array_view(got.value, diffs, ref.value) if got.value is not None else None
        views.append(OutcomeView(name, got, mismatch_note(ref, got), array, diffs, name == finding.signature.oracle))
    return views


def finding_view(number: int, finding: Finding) -> FindingView:
    """One finding's section (see the module docstring for an example)."""
    anchor = finding_anchor(finding)
    return FindingView(
        number=number,
        anchor=anchor,
        finding=finding,
        words=finding.title(),
        family=finding_family(finding),
        data=array_view(finding.case.data),
        indices=array_view(finding.case.indices),
        outcomes=outcome_views(finding),
        scripts=[(oracle, script_path(anchor, oracle), text) for oracle, text in sorted(finding.scripts.items())],
        onnx_file=model_path(anchor) if finding.onnx_model_b64 else None,
        doc=op_doc(finding.case.op),
        basis=finding.basis,
    )


def finding_views(findings: Sequence[Finding]) -> list[FindingView]:
    """Findings in report order (:func:`finding_order`), numbered F1, F2, ...
    (see the module docstring for an example)."""
    return [finding_view(number, f) for number, f in enumerate(sorted(findings, key=finding_order), start=1)]
