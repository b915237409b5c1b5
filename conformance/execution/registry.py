"""Which oracles exist, which can run here, and how to get one.

Oracles are plug-ins: modules registered under the entry-point group
``gather_conformance.oracles`` (:data:`ENTRY_POINT_GROUP`), each defining
``oracles_here() -> list[Oracle]`` (the oracles that can run on this machine,
built on ``oracles.base.Oracle`` or anything with ``name``, ``info()``,
``run_in_process(op, data, indices, attrs) -> Outcome`` and
``reproducer(case, reference) -> Reproducer``). This project registers its
own that way; an outside package adds one in its ``pyproject.toml``::

    [project.entry-points."gather_conformance.oracles"]
    myfw = "mypkg.my_oracle"

and, once installed, ``myfw`` (and every ``myfw-...`` name, e.g.
``myfw-cuda``) is found by :func:`module_for`, listed by :func:`available`
and run by :func:`get`. The module is only ever imported by name, in a worker
process (or in this one for ``get(name, isolated=False)``); this package
never imports a plug-in package itself.

:data:`ORACLE_MODULES` is the one table from oracle name to the module whose
``oracles_here()`` builds it. Finding out what can run here imports the
frameworks, so :func:`discover` does it in a worker process (one for all
modules, restarted past a module that kills it), skips modules whose framework
is not even installed (``importlib.util.find_spec``, no import), reports the
error of a module that fails to import, and remembers the answer: for the life
of this process, and on disk (the suite's cache, :mod:`conformance.execution.artefact_cache`:
``~/.cache/gather-conformance`` or ``$GATHER_CONFORMANCE_CACHE``; ``GATHER_CONFORMANCE_NO_CACHE=1`` turns it off)
under a fingerprint of everything that could change it (interpreter, host,
oracle and conformance sources, framework installs, thread and device variables,
GPU device nodes), so that ``gather-conformance oracles`` costs milliseconds,
not the ten seconds of importing every framework.

>>> module_for("onnxruntime-cuda")          # one per execution provider
'oracles.onnx_oracle'
>>> available()                              # doctest: +SKIP
['numpy', 'onnx-reference', 'onnxruntime', 'torch', 'tensorflow', 'tensorflow-xla', 'jax']
>>> get("numpy").run("numpy.take", np.arange(12).reshape(4, 3), np.array([3])).describe()  # doctest: +SKIP
'value int64[1, 3]'
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import json
import os
import platform
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from conformance.core.machine import THREAD_VARIABLES
from conformance.core.oracle import InProcessOracle, OracleInfo
from conformance.execution.artefact_cache import cache_off, cache_root
from conformance.execution.isolation import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, IsolatedOracle
from conformance.execution.loading import OracleUnavailable, load_oracle
from conformance.execution.process import Died, NoAnswer, WorkerProcess, crash_outcome

ENTRY_POINT_GROUP = "gather_conformance.oracles"
"""The entry-point group oracle plug-ins register under: ``name = "package.module"``,
the module defining ``oracles_here() -> list[Oracle]`` (see the module docstring).
This project's own oracles are registered the same way, in ``pyproject.toml``."""


def _entry_points() -> dict[str, str]:
    """Oracle name (prefix) -> module, from every installed distribution."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


ORACLE_MODULES: dict[str, str] = _entry_points()
"""Oracle name -> module path (a dotted name, or a ``.py`` file for test fakes).
A name not listed maps through its prefix: ``onnxruntime-cuda`` -> ``onnxruntime``."""


@dataclass(frozen=True)
class ModuleReport:
    """What one oracle module said when asked in a worker."""

    module: str
    infos: tuple[OracleInfo, ...] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)
    problem: str = ""
    transient: bool = False
    """The module crashed or hung its worker: worth asking again next time."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(info.name for info in self.infos)

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "infos": [asdict(i) for i in self.infos],
            "facts": dict(self.facts),
            "problem": self.problem,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ModuleReport:
        """Inverse of :meth:`to_json`.

        >>> r = ModuleReport("m", (OracleInfo("n", "f", "1", "cpu", "eager", ("a.b",)),), {"t": {"x": 1}})
        >>> ModuleReport.from_json(json.loads(json.dumps(r.to_json()))) == r
        True
        """
        infos = tuple(OracleInfo(**{**i, "ops": tuple(i["ops"])}) for i in d["infos"])
        return cls(d["module"], infos, d["facts"], d["problem"])


