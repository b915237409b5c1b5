"""The suite's cache on disk: compiled artefacts kept across runs, and what else the suite keeps there.

**Where.** ``$GATHER_CONFORMANCE_CACHE``, else ``~/.cache/gather-conformance`` (:func:`cache_root`). It holds the
oracles' discovery reports (``discovery-*.json``, :mod:`conformance.execution.registry`), the upgrade studies'
environments and wheels (``envs/``, ``wheels/``, :mod:`conformance.upgrade.environments`) and, under ``compiled/``,
one folder per framework, version and device (:func:`compiled_folder`): what a compiling oracle keeps of its
compilations so that the next run on the same versions compiles less. ``GATHER_CONFORMANCE_NO_CACHE=1`` turns the
discovery and compiled caches off, ``GATHER_CONFORMANCE_NO_COMPILED_CACHE=1`` the compiled one alone.

**Keys.** The folder's name is the framework's version and device (with a digest of the host's CPU, which the
compilers target), so a version change misses the cache: it never serves a stale artefact. Inside it, each framework
keys an artefact by the program it compiled, shapes and element types included: its own cache where it has one
(torch inductor's FX graph cache, JAX's persistent compilation cache), the suite's where not
(``oracles._common.KeptArtefacts``: IREE's ``.vmfb`` modules keyed by the MLIR text and flags, TVM's shared
libraries and OpenVINO's exported models keyed by the model they compile, each under a digest of the oracle's
prelude too, whose code compiles them). MLX compiles in memory only, TensorFlow's and Paddle's graphs are traced
anew by each process: they keep nothing.

**Verdicts.** A cached artefact is the compilation of the same program by the same version: a verdict never depends
on where it came from (``tests/test_artefact_cache.py`` runs a small campaign cold and warm and compares).

>>> import os, tempfile
>>> os.environ[CACHE_VARIABLE] = tempfile.mkdtemp(); kept = os.environ.pop(COMPILED_OFF_VARIABLE, None)
>>> folder = compiled_folder("torch", "2.13.0+cpu", "cpu")
>>> folder.name == f"torch-2.13.0+cpu-cpu-{host_cpu()}"
True
>>> write_atomically(folder / "graph.bin", b"compiled")
>>> [s.name for s in cache_sections()] == [f"compiled/{folder.name}"]
True
>>> clear_cache(), cache_sections()
(8, [])
>>> del os.environ[CACHE_VARIABLE]; os.environ.update({COMPILED_OFF_VARIABLE: kept} if kept else {})
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

CACHE_VARIABLE = "GATHER_CONFORMANCE_CACHE"
"""Where the cache is (else ``~/.cache/gather-conformance``)."""

OFF_VARIABLE = "GATHER_CONFORMANCE_NO_CACHE"
"""Set (to anything but empty): no discovery report and no compiled artefact is read or written."""

COMPILED_OFF_VARIABLE = "GATHER_CONFORMANCE_NO_COMPILED_CACHE"
"""Set: no compiled artefact is read or written (discovery reports still are). The test suite sets it: its small
campaigns compile shapes no later run asks for, so keeping them only costs (a JAX executable serialized, an OpenVINO
model exported, a TVM library linked per compilation: 806 s of pytest became 980 s); ``tests/test_artefact_cache.py``
turns it off."""

COMPILED = "compiled"
"""The folder of compiled artefacts, under the root."""


def cache_root() -> Path:
    """``$GATHER_CONFORMANCE_CACHE``, else ``~/.cache/gather-conformance``.

    >>> os.environ[CACHE_VARIABLE] = "/tmp/gc"; cache_root(); del os.environ[CACHE_VARIABLE]
    PosixPath('/tmp/gc')
    """
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "gather-conformance")


def cache_off() -> bool:
    """Whether ``GATHER_CONFORMANCE_NO_CACHE`` turns the cache off."""
    return bool(os.environ.get(OFF_VARIABLE))


def folder_name(*parts: str) -> str:
    """The folder of one framework version on one device: its parts joined by ``-``, with anything but letters,
    digits and ``.+_`` made ``_`` in each (a device such as ``cuda:0``).

    >>> folder_name("jax", "0.10.2", "cuda:0", "1a2b3c4d")
    'jax-0.10.2-cuda_0-1a2b3c4d'
    """
    return "-".join(re.sub(r"[^A-Za-z0-9.+_]", "_", part) for part in parts)


@functools.cache
def host_cpu() -> str:
    """A short digest of this machine's CPU: its architecture, model and instruction-set flags. Compilers for the
    CPU target the host's own instructions (IREE's ``--iree-llvmcpu-target-cpu=host``, XLA, inductor), so a cache
    carried to another machine (a CI cache restored on another runner) must miss rather than run code built for
    instructions this CPU may lack.

    >>> len(host_cpu())
    8
    """
    facts = [platform.machine(), platform.processor()]
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    facts += sorted({line for line in lines if line.split(":")[0].strip() in ("model name", "flags", "Features")})
    return hashlib.sha256("\n".join(facts).encode()).hexdigest()[:8]


def compiled_folder(framework: str, version: str, device: str) -> Path | None:
    """The folder where ``framework`` at ``version`` on ``device`` keeps its compiled artefacts, on this machine's
    CPU (:func:`host_cpu`); None where the cache is off. Whoever writes there makes it (an oracle that keeps nothing
    leaves no empty folder); one that cannot be written compiles everything, as without the cache.

    >>> os.environ[OFF_VARIABLE] = "1"; compiled_folder("jax", "0.10.2", "cpu") is None; del os.environ[OFF_VARIABLE]
    True
    """
    if cache_off() or os.environ.get(COMPILED_OFF_VARIABLE):
        return None
    return cache_root() / COMPILED / folder_name(framework, version, device, host_cpu())


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed over it, so that a reader (another worker, a
    killed run's next one) finds the whole artefact or none; a failure to write is no error (the artefact is
    compiled again next time).

    >>> import tempfile; folder = Path(tempfile.mkdtemp()) / "made"
    >>> write_atomically(folder / "a.bin", b"xyz"); (folder / "a.bin").read_bytes(), len(list(folder.iterdir()))
    (b'xyz', 1)
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)


@dataclass(frozen=True)
class Section:
    """One part of the cache: its name (relative to the root), files and bytes."""

    name: str
    files: int
    bytes: int


def _size(path: Path) -> tuple[int, int]:
    """``(files, bytes)`` under ``path`` (a file or a folder)."""
    if path.is_file():
        return 1, path.stat().st_size
    files = [p for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
    return len(files), sum(p.stat().st_size for p in files)


def cache_sections() -> list[Section]:
    """What the cache holds: a section per compiled folder, one for the discovery reports, one per other folder;
    empty where there is no cache yet."""
    root = cache_root()
    if not root.is_dir():
        return []
    parts: list[tuple[str, list[Path]]] = []
    compiled = root / COMPILED
    if compiled.is_dir():
        parts += [(f"{COMPILED}/{p.name}", [p]) for p in sorted(compiled.iterdir())]
    discovery = sorted(root.glob("discovery-*.json"))
    if discovery:
        parts.append(("discovery", discovery))
    parts += [(p.name, [p]) for p in sorted(root.iterdir()) if p.is_dir() and p.name != COMPILED]
    sections = []
    for name, paths in parts:
        sizes = [_size(p) for p in paths]
        sections.append(Section(name, sum(f for f, _ in sizes), sum(b for _, b in sizes)))
    return sections


def clear_cache() -> int:
    """Remove the whole cache; the bytes it held."""
    held = sum(s.bytes for s in cache_sections())
    shutil.rmtree(cache_root(), ignore_errors=True)
    return held
