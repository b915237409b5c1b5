"""The behaviour vocabulary: each word the judge can say about an oracle's
answer, with its label, how much it should catch the eye, its colour in the
report and what it means. One table; the report's CSS is generated from it.

>>> Behaviour.CLAMPS_RAW.value, severity("clamps (raw)"), css_class("clamps (raw)")
('clamps (raw)', 4, 'b-clamps-raw')
>>> print(behaviour_css().splitlines()[0])
.b-conforms { background: #dff3e0; color: #1b5e20; }
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.core.word import Word


class Behaviour(Word):
    """What an oracle did on a case, in the words of the report."""

    CONFORMS = "conforms"
    RAISES = "raises"
    WRAPS = "wraps"
    CLAMPS = "clamps"
    CLAMPS_RAW = "clamps (raw)"
    FILLS = "fills"
    """Where an index is out of range, the fill value the op's docs name (JAX's NaN), and the reference's value
    everywhere."""
    AS_DOCUMENTED = "value as documented"
    """The value the docs give, for input they do not promise (an undocumented dtype accepted)."""
    FILLS_OR_GARBAGE = "fills or garbage"
    """Where (and only where) an index is out of range, a value that no
    element-reading policy gives: a fill (zero or another constant) or
    whatever lay in memory. One example cannot tell a fill from a stray read of the same
    bytes (MLX documents out-of-bounds reads as undefined; OpenVINO's GatherND
    reads past its buffer, zeros on one run and junk on the next), so the
    word names both, and the same answer reads the same on every machine."""
    LOW_32_BITS = "reads the low 32 bits"
    SIGNED = "reads unsigned as signed"
    READS_AS_INT = "reads as its int"
    """An attribute of a type the docs refuse (``batch_dims='1'``, ``1.5``) accepted and read as the int it stands
    for: the answer is the one the int gives (tensorflow/tensorflow#55203)."""
    BATCH_DIVIDED = "reads data batch b // k"
    BATCH_BROADCAST = "broadcasts a batch of 1"
    UNCHECKED = "unchecked (empty output)"
    DTYPE_REJECTED = "rejects dtype"
    INTERNAL = "internal error"
    AMBIGUOUS = "ambiguous"
    GARBAGE = "garbage"
    WRONG_ERROR = "wrong error"
    PROTOCOL = "protocol error"
    NOT_RUN = "not run"
    CRASH = "crash"
    TIMEOUT = "timeout"
    UNSUPPORTED = "not supported"
    HARNESS_ERROR = "harness error"
    """The suite itself failed on the case (its reference or judge raised): never the framework's doing."""

    @classmethod
    def _missing_(cls, value: object) -> Behaviour | None:
        """The word results of format 2 and earlier wrote for what is now
        :attr:`FILLS_OR_GARBAGE`, read as it (their ``fills`` reads as :attr:`FILLS`, a documented fill).

        >>> Behaviour("zero-fills")
        <Behaviour.FILLS_OR_GARBAGE: 'fills or garbage'>
        """
        return cls.FILLS_OR_GARBAGE if value == "zero-fills" else None


@dataclass(frozen=True)
class Look:
    """How a behaviour is shown and what it means."""

    severity: int
    background: str
    foreground: str
    meaning: str
    bold: bool = False


BEHAVIOURS: dict[Behaviour, Look] = {
    Behaviour.CONFORMS: Look(0, "#dff3e0", "#1b5e20", "returned exactly what the documented semantics give"),
    Behaviour.UNSUPPORTED: Look(
        1,
        "#eceff1",
        "#607d8b",
        "declared, not observed: the framework was not run, as it cannot even express these inputs (no string tensors)",
    ),
    Behaviour.NOT_RUN: Look(1, "#eceff1", "#607d8b", "never ran: the oracle's worker was broken beyond restart"),
    Behaviour.RAISES: Look(2, "#dbe9fb", "#0d47a1", "raised an error for a bad index"),
    Behaviour.DTYPE_REJECTED: Look(2, "#dbe9fb", "#0d47a1", "refused the data or index dtype"),
    Behaviour.WRAPS: Look(3, "#fff3c4", "#6d4c00", "read a bad index modulo the axis size (-1 is the last element)"),
    Behaviour.CLAMPS: Look(3, "#fff3c4", "#6d4c00", "clamped an out-of-range index to the nearest end of the axis"),
    Behaviour.FILLS: Look(3, "#fff3c4", "#6d4c00", "filled an out-of-range index with the value its docs name"),
    Behaviour.AS_DOCUMENTED: Look(
        2, "#dbe9fb", "#0d47a1", "returned the documented value for input the docs do not promise (a dtype)"
    ),
    Behaviour.UNCHECKED: Look(3, "#fff3c4", "#6d4c00", "returned an empty output without checking the indices"),
    Behaviour.AMBIGUOUS: Look(3, "#fff3c4", "#6d4c00", "returned a value several index policies explain: not named"),
    Behaviour.CLAMPS_RAW: Look(
        4, "#ffe0b2", "#8a3c00", "clamped a negative index to 0 without wrapping it (-1 reads element 0)"
    ),
    Behaviour.FILLS_OR_GARBAGE: Look(
        6,
        "#f8c9c4",
        "#8e0000",
        "where the index is out of range, a value no index policy reads: a fill or a stray read of memory",
    ),
    Behaviour.LOW_32_BITS: Look(
        4, "#ffe0b2", "#8a3c00", "read a 64-bit index as its low 32 bits (2**32 + 1 reads element 1)"
    ),
    Behaviour.SIGNED: Look(4, "#ffe0b2", "#8a3c00", "read an unsigned index as signed (2**64 - 1 reads as -1)"),
    Behaviour.READS_AS_INT: Look(
        4, "#ffe0b2", "#8a3c00", "accepted an attribute of a type its docs refuse and read it as its int ('1' as 1)"
    ),
    Behaviour.BATCH_DIVIDED: Look(
        4, "#ffe0b2", "#8a3c00", "accepted an index batch k times the data batch: index batch b reads data batch b // k"
    ),
    Behaviour.BATCH_BROADCAST: Look(
        4, "#ffe0b2", "#8a3c00", "accepted a data batch of 1 against a larger index batch: every index batch reads it"
    ),
    Behaviour.WRONG_ERROR: Look(
        5, "#e8dcf7", "#4a148c", "raised another class of error than the reference, or accepted bad input"
    ),
    Behaviour.TIMEOUT: Look(6, "#d7ccc8", "#3e2723", "gave no answer within the time limit"),
    Behaviour.PROTOCOL: Look(
        6, "#d7ccc8", "#3e2723", "the oracle answered something that is not an array (a harness fault)"
    ),
    Behaviour.HARNESS_ERROR: Look(
        6, "#d7ccc8", "#3e2723", "the suite itself failed on the case (a bug of ours, reported)"
    ),
    Behaviour.INTERNAL: Look(
        7, "#f8c9c4", "#8e0000", "raised an internal error (an assert, an overflow, a division by zero)", bold=True
    ),
    Behaviour.GARBAGE: Look(7, "#f8c9c4", "#8e0000", "returned a value no index policy explains", bold=True),
    Behaviour.CRASH: Look(8, "#8e0000", "#ffffff", "the process died (segfault, abort, exit)", bold=True),
}
"""Every behaviour's look; a consistency test holds that each behaviour has one."""

UNKNOWN_SEVERITY = 5


def severity(behaviour: str) -> int:
    """How alarming a behaviour is, 0 (conforms) to 8 (crash); an unknown word counts 5.

    >>> severity("crash") > severity("clamps") > severity("conforms"), severity("something new")
    (True, 5)
    """
    try:
        return BEHAVIOURS[Behaviour(behaviour)].severity
    except ValueError:
        return UNKNOWN_SEVERITY


def css_class(behaviour: str) -> str:
    """The CSS class of a behaviour (letters and dashes only).

    >>> css_class("not supported")
    'b-not-supported'
    """
    return "b-" + "-".join("".join(c if c.isalnum() else " " for c in behaviour.lower()).split())


def behaviour_css() -> str:
    """One CSS rule per behaviour, from :data:`BEHAVIOURS`."""
    rules = []
    for behaviour, look in BEHAVIOURS.items():
        bold = " font-weight: 700;" if look.bold else ""
        rules.append(
            f".{css_class(behaviour.value)} {{ background: {look.background}; color: {look.foreground};{bold} }}"
        )
    return "\n".join(rules)


def legend() -> list[tuple[str, str, str]]:
    """``(word, css class, meaning)`` for every behaviour, mildest first."""
    ordered = sorted(BEHAVIOURS.items(), key=lambda kv: kv[1].severity)
    return [(b.value, css_class(b.value), look.meaning) for b, look in ordered]
