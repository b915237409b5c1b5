"""What an oracle answered: an :class:`Outcome` of some :class:`Kind`, and
a framework's error normalized to an :class:`ErrorClass`.

>>> import numpy as np
>>> Outcome.returned(np.array([1, 2], dtype=np.int8)).describe()
'value int8[2]'
>>> Outcome.raised(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE).describe()
'error IndexError (index out of range)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from conformance.core.arrays import dtype_name
from conformance.core.blame import DtypeArg, Rule
from conformance.core.encoding import decode_array, encode_array
from conformance.core.word import Word


class Kind(Word):
    """What kind of answer an oracle gave."""

    VALUE = "value"
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"
    PROTOCOL = "protocol error"
    """The oracle answered with something that is not an array (a harness fault)."""
    NOT_RUN = "not run"
    """The case never reached the framework (its worker is broken beyond restart)."""


class ErrorClass(Word):
    """A framework's error, normalized so that errors compare across frameworks."""

    INDEX_OUT_OF_RANGE = "index out of range"
    NEGATIVE_INDEX = "negative index rejected"
    DTYPE_UNSUPPORTED = "dtype unsupported"
    SHAPE_INVALID = "shape invalid"
    ATTRIBUTE_INVALID = "attribute invalid"
    INTERNAL = "internal"
    OTHER = "other"


@dataclass
class Outcome:
    """Exactly what happened when an oracle ran a case.

    What an error blames travels as fields, never only in its message: the
    reference's precondition errors carry the ``rule`` they state and the
    ``argument`` they blame (:mod:`conformance.spec.errors`); a framework's
    error carries the argument whose dtype it refused (``dtype_argument``)
    where the oracle can tell (it failed converting that argument). Each is
    None where unknown, and written to JSON only where known.
    """

    kind: Kind
    value: np.ndarray | None = None
    error_type: str | None = None
    message: str | None = None
    error_class: ErrorClass | None = None
    signal: int | None = None
    exit_code: int | None = None
    reason: str | None = None
    seconds: float = 0.0
    rule: Rule | None = None
    argument: str | None = None
    dtype_argument: DtypeArg | None = None

    @classmethod
    def returned(cls, value: np.ndarray, seconds: float = 0.0) -> Outcome:
        return cls(Kind.VALUE, value=value, seconds=seconds)

    @classmethod
    def raised(cls, exc: BaseException, error_class: ErrorClass, seconds: float = 0.0) -> Outcome:
        return cls(
            Kind.ERROR, error_type=type(exc).__name__, message=str(exc), error_class=error_class, seconds=seconds
        )

    @classmethod
    def crashed(cls, signal: int | None, exit_code: int | None, message: str = "") -> Outcome:
        return cls(Kind.CRASH, signal=signal, exit_code=exit_code, message=message)

    @classmethod
    def timed_out(cls, seconds: float) -> Outcome:
        return cls(Kind.TIMEOUT, seconds=seconds, message=f"no answer within {seconds:g} s")

    @classmethod
    def unsupported(cls, reason: str) -> Outcome:
        return cls(Kind.UNSUPPORTED, reason=reason)

    @classmethod
    def protocol_error(cls, message: str) -> Outcome:
        """The oracle broke its contract (e.g. returned ``None``).

        >>> Outcome.protocol_error("returned NoneType").describe()
        'protocol error: returned NoneType'
        """
        return cls(Kind.PROTOCOL, message=message)

    @classmethod
    def not_run(cls, reason: str) -> Outcome:
        return cls(Kind.NOT_RUN, reason=reason)

    @classmethod
    def checked(cls, answer: object) -> Outcome:
        """``answer`` if it is a well-formed Outcome, else a protocol error saying
        what came instead: the one guard against oracles that break the contract.

        >>> Outcome.checked(Outcome.returned([1, 2])).describe()
        'protocol error: returned a list instead of an array'
        >>> Outcome.checked(None).describe()
        'protocol error: answered NoneType instead of an Outcome'
        """
        if not isinstance(answer, Outcome):
            return cls.protocol_error(f"answered {type(answer).__name__} instead of an Outcome")
        if not isinstance(answer.kind, Kind):
            return cls.protocol_error(f"answered an Outcome of unknown kind {answer.kind!r}")
        if answer.kind is Kind.VALUE and not isinstance(answer.value, np.ndarray):
            return cls.protocol_error(f"returned a {type(answer.value).__name__} instead of an array")
        return answer

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
        if self.kind is Kind.PROTOCOL:
            return f"protocol error: {self.message}"
        if self.kind is Kind.NOT_RUN:
            return f"not run: {self.reason}"
        return "timeout"

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict; the value travels bit-exact (see :func:`encode_array`).

        >>> o = Outcome.returned(np.array([np.nan, -0.0], dtype=np.float32))
        >>> Outcome.from_json(o.to_json()).value.tobytes() == o.value.tobytes()
        True
        >>> refused = Outcome(Kind.ERROR, error_type="ValueError", rule=Rule.RANK_MISMATCH, argument="indices")
        >>> back = Outcome.from_json(refused.to_json())
        >>> back.rule, back.argument, back.dtype_argument, "dtype_argument" in refused.to_json()
        (<Rule.RANK_MISMATCH: 'rank mismatch'>, 'indices', None, False)
        """
        d = asdict(self)
        d["kind"] = self.kind.value
        d["error_class"] = self.error_class.value if self.error_class else None
        d["value"] = encode_array(self.value) if self.value is not None else None
        for name in _BLAME_FIELDS:  # written only where known: files without them read as before
            if d[name] is None:
                del d[name]
            else:
                d[name] = str(d[name])
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Outcome:
        d = dict(d)
        d["kind"] = Kind(d["kind"])
        d["error_class"] = ErrorClass(d["error_class"]) if d.get("error_class") else None
        d["value"] = decode_array(d["value"]) if d.get("value") is not None else None
        d["rule"] = Rule(d["rule"]) if d.get("rule") else None
        d["dtype_argument"] = DtypeArg(d["dtype_argument"]) if d.get("dtype_argument") else None
        return cls(**d)


_BLAME_FIELDS = ("rule", "argument", "dtype_argument")
"""The fields of what an error blames (absent from files written before them, and wherever unknown)."""
