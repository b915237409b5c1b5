"""One isolated environment per requested framework version, built once and
kept (:class:`VenvProvider`), and what each one really got (:class:`EnvironmentFacts`).

**Where.** ``$GATHER_CONFORMANCE_CACHE/envs/`` (default
``~/.cache/gather-conformance/envs/``), one folder per key (:func:`env_key`):
the framework, the requested version, the Python, and a hash of what decides
the environment's third-party contents (the suite's pinned constraints, its
requirements as its wheel states them, the installer).

**How.** ``uv venv`` and ``uv pip install`` where ``uv`` is on PATH, else
``python -m venv`` and pip (:class:`~conformance.upgrade.installer.Installer`). Into it go this checkout,
built once as a wheel (non-editable: an environment runs the suite as it was
when the study started, whatever happens to the checkout meanwhile; the wheel
is kept per hash of the suite's sources), with its ``campaign`` extra and the
extra that names the framework, and the requested version; every other
package is held by ``constraints-ci.txt`` minus the framework's own pin. When
the resolver says the requested version conflicts with other pins (jax 0.9.0
needs jaxlib 0.9.0, not the pinned 0.10.2), those pins are dropped as well, a
round at a time, and reported as ``relaxed`` with the version installed
instead; a version that cannot be installed at all is an :class:`InstallError`
naming it and the installer's reason.

**Cached.** The third-party packages stay; the suite itself is re-installed
(no dependencies: seconds) whenever its sources changed since, and an
environment whose build did not finish (no marker file) is built again.

>>> extras_naming(['onnx>=1.16; extra == "onnx"', 'onnxruntime>=1.23; extra == "onnx"', 'numpy>=1.26'], "onnxruntime")
['onnx']
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conformance.core.oracle import OracleInfo
from conformance.execution.artefact_cache import cache_root
from conformance.upgrade.installer import (
    INSTALL_TIMEOUT_S,
    Completed,
    Installer,
    Runner,
    conflicting_pins,
    constraints_without,
    default_installer,
    failure_words,
    pinned,
    run_command,
)
from conformance.upgrade.request import Request

ENV_MARKER = "gc-env.json"
"""Written last into a finished environment: what was asked and what was relaxed."""
SUITE_STAMP = "gc-suite.txt"
"""The hash of the suite's sources installed in an environment."""
ENV_FORMAT = 1
"""Version of :data:`ENV_MARKER`'s layout."""
BASE_EXTRAS = ("campaign",)
"""The suite's extras every environment needs (Hypothesis, Jinja2, packaging, rich)."""
SUITE_PARTS = ("pyproject.toml", "README.md", "conformance", "oracles")
"""What of the checkout goes into its wheel (README.md: the package's long description)."""
MAX_RELAXATIONS = 4
"""Rounds of dropping the pins the resolver names before giving up."""


class InstallError(RuntimeError):
    """A requested version whose environment cannot be built or used: the
    message names it and says why, in one line."""


def suite_root(module_file: str | Path = __file__) -> Path | None:
    """The checkout this package runs from (the folder of its ``pyproject.toml``),
    or None when it runs from an installed wheel.

    >>> (suite_root() / "constraints-ci.txt").is_file()   # doctest: +SKIP
    True
    >>> suite_root("/nonexistent/a/b/c.py") is None
    True
    """
    root = Path(module_file).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    return root if pyproject.is_file() and 'name = "gather-conformance"' in pyproject.read_text() else None


