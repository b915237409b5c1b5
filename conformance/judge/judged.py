"""One oracle's answer on one case, judged: a :class:`Judged`, with its root
cause (:meth:`Judged.signature`) when it does not conform; and the single-case
judge every path shares (:func:`judged_alone`: a baseline reproducer
replayed, a pytest item, a reproducer script's verdict); whether a case
still shows a known root cause (:func:`settles`, :func:`replay_status`) and a
script's verdicts as data (:func:`judgement`).

>>> import numpy as np
>>> from conformance.core.case import Case
>>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
>>> case = Case("numpy.take", np.arange(3), np.array([1]), {"axis": 0, "mode": "raise"})
>>> j = judged_alone(case, info, Outcome.returned(np.array([1])))
>>> j.verdict.conforms
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from conformance.core.arrays import same_bits
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.judgement import Judgement
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import ReplayStatus
from conformance.judge import rootcause
from conformance.judge.signature import Signature
from conformance.judge.verdict import STRAY, PolicyValues, Verdict, candidates, judge, reference_outcome

STRAY_TRIES = 20
"""How many times a reproducer script runs a case whose finding is a read
outside the input before it says ``not reproduced``: the bytes it finds differ
from run to run (MLX's first unchecked read in a fresh process finds zeros,
which a fill explains too; of the next 19 in one process, 15 found other bytes)."""


@dataclass(frozen=True)
class Judged:
    """One oracle on one translated case."""

    case: Case
    oracle: str
    info: OracleInfo
    reference: Outcome
    outcome: Outcome
    verdict: Verdict

    def signature(self) -> Signature:
        """The discrepancy's root cause (:mod:`conformance.judge.rootcause`)."""
        return rootcause.signature(self.case, self.info, self.verdict, self.outcome, self.reference)

    def words(self) -> frozenset[Behaviour]:
        """The behaviour words that fit the answer (:func:`~conformance.judge.rootcause.example_words`)."""
        return rootcause.example_words(self.case, self.outcome)

    def tells_stray_bytes_apart(self) -> bool:
        """Whether a read outside the input judged here (:data:`~conformance.judge.verdict.STRAY`) could not pass
        for the right answer in a fresh process: False only for such a read whose reference value is non-empty and
        all zero bytes, or bool. OpenVINO's GatherND on a 0-length index tuple, shrunk to bool ``[[False]]``, read
        memory holding zeros in 20 of 20 fresh runs; shrunk to bool ``[True, False]``, its first call in a fresh
        process read the input it had just copied, the right answer, 20 times (a stray byte reads as the right bool
        half the time). A shrink keeps a candidate only where this holds, so the finding's script shows it alone.

        >>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
        >>> zero = Case("numpy.take", np.zeros(2), np.array([1]), {"axis": 0, "mode": "raise"})
        >>> five, no = Outcome.returned(np.array([5.0])), Outcome.returned(np.array([False]))
        >>> judged_alone(zero, info, five).tells_stray_bytes_apart()
        False
        >>> judged_alone(replace(zero, data=np.ones(2)), info, five).tells_stray_bytes_apart()
        True
        >>> judged_alone(replace(zero, data=np.ones(2, bool)), info, no).tells_stray_bytes_apart()
        False
        """
        ref = self.reference.value
        if self.verdict.behaviour not in STRAY or ref is None or ref.size == 0 or ref.dtype.kind in "OUS":
            return True  # strings and objects: no bytes of their own that stray memory could hold
        return ref.dtype != np.bool_ and bool(np.ascontiguousarray(ref).view(np.uint8).any())


def judged_alone(case: Case, info: OracleInfo, got: Outcome) -> Judged:
    """One oracle's answer on one case, judged on its own (a baseline
    reproducer replayed, a pytest item): the reference computed here."""
    ref = reference_outcome(case)
    return Judged(
        case,
        info.name,
        info,
        ref,
        got,
        judge(case, ref, got, PolicyValues(case), bits=info.bits, framework=info.framework, mode=info.mode),
    )


