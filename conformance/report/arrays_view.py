"""Arrays as the report shows them: laid out in labelled 2-D blocks, with the
elements that differ from the reference marked.

>>> import numpy as np
>>> from conformance.core.outcome import Outcome
>>> differing_coordinates(Outcome.returned(np.array([[1, 2], [3, 4]])), Outcome.returned(np.array([[1, 0], [3, 0]])))
[(0, 1), (1, 1)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.core.arrays import dtype_name, unequal_elements
from conformance.core.outcome import Kind, Outcome

MAX_CELLS = 512
"""Arrays larger than this are shown truncated (reproducers are minimal, so rarely)."""

Cell = dict[str, Any]
"""One element of a laid-out array: ``text``, ``hit``, ``coord`` and, for a hit, ``other``."""


def format_element(x: Any) -> str:
    """One array element as text: strings quoted, floats as NumPy prints them.

    >>> format_element(np.float32(-0.0)), format_element(np.str_("")), format_element(np.int8(-3))
    ('-0.0', "''", '-3')
    """
    if isinstance(x, (str, np.str_, bytes, np.bytes_)):
        return repr(str(x) if isinstance(x, np.str_) else x)
    return str(x)


def differing_coordinates(reference: Outcome, got: Outcome) -> list[tuple[int, ...]]:
    """Coordinates where two returned values differ bit for bit (NaN equals
    NaN with the same bits; ``-0.0`` differs from ``0.0``). Empty unless both
    outcomes are values of the same shape and dtype.

    >>> differing_coordinates(Outcome.returned(np.array([0.0, np.nan])), Outcome.returned(np.array([-0.0, np.nan])))
    [(0,)]
    >>> differing_coordinates(Outcome.returned(np.array(["a", "b"])), Outcome.returned(np.array(["a", "c"])))
    [(1,)]
    """
    a, b = reference.value, got.value
    if reference.kind is not Kind.VALUE or got.kind is not Kind.VALUE or a is None or b is None:
        return []
    if a.shape != b.shape or a.dtype != b.dtype:
        return []
    return [tuple(int(i) for i in c) for c in np.argwhere(unequal_elements(a, b))]


def mismatch_note(reference: Outcome, got: Outcome) -> str:
    """One line saying how an outcome differs from the reference.

    >>> mismatch_note(Outcome.returned(np.zeros((2, 2))), Outcome.returned(np.ones((2, 2))))
    '4 of 4 elements differ'
    >>> mismatch_note(Outcome.returned(np.zeros(2)), Outcome.returned(np.zeros(3)))
    'shape [3] instead of [2]'
    """
    if reference.kind is not got.kind:
        return f"{got.kind.value} where the reference gives {reference.kind.value}"
    if got.kind is Kind.VALUE:
        a, b = reference.value, got.value
        assert a is not None and b is not None
        if a.shape != b.shape:
            return f"shape {list(b.shape)} instead of {list(a.shape)}"
        if a.dtype != b.dtype:
            return f"dtype {dtype_name(b.dtype)} instead of {dtype_name(a.dtype)}"
        n = len(differing_coordinates(reference, got))
        return f"{n} of {a.size} elements differ" if n else "agrees with the reference"
    if got.kind is Kind.ERROR and got.error_class != reference.error_class:
        cls = got.error_class.value if got.error_class else "?"
        ref = reference.error_class.value if reference.error_class else "?"
        return f"error class {cls} instead of {ref}"
    return "agrees with the reference"


@dataclass
class ArrayView:
    """An array laid out for the template: 2-D blocks of rows of cells."""

    dtype: str
    shape: list[int]
    blocks: list[tuple[str, list[list[Cell]]]]  # (label like "[1, :, :]", rows of cells)
    truncated: bool = False


def block_label(prefix: tuple[int, ...], ndim: int) -> str:
    """The label of the 2-D block at ``prefix`` of an ``ndim``-D array ("" up to 2-D).

    >>> block_label((1, 0), 4), block_label((), 2)
    ('[1, 0, :, :]', '')
    """
    return "[" + ", ".join([*map(str, prefix), ":", ":"]) + "]" if ndim > 2 else ""


def cell_coordinate(prefix: tuple[int, ...], i: int, j: int, ndim: int) -> tuple[int, ...]:
    """The coordinate of cell (row ``i``, column ``j``) of a block.

    >>> cell_coordinate((1,), 0, 2, 3), cell_coordinate((), 0, 2, 1), cell_coordinate((), 0, 0, 0)
    ((1, 0, 2), (2,), ())
    """
    return prefix + ((i, j) if ndim >= 2 else (j,) if ndim == 1 else ())


def array_view(a: np.ndarray, highlight: Iterable[tuple[int, ...]] = (), other: np.ndarray | None = None) -> ArrayView:
    """Lay ``a`` out as labelled 2-D blocks; cells at ``highlight`` are marked
    (with ``other``'s element at the same place as their tooltip).

    >>> v = array_view(np.arange(6).reshape(1, 2, 3), highlight=[(0, 1, 2)])
    >>> v.blocks[0][0], [c["text"] for c in v.blocks[0][1][1]], v.blocks[0][1][1][2]["hit"]
    ('[0, :, :]', ['3', '4', '5'], True)
    """
    hits = set(map(tuple, highlight))
    outer: list[tuple[int, ...]] = [()] if a.ndim <= 2 else list(np.ndindex(*a.shape[:-2]))
    n_rows = a.shape[-2] if a.ndim >= 2 else 1
    n_cols = a.shape[-1] if a.ndim >= 1 else 1
    grid = a.reshape(len(outer), n_rows, n_cols)
    blocks: list[tuple[str, list[list[Cell]]]] = []
    shown = 0
    for k, prefix in enumerate(outer):
        if shown >= MAX_CELLS:
            break
        rows = []
        for i in range(n_rows):
            if shown >= MAX_CELLS:
                break
            row = []
            for j in range(n_cols):
                coord = cell_coordinate(tuple(prefix), i, j, a.ndim)
                cell: Cell = {"text": format_element(grid[k, i, j]), "hit": coord in hits, "coord": list(coord)}
                if cell["hit"] and other is not None:
                    cell["other"] = format_element(other[coord])
                row.append(cell)
            rows.append(row)
            shown += len(row)
        blocks.append((block_label(tuple(prefix), a.ndim), rows))
    return ArrayView(dtype_name(a.dtype), list(a.shape), blocks, truncated=shown < a.size)


def attr_text(value: Any) -> str:
    """An attribute as a user writes it in Python (a NumPy scalar or 0-d
    array, as the attribute domain draws them, is no JSON value).

    >>> [attr_text(v) for v in (np.int64(1), np.array(2), "clip", None, 1.5, True)]
    ['np.int64(1)', 'np.array(2)', "'clip'", 'None', '1.5', 'True']
    """
    if isinstance(value, np.ndarray):
        return f"np.{value!r}"
    return repr(value)