_reports: dict[str, ModuleReport] = {}


def module_for(name: str) -> str:
    """The module that builds oracle ``name``; KeyError if none could.

    >>> module_for("tensorflow-xla")
    'oracles.tensorflow_oracle'
    """
    candidate = name
    while candidate:
        if candidate in ORACLE_MODULES:
            return ORACLE_MODULES[candidate]
        candidate = candidate.rpartition("-")[0]
    raise KeyError(f"no oracle is called {name!r}; known: {sorted(ORACLE_MODULES)}")


def modules() -> list[str]:
    """Every module in the table, once, in table order."""
    return list(dict.fromkeys(ORACLE_MODULES.values()))


@contextmanager
def registered(table: Mapping[str, str], *, only: bool = False) -> Iterator[None]:
    """Test hook: add ``table`` (name -> module) to :data:`ORACLE_MODULES`, or
    with ``only=True`` use it instead, for the duration of a ``with``.

    >>> with registered({"fake-returns": "tests/fake_oracles.py"}, only=True):
    ...     modules()
    ['tests/fake_oracles.py']
    """
    saved = dict(ORACLE_MODULES)
    if only:
        ORACLE_MODULES.clear()
    ORACLE_MODULES.update(table)
    try:
        yield
    finally:
        ORACLE_MODULES.clear()
        ORACLE_MODULES.update(saved)


def installed(module: str) -> bool:
    """Whether ``module`` and one of its framework packages can be found (no import).

    >>> installed("oracles.base"), installed("oracles.no_such_oracle")
    (True, False)
    """
    if module.endswith(".py"):
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


# -- discovery, in a worker ---------------------------------------------------


def _ask_worker(module_names: list[str], timeout: float) -> list[ModuleReport]:
    """Reports for ``module_names``, in order; a module that kills or hangs the
    worker gets a report saying so and the rest go to a new worker."""
    reports: list[ModuleReport] = []
    while len(reports) < len(module_names):
        rest = module_names[len(reports) :]
        worker = WorkerProcess("discover", {"modules": rest}, "oracle-discovery")
        for module in rest:
            reply = worker.receive(timeout)
            if isinstance(reply, tuple):
                reports.append(ModuleReport(module, reply[2], reply[3], reply[4]))
                continue
            reports.append(ModuleReport(module, problem=_failure_text(reply, module), transient=True))
            break
        if len(reports) == len(module_names):
            worker.close()
        else:
            worker.kill()
    return reports


def _failure_text(reply: Died | NoAnswer, module: str) -> str:
    if isinstance(reply, NoAnswer):
        return f"importing {module} took over {reply.seconds:g} s"
    return crash_outcome(reply, f"importing {module}").message or "crashed"


def _fingerprint(module: str) -> str:
    """A hash of everything :func:`discover`'s answer for ``module`` depends on."""
    from importlib.metadata import distributions

    spec = importlib.util.find_spec(module)
    roots = [Path(__file__).parent.parent] + ([Path(spec.origin).parent] if spec and spec.origin else [])
    files = sorted(str(f) for d in roots for f in d.rglob("*.py"))
    state = {
        "distributions": sorted(f"{d.metadata['Name']}=={d.version}" for d in distributions()),
        "python": [sys.executable, sys.version, platform.node()],
        "module": module,
        "files": [(f, os.stat(f).st_mtime_ns, os.stat(f).st_size) for f in files],
        "env": {name: os.environ.get(name) for name in THREAD_VARIABLES},
        "devices": sorted(glob.glob("/dev/nvidia*") + glob.glob("/dev/kfd")),
    }
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]


