"""Checking what a user asked for, before any work: ops, oracles, budgets,
shards and the output folder. Each check returns the value to use or raises
:class:`UsageError` with one line naming the argument and the rule it breaks
(and, for a misspelt name, the closest known one).

>>> select_ops(["torch.gathr"])
Traceback (most recent call last):
...
conformance.cli.selection.UsageError: --ops: unknown op 'torch.gathr' (did you mean 'torch.gather'?); known:
onnx.Gather-1, ...
>>> select_ops(["torch.*"])
('torch.gather', 'torch.take', 'torch.take_along_dim', 'torch.index_select', 'torch.advanced_indexing')
>>> parse_shard("1/4")
(1, 4)
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from conformance.core.oracle import OracleInfo
from conformance.spec.catalog import specs

OK, GATE_FAILS, USAGE, TOOL_FAILED = 0, 1, 2, 3
"""Exit statuses: fine; the gate fails; a usage error (:class:`UsageError`); the tool itself failed."""


class UsageError(ValueError):
    """Bad input from the user: exit status 2, one line, no traceback."""


def _unknown(arg: str, what: str, name: str, known: Sequence[str]) -> UsageError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = ", ".join(known[:1]) + ", ..." if len(known) > 12 else ", ".join(known)
    return UsageError(f"{arg}: unknown {what} {name!r}{hint}; known: {shown}")


def select_ops(patterns: Sequence[str] | None) -> tuple[str, ...] | None:
    """Catalog keys matching ``patterns`` (keys, op names such as ``onnx.Gather``
    for every opset, or globs); None for all. A pattern matching nothing is an error."""
    if not patterns:
        return None
    keys = [s.key for s in specs()]
    chosen: list[str] = []
    for pattern in patterns:
        hits = [s.key for s in specs() if fnmatchcase(s.key, pattern) or fnmatchcase(s.name, pattern)]
        if not hits:
            raise _unknown("--ops", "op", pattern, keys)
        chosen += [k for k in hits if k not in chosen]
    return tuple(chosen)


def select_oracles(
    names: Sequence[str] | None, known: Sequence[str], here: Sequence[str], by_default: Sequence[str] | None = None
) -> list[str]:
    """The oracles to run: ``names`` (each must be known, and available here),
    or every available one that runs by default (``by_default``, default all
    of ``here``: an oracle that runs only on request is left out).

    >>> select_oracles(None, ["numpy", "iree"], ["numpy", "iree"], ["numpy"]), select_oracles(["iree"], ["iree"],
    ...     ["iree"], [])
    (['numpy'], ['iree'])

    >>> select_oracles(["nunpy"], ["numpy", "torch"], ["numpy"])
    Traceback (most recent call last):
    ...
    conformance.cli.selection.UsageError: --oracles: unknown oracle 'nunpy' (did you mean 'numpy'?); known: numpy, torch
    """
    if not names:
        return list(here if by_default is None else by_default)
    for name in names:
        if name not in known and not any(name.startswith(k + "-") for k in known):
            raise _unknown("--oracles", "oracle", name, list(known))
        if name not in here:
            raise UsageError(
                f"--oracles: oracle {name!r} cannot run on this machine (available here: {', '.join(here) or 'none'})"
            )
    return list(dict.fromkeys(names))


def check_coverage(ops: tuple[str, ...] | None, infos: Mapping[str, OracleInfo]) -> None:
    """Refuse a selection that would run no case, saying why.

    >>> check_coverage(("webnn.gather",), {"numpy": OracleInfo("numpy", "numpy", "2", "cpu", "eager", ("numpy.take",))})
    Traceback (most recent call last):
    ...
    conformance.cli.selection.UsageError: --ops: no selected oracle implements webnn.gather (numpy implements:
    numpy.take)
    """
    if not infos:
        raise UsageError("--oracles: no oracle selected or available: nothing would be tested")
    covered = {k for i in infos.values() for k in i.ops}
    for op in ops or ():
        if op not in covered:
            implements = "; ".join(f"{n} implements: {', '.join(i.ops)}" for n, i in infos.items())
            raise UsageError(f"--ops: no selected oracle implements {op} ({implements})")


def positive(arg: str, value: float | None, *, integer: bool = False) -> None:
    """``value`` must be None or > 0.

    >>> positive("--budget", 0)
    Traceback (most recent call last):
    ...
    conformance.cli.selection.UsageError: --budget: must be > 0, got 0
    """
    if value is not None and not value > 0:
        raise UsageError(f"{arg}: must be > 0, got {value:g}")
    if integer and value is not None and int(value) != value:
        raise UsageError(f"{arg}: must be a whole number, got {value:g}")


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/n"`` with ``0 <= i < n``."""
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard: must look like i/n (e.g. 0/4), got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise UsageError(f"--shard: need 0 <= i < n, got {i}/{n}")
    return i, n


def writable_dir(arg: str, path: Path) -> Path:
    """``path`` as a directory this process can write (created if missing).

    >>> writable_dir("--out", Path("/dev/null"))
    Traceback (most recent call last):
    ...
    conformance.cli.selection.UsageError: --out: /dev/null exists and is not a directory
    """
    if path.exists() and not path.is_dir():
        raise UsageError(f"{arg}: {path} exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-test-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{arg}: cannot write to {path} ({exc.strerror})") from None
    return path


def writable_file(arg: str, path: Path) -> Path:
    """``path`` as a file this process can write (its folder created if missing; an existing file is replaced).

    >>> writable_file("--update-baseline", Path("/"))
    Traceback (most recent call last):
    ...
    conformance.cli.selection.UsageError: --update-baseline: / is a directory, not a file
    """
    if path.is_dir():
        raise UsageError(f"{arg}: {path} is a directory, not a file")
    writable_dir(arg, path.parent if str(path.parent) else Path("."))
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{arg}: cannot write to {path} (permission denied)")
    return path
