"""The shared vocabulary: every word the layers exchange, typed and parsed
once at the boundary. Each word is a ``str`` enum member (or a frozen
dataclass with a ``words()`` form), so JSON files keep the words they always
had and code compares members, never string literals.

* what a case is: its index :class:`Regime`, structural :class:`Flag`, element
  :class:`Pattern` and memory :class:`Layout`;
* what the judge says of an answer: a :class:`Mismatch` (``ok`` or the class of
  departure: ``value instead of error``, ``wrong error (index error, expected
  shape or attribute error)``...), the :class:`ErrorGroup` an error class falls in;
* what makes a root cause: its :class:`Condition` (``bad index``,
  ``precondition: rank mismatch``, a regime with flags...);
* statuses: a finding's (:class:`FindingStatus`), a replayed baseline entry's
  (:class:`ReplayStatus`), a run's (:class:`RunStatus`), a dtype in the
  support table (:class:`Support`), which argument a dtype is (:class:`DtypeArg`).

>>> Mismatch.parse("wrong error (index error, expected shape or attribute error)").kind
<MismatchKind.WRONG_ERROR: 'wrong error'>
>>> Condition.parse(["negative", "0-d"]).words()
('negative', '0-d')
>>> Regime("oob-above").decides_policy, RunStatus.COMPLETE == "complete"
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from conformance.core.blame import DtypeArg, Rule
from conformance.core.outcome import ErrorClass
from conformance.core.word import Word


class Regime(Word):
    """What a case's index values are, whatever was drawn."""

    IN_RANGE = "in-range"
    NEGATIVE = "negative"
    """Every bad index in ``[-size, -1]``: a wrapping policy reads it."""
    OOB_ABOVE = "oob-above"
    OOB_BELOW = "oob-below"
    EXTREME = "extreme"
    """An index at its dtype's limit (``int8`` 127, ``uint64`` ``2**64 - 1``)."""
    EMPTY = "empty"
    NON_INTEGER = "non-integer"
    """bool or float indices: bad input, whatever their values."""

    @property
    def decides_policy(self) -> bool:
        """Whether the index policy decides the result (:data:`POLICY_REGIMES`)."""
        return self in POLICY_REGIMES


REGIMES: tuple[Regime, ...] = (
    Regime.IN_RANGE,
    Regime.NEGATIVE,
    Regime.OOB_ABOVE,
    Regime.OOB_BELOW,
    Regime.EXTREME,
    Regime.EMPTY,
)
"""The regimes a campaign draws."""
POLICY_REGIMES = frozenset({Regime.NEGATIVE, Regime.OOB_ABOVE, Regime.OOB_BELOW, Regime.EXTREME})
"""Regimes where the index policy decides the result."""


class Flag(Word):
    """A structural fact about a case."""

    EMPTY_DATA = "empty-data"
    ZERO_D = "0-d"
    BATCH_DIMS = "batch_dims>0"
    NON_CONTIGUOUS = "non-contiguous"


STRUCTURAL_FLAGS: tuple[Flag, ...] = (Flag.ZERO_D, Flag.BATCH_DIMS)
"""Flags that enter a condition where the regime alone does not decide."""


class Pattern(Word):
    """How an element case's other dimensions relate."""

    SAME_SHAPE = "same-shape"
    BCAST = "bcast"
    WINDOW = "window"
    MISMATCH = "mismatch"


class Layout(Word):
    """How an array's elements lie in memory."""

    CONTIGUOUS = "contiguous"
    STRIDED = "strided"
    FORTRAN = "fortran"
    NEGATIVE_STRIDE = "negative-stride"
    BROADCAST = "broadcast"


DRAWN_LAYOUTS: tuple[Layout, ...] = (Layout.CONTIGUOUS, Layout.STRIDED, Layout.FORTRAN)
"""The layouts a campaign draws (the atlas probes the others too)."""


