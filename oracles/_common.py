"""Small helpers every in-process oracle module shares.

* :class:`OpUnit`: how one framework op is called, as source text;
* :class:`FrameworkOracle`: an :class:`~oracles.base.Oracle` that runs its
  units: it executes its prelude and mode text (see :mod:`conformance.execution.scripts`)
  once, calls an op through the same text its reproducer prints, refuses ops
  it does not list and inputs whose dtype its framework cannot hold, and
  classifies errors with the framework's own message patterns first; its
  reproducers also carry the call in a few lines for an upstream issue
  (:meth:`FrameworkOracle.call_snippet`, :mod:`conformance.execution.glance`);
* :data:`STRINGS_LIKE`: prelude text for frameworks that answer strings as
  ``bytes`` or ``str`` objects;
* :func:`when_installed`: build the oracles of a module, or none if its framework is not installed.

>>> ns = {"np": np}
>>> exec(STRINGS_LIKE, ns)
>>> ns["strings_like"](np.array([b"b\\xc3\\xa9"], dtype=object), np.array(["ab", "x"])).tolist()
['bé']
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.arrays import dtype_name
from conformance.core.case import Case
from conformance.core.judgement import Classifier, Judgement, says
from conformance.core.oracle import OracleInfo, Reproducer
from conformance.core.outcome import ErrorClass, Outcome
from conformance.core.vocabulary import DtypeArg
from conformance.execution.artefact_cache import write_atomically
from conformance.execution.glance import Snippet, glance, with_attrs
from conformance.execution.scripts import Program, script, unit_source
from oracles.base import (
    ERROR_PATTERNS,
    ERROR_TYPES,
    INTERNAL_NEEDLES,
    INTERNAL_TYPES,
    STATED_TYPES,
    Oracle,
    classify_message,
    classify_type,
)

Patterns = tuple[tuple[ErrorClass, tuple[str, ...]], ...]

NEGATIVE_VALUE = re.compile(r"(?:\bindex|\bindices(?:\[[\d, ]*\])?)\s*=?\s*\[?\s*-\d")
"""A message that quotes a negative index value: ``index -1 is out of bounds``,
``indices[0] = -1 is not in [0, 3)``, ``indices[0] = [-1] does not index``."""

STRINGS_LIKE = '''
def strings_like(value, like):
    """A string answer (bytes or str objects) as an array of like's own string dtype, so that it
    compares bit for bit with a NumPy gather of like (<U decodes UTF-8, |S keeps the bytes)."""
    flat = np.asarray(value, dtype=object).reshape(-1)
    if like.dtype.kind == "U":
        flat = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in flat]
    return np.array(list(flat), dtype=like.dtype).reshape(np.shape(value))
'''
"""Prelude text (it needs ``np``) for TensorFlow and ONNX, whose string tensors answer ``bytes``/``str`` objects."""


@dataclass(frozen=True)
class OpUnit:
    """How one catalog op is called on a framework: a Python expression over
    the framework's own tensors ``data`` and ``indices`` and the ``attrs``
    dict, exactly as the case gives it (the framework's own defaults apply),
    and the names its oracle's prelude defines. ``glance``, where ``call`` goes
    through a helper of the prelude, is the call as a user writes it for an
    upstream issue's script (:func:`~conformance.execution.glance.with_attrs`:
    ``{name}`` is an attribute's value, ``{name=default}`` with its default).

    >>> OpUnit("torch.take", "torch.take(data, indices, **attrs)").call
    'torch.take(data, indices, **attrs)'
    """

    op: str
    call: str
    glance: str = ""


class MissingUnit(LookupError):
    """An oracle lists an op it has no unit for (or has a unit for an op it does not list)."""


def units_for(name: str, ops: Iterable[str], units: Iterable[OpUnit]) -> dict[str, OpUnit]:
    """``{op: unit}`` for exactly the ops an oracle lists.

    >>> units_for("x", ["a.b"], [OpUnit("a.b", "f(data)")])["a.b"].call
    'f(data)'
    >>> units_for("x", ["a.b", "a.c"], [OpUnit("a.b", "f(data)")])
    Traceback (most recent call last):
    ...
    oracles._common.MissingUnit: oracle 'x' lists a.c but has no unit for it
    """
    by_op = {u.op: u for u in units}
    listed = tuple(ops)
    for op in listed:
        if op not in by_op:
            raise MissingUnit(f"oracle {name!r} lists {op} but has no unit for it")
    for op in by_op:
        if op not in listed:
            raise MissingUnit(f"oracle {name!r} has a unit for {op} but does not list it")
    return {op: by_op[op] for op in listed}


def classify_with(message: str, patterns: Patterns, negative_rejected: bool = False) -> ErrorClass:
    """``classify_message`` refined: ``patterns`` (lower-case needles, whole
    words: :func:`~conformance.core.judgement.says`) are tried first; with
    ``negative_rejected`` (frameworks whose gathers only take ``[0, size)``)
    an index error quoting a negative value is NEGATIVE_INDEX.

    >>> classify_with("index -1 is out of bounds for dimension 0 with size 3", (), negative_rejected=True).name
    'NEGATIVE_INDEX'
    >>> classify_with("index -4 is out of bounds for axis 0 with size 3", ()).name
    'INDEX_OUT_OF_RANGE'
    """
    text = message.lower()
    for error_class, needles in patterns:
        if any(says(text, n) for n in needles):
            if error_class is ErrorClass.INDEX_OUT_OF_RANGE and negative_rejected and NEGATIVE_VALUE.search(text):
                return ErrorClass.NEGATIVE_INDEX
            return error_class
    generic = classify_message(message)
    if generic is ErrorClass.NEGATIVE_INDEX and not negative_rejected:
        return ErrorClass.INDEX_OUT_OF_RANGE
    if generic is ErrorClass.INDEX_OUT_OF_RANGE and negative_rejected and NEGATIVE_VALUE.search(text):
        return ErrorClass.NEGATIVE_INDEX
    return generic


def is_text(a: np.ndarray) -> bool:
    """True for string (``U``/``S``) and object arrays.

    >>> is_text(np.array(["a"])), is_text(np.array([1]))
    (True, False)
    """
    return a.dtype.kind in "USO"


class KeptArtefacts:
    """A prelude's ``compile_kept(key, make)`` (``make()`` compiles; ``key``, a str or bytes, is what it compiles from)
    through ``folder`` of the suite's artefact cache: each artefact kept as the bytes ``dump`` makes of it, named by a
    digest of ``salt`` (the prelude: its code compiles it) and the key, and ``load``-ed back; ``compiled`` and ``hits``
    count those compiled and those loaded back. Anything that fails in keeping or loading one compiles it, as without
    the cache.

    >>> import tempfile
    >>> kept = KeptArtefacts(Path(tempfile.mkdtemp()), "prelude", lambda a: a, lambda b: b)
    >>> compile_kept = kept.wrap(lambda key, make: make())
    >>> compile_kept("x", lambda: b"compiled"), compile_kept("x", lambda: b"again"), kept.compiled, kept.hits
    (b'compiled', b'compiled', 1, 1)
    """

    def __init__(self, folder: Path, salt: str, dump: Callable[[Any], bytes], load: Callable[[bytes], Any]) -> None:
        self.folder, self.salt, self.dump, self.load = folder, salt.encode(), dump, load
        self.compiled = self.hits = 0

    def path(self, key: str | bytes) -> Path:
        key = key.encode() if isinstance(key, str) else key
        return self.folder / (hashlib.sha256(self.salt + b"\0" + key).hexdigest() + ".bin")

    def wrap(self, compile_kept: Callable[[Any, Callable[[], Any]], Any]) -> Callable[[Any, Callable[[], Any]], Any]:
        def kept(key: str | bytes, make: Callable[[], Any]) -> Any:
            path = self.path(key)
            try:
                artefact = self.load(path.read_bytes())
            except Exception:  # noqa: BLE001 - not kept yet, or not loadable: compiled
                self.compiled += 1
                artefact = compile_kept(key, make)
                try:
                    write_atomically(path, self.dump(artefact))
                except Exception:  # noqa: BLE001, S110 - an artefact that cannot be kept is compiled again next time
                    pass
                return artefact
            self.hits += 1
            return artefact

        return kept


class FrameworkOracle(Oracle):
    """An oracle that runs :class:`OpUnit` source text: ``prelude`` (imports
    NumPy as ``np`` and defines ``to_native(a)`` and ``to_numpy(x, like)``),
    ``mode`` (defines ``prepare(call, attrs)``) and one unit per listed op
    (:class:`MissingUnit` otherwise). :meth:`reproducer` prints the same text.

    Subclasses say which inputs the framework cannot hold
    (:meth:`dtype_problem`, :attr:`max_rank`) and, where a call needs more than its inputs
    (an ONNX model), the module-level :meth:`constants` it uses. :meth:`classify`
    reads an error's type first (``types``, then :data:`~oracles.base.ERROR_TYPES`),
    its message's words only then (``patterns``, then the generic ones);
    ``negative_rejected`` says the framework's gathers reject negative indices
    (see :func:`classify_with`).
    """

    patterns: Patterns = ()
    types: Patterns = ()
    negative_rejected: bool = False
    max_rank: int | None = None
    """The most dimensions the framework's tensors can have, where it has a limit (Paddle's 9); :attr:`rank_limit`
    says why."""
    rank_limit: str = ""

    def __init__(self, info: OracleInfo, prelude: str, mode: str, units: Iterable[OpUnit]) -> None:
        self.name, self.framework, self.mode = info.name, info.framework, info.mode
        self._info = info
        self.prelude, self.mode_source = prelude, mode
        self.units = units_for(info.name, info.ops, units)
        self._namespace: dict[str, Any] = {}
        exec(compile(f"{prelude}\n{mode}", f"<{info.name} prelude>", "exec"), self._namespace)  # noqa: S102 - our own source text
        self._prepared: dict[tuple[Any, ...], Callable[[Any, Any], Any]] = {}
        self._converting: DtypeArg | None = None
        self._kept: KeptArtefacts | None = None

    def info(self) -> OracleInfo:
        return self._info

    def keep_compilations(self, folder: Path) -> None:
        """The prelude's ``compile_kept(key, make)`` (where it has one: a compiler without a cache of its own)
        through ``folder`` of the suite's artefact cache: an artefact compiled once is loaded back
        (:meth:`load_artefact`) from the bytes :meth:`dump_artefact` kept, under a digest of the prelude and the
        key. An artefact that cannot be kept or loaded is compiled, as without the cache."""
        if "compile_kept" in self._namespace:
            self._kept = KeptArtefacts(folder, self.prelude, self.dump_artefact, self.load_artefact)
            self._namespace["compile_kept"] = self._kept.wrap(self._namespace["compile_kept"])

    def compilations(self) -> tuple[int, int] | None:
        """``(compiled afresh, loaded back from the cache)`` so far (:meth:`keep_compilations`); None where this
        oracle keeps nothing and cannot tell (it compiles afresh in every process)."""
        return (self._kept.compiled, self._kept.hits) if self._kept is not None else None

    def dump_artefact(self, artefact: Any) -> bytes:
        """The bytes that keep a compiled artefact (one that is bytes already, as is)."""
        return bytes(artefact)

    def load_artefact(self, data: bytes) -> Any:
        """The artefact from the bytes :meth:`dump_artefact` kept."""
        return data

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        """Why this framework cannot hold ``a`` (the ``arg`` argument), or None."""
        return None

    def constants(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]) -> dict[str, bytes]:
        """Module-level names (beyond the prelude's) that ``op``'s call uses for this case."""
        return {}

    def attachments(self, constants: Mapping[str, bytes]) -> dict[str, bytes]:
        """Files a reproducer carries beside its script, from its :meth:`constants`."""
        return {}

    def snippet(self, case: Case) -> Snippet | None:
        """The frame of this oracle's short script for ``case`` (:class:`~conformance.execution.glance.Snippet`
        without its call: imports, settings, inputs, execution mode, output), or None where it has none."""
        return None

    def call_snippet(self, case: Case) -> Snippet | None:
        """How this oracle calls ``case``'s op in a few lines (:meth:`snippet` around the op's unit: its
        ``glance`` text, else its ``call``, the attributes written out), or None where it has no frame.

        >>> from oracles.numpy_oracle import NumpyOracle
        >>> NumpyOracle().call_snippet(Case("numpy.take", np.arange(3), np.array([1]), {"axis": 0})).call
        'np.take(data, indices, axis=0)'
        """
        frame = self.snippet(case)
        unit = self.units.get(case.op)
        if frame is None or unit is None:
            return None
        if unit.glance:
            return frame.with_call(with_attrs(unit.glance, case.attrs, placeholders=True))
        return frame.with_call(with_attrs(unit.call, case.attrs))

    def upstream_script(self, case: Case, reference: Outcome, observed: Outcome | None = None) -> str:
        """The short script of ``case`` for an upstream issue (:func:`~conformance.execution.glance.glance`
        of :meth:`call_snippet`), or "" where none can be written (no frame, an attribute with no source
        text, more lines than a glance may have)."""
        try:
            snippet = self.call_snippet(case)
            return "" if snippet is None else glance(self._info, case, reference, snippet, observed)
        except (KeyError, TypeError, ValueError):
            return ""

    def unsupported_reason(
        self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]
    ) -> str | None:
        if op not in self.units:
            return f"{self.name} does not implement {op}"
        arrays = ((DtypeArg.DATA, data), (DtypeArg.INDEX, indices))
        for arg, a in arrays:
            if self.max_rank is not None and np.ndim(a) > self.max_rank:
                return f"{self.name}: {arg} of rank {np.ndim(a)}: {self.rank_limit}"
        for arg, a in arrays:
            problem = self.dtype_problem(op, arg, np.asarray(a))
            if problem:
                return f"{self.name}: {arg} dtype {dtype_name(np.asarray(a).dtype)}: {problem}"
        return None

    def classify(self, exc: BaseException) -> ErrorClass:
        return classify_type(exc, self.types + ERROR_TYPES) or classify_with(
            self.message(exc), self.patterns, self.negative_rejected
        )

    def message(self, exc: BaseException) -> str:
        """The words of ``exc`` that :meth:`classify` reads (its message; Paddle: without the static graph's
        traceback)."""
        return str(exc)

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        """What a reproducer's ``observe()`` does, with ``prepare`` cached per op, attributes and constants."""
        self._converting = None
        constants = self.constants(op, data, indices, attrs)
        key = (op, repr(sorted(attrs.items())), tuple(sorted(constants.items())))
        run = self._prepared.get(key)
        if run is None:
            namespace = dict(self._namespace, **constants)
            code = compile(unit_source(self.units[op].call), f"<{self.name}: {op}>", "exec")
            exec(code, namespace)  # noqa: S102 - our own source text
            run = self._prepared[key] = namespace["prepare"](namespace["call"], dict(attrs))
        to_native, to_numpy = self._namespace["to_native"], self._namespace["to_numpy"]
        self._converting = DtypeArg.DATA  # an error now refuses the data (see refused_argument)
        native_data = to_native(data)
        self._converting = DtypeArg.INDEX
        native_indices = to_native(indices)
        self._converting = None
        return to_numpy(run(native_data, native_indices), data)

    def refused_argument(self) -> DtypeArg | None:
        """The argument :meth:`call` was converting (``to_native``) when it raised, or None.

        >>> from oracles.numpy_oracle import oracles_here
        >>> numpy = oracles_here()[0]
        >>> numpy._namespace["to_native"] = lambda a: a if a.dtype.kind in "iu" else 1 / 0  # refuses non-integers
        >>> numpy.run("numpy.take", np.zeros(2), np.array([0]), axis=0).dtype_argument
        <DtypeArg.DATA: 'data'>
        """
        return self._converting

    def reproducer(
        self, case: Case, reference: Outcome, observed: Outcome | None = None, judgement: Judgement | None = None
    ) -> Reproducer:
        """The standalone script of ``case`` on this oracle (see :func:`conformance.execution.scripts.script`),
        judging as ``judgement`` says (the campaign's verdicts) with this oracle's :meth:`classifier`;
        a ValueError for a case this oracle does not run at all (unsupported)."""
        data, indices = np.asarray(case.data), np.asarray(case.indices)
        reason = self.unsupported_reason(case.op, data, indices, case.attrs)
        if reason:
            raise ValueError(f"no reproducer: {reason}")
        constants = self.constants(case.op, data, indices, case.attrs)
        program = Program(self.prelude, self.mode_source, self.units[case.op].call, constants)
        text = script(self._info, case, reference, program, observed, judgement, self.classifier(observed))
        upstream = self.upstream_script(case, reference, observed)
        return Reproducer(self.name, text, self.attachments(constants), upstream)

    def classifier(self, observed: Outcome | None = None) -> Classifier:
        """This oracle's error classification as data for its scripts: the
        error it saw with the class it gave it, then its rules in the order
        :func:`~oracles.base.internal_or` and :meth:`classify` apply them
        (the internal types and needles, then the types, then the words)."""
        seen = None
        if observed is not None and observed.error_class is not None:
            seen = (observed.error_type or "", observed.message or "", observed.error_class.value)
        rows = (*self.patterns, *ERROR_PATTERNS)
        return Classifier(
            seen,
            tuple(sorted(INTERNAL_TYPES)),
            tuple((c.value, needles) for c, needles in rows),
            INTERNAL_NEEDLES,
            tuple((c.value, names) for c, names in (*self.types, *ERROR_TYPES)),
            tuple(sorted(STATED_TYPES)),
        )


