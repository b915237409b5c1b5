"""What an oracle reports: an :class:`Outcome`, whatever happened.

An oracle runs one catalog op on a real framework. It never raises to its
caller: a returned array, a raised error, a crash, a timeout and "not
supported" (decided before calling) are all outcomes.

>>> import numpy as np
>>> Outcome.returned(np.array([1, 2], dtype=np.int8)).describe()
'value int8[2]'
>>> Outcome.raised(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE).describe()
'error IndexError (index out of range)'
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance.core.blame import DtypeArg
from conformance.core.case import Case, CaseLike, as_case
from conformance.core.judgement import Judgement, says
from conformance.core.oracle import Capabilities, OracleInfo, Reproducer
from conformance.core.outcome import ErrorClass, Outcome

if TYPE_CHECKING:
    from typing_extensions import Self


class Oracle(ABC):
    """One framework (at one device and execution mode) behind one interface.

    Subclasses implement :meth:`call` (run an op in this process, converting
    inputs to the framework's own tensors without casting anything, and the
    result back to NumPy bit for bit), :meth:`unsupported_reason` (decide
    *before* calling whether the framework can represent the inputs at all),
    :meth:`classify` (normalize the framework's exceptions), :meth:`info` and
    :meth:`reproducer` (a standalone script of one case, for this oracle's
    framework, device and mode).
    :meth:`run_in_process` turns all of that into an :class:`Outcome`; the
    isolation layer runs the same method inside a worker process.
    """

    name: str = ""
    framework: str = ""
    mode: str = "eager"

    @abstractmethod
    def info(self) -> OracleInfo:
        """Version, device, mode and the catalog keys it implements."""

    @abstractmethod
    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        """Run catalog op ``op`` (a key such as ``"onnx.Gather-13"``) natively."""

    @abstractmethod
    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer:
        """A script that re-runs ``case`` as this oracle runs it and exits 1
        printing ``REPRODUCED`` while the oracle still shows the discrepancy:
        as ``judgement`` (the campaign's verdicts) says, else where it differs
        from ``reference``; ``observed`` is what the oracle did (a crash or a
        timeout makes the script run the case in a child process)."""

    def unsupported_reason(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> str | None:
        """Why this framework cannot even be handed these inputs, or None."""
        return None if op in self.info().ops else f"{self.name} does not implement {op}"

    def classify(self, exc: BaseException) -> ErrorClass:
        """Normalize an exception raised by :meth:`call`: by its type first (:func:`classify_type`), by the
        words of its message only as a last resort."""
        return classify_type(exc) or classify_message(str(exc))

    def refused_argument(self) -> DtypeArg | None:
        """The argument the last :meth:`call` was converting to the framework's own tensor when it raised (the
        framework refused that argument, whatever its message says), or None where it was not converting one."""
        return None

    def run_in_process(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Outcome:
        """Run one case here and report it as an :class:`Outcome` (never raises).

        Inputs are made ndarrays first (a 0-d index may travel as a NumPy
        scalar, which some frameworks refuse), without changing a bit. An
        error raised while an argument was converted carries that argument
        (:attr:`Outcome.dtype_argument`, see :meth:`refused_argument`).
        """
        data, indices = np.asarray(data), np.asarray(indices)
        reason = self.unsupported_reason(op, data, indices, attrs)
        if reason:
            return Outcome.unsupported(reason)
        start = time.perf_counter()
        try:
            value = self.call(op, data, indices, attrs)
        except Exception as exc:  # noqa: BLE001 - the point of an oracle: every error is an outcome
            raised = Outcome.raised(exc, internal_or(exc, self.classify(exc)), time.perf_counter() - start)
            return replace(raised, dtype_argument=self.refused_argument())
        return Outcome.returned(value, time.perf_counter() - start)

    def spent_by(self, outcome: Outcome) -> str | None:
        """Why ``outcome`` leaves this process unable to run another case (its
        worker then ends, and the next case runs in a fresh one), or None, as
        for every outcome of most frameworks.

        >>> from oracles.numpy_oracle import oracles_here
        >>> oracles_here()[0].spent_by(Outcome.raised(RuntimeError("boom"), ErrorClass.OTHER)) is None
        True
        """
        return None

    def run(self, op: str, data: np.ndarray, indices: np.ndarray, **attrs: Any) -> Outcome:
        """The same call an :class:`~oracles.isolation.IsolatedOracle` answers,
        here in this process: ``oracle.run("numpy.take", x, i, axis=1)``."""
        return self.run_in_process(op, data, indices, attrs)

    @property
    def capabilities(self) -> Capabilities:
        """In this process: neither isolated nor bounded (a crash or a hang is the caller's)."""
        return Capabilities(compiles=self.info().compiles)

    def run_many(self, cases: Iterable[CaseLike], *, timeout: float | None = None) -> list[Outcome]:
        """One :class:`Outcome` per case, in order (see :func:`as_case`); no
        time limit can bound a case run in this process, so ``timeout`` is not used."""
        return [self.run_in_process(c.op, c.data, c.indices, dict(c.attrs)) for c in map(as_case, cases)]

    def close(self) -> None:
        """Nothing to release in-process; here so both kinds of oracle share one interface."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


ERROR_TYPES: tuple[tuple[ErrorClass, tuple[str, ...]], ...] = (
    # NumPy's AxisError (fields axis and ndim; an IndexError too): "axis 2 is out of bounds ..." is no index error
    (ErrorClass.ATTRIBUTE_INVALID, ("AxisError",)),
)
"""Exception types (by name) whose class needs no message, tried before any word of it."""


def classify_type(
    exc: BaseException, types: tuple[tuple[ErrorClass, tuple[str, ...]], ...] = ERROR_TYPES
) -> ErrorClass | None:
    """The class ``exc``'s type says (``types``: :data:`ERROR_TYPES`), or None: its message decides.

    >>> import numpy as np
    >>> classify_type(np.exceptions.AxisError(2, 1)).name, classify_type(IndexError("axis 2 is out of bounds"))
    ('ATTRIBUTE_INVALID', None)
    """
    name = type(exc).__name__
    return next((error_class for error_class, names in types if name in names), None)


ERROR_PATTERNS: tuple[tuple[ErrorClass, tuple[str, ...]], ...] = (
    (ErrorClass.NEGATIVE_INDEX, ("negative",)),
    (
        ErrorClass.INDEX_OUT_OF_RANGE,
        (
            "from an empty ax*",
            "out of data bounds",
            "out of bound*",
            "out of range",
            "out-of-bound*",
            "outofrange*",
            "not in [",
            "invalid index",
            "index error",
        ),
    ),
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        (
            "dtype*",
            "data type*",
            "not implemented for",
            "type mismatch",
            "unsupported type*",
            "could not find an implementation",
        ),
    ),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "dim ", "batch_dims", "attribute*", "mode")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*", "size mismatch", "broadcast*")),
)


INTERNAL_TYPES = frozenset(
    {
        "ZeroDivisionError",
        "AssertionError",
        "SystemError",
        "MemoryError",
        "RecursionError",
        "InternalError",
        "UnboundLocalError",
        "NameError",
        "AttributeError",
        "KeyError",
    }
)
"""Exception types that are a fault inside the framework, whatever the input (an assertion, unless it states its
rule: :data:`STATED_TYPES`)."""
STATED_TYPES = frozenset({"AssertionError"})
"""Internal types a framework also raises on purpose, with a message that names the rule the call breaks (Paddle's
take_along_axis on 0-d data: ``assert axis < ndim, "'axis' must be in the range of [-0, 0)"``, a range check, not a
fault; audit of stop 47, 9A n=130): where its words classify it, that class; a bare ``assert`` stays internal."""
INTERNAL_NEEDLES = (
    "integer overflow",
    "zerodivision*",
    "division by zero",
    "internal assert*",
    "internal error",
    "check failed",
    "assertion*",
    "please report",
    "this is a bug",
    "unreachable",
    "list index out of range",
    "list assignment index out of range",
    "tuple index out of range",
)
"""Message fragments of the same (an assert or overflow surfacing through a generic error type; a Python list or
tuple indexed past its end inside the framework's own code: torch.compile's index_select with dim=3 raises
"IndexError: list assignment index out of range" where eager says "Dimension out of range", audit of stop 46)."""


def internal_or(exc: BaseException, error_class: ErrorClass) -> ErrorClass:
    """INTERNAL for an error that is the framework's own fault (:data:`INTERNAL_NEEDLES`, or
    :data:`INTERNAL_TYPES` unless it is one of :data:`STATED_TYPES` whose words gave ``error_class``), whatever else
    its message says; ``error_class`` otherwise.

    >>> internal_or(RuntimeError("ZeroDivisionError: integer division by zero"), ErrorClass.OTHER).name
    'INTERNAL'
    >>> internal_or(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE).name
    'INDEX_OUT_OF_RANGE'
    >>> said = AssertionError("'axis' must be in the range of [-0, 0)")
    >>> internal_or(said, ErrorClass.ATTRIBUTE_INVALID).name, internal_or(AssertionError(), ErrorClass.OTHER).name
    ('ATTRIBUTE_INVALID', 'INTERNAL')
    """
    text, name = str(exc).lower(), type(exc).__name__
    stated = name in STATED_TYPES and error_class is not ErrorClass.OTHER
    if name in INTERNAL_TYPES and not stated or any(says(text, n) for n in INTERNAL_NEEDLES):
        return ErrorClass.INTERNAL
    return error_class


def classify_message(message: str) -> ErrorClass:
    """A first, framework-neutral normalization of an error message, by whole
    words (:func:`~conformance.core.judgement.says`; a needle ending in ``*``
    is a stem); oracles refine it where their messages need it.

    >>> classify_message("index 5 is out of bounds for axis 0 with size 3")
    <ErrorClass.INDEX_OUT_OF_RANGE: 'index out of range'>
    >>> classify_message("Index tensor must have the same number of dimensions as input tensor")
    <ErrorClass.SHAPE_INVALID: 'shape invalid'>
    >>> classify_message("only integers, numpy.newaxis (`None`) and integer arrays are valid indices")  # no axis
    <ErrorClass.OTHER: 'other'>
    """
    text = message.lower()
    for error_class, needles in ERROR_PATTERNS:
        if any(says(text, n) for n in needles):
            return error_class
    return ErrorClass.OTHER
