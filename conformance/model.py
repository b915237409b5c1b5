"""The leaf data model every layer shares: what a case is, what an oracle
answered, who the oracle is, and how arrays travel in JSON.

Nothing here imports a framework or another ``conformance`` module but
:mod:`conformance.arrays`; both the campaign (``conformance``) and the oracle
plug-ins (``oracles``) import it, and it imports neither.

>>> import numpy as np
>>> Outcome.returned(np.array([1, 2], dtype=np.int8)).describe()
'value int8[2]'
>>> Outcome.raised(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE).describe()
'error IndexError (index out of range)'
>>> OpKey.parse("onnx.Gather-13")
OpKey(framework='onnx', name='Gather', opset=13)
>>> str(OpKey.parse("jax.numpy.take"))
'jax.numpy.take'
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from conformance.arrays import as_dtype, dtype_name


class Kind(str, Enum):
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


class ErrorClass(str, Enum):
    """A framework's error, normalized so that errors compare across frameworks."""

    INDEX_OUT_OF_RANGE = "index out of range"
    NEGATIVE_INDEX = "negative index rejected"
    DTYPE_UNSUPPORTED = "dtype unsupported"
    SHAPE_INVALID = "shape invalid"
    ATTRIBUTE_INVALID = "attribute invalid"
    INTERNAL = "internal"
    OTHER = "other"


@dataclass(frozen=True, order=True)
class OpKey:
    """A catalog op's identity: framework, name and (ONNX) opset, parsed and
    printed here and nowhere else.

    >>> OpKey("onnx", "GatherND", 12).family
    'onnx.GatherND'
    >>> OpKey.parse("torch.gather").opset is None
    True
    """

    framework: str
    name: str
    opset: int | None = None

    @classmethod
    def parse(cls, key: str) -> OpKey:
        """``"onnx.Gather-13"`` -> ``OpKey("onnx", "Gather", 13)``; a ValueError
        for a key with no framework prefix."""
        framework, dot, rest = key.partition(".")
        if not dot or not framework or not rest:
            raise ValueError(f"op key {key!r} must look like 'framework.name' or 'onnx.Name-OPSET'")
        head, dash, tail = rest.rpartition("-")
        if dash and tail.isdigit():
            return cls(framework, head, int(tail))
        return cls(framework, rest)

    @property
    def family(self) -> str:
        """The op without its opset: ``onnx.Gather`` for every Gather version."""
        return f"{self.framework}.{self.name}"

    def __str__(self) -> str:
        return f"{self.family}-{self.opset}" if self.opset is not None else self.family


@dataclass(frozen=True)
class CaseTags:
    """What a translated case is, as the campaign classifies it.

    >>> t = CaseTags("oob-above", "int8", "float", "bcast", frozenset({"0-d"}))
    >>> t.words()
    'oob-above, idx:int8, data:float, bcast, 0-d'
    >>> CaseTags.from_json(t.to_json()) == t
    True
    """

    regime: str
    index_dtype: str
    data_family: str
    pattern: str | None = None
    """How an element case's other dimensions relate (same-shape, bcast, window, mismatch)."""
    flags: frozenset[str] = frozenset()
    """Structural facts: ``empty-data``, ``0-d``, ``batch_dims>0``, ``non-contiguous``."""

    def words(self) -> str:
        parts = [self.regime, f"idx:{self.index_dtype}", f"data:{self.data_family}"]
        return ", ".join(parts + ([self.pattern] if self.pattern else []) + sorted(self.flags))

    def to_json(self) -> dict[str, Any]:
        return {"regime": self.regime, "index_dtype": self.index_dtype, "data_family": self.data_family,
                "pattern": self.pattern, "flags": sorted(self.flags)}  # fmt: skip

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CaseTags:
        return cls(d["regime"], d["index_dtype"], d["data_family"], d.get("pattern"), frozenset(d.get("flags", ())))


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
    def returned(cls, value: np.ndarray, seconds: float = 0.0) -> Outcome:
        return cls(Kind.VALUE, value=value, seconds=seconds)

    @classmethod
    def raised(cls, exc: BaseException, error_class: ErrorClass, seconds: float = 0.0) -> Outcome:
        return cls(Kind.ERROR, error_type=type(exc).__name__, message=str(exc), error_class=error_class, seconds=seconds)

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
        """
        d = asdict(self)
        d["kind"] = self.kind.value
        d["error_class"] = self.error_class.value if self.error_class else None
        d["value"] = encode_array(self.value) if self.value is not None else None
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Outcome:
        d = dict(d)
        d["kind"] = Kind(d["kind"])
        d["error_class"] = ErrorClass(d["error_class"]) if d.get("error_class") else None
        d["value"] = decode_array(d["value"]) if d.get("value") is not None else None
        return cls(**d)


def encode_array(a: np.ndarray) -> dict[str, Any]:
    """Bit-exact JSON form of an array: dtype, shape and base64 bytes (string
    and object arrays as a list).

    >>> encode_array(np.array([1], np.int8))
    {'dtype': 'int8', 'shape': [1], 'b64': 'AQ=='}
    """
    if a.dtype.kind in "OUS":
        return {"dtype": dtype_name(a.dtype), "shape": list(a.shape), "list": a.tolist()}
    return {"dtype": dtype_name(a.dtype), "shape": list(a.shape), "b64": base64.b64encode(np.asarray(a, order="C").tobytes()).decode()}


def decode_array(d: Mapping[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_array`.

    >>> decode_array(encode_array(np.array(["a", "bé"]))).tolist()
    ['a', 'bé']
    """
    if "list" in d:
        return np.array(d["list"], dtype=object if d["dtype"] == "object" else as_dtype(d["dtype"])).reshape(d["shape"])
    return np.frombuffer(base64.b64decode(d["b64"]), dtype=as_dtype(d["dtype"])).reshape(d["shape"]).copy()