def _cache_file(module: str) -> Path | None:
    """Where the report for ``module`` is kept, or None if it isn't (test fakes, cache off)."""
    if module.endswith(".py") or cache_off():
        return None
    return cache_root() / f"discovery-{module}-{_fingerprint(module)}.json"


def _load_cached(module: str) -> ModuleReport | None:
    path = _cache_file(module)
    try:
        return ModuleReport.from_json(json.loads(path.read_text())) if path else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save(report: ModuleReport) -> None:
    """Keep a report on disk; a crash or a timeout is not kept (it may not recur)."""
    path = _cache_file(report.module)
    if path is None or report.transient:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(report.to_json()))
        tmp.replace(path)
    except OSError:
        pass


def discover(*, refresh: bool = False, timeout: float = DEFAULT_STARTUP_TIMEOUT) -> list[ModuleReport]:
    """A report for every module in the table (installed or not), asking a
    worker about those neither asked in this process nor cached on disk
    (``refresh=True`` asks again about all of them).

    >>> [r.module for r in discover()][:1]   # doctest: +SKIP
    ['oracles.numpy_oracle']
    """
    wanted = modules()
    if refresh:
        for module in wanted:
            _reports.pop(module, None)
    for module in wanted:
        cached = None if refresh or module in _reports or not installed(module) else _load_cached(module)
        if cached is not None:
            _reports[module] = cached
    missing = [m for m in wanted if m not in _reports and installed(m)]
    if missing:
        for report in _ask_worker(missing, timeout):
            _reports[report.module] = report
            _save(report)
    return [_reports.get(m) or ModuleReport(m, problem="not installed") for m in wanted]


def infos(*, refresh: bool = False) -> list[OracleInfo]:
    """The info of every oracle that can run here, in table order."""
    return [info for report in discover(refresh=refresh) for info in report.infos if _listed(info, report.module)]


def available(*, refresh: bool = False) -> list[str]:
    """Names of the oracles that can run here.

    >>> with registered({"fake-returns": "tests/fake_oracles.py"}, only=True):  # doctest: +SKIP
    ...     "fake-returns" in available()
    True
    """
    return [info.name for info in infos(refresh=refresh)]


def _listed(info: OracleInfo, module: str) -> bool:
    """Whether the table sends ``info.name`` to ``module`` (a module may offer more)."""
    try:
        return module_for(info.name) == module
    except KeyError:
        return False


# -- getting one --------------------------------------------------------------


@overload
def get(
    name: str,
    isolated: Literal[True] = ...,
    *,
    timeout: float = ...,
    startup_timeout: float = ...,
) -> IsolatedOracle: ...


@overload
def get(
    name: str,
    isolated: bool,
    *,
    timeout: float = ...,
    startup_timeout: float = ...,
) -> IsolatedOracle | InProcessOracle: ...


def get(
    name: str,
    isolated: bool = True,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
) -> IsolatedOracle | InProcessOracle:
    """Oracle ``name``: by default an :class:`IsolatedOracle` with its worker
    started (so the import is paid here, not by the first case); with
    ``isolated=False`` the in-process oracle (fast, but a crash takes this
    process with it). Raises :class:`OracleUnavailable` (a LookupError) if
    ``name`` cannot run here, :class:`~conformance.execution.loading.WorkerStartError`
    if its worker cannot start. ``timeout`` is each case's limit in seconds.

    >>> with get("numpy") as numpy_oracle:   # doctest: +SKIP
    ...     numpy_oracle.run("numpy.take", np.arange(6).reshape(2, 3), np.array([2, 0]), axis=1).value.tolist()
    [[2, 0], [5, 3]]
    """
    module = _module_or_unavailable(name)
    if not isolated:
        return load_oracle(module, name)
    oracle = IsolatedOracle(name, module, timeout=timeout, startup_timeout=startup_timeout)
    oracle.start()
    return oracle


def _module_or_unavailable(name: str) -> str:
    try:
        module = module_for(name)
    except KeyError as exc:
        raise OracleUnavailable(str(exc)) from None
    if not installed(module):
        raise OracleUnavailable(f"oracle {name!r} needs the module {module}, which is not installed")
    return module
