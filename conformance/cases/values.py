"""Tensor values derived from a seed: data whose elements are all distinct
(so reading the wrong element never goes unseen), optionally with NaN
payloads, ``-0.0`` and infinities, in a chosen memory layout. Used by the
campaign's strategies (:mod:`conformance.cases.strategies`) and the probe atlas.

>>> data_values("int8", (3,), 0).tolist()
[-3, 1, -2]
"""

from __future__ import annotations

import math

import numpy as np

from conformance.core.arrays import as_dtype
from conformance.core.vocabulary import Layout

Shape = tuple[int, ...]

_NAN_BITS = {
    "float16": (np.uint16, 0x7E01),
    "float32": (np.uint32, 0x7FC00001),
    "float64": (np.uint64, 0x7FF8000000000001),
}


def _nans(name: str, count: int) -> np.ndarray:
    """``count`` quiet NaNs of dtype ``name``, each with its own payload (bits differ)."""
    if name == "bfloat16":
        return (np.uint16(0x7FC1) + np.arange(count, dtype=np.uint16)).view(as_dtype("bfloat16"))
    bits, base = _NAN_BITS[name]
    return (bits(base) + np.arange(count, dtype=bits)).view(np.dtype(name))


def data_values(name: str, shape: Shape, seed: int, special: bool = False) -> np.ndarray:
    """Data of dtype ``name`` whose elements are unique as far as the dtype
    allows (a permutation of ``1..n``, alternating in sign), so reading the
    wrong element never goes unseen; with ``special``, NaNs with payloads,
    ``-0.0`` and ``±inf`` replace a few elements.

    >>> data_values("int16", (2, 2), 0).tolist()
    [[-3, 1], [-2, 4]]
    >>> np.isnan(data_values("float32", (5,), 1, special=True)).sum() >= 1
    np.True_
    """
    n = math.prod(shape)
    rng = np.random.default_rng(seed)
    v = rng.permutation(n) + 1
    if name == "bool":
        return (v % 2 == 0).reshape(shape)
    if name in ("str", "object"):
        words = (
            np.array([f"s{x}" for x in v], dtype=str)
            if name == "str"
            else np.array([int(x) for x in v] + [None], dtype=object)[:n]
        )
        return words.reshape(shape)
    dtype = as_dtype(name)
    signed = np.arange(n) % 2 == 0
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if info.min < 0:
            v = np.where(signed, -v, v)
        if n > int(info.max):  # more elements than values: wrap (uniqueness is lost only here)
            span = int(info.max) - int(info.min) + 1
            v = (v - int(info.min)) % span + int(info.min)
        return v.astype(dtype).reshape(shape)
    f = np.where(signed, -v, v) * 0.5
    out = (f + 1j * (f * 0.25)).astype(dtype) if dtype.kind == "c" else f.astype(np.float64).astype(dtype)
    if special and n:
        real_name = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        picks = rng.permutation(n)[: min(n, 4)]
        specials = np.concatenate(
            [_nans(real_name, 2), np.array([-0.0, np.inf], dtype=np.float64).astype(as_dtype(real_name))]
        )
        flat = out.reshape(-1)
        flat[picks] = specials[: len(picks)]
        out = flat.reshape(shape)
    return out.reshape(shape)


def with_layout(a: np.ndarray, layout: Layout) -> np.ndarray:
    """The same values in another memory layout (a view of a larger buffer for
    ``strided``; column-major for ``fortran``).

    >>> with_layout(np.arange(6).reshape(2, 3), Layout.STRIDED).flags.c_contiguous
    False
    """
    if layout is Layout.STRIDED and a.ndim and a.size:
        buf = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
        buf[..., ::2] = a
        return buf[..., ::2]
    if layout is Layout.FORTRAN and a.ndim:  # np.asfortranarray makes a 0-d array 1-d
        return np.asfortranarray(a)
    return a
