"""What a reproducer script needs to judge an answer as the campaign does,
as data: the oracle's error classification (:class:`Classifier`) and the
campaign's verdicts on the answers the script may get (:class:`Judgement`).
Both are printed into the script (:mod:`conformance.execution.scripts`), so
that a script judges with the campaign's rules, not a copy of them.

>>> Classifier(("IndexError", "index 5", "index out of range")).seen[2]
'index out of range'

A message is matched by whole words (:func:`says`, whose source both the
oracle and the script run): "newaxis" does not say "axis".

>>> says("numpy.newaxis (`none`) and integer arrays are valid indices", "axis"), says("axis 2 is out of bounds", "axis")
(False, True)
>>> says("shapes (2,) and (3,)", "shape"), says("shapes (2,) and (3,)", "shape*"), says("is not in [0, 3)", "not in [")
(False, True, True)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.core.vocabulary import ErrorGroup

SAYS_SOURCE = r'''
def says(text, needle):
    """Whether ``text`` says ``needle`` in whole words, a last resort after the error's type: no word character (a
    letter, digit or underscore) right before it where it begins with one, none right after it where it ends with one,
    unless it ends with ``*`` (a stem: ``dimension*`` says "dimensions" too)."""
    stem = needle.endswith("*")
    word = needle[:-1] if stem else needle
    pattern = (r"\b" if re.match(r"\w", word) else "") + re.escape(word)
    if not stem and re.search(r"\w$", word):
        pattern += r"\b"
    return re.search(pattern, text) is not None
'''
"""How a needle matches an error message, as source text: the oracles run it (:func:`says`) and every script prints it,
so that a script classifies its error exactly as its oracle did."""

_namespace: dict[str, object] = {"re": re}
exec(SAYS_SOURCE, _namespace)  # noqa: S102 - our own source text
says = cast(Callable[[str, str], bool], _namespace["says"])
"""``says(text, needle)``: :data:`SAYS_SOURCE`, run."""


@dataclass(frozen=True)
class Classifier:
    """The oracle's own error classification, as data a script prints: the
    error it saw with the class it gave (``seen``: type, message, class word),
    the exception types that are the framework's fault (``internal_types``; of those, the ones
    whose message may state the rule instead: ``stated_types``) and
    the message fragments that are (``internal_needles``), the exception types
    whose class needs no message (``types``: class word, type names), and its
    message rows, first match wins (``rows``: class word, needles; matched by
    :func:`says`). The script tries them in that order, as the oracle does."""

    seen: tuple[str, str, str] | None = None
    internal_types: tuple[str, ...] = ()
    rows: tuple[tuple[str, tuple[str, ...]], ...] = ()
    internal_needles: tuple[str, ...] = ()
    types: tuple[tuple[str, tuple[str, ...]], ...] = ()
    stated_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """How the campaign judges this case on this oracle, as data a script
    prints (built by :func:`conformance.judge.judged.judgement`): per error
    class, the verdict's words and whether it shows the finding (``errors``);
    the same for the values the campaign can name (``values``: label, array,
    words, shows: the reference's, each policy's, the one observed) and for any
    other value (``other``); ``tries``: how many times a script may run the
    case before it says ``not reproduced`` (more than one where the finding is
    a read outside the input, whose bytes differ from run to run: MLX's first
    unchecked read in a process finds zeros, the next ones do not)."""

    errors: tuple[tuple[str, str, bool], ...]
    values: tuple[tuple[str, np.ndarray, str, bool], ...]
    other: tuple[str, bool]
    tries: int = 1

    @classmethod
    def against(cls, reference: Outcome) -> Judgement:
        """Without a campaign's verdicts (a script written outside a campaign):
        an answer shows a discrepancy where it departs from ``reference``: an
        internal error, an error whose :class:`ErrorGroup` differs from the
        reference's, an error for a value, a value other than the reference's.

        >>> j = Judgement.against(Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE))
        >>> {word: shows for word, _, shows in j.errors}["negative index rejected"], j.other
        (False, ('a value instead of an error', True))
        """
        want = ErrorGroup.of(reference.error_class) if reference.kind is Kind.ERROR else None
        errors = tuple((c.value, *_against(ErrorGroup.of(c), want, reference.kind)) for c in ErrorClass)
        if reference.kind is Kind.VALUE and reference.value is not None:
            return cls(errors, (("reference's", reference.value, "as expected", False),), ("differs", True))
        return cls(errors, (), ("a value instead of an error", True))


def _against(have: ErrorGroup | None, want: ErrorGroup | None, expected: Kind) -> tuple[str, bool]:
    """An error of group ``have`` where the reference answers ``expected`` (an error of group ``want``)."""
    if have is ErrorGroup.INTERNAL:
        return "internal error", True
    if expected is not Kind.ERROR:
        return "error instead of value", True
    if have is None or want is None or have is want:
        return "as expected", False
    return f"wrong error ({have}, expected {want})", True
