"""Oracles that misbehave on purpose, to prove that isolation holds.

Each :class:`FakeOracle` does one thing whatever the case: ``fake-returns``
gathers with ``np.take``, ``fake-raises`` raises an IndexError,
``fake-segfault`` reads address 0, ``fake-abort`` calls ``os.abort()``,
``fake-exit`` calls ``os._exit(3)``, ``fake-hang`` sleeps forever,
``fake-spin`` spins in C holding the GIL (no other thread of its process
runs), ``fake-slow`` sleeps :data:`SLOW_SECONDS` then gathers, and
``fake-none``, ``fake-list`` and ``fake-scalar`` answer something that is not
an ndarray. ``fake-any`` does what the case's ``do`` attribute says, so that
one batch can mix them (also ``works``: ``cpu_s`` CPU seconds, and
``slow-once``: that much only the first time, as a busy machine makes a case
slow once; ``killed-once`` / ``killed``: a SIGKILL from outside, the first time or every
time; ``grows``: holds ever more RAM; ``sticky``: raises, and so does every later call of its process, as
CUDA's device-side assert does, which ``spent_by`` says; ``segfault-after``: reads address 0 only in a process
that has run a case before). ``fake-wrong`` adds 1 to every answer, ``fake-wrong-after`` only in a process that
has run a case before. ``fake-compiles`` declares that it compiles and works
``compile_s`` CPU seconds on each new shape signature. The worker loads this file by path (see :data:`TABLE`).
:func:`fragile_module` writes an oracle module that loads once and never again.

>>> import numpy as np
>>> FakeOracle("returns").run("numpy.take", np.arange(12).reshape(4, 3), np.array([3])).value.tolist()
[[9, 10, 11]]
>>> FakeOracle("raises").run("numpy.take", np.arange(3), np.array([5])).describe()
'error IndexError (index out of range)'
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.case import Case
from conformance.core.judgement import Judgement
from conformance.core.oracle import OracleInfo, Reproducer
from conformance.core.outcome import Outcome
from oracles.base import Oracle

BEHAVIOURS = ("returns", "raises", "segfault", "abort", "exit", "hang", "spin", "slow", "none", "list", "scalar")

PATH = str(Path(__file__).resolve())
TABLE: dict[str, str] = {f"fake-{b}": PATH for b in (*BEHAVIOURS, "any", "wrong", "wrong-after", "compiles")}
"""Name -> module, for :func:`conformance.execution.registry.registered`."""

SLOW_SECONDS = 0.4


def _returns(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    return np.take(data, indices, axis=attrs.get("axis", 0))


def _raises(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    raise IndexError(f"index {int(np.max(indices))} is out of bounds for axis 0 with size {len(data)}")


def _segfault(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    ctypes.string_at(0)
    raise AssertionError("unreachable")


def _abort(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    os.abort()


def _exit(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    os._exit(3)


def _hang(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    while True:
        time.sleep(60)


def _spin(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Catastrophic regex backtracking: hours in C without releasing the GIL."""
    return re.match(r"(a+)+$", "a" * 64 + "b")


