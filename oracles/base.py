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

import base64
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from enum import Enum
from collections.abc import Iterable, Mapping
from typing import Any, Union

import numpy as np

from conformance.arrays import as_dtype, dtype_name


class Kind(str, Enum):
    VALUE = "value"
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"


class ErrorClass(str, Enum):
    """A framework's error, normalized so that errors compare across frameworks."""

    INDEX_OUT_OF_RANGE = "index out of range"
    NEGATIVE_INDEX = "negative index rejected"
    DTYPE_UNSUPPORTED = "dtype unsupported"
    SHAPE_INVALID = "shape invalid"
    ATTRIBUTE_INVALID = "attribute invalid"
    OTHER = "other"


@dataclass
class Outcome:
    """Exactly what happened when an oracle ran a case."""

    kind: Kind
    value: np.ndarray | None = None
    error_type: str | None = None
    message: str | None = None
    error_class: ErrorClass | None = None
    signal: int | None = None
    exit_code: int | None = None
    reason: str | None = None
    seconds: float = 0.0

    @classmethod
    def returned(cls, value: np.ndarray, seconds: float = 0.0) -> "Outcome":
        return cls(Kind.VALUE, value=value, seconds=seconds)

    @classmethod
    def raised(cls, exc: BaseException, error_class: ErrorClass, seconds: float = 0.0) -> "Outcome":
        return cls(Kind.ERROR, error_type=type(exc).__name__, message=str(exc), error_class=error_class, seconds=seconds)

    @classmethod
    def crashed(cls, signal: int | None, exit_code: int | None, message: str = "") -> "Outcome":
        return cls(Kind.CRASH, signal=signal, exit_code=exit_code, message=message)

    @classmethod
    def timed_out(cls, seconds: float) -> "Outcome":
        return cls(Kind.TIMEOUT, seconds=seconds, message=f"no answer within {seconds:g} s")

    @classmethod
    def unsupported(cls, reason: str) -> "Outcome":
        return cls(Kind.UNSUPPORTED, reason=reason)

    def describe(self) -> str:
        """A short line for logs and reports."""
        if self.kind is Kind.VALUE:
            assert self.value is not None
            return f"value {dtype_name(self.value.dtype)}{list(self.value.shape)}"
        if self.kind is Kind.ERROR:
            return f"error {self.error_type} ({self.error_class.value if self.error_class else '?'})"
        if self.kind is Kind.CRASH:
            return f"crash (signal {self.signal})" if self.signal else f"crash (exit code {self.exit_code})"
        if self.kind is Kind.UNSUPPORTED:
            return f"not supported: {self.reason}"
        return "timeout"

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict; the value travels as dtype, shape and base64 bytes
        (object/str arrays as a list), so no bit is lost.

        >>> o = Outcome.returned(np.array([np.nan, -0.0], dtype=np.float32))
        >>> Outcome.from_json(o.to_json()).value.tobytes() == o.value.tobytes()
        True
        """
        d = asdict(self)
        d["kind"] = self.kind.value
        d["error_class"] = self.error_class.value if self.error_class else None
        d["value"] = encode_array(self.value) if self.value is not None else None
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Outcome":
        d = dict(d)
        d["kind"] = Kind(d["kind"])
        d["error_class"] = ErrorClass(d["error_class"]) if d.get("error_class") else None
        d["value"] = decode_array(d["value"]) if d.get("value") is not None else None
        return cls(**d)


def encode_array(a: np.ndarray) -> dict[str, Any]:
    """Bit-exact JSON form of an array (see :meth:`Outcome.to_json`)."""
    if a.dtype.kind in "OUS":
        return {"dtype": dtype_name(a.dtype), "shape": list(a.shape), "list": a.tolist()}
    return {"dtype": dtype_name(a.dtype), "shape": list(a.shape), "b64": base64.b64encode(np.asarray(a, order="C").tobytes()).decode()}


def decode_array(d: dict[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_array`."""
    if "list" in d:
        return np.array(d["list"], dtype=object if d["dtype"] == "object" else as_dtype(d["dtype"])).reshape(d["shape"])
    return np.frombuffer(base64.b64decode(d["b64"]), dtype=as_dtype(d["dtype"])).reshape(d["shape"]).copy()


@dataclass(frozen=True)
class OracleInfo:
    """The facts a result is worthless without."""

    name: str
    framework: str
    version: str
    device: str
    mode: str
    ops: tuple[str, ...] = field(default_factory=tuple)