class ErrorGroup(Word):
    """Error classes compared with the reference's, by which argument the error blames."""

    INDEX = "index error"
    SHAPE = "shape or attribute error"
    DTYPE = "dtype error"
    INTERNAL = "internal error"
    ATTRIBUTE_TYPE = "attribute type error"
    """Expected only: the refusal of an attribute's type on a case its int reading makes valid, where a shape
    error shows that the value was read (:func:`conformance.judge.verdict.int_read`); in no error class's group."""

    @classmethod
    def of(cls, error_class: ErrorClass | None) -> ErrorGroup | None:
        """The group of an error class; None for OTHER (a message no pattern knows) and None.

        >>> ErrorGroup.of(ErrorClass.NEGATIVE_INDEX), ErrorGroup.of(ErrorClass.OTHER)
        (<ErrorGroup.INDEX: 'index error'>, None)
        """
        return ERROR_GROUPS.get(error_class) if error_class is not None else None


ERROR_GROUPS: dict[ErrorClass, ErrorGroup] = {
    ErrorClass.INDEX_OUT_OF_RANGE: ErrorGroup.INDEX,
    ErrorClass.NEGATIVE_INDEX: ErrorGroup.INDEX,
    ErrorClass.SHAPE_INVALID: ErrorGroup.SHAPE,
    ErrorClass.ATTRIBUTE_INVALID: ErrorGroup.SHAPE,
    ErrorClass.DTYPE_UNSUPPORTED: ErrorGroup.DTYPE,
    ErrorClass.INTERNAL: ErrorGroup.INTERNAL,
}
"""A framework's message says "axis" or "shape" for the same rule often enough
that shape and attribute errors are one group, and so are an index out of range
and a rejected negative. OTHER is in no group and is never called the wrong class."""

INDEX_ERRORS = frozenset({ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.NEGATIVE_INDEX})
"""The error classes of a bad index."""
PRECONDITION_ERRORS = frozenset({ErrorClass.SHAPE_INVALID, ErrorClass.ATTRIBUTE_INVALID})
"""The error classes of a broken precondition (a shape rule, an attribute's domain)."""


class MismatchKind(Word):
    """The judge's class of an answer: ``ok`` or how it departs from the docs."""

    OK = "ok"
    VALUE_INSTEAD_OF_ERROR = "value instead of error"
    ERROR_INSTEAD_OF_VALUE = "error instead of value"
    WRONG_ERROR = "wrong error"
    WRONG_VALUE = "wrong value"
    WRONG_SHAPE = "wrong shape"
    WRONG_DTYPE = "wrong dtype"
    NAN_PAYLOAD = "NaN payload not kept"
    INTERNAL = "internal error"
    SPEC_SILENT = "spec silent"
    DTYPE_REJECTED = "dtype rejected"
    UNDOCUMENTED_DTYPE = "undocumented dtype accepted"
    CRASH = "crash"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol error"
    ATTRIBUTE_REFUSED = "attribute refused"
    """A root cause whose error quotes an attribute: one finding whatever the reference expected."""
    SHAPES_REFUSED = "shapes refused"
    """A shape error where the docs accept the shapes: one finding whatever the index values."""


FAULTS = frozenset({MismatchKind.CRASH, MismatchKind.TIMEOUT})
"""Mismatches that only an isolated oracle can turn into an answer."""