def _slow(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    time.sleep(SLOW_SECONDS)
    return _returns(data, indices, attrs)


def burn(seconds: float) -> None:
    """Work ``seconds`` of this process's CPU time (never a sleep)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _works(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Works ``cpu_s`` CPU seconds, then gathers."""
    burn(attrs.pop("cpu_s"))
    return _returns(data, indices, attrs)


def _slow_once(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Works ``cpu_s`` CPU seconds the first time ever (no file ``marker`` yet), then gathers at once."""
    marker, seconds = attrs.pop("marker"), attrs.pop("cpu_s")
    if not os.path.exists(marker):
        open(marker, "w").close()
        burn(seconds)
    return _returns(data, indices, attrs)


def _killed_once(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Ends its own process with SIGKILL the first time ever (no file ``marker`` yet), as the kernel's
    OOM killer ends a worker while other processes hold the machine's memory; then gathers."""
    marker = attrs.pop("marker")
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return _returns(data, indices, attrs)


def _killed(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Ends its own process with SIGKILL every time (a case that needs more memory than the machine has)."""
    os.kill(os.getpid(), signal.SIGKILL)


def _grows(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Holds 16 MiB more RAM every few milliseconds, forever (OpenVINO's ONNX front end building nodes without end)."""
    held = []
    while True:
        held.append(np.ones(2**21))
        time.sleep(0.005)


RAN: list[bool] = []
"""Whether this process has run a case (``segfault-after`` crashes only then)."""


def _segfault_after(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Reads address 0 where this process ran a case before, else gathers: a crash that depends on the worker's
    history (as MLX's read past an empty bfloat16 axis crashed a busy worker and read stray bytes in a fresh one)."""
    if RAN:
        _segfault(data, indices, attrs)
    return _returns(data, indices, attrs)


def _wrong(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Gathers, then adds 1: a wrong value in every process."""
    return _returns(data, indices, attrs) + 1


def _wrong_after(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """A wrong value where this process ran a case before, the right one in a fresh process: an answer that depends
    on the worker's history (IREE's unsigned Gather after other cases, issue 43)."""
    return _wrong(data, indices, attrs) if RAN else _returns(data, indices, attrs)


STICKY = "fake sticky error: every later call of this process fails"
POISONED: list[bool] = []
"""Whether this process has run a ``sticky`` case (as CUDA's device-side assert poisons a process)."""


def _sticky(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    POISONED.append(True)
    raise RuntimeError(STICKY)


def _waits_on_child(data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> Any:
    """Waits ``child_s`` seconds for a child process (as an oracle waits for its compiler), then gathers."""
    subprocess.run([sys.executable, "-c", f"import time; time.sleep({attrs.pop('child_s')})"], check=True)
    return _returns(data, indices, attrs)


ACTIONS = {
    "returns": _returns,
    "raises": _raises,
    "segfault": _segfault,
    "abort": _abort,
    "exit": _exit,
    "hang": _hang,
    "spin": _spin,
    "slow": _slow,
    "works": _works,
    "slow-once": _slow_once,
    "killed-once": _killed_once,
    "killed": _killed,
    "grows": _grows,
    "waits-on-child": _waits_on_child,
    "sticky": _sticky,
    "segfault-after": _segfault_after,
    "wrong": _wrong,
    "wrong-after": _wrong_after,
    "none": lambda *_: None,
    "list": lambda d, i, a: _returns(d, i, a).tolist(),
    "scalar": lambda d, i, a: _returns(d, i, a).sum(),
}


class FakeOracle(Oracle):
    """An oracle whose ``call`` does ``behaviour`` (or, for ``"any"``, the
    case's ``do`` attribute, default ``"returns"``); ``name`` defaults to
    ``fake-BEHAVIOUR``."""

    framework = "fake"

    def __init__(self, behaviour: str, name: str = "") -> None:
        self.behaviour = behaviour
        self.name = name or f"fake-{behaviour}"

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, self.framework, "0", "cpu", self.mode, ("numpy.take",))

    def _action(self, attrs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        attrs = dict(attrs)
        return (attrs.pop("do", "returns") if self.behaviour == "any" else self.behaviour), attrs

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        behaviour, attrs = self._action(attrs)
        if POISONED:
            raise RuntimeError(STICKY)
        try:
            return ACTIONS[behaviour](data, indices, attrs)
        finally:
            RAN.append(True)

    def spent_by(self, outcome: Outcome) -> str | None:
        return "sticky" if STICKY in (outcome.message or "") else None

    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer:
        """A one-line script naming the case (and ``observed``'s kind, if
        given); misbehaves first if the case says
        ``do="segfault"`` or ``do="raises"``.

        >>> FakeOracle("returns").reproducer(Case("numpy.take", np.arange(3), np.array([1])),
        ...     Outcome.unsupported("x")).text
        "print('fake-returns', 'numpy.take', [3], 'unsupported')"
        """
        behaviour, _ = self._action(dict(case.attrs))
        if behaviour in ("segfault", "raises"):
            ACTIONS[behaviour](case.data, case.indices, {})
        seen = f", {observed.kind.value!r}" if observed is not None else ""
        return Reproducer(
            self.name, f"print({self.name!r}, {case.op!r}, {list(case.data.shape)}, {reference.kind.value!r}{seen})"
        )


COMPILED: set[tuple] = set()
"""The shape signatures ``fake-compiles`` has compiled in this process."""


class CompilingFake(FakeOracle):
    """An oracle that compiles: the first call of each shape signature in a
    process works ``compile_s`` CPU seconds (the case's attribute, default 0), later ones none."""

    def __init__(self) -> None:
        super().__init__("returns", "fake-compiles")

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, self.framework, "0", "cpu", "compiled", ("numpy.take",), compiles=True)

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        attrs = dict(attrs)
        seconds = attrs.pop("compile_s", 0.0)
        signature = (data.dtype.str, data.shape, indices.dtype.str, indices.shape, indices.strides)
        if signature not in COMPILED:
            COMPILED.add(signature)
            burn(seconds)
        return _returns(data, indices, attrs)


def oracles_here() -> list[Oracle]:
    """Every fake, as an oracle module's ``oracles_here`` would list them."""
    return [FakeOracle(b) for b in (*BEHAVIOURS, "any", "wrong", "wrong-after")] + [CompilingFake()]


FRAGILE = '''"""An oracle module that imports once: every later import fails."""
import os, sys
MARKER = __file__ + ".imported"
if os.path.exists(MARKER):
    raise ImportError("fragile framework: its library is gone")
open(MARKER, "w").close()
sys.path.insert(0, {tests!r})
from fake_oracles import FakeOracle

def oracles_here():
    return [FakeOracle("any", "fragile")]
'''


def fragile_module(directory: Path) -> str:
    """Write ``fragile_oracles.py`` into ``directory`` and return its path: an
    oracle module offering ``fragile`` (a ``fake-any``) whose first import
    works and every later one raises ImportError (a marker file beside it)."""
    path = directory / "fragile_oracles.py"
    path.write_text(FRAGILE.format(tests=str(Path(PATH).parent)))
    return str(path)