def when_installed(packages: tuple[str, ...], build: Callable[[], list[Oracle]]) -> list[Oracle]:
    """``build()``, or ``[]`` when one of ``packages`` (the framework) is not
    installed at all. A framework that is installed but fails to load raises,
    so that discovery reports it, and so does an oracle that lists an op it
    has no unit for.

    >>> when_installed(("no_such_framework",), lambda: 1 / 0)
    []
    >>> when_installed(("no_such_framework.compiler",), lambda: 1 / 0)  # a submodule of a missing package
    []
    >>> when_installed(("numpy",), lambda: 1 / 0)
    Traceback (most recent call last):
    ...
    ZeroDivisionError: division by zero
    """
    if not all(_findable(p) for p in packages):
        return []
    return list(build())


def _findable(package: str) -> bool:
    """Whether ``package`` can be found; ``find_spec("a.b")`` imports ``a`` and raises when ``a`` is missing."""
    parent, _, _ = package.rpartition(".")
    return (not parent or _findable(parent)) and importlib.util.find_spec(package) is not None


WHOLE_COMPILER = (
    "compiles every shape signature with a whole compiler (0.5-1.5 s each): run it by name "
    "(--oracles), in a long campaign or a CI job of its own"
)
"""Why IREE and TVM run only when named (:attr:`~conformance.core.oracle.OracleInfo.on_request`): a default
campaign's atlas has some thousand shape signatures per ONNX oracle."""
