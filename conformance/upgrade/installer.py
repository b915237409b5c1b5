"""Installing into an environment: the commands of each step with ``uv`` (where
it is on PATH) or ``venv`` and pip (:class:`Installer`), running them
(:func:`run_command`), the pins of a constraints file (:func:`pinned`,
:func:`constraints_without`) and what an installer's output says: the pins it
names as conflicting (:func:`conflicting_pins`) and its reason, in one line
(:func:`failure_words`).

>>> pinned("# exact versions\\nnumpy==2.4.6\\nJinja2==3.1.6  # templates\\n")
{'numpy': 'numpy==2.4.6', 'jinja2': 'Jinja2==3.1.6'}
>>> print(constraints_without("numpy==2.4.6\\njax==0.10.2\\njaxlib==0.10.2\\n", {"jax", "jaxlib"}), end="")
numpy==2.4.6
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

INSTALL_TIMEOUT_S = 1800.0
"""A backstop on one installer command (downloads of large wheels included)."""


FAILURE_CHARS = 600
"""The installer's reason, cut to this many characters in one error line."""


@dataclass(frozen=True)
class Completed:
    """A finished command: its exit status and its output (stdout and stderr together)."""

    returncode: int
    output: str


Runner = Callable[[Sequence[str], float], Completed]
"""Runs a command with a time limit (tests hand a fake one)."""


def run_command(command: Sequence[str], timeout: float = INSTALL_TIMEOUT_S) -> Completed:
    """``command`` run to its end (or ``timeout`` seconds), without this
    process's ``PYTHONPATH`` (an environment runs its own installed suite).

    >>> import sys
    >>> run_command([sys.executable, "-c", "print('hi')"]).output
    'hi\\n'
    >>> run_command(["/no/such/program"]).returncode
    127
    """
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    try:
        done = subprocess.run(
            list(command),
            check=False,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired as exc:
        output = exc.output.decode(errors="replace") if isinstance(exc.output, bytes) else exc.output or ""
        return Completed(124, f"{output}\ntimed out after {timeout:g} s: {' '.join(command)}")
    except OSError as exc:
        return Completed(127, f"{command[0]}: {exc.strerror}")
    return Completed(done.returncode, done.stdout)


def pinned(constraints: str) -> dict[str, str]:
    """Exact pins (``name==version``) in a constraints file: normalized name -> the line (see the module docstring)."""
    out: dict[str, str] = {}
    for line in constraints.splitlines():
        text = line.split("#", 1)[0].strip()
        try:
            req = Requirement(text) if text else None
        except InvalidRequirement:
            continue
        if req is not None and len(req.specifier) == 1 and next(iter(req.specifier)).operator == "==":
            out[canonicalize_name(req.name)] = text
    return out


def constraints_without(constraints: str, names: Collection[str]) -> str:
    """The constraints file with every line constraining one of ``names`` left out (see the module docstring)."""
    dropped = {canonicalize_name(n) for n in names}
    kept = []
    for line in constraints.splitlines():
        text = line.split("#", 1)[0].strip()
        try:
            name = canonicalize_name(Requirement(text).name) if text else ""
        except InvalidRequirement:
            name = ""
        if name not in dropped:
            kept.append(line)
    return "\n".join(kept) + "\n"


def conflicting_pins(output: str, pins: Mapping[str, str]) -> list[str]:
    """The pins the installer's output names as part of a conflict (pip:
    ``The user requested (constraint) jaxlib==0.10.2``; uv: ``you require
    jaxlib==0.10.2``): every pinned ``name==version`` that appears in it.

    >>> conflicting_pins("jax 0.9.0 depends on jaxlib<=0.9.0\\nThe user requested (constraint) jaxlib==0.10.2",
    ...                  {"jaxlib": "jaxlib==0.10.2", "numpy": "numpy==2.4.6"})
    ['jaxlib']
    """
    out = []
    for name, line in pins.items():
        req = Requirement(line)
        version = next(iter(req.specifier)).version
        pattern = re.escape(req.name).replace(r"\-", "[-_.]").replace(r"_", "[-_.]")
        if re.search(rf"(?i)(?<![\w.-]){pattern}\s*==\s*{re.escape(version)}(?![\w.])", output):
            out.append(name)
    return out


def failure_words(output: str) -> str:
    """The installer's reason in one line: pip's ``ERROR:`` lines and its
    conflict explanation, or uv's error lines; else the last line.

    >>> print(failure_words("Collecting x\\nERROR: Could not find a version that satisfies the requirement x==9"
    ...                     " (from versions: 1.0)\\nERROR: No matching distribution found for x==9"))
    Could not find a version that satisfies the requirement x==9 (from versions: 1.0);
    No matching distribution found for x==9
    """
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    keep: list[str] = []
    in_conflict = False
    for line in lines:
        if line.startswith("The conflict is caused by"):
            in_conflict = True
            continue
        if in_conflict and line.startswith(("To fix", "ERROR")):
            in_conflict = False
        if in_conflict:
            keep.append(line)
        elif line.startswith("ERROR:") and "ResolutionImpossible" not in line:
            keep.append(line.removeprefix("ERROR:").strip())
        elif line.startswith(("error:", "×", "╰─▶", "Because", "And because")):
            keep.append(line.lstrip("×╰─▶ ").strip())
    text = "; ".join(dict.fromkeys(keep)) or (lines[-1] if lines else "no output")
    return text if len(text) <= FAILURE_CHARS else text[: FAILURE_CHARS - 1] + "…"


@dataclass(frozen=True)
class Installer:
    """The commands of each step, with ``uv`` (its path) or, without, venv and pip."""

    uv: str | None = None

    @property
    def name(self) -> str:
        return "uv" if self.uv else "pip"

    def create(self, path: Path, python: str) -> list[str]:
        """Make an empty environment at ``path``.

        >>> Installer().create(Path("/e"), "/usr/bin/python3")
        ['/usr/bin/python3', '-m', 'venv', '/e']
        """
        if self.uv:
            return [self.uv, "venv", "--quiet", "--python", python, str(path)]
        return [python, "-m", "venv", str(path)]

    def install(
        self,
        python: Path,
        requirements: Sequence[str],
        *,
        constraints: Path | None = None,
        no_deps: bool = False,
        reinstall: bool = False,
    ) -> list[str]:
        """Install ``requirements`` into the environment of ``python``.

        >>> Installer("/bin/uv").install(Path("/e/bin/python"), ["x==1"], constraints=Path("/c.txt"))
        ['/bin/uv', 'pip', 'install', '--python', '/e/bin/python', '-c', '/c.txt', 'x==1']
        """
        if self.uv:
            command = [self.uv, "pip", "install", "--python", str(python)]
        else:
            command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
        command += ["-c", str(constraints)] if constraints else []
        command += ["--no-deps"] if no_deps else []
        command += (["--reinstall"] if self.uv else ["--force-reinstall"]) if reinstall else []
        return command + list(requirements)

    def wheel(self, source: Path, out: Path, python: str) -> list[str]:
        """Build ``source`` (a copy of the checkout) into a wheel in ``out``."""
        if self.uv:
            return [self.uv, "build", "--quiet", "--wheel", "--out-dir", str(out), str(source)]
        return [
            python,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "-w",
            str(out),
            str(source),
        ]


def default_installer() -> Installer:
    """uv where it is on PATH, else pip."""
    return Installer(shutil.which("uv"))