@dataclass(frozen=True)
class Mismatch:
    """A :class:`MismatchKind`, with the error classes it names: the class
    raised where a value was due (``error instead of value (index out of
    range)``), or the group raised and the one expected (``wrong error``).

    >>> str(Mismatch(MismatchKind.ERROR_INSTEAD_OF_VALUE, ErrorClass.INDEX_OUT_OF_RANGE))
    'error instead of value (index out of range)'
    >>> str(Mismatch.wrong_error(ErrorGroup.INDEX, ErrorGroup.SHAPE))
    'wrong error (index error, expected shape or attribute error)'
    >>> Mismatch.parse(str(Mismatch.OK)) == Mismatch.OK, Mismatch.OK.conforms
    (True, True)
    """

    kind: MismatchKind
    error: ErrorClass | None = None
    got: ErrorGroup | None = None
    expected: ErrorGroup | None = None

    OK: ClassVar[Mismatch]

    @classmethod
    def of(cls, kind: MismatchKind) -> Mismatch:
        """A mismatch of ``kind`` that names no error class."""
        return cls(kind)

    @classmethod
    def error_instead_of_value(cls, error: ErrorClass | None) -> Mismatch:
        return cls(MismatchKind.ERROR_INSTEAD_OF_VALUE, error or ErrorClass.OTHER)

    @classmethod
    def wrong_error(cls, got: ErrorGroup, expected: ErrorGroup) -> Mismatch:
        return cls(MismatchKind.WRONG_ERROR, got=got, expected=expected)

    @property
    def conforms(self) -> bool:
        return self.kind is MismatchKind.OK

    def __str__(self) -> str:
        if self.kind is MismatchKind.ERROR_INSTEAD_OF_VALUE and self.error is not None:
            return f"{self.kind.value} ({self.error.value})"
        if self.kind is MismatchKind.WRONG_ERROR and self.got is not None and self.expected is not None:
            return f"{self.kind.value} ({self.got.value}, expected {self.expected.value})"
        return self.kind.value

    @classmethod
    def parse(cls, text: str) -> Mismatch:
        """The mismatch ``text`` names (as ``str`` writes it); a ValueError otherwise.

        >>> Mismatch.parse("error instead of value (shape invalid)").error
        <ErrorClass.SHAPE_INVALID: 'shape invalid'>
        >>> Mismatch.parse("worse")
        Traceback (most recent call last):
        ValueError: 'worse' is not a mismatch (known: ok, value instead of error, ...)
        """
        head, _, rest = text.partition(" (")
        detail = rest.removesuffix(")")
        try:
            kind = MismatchKind(head if rest else text)
            if kind is MismatchKind.ERROR_INSTEAD_OF_VALUE and detail:
                return cls(kind, ErrorClass(detail))
            if kind is MismatchKind.WRONG_ERROR and detail:
                got, _, expected = detail.partition(", expected ")
                return cls.wrong_error(ErrorGroup(got), ErrorGroup(expected))
        except ValueError:
            known = ", ".join(k.value for k in list(MismatchKind)[:2])
            raise ValueError(f"{text!r} is not a mismatch (known: {known}, ...)") from None
        return cls(kind)


Mismatch.OK = Mismatch(MismatchKind.OK)


class ConditionKind(Word):
    """What triggers a root cause (the rule that picks one: :func:`conformance.judge.rootcause.condition`)."""

    ANY = "any input"
    """An internal error or a protocol error: one fault, whatever the input."""
    HANGS = "hangs"
    ARGUMENT_DTYPE = "dtype"
    """A dtype of one argument (which dtypes: the variants)."""
    UNDOCUMENTED_DTYPE = "undocumented dtype"
    ATTRIBUTE = "attribute"
    """An attribute value an error quotes (``mode='raise'``)."""
    DATA_DTYPE_VALUES = "data values"
    """Values of one data dtype (NaN payloads): ``data:float32``."""
    EMPTY_OUTPUT = "empty output"
    PRECONDITION = "precondition"
    """A documented rule the case breaks: ``precondition: rank mismatch``."""
    REGIME = "regime"
    """The index regime, with the structural flags that decide it."""
    EMPTY_AXIS = "empty axis"
    BEYOND_INT32 = "index beyond int32"
    BAD_INDEX = "bad index"
    SHAPES_REFUSED = "shapes refused"
    EMPTY_DATA = "empty data"


