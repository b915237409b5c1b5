"""Oracles that misbehave on purpose, to prove that isolation holds.

Each :class:`FakeOracle` does one thing whatever the case: ``fake-returns``
gathers with ``np.take``, ``fake-raises`` raises an IndexError,
``fake-segfault`` reads address 0, ``fake-abort`` calls ``os.abort()``,
``fake-exit`` calls ``os._exit(3)``, ``fake-hang`` sleeps forever.
``fake-any`` does what the case's ``do`` attribute says, so that one batch
can mix them. The worker loads this file by path (see :data:`TABLE`).

>>> import numpy as np
>>> FakeOracle("returns").run("numpy.take", np.arange(12).reshape(4, 3), np.array([3])).value.tolist()
[[9, 10, 11]]
>>> FakeOracle("raises").run("numpy.take", np.arange(3), np.array([5])).describe()
'error IndexError (index out of range)'
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from conformance.model import OracleInfo

from oracles.base import Oracle

BEHAVIOURS = ("returns", "raises", "segfault", "abort", "exit", "hang")

PATH = str(Path(__file__).resolve())
TABLE: dict[str, str] = {f"fake-{b}": PATH for b in (*BEHAVIOURS, "any")}
"""Name -> module, for :func:`oracles.registry.registered`."""


def _returns(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return np.take(data, indices, axis=attrs.get("axis", 0))


def _raises(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    raise IndexError(f"index {int(np.max(indices))} is out of bounds for axis 0 with size {len(data)}")


def _segfault(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    ctypes.string_at(0)
    raise AssertionError("unreachable")


def _abort(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    os.abort()


def _exit(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    os._exit(3)


def _hang(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    while True:
        time.sleep(60)


ACTIONS = {"returns": _returns, "raises": _raises, "segfault": _segfault, "abort": _abort, "exit": _exit, "hang": _hang}


class FakeOracle(Oracle):
    """An oracle whose ``call`` does ``behaviour`` (or, for ``"any"``, the
    case's ``do`` attribute, default ``"returns"``)."""

    framework = "fake"

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.name = f"fake-{behaviour}"

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, self.framework, "0", "cpu", self.mode, ("numpy.take",))

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        attrs = dict(attrs)
        behaviour = attrs.pop("do", "returns") if self.behaviour == "any" else self.behaviour
        return ACTIONS[behaviour](data, indices, attrs)


def oracles_here() -> list[Oracle]:
    """Every fake, as an oracle module's ``oracles_here`` would list them."""
    return [FakeOracle(b) for b in (*BEHAVIOURS, "any")]
