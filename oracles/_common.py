"""Small helpers every in-process oracle module shares.

* :class:`FrameworkOracle`: an :class:`~oracles.base.Oracle` whose
  :meth:`info` comes from a few fields, which refuses ops it does not
  implement and inputs whose dtype its framework cannot hold, and whose
  :meth:`classify` tries the framework's own message patterns first;
* :func:`bound`: an op's attributes with the catalog's defaults filled in;
* :func:`strings_like`: a framework's string result (bytes or ``str``
  objects) back as a NumPy unicode array of the input's dtype;
* :func:`safely`: build the oracles of a module, or none if it can't.

>>> bound("numpy.take", {"axis": 0})
{'axis': 0, 'mode': 'raise'}
>>> strings_like(np.array([b"b\\xc3\\xa9"], dtype=object), np.array(["ab", "x"])).tolist()
['bé']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from conformance.arrays import dtype_name
from conformance.catalog import spec
from conformance.model import ErrorClass, OracleInfo
from oracles.base import Oracle, classify_message

Patterns = tuple[tuple[ErrorClass, tuple[str, ...]], ...]

NEGATIVE_VALUE = re.compile(r"(?:\bindex|\bindices(?:\[[\d, ]*\])?)\s*=?\s*\[?\s*-\d")
"""A message that quotes a negative index value: ``index -1 is out of bounds``,
``indices[0] = -1 is not in [0, 3)``, ``indices[0] = [-1] does not index``."""


def bound(op: str, attrs: Mapping[str, Any]) -> dict[str, Any]:
    """``attrs`` with ``op``'s catalog defaults filled in (unknown names raise TypeError).

    >>> bound("torch.take_along_dim", {})
    {'dim': None}
    """
    return spec(op).bind(attrs)


def strings_like(value: Any, like: np.ndarray) -> np.ndarray:
    """A string result as an array of ``like``'s dtype (same kind and width),
    so that it compares bit for bit with a NumPy gather of ``like``.

    TensorFlow returns ``bytes`` (UTF-8), onnxruntime ``str`` objects; both
    become ``like.dtype`` (``<U…`` decodes UTF-8, ``|S…`` keeps the bytes).

    >>> strings_like(np.array(["x"], dtype=object), np.array(["abc"])).dtype
    dtype('<U3')
    """
    flat = np.asarray(value, dtype=object).reshape(-1)
    if like.dtype.kind == "U":
        flat = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in flat]
    return np.array(list(flat), dtype=like.dtype).reshape(np.shape(value))


def is_text(a: np.ndarray) -> bool:
    """True for string (``U``/``S``) and object arrays.

    >>> is_text(np.array(["a"])), is_text(np.array([1]))
    (True, False)
    """
    return a.dtype.kind in "USO"


def classify_with(message: str, patterns: Patterns, negative_rejected: bool = False) -> ErrorClass:
    """``classify_message`` refined: ``patterns`` (lower-case needles) are
    tried first; with ``negative_rejected`` (frameworks whose gathers only take
    ``[0, size)``) an index error quoting a negative value is NEGATIVE_INDEX.

    >>> classify_with("index -1 is out of bounds for dimension 0 with size 3", (), negative_rejected=True).name
    'NEGATIVE_INDEX'
    >>> classify_with("index -4 is out of bounds for axis 0 with size 3", ()).name
    'INDEX_OUT_OF_RANGE'
    """
    text = message.lower()
    for error_class, needles in patterns:
        if any(n in text for n in needles):
            if error_class is ErrorClass.INDEX_OUT_OF_RANGE and negative_rejected and NEGATIVE_VALUE.search(text):
                return ErrorClass.NEGATIVE_INDEX
            return error_class
    generic = classify_message(message)
    if generic is ErrorClass.NEGATIVE_INDEX and not negative_rejected:
        return ErrorClass.INDEX_OUT_OF_RANGE
    if generic is ErrorClass.INDEX_OUT_OF_RANGE and negative_rejected and NEGATIVE_VALUE.search(text):
        return ErrorClass.NEGATIVE_INDEX
    return generic


class FrameworkOracle(Oracle):
    """An oracle described by fields; subclasses add :meth:`call` and, where
    the framework cannot hold some inputs, :meth:`dtype_problem`.

    ``patterns`` refine :meth:`classify`; ``negative_rejected`` says the
    framework's gathers reject negative indices (see :func:`classify_with`).
    """

    patterns: Patterns = ()
    negative_rejected: bool = False

    def __init__(self, name: str, framework: str, version: str, device: str, mode: str, ops: Iterable[str]) -> None:
        self.name, self.framework, self.mode = name, framework, mode
        self._info = OracleInfo(name, framework, version, device, mode, tuple(ops))

    def info(self) -> OracleInfo:
        return self._info

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        """Why this framework cannot hold ``a`` (``arg`` is "data" or "indices"), or None."""
        return None

    def unsupported_reason(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]) -> str | None:
        if op not in self._info.ops:
            return f"{self.name} does not implement {op}"
        for arg, a in (("data", data), ("indices", indices)):
            problem = self.dtype_problem(op, arg, np.asarray(a))
            if problem:
                return f"{self.name}: {arg} dtype {dtype_name(np.asarray(a).dtype)}: {problem}"
        return None

    def classify(self, exc: BaseException) -> ErrorClass:
        if type(exc).__name__ == "AxisError":  # NumPy's "axis 2 is out of bounds ..." is no index error
            return ErrorClass.ATTRIBUTE_INVALID
        return classify_with(str(exc), self.patterns, self.negative_rejected)


def safely(build: Callable[[], list[Oracle]]) -> list[Oracle]:
    """``build()``, or ``[]`` if the framework is missing or broken: an
    ``oracles_here()`` never raises.

    >>> safely(lambda: 1 / 0)
    []
    """
    try:
        return list(build())
    except Exception:  # ImportError, a broken install, no device: no oracle here
        return []