def suite_files(root: Path) -> list[Path]:
    """The files of :data:`SUITE_PARTS` (no caches), sorted."""
    out: list[Path] = []
    for part in SUITE_PARTS:
        path = root / part
        found = [path] if path.is_file() else sorted(path.rglob("*")) if path.is_dir() else []
        out += [p for p in found if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    return sorted(out)


def content_hash(root: Path, files: Sequence[Path]) -> str:
    """A short hash of the files' paths (relative to ``root``) and bytes."""
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def wheel_requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(name).decode("utf-8")
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def extras_naming(requirements: Sequence[str], framework: str) -> list[str]:
    """The extras whose requirements name ``framework`` directly.

    >>> onnx = ['onnx>=1.16; extra == "onnx"', 'onnxruntime>=1.23; extra == "onnx"', 'numpy>=1.26']
    >>> extras_naming(onnx, "onnxruntime")
    ['onnx']
    """
    out = []
    for line in requirements:
        req = Requirement(line)
        found = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", str(req.marker or ""))
        if found and canonicalize_name(req.name) == canonicalize_name(framework):
            out.append(found.group(1))
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class EnvironmentFacts:
    """What an environment really holds, read in it (never taken from the request)."""

    request: Request
    installed: str
    """The framework's version, as ``importlib.metadata`` says inside the environment."""
    python: str
    path: str
    tool: str
    cached: bool
    relaxed: dict[str, str] = field(default_factory=dict)
    """Pins dropped for this version (``jaxlib==0.10.2``) -> the version installed instead ("" where none is)."""
    oracles: tuple[OracleInfo, ...] = ()
    """The oracles of this framework that can run in the environment."""
    available: tuple[str, ...] = ()
    """Every oracle that can run in the environment (this framework's and others)."""
    problems: dict[str, str] = field(default_factory=dict)
    """Oracle modules that failed to load there -> why."""
    seconds: float = 0.0
    """Building the environment (or checking the cached one)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "requested": self.request.requirement,
            "installed": self.installed,
            "python": self.python,
            "path": self.path,
            "tool": self.tool,
            "cached": self.cached,
            "relaxed": dict(self.relaxed),
            "oracles": [o.to_json() for o in self.oracles],
            "available": list(self.available),
            "problems": dict(self.problems),
            "seconds": round(self.seconds, 1),
        }


class Environment(Protocol):
    """One prepared environment, as the study uses it (tests hand fakes)."""

    facts: EnvironmentFacts

    def campaign(self, arguments: Sequence[str], log: Path) -> Completed:
        """``gather-conformance ARGUMENTS`` run in the environment, its output written to ``log``."""
        ...

    def scripts(self, wanted: Sequence[Mapping[str, Any]], work: Path) -> list[dict[str, Any]]:
        """Reproducer scripts for ``wanted`` (see :mod:`conformance.upgrade.inside`)."""
        ...


class Provider(Protocol):
    """Prepares every requested environment before any campaign runs."""

    def prepare(self, requests: Sequence[Request], say: Callable[[str], None]) -> list[Environment]: ...


def framework_oracles(described: Mapping[str, Any], framework: str) -> tuple[OracleInfo, ...]:
    """The oracles, in a ``describe`` answer, whose framework ``framework`` provides.

    >>> d = {"oracles": [{"name": "onnxruntime", "framework": "onnxruntime", "version": "1.32.0", "device": "cpu",
    ...                   "mode": "session", "ops": [], "distributions": ["onnxruntime"]},
    ...                  {"name": "onnx-reference", "framework": "onnx", "version": "1.23.2", "device": "cpu",
    ...                   "mode": "reference", "ops": [], "distributions": ["onnx"]}]}
    >>> [o.name for o in framework_oracles(d, "onnxruntime")]
    ['onnxruntime']
    """
    return tuple(
        OracleInfo.from_json(o) for o in described.get("oracles", ()) if framework in o.get("distributions", ())
    )


def env_key(request: Request, inputs: Mapping[str, str]) -> str:
    """The folder name of a request's environment: framework, version, Python
    and a hash of ``inputs`` (what decides its contents).

    >>> env_key(Request("onnxruntime", "==1.32.0"), {"python": "cp311"})
    'onnxruntime-1.32.0-cp311-...'
    """
    digest = hashlib.sha256(json.dumps({**inputs, "specifier": request.specifier}, sort_keys=True).encode())
    return f"{request.framework}-{request.label}-{inputs.get('python', 'py')}-{digest.hexdigest()[:10]}"


def python_tag() -> str:
    """``cp311`` for CPython 3.11 (this interpreter)."""
    return f"{sys.implementation.name[:2]}{sys.version_info.major}{sys.version_info.minor}"


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (two studies never build one environment at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            import fcntl

            fcntl.flock(handle, fcntl.LOCK_EX)
        except ImportError:  # no fcntl (Windows): no lock
            pass
        yield


def env_python(path: Path) -> Path:
    """The interpreter of the environment at ``path``."""
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@dataclass
class VenvEnvironment:
    """A built environment: its facts and how to run the suite in it."""

    facts: EnvironmentFacts
    python: Path
    runner: Runner = run_command
    campaign_timeout: float = 6 * 3600.0

    def campaign(self, arguments: Sequence[str], log: Path) -> Completed:
        done = self.runner([str(self.python), "-m", "conformance.cli.main", *arguments], self.campaign_timeout)
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(done.output, encoding="utf-8")
        return done

    def scripts(self, wanted: Sequence[Mapping[str, Any]], work: Path) -> list[dict[str, Any]]:
        work.mkdir(parents=True, exist_ok=True)
        request, answer = work / "scripts-request.json", work / "scripts-answer.json"
        request.write_text(json.dumps(list(wanted)), encoding="utf-8")
        answer.unlink(missing_ok=True)
        command = [str(self.python), "-m", "conformance.upgrade.inside", "scripts", str(request), str(answer)]
        done = self.runner(command, INSTALL_TIMEOUT_S)
        if done.returncode == 0 and answer.is_file():
            return list(json.loads(answer.read_text(encoding="utf-8")))
        return [{"script": None, "model": None, "error": failure_words(done.output)} for _ in wanted]


@dataclass
class VenvProvider:
    """Builds (or finds in the cache) one environment per request: see the module docstring."""

    root: Path
    """The suite's checkout (its sources go into every environment)."""
    constraints: Path
    cache: Path = field(default_factory=cache_root)
    installer: Installer = field(default_factory=default_installer)
    runner: Runner = run_command
    rebuild: bool = False
    python: str = sys.executable

    def prepare(self, requests: Sequence[Request], say: Callable[[str], None]) -> list[Environment]:
        """Every environment, built or checked, before any campaign runs; an
        :class:`InstallError` naming the first version that cannot be had."""
        wheel, digest = self.suite_wheel(say)
        envs: list[Environment] = []
        for n, request in enumerate(requests, start=1):
            envs.append(self.environment(request, wheel, digest, say, f"[{n}/{len(requests)}]"))
        return envs

    def key_inputs(self, wheel: Path) -> dict[str, str]:
        """What decides an environment's third-party contents (see :func:`env_key`)."""
        requires = "\n".join(sorted(wheel_requirements(wheel)))
        return {
            "python": python_tag(),
            "interpreter": f"{os.path.realpath(self.python)} {platform.python_version()}",
            "constraints": hashlib.sha256(self.constraints.read_bytes()).hexdigest(),
            "requires": hashlib.sha256(requires.encode()).hexdigest(),
            "installer": self.installer.name,
        }

    def suite_wheel(self, say: Callable[[str], None]) -> tuple[Path, str]:
        """This checkout as a wheel, built from a clean copy of its sources
        (never in the checkout itself) once per hash of them."""
        files = suite_files(self.root)
        digest = content_hash(self.root, files)
        folder = self.cache / "wheels" / digest
        with locked(self.cache / "wheels" / f"{digest}.lock"):
            found = sorted(folder.glob("*.whl"))
            if found:
                return found[0], digest
            say(f"building the suite's wheel ({len(files)} files, {self.installer.name})")
            with tempfile.TemporaryDirectory(prefix="gc-wheel-") as tmp:
                source, out = Path(tmp) / "src", Path(tmp) / "dist"
                for f in files:
                    target = source / f.relative_to(self.root)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(f, target)
                done = self.runner(self.installer.wheel(source, out, self.python), INSTALL_TIMEOUT_S)
                built = sorted(out.glob("*.whl"))
                if done.returncode != 0 or not built:
                    raise InstallError(f"the suite itself cannot be built as a wheel: {failure_words(done.output)}")
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copy2(built[0], folder / built[0].name)
            return folder / built[0].name, digest

    def environment(
        self, request: Request, wheel: Path, digest: str, say: Callable[[str], None], tag: str
    ) -> VenvEnvironment:
        """One request's environment (see the module docstring)."""
        started = time.monotonic()
        path = self.cache / "envs" / env_key(request, self.key_inputs(wheel))
        python = env_python(path)
        with locked(path.with_name(path.name + ".lock")):
            marker = None if self.rebuild else read_marker(path)
            if marker is None:
                shutil.rmtree(path, ignore_errors=True)
                say(f"{tag} {request.requirement}: building its environment ({self.installer.name}) in {path}")
                relaxed = self.build(request, path, python, wheel)
                write_marker(path, {"format": ENV_FORMAT, "requested": request.requirement, "relaxed": relaxed})
                (path / SUITE_STAMP).write_text(digest)
            else:
                relaxed = dict(marker.get("relaxed", {}))
                if _read(path / SUITE_STAMP) != digest:
                    say(f"{tag} {request.requirement}: cached environment; installing the changed suite into it")
                    command = self.installer.install(python, [str(wheel)], no_deps=True, reinstall=True)
                    done = self.runner(command, INSTALL_TIMEOUT_S)
                    if done.returncode != 0:
                        raise InstallError(
                            f"{request.requirement}: cannot refresh the suite in {path}: {failure_words(done.output)}"
                        )
                    (path / SUITE_STAMP).write_text(digest)
                else:
                    say(f"{tag} {request.requirement}: cached environment {path}")
            cached = marker is not None
            described = self.describe(request, python, path, sorted(relaxed))
        installed = described["versions"].get(request.framework)
        return VenvEnvironment(
            EnvironmentFacts(
                request=request,
                installed=str(installed),
                python=str(described.get("python", "")),
                path=str(path),
                tool=self.installer.name,
                cached=cached,
                relaxed={line: described["versions"].get(n) or "" for n, line in relaxed.items()},
                oracles=framework_oracles(described, request.framework),
                available=tuple(o["name"] for o in described.get("oracles", ())),
                problems=dict(described.get("problems", {})),
                seconds=time.monotonic() - started,
            ),
            python,
            self.runner,
        )

    def build(self, request: Request, path: Path, python: Path, wheel: Path) -> dict[str, str]:
        """Create the environment and install into it, dropping the pins the
        resolver names as conflicting (see the module docstring); the pins
        dropped (name -> the constraint line)."""
        done = self.runner(self.installer.create(path, self.python), INSTALL_TIMEOUT_S)
        if done.returncode != 0:
            raise InstallError(
                f"{request.requirement}: cannot create an environment in {path}: {failure_words(done.output)}"
            )
        text = self.constraints.read_text(encoding="utf-8")
        pins = pinned(text)
        extras = ",".join(dict.fromkeys([*BASE_EXTRAS, *extras_naming(wheel_requirements(wheel), request.framework)]))
        requirements = [f"gather-conformance[{extras}] @ {wheel.resolve().as_uri()}", request.requirement]
        relaxed: dict[str, str] = {}
        log = []
        for _ in range(MAX_RELAXATIONS + 1):
            constraints = path / "gc-constraints.txt"
            constraints.write_text(constraints_without(text, {request.framework, *relaxed}), encoding="utf-8")
            done = self.runner(self.installer.install(python, requirements, constraints=constraints), INSTALL_TIMEOUT_S)
            log.append(done.output)
            (path / "gc-install.log").write_text("\n".join(log), encoding="utf-8")
            if done.returncode == 0:
                return relaxed
            more = [n for n in conflicting_pins(done.output, pins) if n != request.framework and n not in relaxed]
            if not more:
                break
            relaxed.update({n: pins[n] for n in more})
        dropped = f" (even with {', '.join(relaxed.values())} relaxed)" if relaxed else ""
        shutil.rmtree(path, ignore_errors=True)
        raise InstallError(f"{request.requirement} cannot be installed{dropped}: {failure_words(done.output)}")

    def describe(self, request: Request, python: Path, path: Path, names: Sequence[str]) -> dict[str, Any]:
        """The environment's own answer (:mod:`conformance.upgrade.inside`), checked."""
        answer = path / "gc-describe.json"
        answer.unlink(missing_ok=True)
        command = [str(python), "-m", "conformance.upgrade.inside", "describe", str(answer), request.framework, *names]
        done = self.runner(command, INSTALL_TIMEOUT_S)
        if done.returncode != 0 or not answer.is_file():
            raise InstallError(
                f"{request.requirement} is installed, but the suite cannot start in its environment: "
                f"{failure_words(done.output)}"
            )
        described: dict[str, Any] = json.loads(answer.read_text(encoding="utf-8"))
        installed = described.get("versions", {}).get(request.framework)
        if installed is None:
            raise InstallError(f"{request.requirement}: the environment {path} has no {request.framework} installed")
        return described


def read_marker(path: Path) -> dict[str, Any] | None:
    """A finished environment's marker (None: absent, unreadable or of another format)."""
    try:
        marker = json.loads((path / ENV_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) and marker.get("format") == ENV_FORMAT else None


def write_marker(path: Path, marker: Mapping[str, Any]) -> None:
    (path / ENV_MARKER).write_text(json.dumps(dict(marker), indent=1), encoding="utf-8")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""
