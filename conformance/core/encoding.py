"""How arrays and versioned files travel: bit-exact JSON for arrays, and the
one reader of every versioned JSON file.

>>> import numpy as np
>>> decode_array(encode_array(np.array([1.5, -0.0], np.float32))).tobytes() == np.array([1.5, -0.0],
...     np.float32).tobytes()
True
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.arrays import as_dtype, dtype_name


def encode_array(a: np.ndarray) -> dict[str, Any]:
    """Bit-exact JSON form of an array: dtype, shape and base64 bytes (string
    and object arrays as a list).

    >>> encode_array(np.array([1], np.int8))
    {'dtype': 'int8', 'shape': [1], 'b64': 'AQ=='}
    """
    if a.dtype.kind in "OUS":
        return {"dtype": dtype_name(a.dtype), "shape": list(a.shape), "list": a.tolist()}
    return {
        "dtype": dtype_name(a.dtype),
        "shape": list(a.shape),
        "b64": base64.b64encode(np.asarray(a, order="C").tobytes()).decode(),
    }


def encode_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Attributes as JSON: a NumPy scalar or array (``np.int64(1)``, a 0-d array) keeps its type.

    >>> encode_attrs({"axis": np.int64(1), "dim": np.array(2), "mode": "clip"})["axis"]
    {'numpy': {'dtype': 'int64', 'shape': [], 'b64': 'AQAAAAAAAAA='}, 'scalar': True}
    >>> decode_attrs(encode_attrs({"axis": np.int64(1), "dim": np.array(2)}))
    {'axis': np.int64(1), 'dim': array(2)}
    """
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        if isinstance(value, (np.generic, np.ndarray)):
            value = {"numpy": encode_array(np.asarray(value)), "scalar": isinstance(value, np.generic)}
        out[name] = value
    return out


def decode_attrs(d: Mapping[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`encode_attrs`."""
    out: dict[str, Any] = {}
    for name, value in d.items():
        if isinstance(value, Mapping) and "numpy" in value:
            a = decode_array(value["numpy"])
            value = a[()] if value.get("scalar") else a
        out[name] = value
    return out


def decode_array(d: Mapping[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_array`.

    >>> decode_array(encode_array(np.array(["a", "bé"]))).tolist()
    ['a', 'bé']
    """
    if "list" in d:
        return np.array(d["list"], dtype=object if d["dtype"] == "object" else as_dtype(d["dtype"])).reshape(d["shape"])
    return np.frombuffer(base64.b64decode(d["b64"]), dtype=as_dtype(d["dtype"])).reshape(d["shape"]).copy()


def read_json_file(path: Path, kind: str, error: type[ValueError]) -> Any:
    """The JSON in ``path``, or ``error`` naming the file and what is wrong
    (unreadable, a directory, not JSON): the one reader of every versioned
    file (results, atlas). ``kind`` says what the file should be ("a results file").

    >>> read_json_file(Path("/nonexistent/x.json"), "a results file", ValueError)
    Traceback (most recent call last):
    ...
    ValueError: /nonexistent/x.json: cannot read it (No such file or directory)
    """
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not {kind}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise error(f"{path}: not JSON ({'empty file' if not text.strip() else exc})") from None
