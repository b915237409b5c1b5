"""Array plumbing shared by the reference, the oracles and the comparison:
dtype names and families, and a bit-exact conversion to NumPy.

>>> dtype_family(np.dtype("uint16")), dtype_family(BFLOAT16)
('uint', 'float')
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

DATA_DTYPES: tuple[str, ...] = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "str",
    "object",
)
"""Every data dtype the suite knows, by the name :func:`as_dtype` accepts."""

INDEX_DTYPES: tuple[str, ...] = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def as_dtype(name: str | np.dtype) -> np.dtype:
    """A NumPy dtype from a suite dtype name (``"bfloat16"`` via ml_dtypes,
    ``"str"`` as unicode).

    >>> as_dtype("bfloat16") == BFLOAT16, as_dtype("str").kind
    (True, 'U')
    """
    if isinstance(name, np.dtype):
        return name
    if name == "bfloat16":
        return BFLOAT16
    if name == "str":
        return np.dtype("U")
    return np.dtype(name)


def dtype_name(dtype: Any) -> str:
    """The suite's name for a dtype (the inverse of :func:`as_dtype`).

    >>> dtype_name(np.dtype("<U7")), dtype_name(BFLOAT16)
    ('str', 'bfloat16')
    """
    dtype = np.dtype(dtype)
    if dtype == BFLOAT16:
        return "bfloat16"
    if dtype.kind in "US":
        return "str"
    if dtype.kind == "O":
        return "object"
    return dtype.name


def data_dtype_name(a: Any) -> str:
    """The suite's name for an array's data: :func:`dtype_name`, except that an
    object array holding only ``bytes``/``str`` is string data (``"str"``), as
    frameworks with a string type read it (``tf.string``: what its
    ``.numpy()`` gives back).

    >>> data_dtype_name(np.array([b"a", "b"], dtype=object)), data_dtype_name(np.array([1, None], dtype=object))
    ('str', 'object')
    """
    dtype = getattr(a, "dtype", None)
    if (
        dtype is not None
        and np.dtype(dtype).kind == "O"
        and all(isinstance(x, (bytes, str)) for x in np.asarray(a).flat)
    ):
        return "str"
    return dtype_name(dtype if dtype is not None else np.asarray(a).dtype)


def dtype_family(dtype: Any) -> str:
    """``bool``, ``int``, ``uint``, ``float``, ``complex`` or ``str``/``object``."""
    name = dtype_name(dtype)
    if name in ("bool", "str", "object"):
        return name
    return {"u": "uint", "i": "int", "c": "complex"}.get(np.dtype(dtype).kind, "float")


def size_of(a: Any) -> int:
    """Element count of an array of any namespace (0-d: 1).

    >>> size_of(np.zeros((2, 0, 3))), size_of(np.float32(1))
    (0, 1)
    """
    return math.prod(tuple(a.shape))


def to_numpy(a: Any) -> np.ndarray:
    """A NumPy array with the same bits, shape and dtype as ``a``, from NumPy,
    CuPy, torch, TensorFlow, JAX or any array-API/DLPack array.

    torch's bfloat16 has no NumPy view, so it travels as int16 bits and is
    re-viewed as ml_dtypes' bfloat16: no value is ever converted.

    >>> to_numpy(np.float32(-0.0)).tobytes() == np.float32(-0.0).tobytes()
    True
    """
    if isinstance(a, np.ndarray):
        return a
    module = type(a).__module__
    if module.startswith("cupy"):
        return a.get()
    if module.startswith("torch"):
        import torch

        t = a.detach().cpu().resolve_conj().resolve_neg()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(BFLOAT16)
        return t.numpy()
    if hasattr(a, "numpy") and not module.startswith("array_api_strict"):
        return np.asarray(a.numpy())  # TensorFlow eager tensors
    if isinstance(a, (np.generic, int, float, complex, bool, str, list, tuple)):
        return np.asarray(a)
    try:
        return np.asarray(a)
    except (TypeError, ValueError, RuntimeError):
        return np.from_dlpack(a)


def unequal_elements(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where two arrays of the same shape and dtype differ, element by
    element, bit for bit (NaN equals NaN with the same payload; ``-0.0``
    differs from ``0.0``); strings and objects compare with ``!=``.

    >>> unequal_elements(np.array([0.0, np.nan, 1.0]), np.array([-0.0, np.nan, 1.0])).tolist()
    [True, False, False]
    >>> unequal_elements(np.array(["a", "b"]), np.array(["a", "c"])).tolist()
    [False, True]
    """
    if a.dtype.kind in "OUS":
        return np.vectorize(lambda x, y: x != y, otypes=[bool])(a, b).reshape(a.shape)
    width = a.dtype.itemsize
    as_bytes = lambda x: np.asarray(x, order="C").reshape(-1).view(np.uint8).reshape(x.shape + (width,))
    return (as_bytes(a) != as_bytes(b)).any(axis=-1)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Exact equality: same dtype, shape and bytes (NaN payloads and -0.0
    count); object and string arrays compare element by element.

    >>> same_bits(np.array([np.nan]), np.array([np.nan])), same_bits(np.array([0.0]), np.array([-0.0]))
    (True, False)
    """
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "OUS":
        return bool(np.array_equal(a, b))
    return np.asarray(a, order="C").tobytes() == np.asarray(b, order="C").tobytes()