class Oracle(ABC):
    """One framework (at one device and execution mode) behind one interface.

    Subclasses implement :meth:`call` (run an op in this process, converting
    inputs to the framework's own tensors without casting anything, and the
    result back to NumPy bit for bit), :meth:`unsupported_reason` (decide
    *before* calling whether the framework can represent the inputs at all),
    :meth:`classify` (normalize the framework's exceptions) and :meth:`info`.
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

    def unsupported_reason(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> str | None:
        """Why this framework cannot even be handed these inputs, or None."""
        return None if op in self.info().ops else f"{self.name} does not implement {op}"

    def classify(self, exc: BaseException) -> ErrorClass:
        """Normalize an exception raised by :meth:`call`."""
        return classify_message(str(exc))

    def run_in_process(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Outcome:
        """Run one case here and report it as an :class:`Outcome` (never raises).

        Inputs are made ndarrays first (a 0-d index may travel as a NumPy
        scalar, which some frameworks refuse), without changing a bit.
        """
        data, indices = np.asarray(data), np.asarray(indices)
        reason = self.unsupported_reason(op, data, indices, attrs)
        if reason:
            return Outcome.unsupported(reason)
        start = time.perf_counter()
        try:
            value = self.call(op, data, indices, attrs)
        except Exception as exc:  # the point of an oracle: every error is an outcome
            return Outcome.raised(exc, self.classify(exc), time.perf_counter() - start)
        return Outcome.returned(value, time.perf_counter() - start)

    def run(self, op: str, data: np.ndarray, indices: np.ndarray, **attrs: Any) -> Outcome:
        """The same call an :class:`~oracles.isolation.IsolatedOracle` answers,
        here in this process: ``oracle.run("numpy.take", x, i, axis=1)``."""
        return self.run_in_process(op, data, indices, attrs)

    def run_many(self, cases: Iterable[CaseLike]) -> list[Outcome]:
        """One :class:`Outcome` per case, in order (see :func:`as_case`)."""
        return [self.run_in_process(c.op, c.data, c.indices, dict(c.attrs)) for c in map(as_case, cases)]

    def close(self) -> None:
        """Nothing to release in-process; here so both kinds of oracle share one interface."""

    def __enter__(self) -> "Oracle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Case:
    """One concrete input to a catalog op, in that op's own convention: the
    call an oracle runs and the reproducer a finding keeps (``tags`` say which
    index regime, dtypes and layout the campaign drew it for).

    >>> Case("numpy.take", np.arange(3), np.array([2]), {"axis": 0}).op
    'numpy.take'
    """

    op: str
    data: np.ndarray
    indices: np.ndarray
    attrs: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Bit-exact JSON form (see :func:`encode_array`)."""
        return {"op": self.op, "data": encode_array(self.data), "indices": encode_array(self.indices), "attrs": dict(self.attrs), "tags": list(self.tags)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Case":
        return cls(d["op"], decode_array(d["data"]), decode_array(d["indices"]), dict(d["attrs"]), tuple(d["tags"]))


CaseLike = Union[Case, tuple]
"""A :class:`Case`, or a tuple ``(op, data, indices)`` / ``(op, data, indices, attrs)``."""


def as_case(case: CaseLike) -> Case:
    """A :class:`Case` from a case or a 3- or 4-tuple.

    >>> as_case(("numpy.take", np.arange(3), np.array([1]))).attrs
    {}
    """
    if isinstance(case, Case):
        return case
    if len(case) not in (3, 4):
        raise TypeError(f"a case is (op, data, indices[, attrs]), got a {len(case)}-tuple")
    op, data, indices, *rest = case
    return Case(op, data, indices, dict(rest[0]) if rest else {})


_ERROR_PATTERNS: tuple[tuple[ErrorClass, tuple[str, ...]], ...] = (
    (ErrorClass.NEGATIVE_INDEX, ("negative",)),
    (ErrorClass.INDEX_OUT_OF_RANGE, ("out of bound", "out of range", "out-of-bound", "outofrange", "not in [", "invalid index", "index error")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("dtype", "data type", "not implemented for", "type mismatch", "unsupported type", "could not find an implementation")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "dim ", "batch_dims", "attribute", "mode")),
    (ErrorClass.SHAPE_INVALID, ("shape", "rank", "dimension", "size mismatch", "broadcast")),
)


def classify_message(message: str) -> ErrorClass:
    """A first, framework-neutral normalization of an error message; oracles
    refine it where their messages need it.

    >>> classify_message("index 5 is out of bounds for axis 0 with size 3")
    <ErrorClass.INDEX_OUT_OF_RANGE: 'index out of range'>
    >>> classify_message("Index tensor must have the same number of dimensions as input tensor")
    <ErrorClass.SHAPE_INVALID: 'shape invalid'>
    """
    text = message.lower()
    for error_class, needles in _ERROR_PATTERNS:
        if any(n in text for n in needles):
            return error_class
    return ErrorClass.OTHER