_FIXED_WORDS = {
    k.value: k
    for k in (
        ConditionKind.HANGS,
        ConditionKind.UNDOCUMENTED_DTYPE,
        ConditionKind.EMPTY_OUTPUT,
        ConditionKind.EMPTY_AXIS,
        ConditionKind.BEYOND_INT32,
        ConditionKind.BAD_INDEX,
        ConditionKind.SHAPES_REFUSED,
        ConditionKind.EMPTY_DATA,
    )
}
_PRECONDITION_PREFIX = "precondition: "
_DTYPE_SUFFIX = " dtype"
_VALUES_PREFIX = "data:"


@dataclass(frozen=True)
class Condition:
    """The condition of a root cause: a :class:`ConditionKind` with what it
    names (the argument, attribute, dtype, rule or regime) and, for a regime,
    its structural flags (``shapes refused`` on empty data: ``empty_data``).
    :meth:`words` is its form in JSON and in baseline entries (``tags``).

    >>> Condition.precondition(Rule.RANK_MISMATCH).words(), Condition.of(ConditionKind.BAD_INDEX).words()
    (('precondition: rank mismatch',), ('bad index',))
    >>> Condition.regime(Regime.OOB_ABOVE, [Flag.ZERO_D]).words(), Condition.any().words()
    (('oob-above', '0-d'), ())
    >>> all(Condition.parse(c.words()) == c for c in (Condition.dtype(DtypeArg.INDEX),
    ...     Condition.attribute("mode='raise'")))
    True
    """

    kind: ConditionKind
    detail: str = ""
    flags: tuple[Flag, ...] = ()

    @classmethod
    def of(cls, kind: ConditionKind) -> Condition:
        """A condition that names nothing more than its kind."""
        return cls(kind)

    @classmethod
    def any(cls) -> Condition:
        return cls(ConditionKind.ANY)

    @classmethod
    def dtype(cls, arg: DtypeArg) -> Condition:
        return cls(ConditionKind.ARGUMENT_DTYPE, arg.value)

    @classmethod
    def attribute(cls, quoted: str) -> Condition:
        return cls(ConditionKind.ATTRIBUTE, quoted)

    @classmethod
    def data_values(cls, dtype: str) -> Condition:
        return cls(ConditionKind.DATA_DTYPE_VALUES, dtype)

    @classmethod
    def precondition(cls, rule: Rule) -> Condition:
        return cls(ConditionKind.PRECONDITION, rule.value)

    @classmethod
    def regime(cls, regime: Regime, flags: Iterable[Flag] = ()) -> Condition:
        return cls(ConditionKind.REGIME, regime.value, tuple(f for f in STRUCTURAL_FLAGS if f in set(flags)))

    @classmethod
    def shapes_refused(cls, empty_data: bool) -> Condition:
        return cls(ConditionKind.SHAPES_REFUSED, flags=(Flag.EMPTY_DATA,) if empty_data else ())

    @property
    def regime_named(self) -> Regime | None:
        """The regime of a regime condition, else None."""
        return Regime(self.detail) if self.kind is ConditionKind.REGIME else None

    def words(self) -> tuple[str, ...]:
        """The condition as words (its JSON ``tags``, what baseline entries match)."""
        kind = self.kind
        if kind is ConditionKind.ANY:
            return ()
        if kind is ConditionKind.ARGUMENT_DTYPE:
            return (self.detail + _DTYPE_SUFFIX,)
        if kind in (ConditionKind.ATTRIBUTE,):
            return (self.detail,)
        if kind is ConditionKind.DATA_DTYPE_VALUES:
            return (_VALUES_PREFIX + self.detail,)
        if kind is ConditionKind.PRECONDITION:
            return (_PRECONDITION_PREFIX + self.detail,)
        if kind is ConditionKind.REGIME:
            return (self.detail, *(f.value for f in self.flags))
        if kind is ConditionKind.SHAPES_REFUSED and self.flags:
            return (kind.value, ConditionKind.EMPTY_DATA.value)
        return (kind.value,)

    def __str__(self) -> str:
        return ", ".join(sorted(self.words())) or ConditionKind.ANY.value

    @classmethod
    def parse(cls, words: Iterable[str]) -> Condition:
        """The condition ``words`` name (as :meth:`words` writes them); a ValueError otherwise.

        >>> Condition.parse(("shapes refused", "empty data")) == Condition.shapes_refused(True)
        True
        >>> Condition.parse(("now and then",))
        Traceback (most recent call last):
        ValueError: ('now and then',) is no condition
        """
        tags = tuple(words)
        if not tags:
            return cls.any()
        first, rest = tags[0], tags[1:]
        if first == ConditionKind.SHAPES_REFUSED.value and rest in ((), (ConditionKind.EMPTY_DATA.value,)):
            return cls.shapes_refused(bool(rest))
        if first in _FIXED_WORDS and not rest:
            return cls(_FIXED_WORDS[first])
        if (
            not rest
            and first.endswith(_DTYPE_SUFFIX)
            and first.removesuffix(_DTYPE_SUFFIX) in {a.value for a in DtypeArg}
        ):
            return cls.dtype(DtypeArg(first.removesuffix(_DTYPE_SUFFIX)))
        if not rest and first.startswith(_VALUES_PREFIX):
            return cls.data_values(first.removeprefix(_VALUES_PREFIX))
        rule = first.removeprefix(_PRECONDITION_PREFIX)
        if not rest and first.startswith(_PRECONDITION_PREFIX) and rule in set(Rule):
            return cls.precondition(Rule(rule))
        if first in {r.value for r in Regime} and all(t in {f.value for f in STRUCTURAL_FLAGS} for t in rest):
            return cls.regime(Regime(first), [Flag(t) for t in rest])
        if not rest and "=" in first:
            return cls.attribute(first)
        raise ValueError(f"{tags!r} is no condition")