def settles(j: Judged, is_root: Callable[[Signature], bool]) -> bool:
    """Whether ``j`` shows the root cause ``is_root`` recognizes, once its
    sighting is settled (:func:`~conformance.judge.rootcause.settled_forms`: an
    ``ambiguous`` example joins a behaviour named elsewhere that fits it). The
    one rule by which a baseline replay, a pytest item and a reproducer script
    say that a case still shows its root cause. A ``garbage`` value also
    shows an ``ambiguous`` root cause of the same signature, and so does a
    ``fills or garbage`` one (on a one-element output any value may be a fill): garbage fits
    every ambiguous value (:func:`~conformance.judge.rootcause.example_words`),
    so the root's own example may have been a stray read that looked like a
    policy, and a script re-running an unchecked read (MLX documents
    out-of-bounds reads as undefined) sees other bytes.

    >>> import numpy as np
    >>> from conformance.core.case import CaseTags
    >>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
    >>> one = Case("numpy.take", np.array([7]), np.array([1]), {"axis": 0, "mode": "raise"},
    ...     CaseTags("oob-above", "int64", "int"))
    >>> j = judged_alone(one, info, Outcome.returned(np.array([7])))   # wraps and clamps both read 7
    >>> str(j.signature().policy), settles(j, lambda s: s.policy is Behaviour.WRAPS)
    ('ambiguous', True)
    """
    if j.verdict.conforms:
        return False
    sig = j.signature()
    forms = rootcause.settled_forms(sig, j.words())
    if sig.policy in (Behaviour.GARBAGE, Behaviour.FILLS_OR_GARBAGE):  # a stray read, or one that may be
        forms.append(replace(sig, policy=Behaviour.AMBIGUOUS))
    return any(is_root(s) for s in forms)


def replay_status(j: Judged, is_root: Callable[[Signature], bool]) -> ReplayStatus:
    """A known root cause's case run again and judged (``j``): ``fixed`` where
    it conforms now, ``reproduces`` where it :func:`settles` as ``is_root``,
    ``changed`` where it shows another root cause.

    >>> import numpy as np
    >>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
    >>> case = Case("numpy.take", np.arange(3), np.array([1]), {"axis": 0, "mode": "raise"})
    >>> str(replay_status(judged_alone(case, info, Outcome.returned(np.array([1]))), lambda s: True))
    'fixed'
    """
    if j.verdict.conforms:
        return ReplayStatus.FIXED
    return ReplayStatus.REPRODUCES if settles(j, is_root) else ReplayStatus.CHANGED


def _said(j: Judged, root: Signature | None) -> tuple[str, bool]:
    """A verdict's words and whether it shows ``root`` (:func:`settles`)."""
    if j.verdict.conforms:
        return "conforms", False
    return j.signature().words(), root is not None and settles(j, lambda s: rootcause.still_shows(s, root))


def _as_error(observed: Outcome, error_class: ErrorClass) -> Outcome:
    """An error of ``error_class``: ``observed`` reclassified where it is an
    error (its message may name the attribute or dtype it blames), else a bare one."""
    if observed.kind is Kind.ERROR:
        return replace(observed, error_class=error_class)
    return Outcome(Kind.ERROR, error_class=error_class)


def unexplained_like(values: list[np.ndarray]) -> np.ndarray | None:
    """A value of the first non-empty numeric or boolean array's dtype and
    shape that equals none of ``values`` bit for bit (a stand-in for "a value
    no policy explains", such as the bytes a stray read finds), or None where
    there is no such array or no such value.

    >>> unexplained_like([np.array([0.0, 2.0]), np.array([-3.0, np.nan])])
    array([4., 4.])
    >>> unexplained_like([np.array([True]), np.array([False])]) is None
    True
    >>> from conformance.core.arrays import as_dtype
    >>> unexplained_like([np.zeros(1, as_dtype("bfloat16"))]).tolist()   # bfloat16 too (ml_dtypes, kind 'V')
    [1.0]
    """
    first = next((v for v in values if v.size and (v.dtype.kind in "biufc" or v.dtype.name == "bfloat16")), None)
    if first is None:
        return None
    if first.dtype.kind == "b":
        tries = [np.ones_like(first), np.zeros_like(first)]
    else:
        alike = [v for v in values if v.dtype == first.dtype and v.size]
        finite = [np.abs(v[np.isfinite(v)]).max() for v in alike if np.isfinite(v).any()]
        top = max((float(x) for x in finite), default=0.0) + 1
        if first.dtype.kind in "iu":
            top = min(top, float(np.iinfo(first.dtype).max))
        tries = [np.full_like(first, top)]
    return next((t for t in tries if not any(same_bits(t, v) for v in values if v.shape == t.shape)), None)