@dataclass
class Case:
    """One concrete input to a catalog op, in that op's own convention: the
    call an oracle runs and the reproducer a finding keeps (``tags``: what the
    campaign classified it as; None for a hand-made case).

    >>> Case("numpy.take", np.arange(3), np.array([2]), {"axis": 0}).key
    OpKey(framework='numpy', name='take', opset=None)
    """

    op: str
    data: np.ndarray
    indices: np.ndarray
    attrs: Mapping[str, Any] = field(default_factory=dict)
    tags: CaseTags | None = None

    @property
    def key(self) -> OpKey:
        return OpKey.parse(self.op)

    def to_json(self) -> dict[str, Any]:
        """Bit-exact JSON form (see :func:`encode_array`)."""
        return {"op": self.op, "data": encode_array(self.data), "indices": encode_array(self.indices), "attrs": dict(self.attrs),
                "tags": self.tags.to_json() if self.tags else None}  # fmt: skip

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Case:
        tags = CaseTags.from_json(d["tags"]) if d.get("tags") else None
        return cls(d["op"], decode_array(d["data"]), decode_array(d["indices"]), dict(d["attrs"]), tags)


@dataclass(frozen=True)
class OracleInfo:
    """The facts a result is worthless without.

    >>> OracleInfo.from_json(OracleInfo("n", "f", "1", "cpu", "eager", ("a.b",)).to_json()).ops
    ('a.b',)
    """

    name: str
    framework: str
    version: str
    device: str
    mode: str
    ops: tuple[str, ...] = field(default_factory=tuple)
    bits: int = 64  # 32 where the framework documents that 64-bit inputs become 32-bit (JAX with x64 off)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ops": list(self.ops)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> OracleInfo:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known and k != "ops"}, ops=tuple(d.get("ops", ())))


CaseLike = Case | tuple
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


@dataclass(frozen=True)
class Reproducer:
    """A standalone Python script that re-runs one case on one oracle (its
    framework, device and execution mode) and exits 1 printing ``REPRODUCED``
    when the discrepancy is still there, 0 when it is not; ``attachments`` are
    files that go beside it (an ONNX model), name -> bytes.

    >>> Reproducer("numpy", "print('hi')").filename
    'repro_numpy.py'
    """

    oracle: str
    text: str
    attachments: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def filename(self) -> str:
        return f"repro_{self.oracle.replace('-', '_')}.py"


class InProcessOracle(Protocol):
    """What the execution layer needs of an oracle plug-in (``oracles.base.Oracle``
    implements it): its name and facts, and one case run here, as an Outcome."""

    name: str

    def info(self) -> OracleInfo: ...

    def run_in_process(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Outcome: ...

    def reproducer(self, case: Case, reference: Outcome, observed: Outcome | None = None) -> Reproducer: ...


def read_json_file(path: Path, kind: str, error: type[ValueError]) -> Any:
    """The JSON in ``path``, or ``error`` naming the file and what is wrong
    (unreadable, a directory, not JSON): the one reader of every versioned
    file (results, atlas). ``kind`` says what the file should be ("a results file").

    >>> read_json_file(Path("/nonexistent/x.json"), "a results file", ValueError)
    Traceback (most recent call last):
    ...
    ValueError: /nonexistent/x.json: cannot read it (No such file or directory)
    """
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not {kind}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise error(f"{path}: not JSON ({'empty file' if not text.strip() else exc})") from None