class FindingStatus(Word):
    """Whether the baseline accepts a finding."""

    NEW = "new"
    KNOWN = "known"


class ReplayStatus(Word):
    """What replaying a baseline entry's reproducers showed."""

    REPRODUCES = "reproduces"
    FIXED = "fixed"
    """Every reproducer now conforms: fixed upstream, the gate fails until the entry goes."""
    CHANGED = "changed"
    """A reproducer shows another root cause: the gate fails."""
    SKIPPED = "skipped"

    @property
    def fails(self) -> bool:
        """Whether the gate fails on it."""
        return self in (ReplayStatus.FIXED, ReplayStatus.CHANGED)


class GateFailure(Word):
    """What makes the CI gate fail (each a :class:`GateProblem`)."""

    NEW = "new"
    """A root cause no baseline entry accepts."""
    FIXED_UPSTREAM = "fixed upstream"
    """An entry whose reproducers all conform now."""
    CHANGED = "changed"
    """An entry whose reproducer shows another root cause."""
    HARNESS_ERROR = "harness error"
    NOTHING_TESTED = "nothing tested"


@dataclass(frozen=True)
class GateProblem:
    """One reason the gate fails, and its line.

    >>> str(GateProblem(GateFailure.NOTHING_TESTED, "no oracle ran a single case"))
    'nothing tested: no oracle ran a single case'
    """

    kind: GateFailure
    detail: str

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.detail}"


class RunStatus(Word):
    """How a run ended."""

    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    """Stopped by SIGINT or SIGTERM: what was found so far."""
    PARTIAL = "partial"
    """Rebuilt from the stream a killed run left."""


class Support(Word):
    """What a dtype got in the dtype-support table (a rejection names its error class: ``rejected (shape invalid)``)."""

    ACCEPTED = "accepted"
    WRONG = "wrong"
    """A wrong value for in-range indices."""
    REJECTED = "rejected"
    CANNOT_HOLD = "cannot hold"

    def words(self, error: ErrorClass | None = None) -> str:
        """The status as the table writes it.

        >>> Support.REJECTED.words(ErrorClass.DTYPE_UNSUPPORTED), Support.ACCEPTED.words()
        ('rejected (dtype unsupported)', 'accepted')
        """
        return f"{self.value} ({(error or ErrorClass.OTHER).value})" if self is Support.REJECTED else self.value

    @classmethod
    def parse(cls, words: str) -> Support:
        """The status of a table word.

        >>> Support.parse("rejected (other)")
        <Support.REJECTED: 'rejected'>
        """
        return cls(words.partition(" (")[0])