def _stray_fill(label: str, said: tuple[str, bool], root: Signature | None) -> tuple[str, bool]:
    """A fill's value still shows a root cause that is a read outside the input (``fills or garbage``): such a read
    finds whatever bytes lie there, zeros too, so a script that reads the fill's bytes where the campaign read others
    sees the same behaviour. (make test, stop 52: MLX's take_along_axis read 123456789 past a 1-element input in
    the campaign and 0 on each of the script's 20 runs, and the script said "not reproduced".)

    >>> _stray_fill("fills or garbage", ("conforms", False), None)
    ('conforms', False)
    """
    if root is None or root.policy is not Behaviour.FILLS_OR_GARBAGE or label != str(Behaviour.FILLS_OR_GARBAGE):
        return said
    words, shows = said
    return (
        words if shows else f"{words}, but a read outside the input may find these bytes: it shows {root.words()}",
        True,
    )


def judgement(case: Case, info: OracleInfo, observed: Outcome, root: Signature | None = None) -> Judgement:
    """The verdicts a reproducer script of ``case`` on ``info``'s oracle
    prints as data: :func:`judged_alone` on an error of every class, on the
    reference's value, each candidate policy's and the one ``observed``; an
    answer shows the finding where it :func:`settles` as ``root`` (default:
    the root cause ``observed`` shows). A value none of those is shows it
    where ``observed`` was such a value too (no policy explains it), or where
    the root cause is ``fills or garbage``: a stray read gives other bytes on
    each run (0 when the finding was built, whatever lies there when the script runs),
    or, where an error is expected and the root cause names no behaviour or where it is ``ambiguous``,
    where such a value (:func:`unexplained_like`), judged as the campaign judges, shows it ("value instead
    of error, for empty axis" whatever the bytes; MLX's unchecked read that once looked like a policy).

    >>> import numpy as np
    >>> from conformance.core.case import CaseTags
    >>> info = OracleInfo("np", "numpy", "2", "cpu", "eager", ("numpy.take",))
    >>> case = Case("numpy.take", np.arange(4), np.array([5]), {"axis": 0, "mode": "raise"},
    ...     CaseTags("oob-above", "int64", "int"))
    >>> j = judgement(case, info, Outcome.returned(np.array([3])))
    >>> [(label, shows) for label, _, _, shows in j.values]
    [('wraps', False), ('clamps', True), ('clamps', True), ('fills or garbage', False), ('fills or garbage', False),
     ('observed', True)]
    >>> {word: shows for word, _, shows in j.errors}["index out of range"], j.other[1]
    (False, False)
    """
    seen = judged_alone(case, info, observed)
    if root is None and not seen.verdict.conforms:
        root = seen.signature()
    errors = tuple((c.value, *_said(judged_alone(case, info, _as_error(observed, c)), root)) for c in ErrorClass)
    values = PolicyValues(case)
    named = [("reference's", seen.reference.value)] if seen.reference.kind is Kind.VALUE else []
    named += [(str(word), values.under(policy)) for policy, word in candidates(values)]
    named += [("observed", observed.value)] if observed.kind is Kind.VALUE else []
    judged = tuple(
        (label, v, *_stray_fill(label, _said(judged_alone(case, info, Outcome.returned(v)), root), root))
        for label, v in named
        if v is not None
    )
    policies = [v for label, v, _, _ in judged if label != "observed"]
    got = observed.value if observed.kind is Kind.VALUE else None
    unexplained = got is not None and not any(same_bits(v, got) for v in policies)
    shown = any(shows for label, _, _, shows in judged if label == "observed")
    # where an error is expected and the root names no behaviour, which value came does not matter: judge one
    # that no policy explains as the campaign would (paddle.gather_nd on an empty axis returns whatever memory holds);
    # so too where the root is ambiguous (garbage fits every ambiguous value: see settles)
    stray = (
        unexplained_like([np.asarray(v) for _, v, _, _ in judged])
        if root is not None
        and (root.policy is None and seen.reference.kind is Kind.ERROR or root.policy is Behaviour.AMBIGUOUS)
        else None
    )
    shows_stray = stray is not None and _said(judged_alone(case, info, Outcome.returned(stray)), root)[1]
    garbage = root is not None and (unexplained and shown or root.policy is Behaviour.FILLS_OR_GARBAGE or shows_stray)
    other = "a value no policy explains" + (f": it still shows {root.words()}" if garbage and root else "")
    stray_root = seen.verdict.behaviour in STRAY or root is not None and root.policy in STRAY
    return Judgement(errors, judged, (other, garbage), STRAY_TRIES if stray_root else 1)
