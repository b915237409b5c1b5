"""Whether runs of the same versions give the same atlas (issue 27's figure): the machine is never evidence.

Run: ``python benchmarks/atlas_agreement.py RUN_FOLDER RUN_FOLDER [...]`` (each the ``--out`` of a
``gather-conformance run`` or ``check``, holding ``atlas.json``; a quiet run and a loaded one, other seeds).
Two cells agree when their behaviour and error class are the same (the seed draws no probe: the atlas is a
fact of the installed versions). It prints, for each run after the first, how many cells differ from the
first run's, each differing cell, and the cells only one of them has (a run cut short, a budget's subset)::

    /tmp/q0: 4386 cells
    /tmp/l7: 4386 cells, 0 differ from /tmp/q0, 0 only in one of them

Its exit status is 1 where some cell differs or is missing, else 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from conformance.results.atlas import Atlas, CellKey

Shown = tuple[str, str | None]
"""What a run says of a cell: its behaviour and its error class."""


def shown(atlas: Atlas) -> dict[CellKey, Shown]:
    """Each cell's (behaviour, error class), by its key.

    >>> from conformance.results.atlas import AtlasCell
    >>> cell = AtlasCell("size", "block gather", "numpy.take", "numpy", "2", "raises", "index out of range", True, {})
    >>> shown(Atlas([cell]))
    {('size', 'block gather', 'numpy.take', 'numpy'): ('raises', 'index out of range')}
    """
    return {c.key: (c.behaviour.value, None if c.error_class is None else c.error_class.value) for c in atlas.cells}


def differences(
    first: Mapping[CellKey, Shown], other: Mapping[CellKey, Shown]
) -> tuple[list[tuple[CellKey, Shown, Shown]], list[CellKey]]:
    """The cells both runs have that they show differently, and those only one has.

    >>> key = ("size", "block gather", "numpy.take", "numpy")
    >>> differences({key: ("raises", "index out of range")}, {key: ("timeout", None)})
    ([(('size', 'block gather', 'numpy.take', 'numpy'), ('raises', 'index out of range'), ('timeout', None))], [])
    """
    differ = [(k, first[k], other[k]) for k in sorted(first.keys() & other.keys()) if first[k] != other[k]]
    return differ, sorted(first.keys() ^ other.keys())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each with atlas.json), the first the base")
    args = parser.parse_args(argv)
    atlases = {}
    for run in args.runs:
        path = run / "atlas.json"
        if not path.is_file():
            print(f"{run}: no atlas.json (is it a run folder?)", file=sys.stderr)
            return 2
        atlases[run] = shown(Atlas.load(path))
    base, *others = args.runs
    print(f"{base}: {len(atlases[base])} cells")
    status = 0
    for run in others:
        differ, alone = differences(atlases[base], atlases[run])
        print(f"{run}: {len(atlases[run])} cells, {len(differ)} differ from {base}, {len(alone)} only in one of them")
        for key, was, now in differ:
            print(f"  {' / '.join(key)}: {was[0]} ({was[1]}) -> {now[0]} ({now[1]})")
        status |= bool(differ or alone)
    return status


if __name__ == "__main__":
    sys.exit(main())