class Decision(Word):
    """A catalog decision a doc sentence grounds (:mod:`conformance.spec.basis`): the index policy,
    the accepted dtypes, the shape rules, or one attribute's domain."""

    POLICY = "policy"
    DTYPES = "dtypes"
    SHAPES = "shapes"
    ATTRIBUTE = "attribute"


class BasisStatus(Word):
    """What an op's docs say of a catalog decision (:mod:`conformance.spec.basis`): a rule they state, an outcome
    they call undefined (or unspecified, or unchecked), one they leave to the implementation, or nothing."""

    DOCUMENTED = "documented"
    UNDEFINED = "undefined"
    IMPLEMENTATION_DEFINED = "implementation-defined"
    SILENT = "silent"

    @property
    def permits(self) -> bool:
        """Whether the docs leave the outcome to the framework (undefined or implementation-defined): any answer that
        reads the input is allowed there, and only a read outside it, a crash or a hang is worth a user's notice.

        >>> BasisStatus.UNDEFINED.permits, BasisStatus.SILENT.permits
        (True, False)
        """
        return self in (BasisStatus.UNDEFINED, BasisStatus.IMPLEMENTATION_DEFINED)


class FindingKind(Word):
    """What a finding is to the framework's maintainer, by the status of the doc sentence it rests on."""

    BUG = "bug"
    """It departs from a documented sentence."""
    HAZARD = "hazard"
    """The docs permit the outcome or say nothing, and the framework reads outside its input, crashes or hangs."""
    QUESTION = "question"
    """The docs are silent: what the framework does, beside what the others do."""

    @property
    def meaning(self) -> str:
        """What the kind says, in a report's words."""
        return {
            FindingKind.BUG: "departs from a sentence of the framework's own docs",
            FindingKind.HAZARD: "the docs permit it or say nothing, but the framework reads outside its input, "
            "crashes or hangs",
            FindingKind.QUESTION: "the docs are silent: what the framework does, beside what the others do",
        }[self]

    @property
    def fails_gate(self) -> bool:
        """Whether a new finding of this kind fails the gate by default (questions only with ``--fail-on-questions``).

        >>> [k.fails_gate for k in FindingKind]
        [True, True, False]
        """
        return self is not FindingKind.QUESTION


class Feature(Word):
    """A feature of a case that a counterfactual changes toward its ordinary value
    (:mod:`conformance.cases.counterfactual`): those whose change makes a departing case conform are its trigger."""

    INDEX_DTYPE = "index dtype"
    DATA_DTYPE = "data dtype"
    ATTRIBUTE = "attribute"
    OUT_OF_RANGE = "out-of-range indices"
    EMPTY = "empty dimensions"
    ZERO_D = "0-d"
    LAYOUT = "layout"


class AttrRole(Word):
    """An attribute as the atlas and the fuzzer draw its domain: ``axis`` stands for ``axis`` and ``dim``."""

    AXIS = "axis"
    BATCH_DIMS = "batch_dims"
    MODE = "mode"
    FILL_VALUE = "fill_value"
    BROADCAST = "broadcast"

    @property
    def names(self) -> tuple[str, ...]:
        """The attribute names this role stands for: ``AttrRole.AXIS.names == ("axis", "dim")``."""
        return ("axis", "dim") if self is AttrRole.AXIS else (self.value,)


class AttrValue(Word):
    """A type of value a user can pass for an attribute (issue 22's attribute domain)."""

    BOOL = "bool"
    FLOAT = "float"
    STR = "str"
    NONE = "None"
    NUMPY_INT = "numpy integer"
    ZERO_D = "0-d array"
    INT64_MIN = "int64 min"
    INT64_MAX = "int64 max"
    OUTSIDE = "just outside"
