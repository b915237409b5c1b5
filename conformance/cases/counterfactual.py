"""The counterfactuals of a case: the same call with one feature changed toward its ordinary value, so that the
features whose change makes a departing case conform name what triggers it (its *trigger*), and not the category
the generator drew it in.

The features and their ordinary values (:class:`~conformance.core.vocabulary.Feature`):

* the index dtype -> int64 (where int64 holds the values); the data dtype -> float32 (the values kept where
  float32 holds them, else fresh ones);
* each attribute -> its default (a required one has none, and is left as it is); one given as a type the docs do
  not name for an integer (a 0-d array, a NumPy integer, a bool, a float) -> the plain int it stands for;
* out-of-range indices -> into range (every index 0);
* empty dimensions -> 1; a 0-d array -> 1-D;
* the layout -> contiguous.

Each counterfactual is retagged (:func:`retagged`) from its own values, so the judge sees what it is, not what the
original case was.

>>> import numpy as np
>>> from conformance.core.case import CaseTags
>>> case = Case("numpy.take", np.arange(4, dtype=np.int16), np.array([9], np.int8), {"axis": 0, "mode": "clip"},
...     CaseTags("oob-above", "int8", "int"))
>>> for c in counterfactuals(case):
...     print(f"{c.words()}: {c.shows} -> {c.ordinary} ({c.case.tags.regime})")
index dtype: int8 -> int64 (oob-above)
data dtype: int16 -> float32 (oob-above)
attribute axis: 0 -> None (oob-above)
attribute mode: 'clip' -> 'raise' (oob-above)
out-of-range indices: [9] -> [0] (in-range)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from conformance.core.arrays import dtype_family, dtype_name
from conformance.core.case import Case, CaseTags, int_reading
from conformance.core.vocabulary import POLICY_REGIMES, AttrRole, Feature, Flag, Regime
from conformance.spec.catalog import spec
from conformance.spec.errors import IndexOutOfRangeError
from conformance.spec.policy import ONNX
from conformance.spec.reference import plan, reference

ORDINARY_INDEX = "int64"
ORDINARY_DATA = "float32"


@dataclass(frozen=True)
class Counterfactual:
    """``case`` with one ``feature`` changed from the value that ``shows`` to its ``ordinary`` value (as words)."""

    feature: Feature
    shows: str
    ordinary: str
    case: Case
    detail: str = ""
    """Which attribute, for :attr:`Feature.ATTRIBUTE`."""

    def words(self) -> str:
        """``attribute axis`` or ``index dtype``: the feature as a finding names it."""
        return f"{self.feature.value} {self.detail}".strip()


def brief(a: np.ndarray, most: int = 6) -> str:
    """An array's values in a few words: ``[9, 0]``; ``[1, 2, 3, ...]`` past ``most``."""
    flat = np.asarray(a).ravel()
    shown = ", ".join(repr(v.item()) if hasattr(v, "item") else repr(v) for v in flat[:most])
    return f"[{shown}{', ...' if flat.size > most else ''}]"


def _regime(case: Case, was: Regime) -> Regime:
    """What the case's indices are, read off the reference under the raising policy: an out-of-range index keeps the
    original's out-of-range regime (or is ``oob-above``); a broken precondition keeps ``was``."""
    idx = np.asarray(case.indices)
    if idx.size == 0:
        return Regime.EMPTY
    if idx.dtype.kind not in "iu":
        return Regime.NON_INTEGER
    try:
        reference(case.op, case.data, idx, policy=ONNX, check_dtypes=False, **case.attrs)
    except IndexError:
        return was if was in POLICY_REGIMES and was is not Regime.NEGATIVE else Regime.OOB_ABOVE
    except (ValueError, TypeError):
        return was
    return Regime.NEGATIVE if bool((idx.astype(object) < 0).any()) else Regime.IN_RANGE


def _batch_dims(value: object) -> int:
    """The number of batch dimensions an op's ``batch_dims`` attribute gives: an int, or the int another type
    reads as (``'1'``: 1); 0 for none (None, no such attribute, a string that is no int).

    >>> _batch_dims(2), _batch_dims("1"), _batch_dims(-(2**63)), _batch_dims(None)
    (2, 1, -9223372036854775808, 0)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    read = int_reading(value)
    return 0 if read is None else read


def retagged(case: Case, like: CaseTags) -> Case:
    """``case`` with tags read off its own values (regime, dtypes, flags: ``batch_dims>0`` from the attribute the op
    is given, not the class case's, which an attribute-domain probe overrides), the pattern kept from ``like``.

    >>> from conformance.core.case import CaseTags
    >>> c = Case("numpy.take", np.zeros((2, 0)), np.array([0]), {"axis": 0, "mode": "raise"},
    ...     CaseTags("oob-above", "int64", "float"))
    >>> retagged(c, c.tags).tags.words()
    'in-range, idx:int64, data:float, empty-data'
    """
    data, idx = np.asarray(case.data), np.asarray(case.indices)
    flags: set[Flag] = {Flag.BATCH_DIMS} if _batch_dims(case.attrs.get("batch_dims")) > 0 else set()
    if data.size == 0:
        flags.add(Flag.EMPTY_DATA)
    if data.ndim == 0 or idx.ndim == 0:
        flags.add(Flag.ZERO_D)
    if not (data.flags.c_contiguous and idx.flags.c_contiguous) and math.prod(data.shape) > 1:
        flags.add(Flag.NON_CONTIGUOUS)
    tags = CaseTags(
        _regime(case, like.regime), idx.dtype.name, dtype_family(data.dtype), like.pattern, frozenset(flags)
    )
    return replace(case, tags=tags)


def _as(a: np.ndarray, dtype: str) -> np.ndarray | None:
    """``a``'s values in ``dtype`` where every one survives the round trip (else None)."""
    try:
        with warnings.catch_warnings():  # a complex value cast to float loses its imaginary part: then it is no copy
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            out = a.astype(dtype)
            back = out.astype(a.dtype)
    except (TypeError, ValueError, OverflowError):
        return None
    same = np.array_equal(back, a, equal_nan=a.dtype.kind in "fc") if a.dtype.kind in "fc" else np.array_equal(back, a)
    return out if same else None


def _fresh(shape: tuple[int, ...], like: np.ndarray) -> np.ndarray:
    """Distinct values of ``like``'s dtype in ``shape`` (0, 1, 2... as the dtype holds them)."""
    n = math.prod(shape)
    values = np.arange(n) if like.dtype.kind != "b" else np.arange(n) % 2
    try:
        return values.astype(like.dtype).reshape(shape)
    except (TypeError, ValueError):
        return np.asarray([str(v) for v in values], dtype=like.dtype).reshape(shape)


def _unempty(a: np.ndarray) -> np.ndarray | None:
    """``a`` with each empty dimension of size 1 (fresh values; indices 0), or None where none is empty."""
    if 0 not in a.shape:
        return None
    shape = tuple(d or 1 for d in a.shape)
    return np.zeros(shape, a.dtype) if a.dtype.kind in "iu" else _fresh(shape, a)


def _changes(case: Case) -> list[tuple[Feature, str, str, str, dict[str, Any]]]:
    """(feature, detail, shows, ordinary, the fields of the case that change) for each feature not ordinary."""
    data, idx = np.asarray(case.data), np.asarray(case.indices)
    out: list[tuple[Feature, str, str, str, dict[str, Any]]] = []
    if idx.dtype.kind in "iub" and idx.dtype.name != ORDINARY_INDEX and (wide := _as(idx, ORDINARY_INDEX)) is not None:
        out.append((Feature.INDEX_DTYPE, "", idx.dtype.name, ORDINARY_INDEX, {"indices": wide}))
    name = dtype_name(data.dtype)
    if name != ORDINARY_DATA:  # the values kept where float32 holds them, else fresh ones (strings, complex)
        as_f32 = _as(data, ORDINARY_DATA)
        as_f32 = as_f32 if as_f32 is not None else _fresh(data.shape, np.zeros(0, ORDINARY_DATA))
        out.append((Feature.DATA_DTYPE, "", name, ORDINARY_DATA, {"data": as_f32}))
    for a in spec(case.op).attrs:
        value = case.attrs.get(a.name, a.default)
        plain = _plain_int(value)
        ordinary = plain if plain is not None else a.default
        if plain is not None or not a.required and not _same(value, a.default):
            attrs = {**case.attrs, a.name: ordinary}
            out.append((Feature.ATTRIBUTE, a.name, repr(value), repr(ordinary), {"attrs": attrs}))
    zeros = np.zeros_like(idx)
    placed = data.size or _places(replace(case, indices=zeros))
    if case.tags is not None and case.tags.regime in POLICY_REGIMES and placed:
        out.append((Feature.OUT_OF_RANGE, "", brief(idx), brief(zeros), {"indices": zeros}))
    full_data, full_idx = _unempty(data), _unempty(idx)
    if full_data is not None or full_idx is not None:
        shown = f"data {data.shape}, indices {idx.shape}"
        d, i = full_data if full_data is not None else data, full_idx if full_idx is not None else idx
        out.append((Feature.EMPTY, "", shown, f"data {d.shape}, indices {i.shape}", {"data": d, "indices": i}))
    if data.ndim == 0 or idx.ndim == 0:
        d, i = data.reshape(-1) if data.ndim == 0 else data, idx.reshape(-1) if idx.ndim == 0 else idx
        out.append((Feature.ZERO_D, "", f"data {data.shape}, indices {idx.shape}", "1-D", {"data": d, "indices": i}))
    if not (data.flags.c_contiguous and idx.flags.c_contiguous):
        contiguous = {"data": np.ascontiguousarray(data), "indices": np.ascontiguousarray(idx)}
        out.append((Feature.LAYOUT, "", "non-contiguous", "contiguous", contiguous))
    return out


def _places(case: Case) -> bool:
    """Whether the reference places every index of ``case`` (it raises no out-of-range error): on empty data,
    index 0 is in range where the indexed axis is not the empty one (TF's gather_nd, data (5, 0)).

    >>> c = Case("numpy.take", np.zeros((5, 0)), np.array([0]), {"axis": 0})
    >>> _places(c), _places(replace(c, data=np.zeros((0, 5))))
    (True, False)
    """
    try:
        reference(case.op, case.data, case.indices, check_dtypes=False, **case.attrs)
    except IndexOutOfRangeError:
        return False
    except (ValueError, TypeError, IndexError):  # a rule broken: not an index the policy cannot place
        return True
    return True


def _plain_int(value: Any) -> int | None:
    """An attribute given as a type the docs do not name for an integer (a 0-d array, a NumPy integer, a bool, a
    float), as the plain int it stands for: its ordinary form; None for a plain int and anything else.

    >>> [_plain_int(v) for v in (np.array(1), np.int8(-1), True, 1.5, 1, "1")]
    [1, -1, 1, 1, None, None]
    """
    if type(value) is int or isinstance(value, (str, bytes)) or value is None:
        return None
    if isinstance(value, (bool, np.bool_, np.integer, float, np.floating)) and np.isfinite(float(value)):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf" and np.isfinite(value):
        return int(value)
    return None


def _same(value: Any, default: Any) -> bool:
    """Whether an attribute's value is its default, by type and value (``True`` is not ``1``)."""
    if type(value) is not type(default):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def counterfactuals(case: Case) -> list[Counterfactual]:
    """Every counterfactual of ``case`` (see the module docstring), in the order of the features; none for a
    feature already ordinary, or whose ordinary value breaks a rule of the op's docs the case kept (an attribute's
    default that does not fit the case's shapes: a refusal there is no evidence of anything)."""
    like = case.tags or CaseTags(Regime.IN_RANGE, np.asarray(case.indices).dtype.name, "")
    kept = _reference_says(case)
    out = []
    for feature, detail, shows, ordinary, fields in _changes(case):
        changed = retagged(replace(case, **fields), like)
        shaping = feature is Feature.ATTRIBUTE and detail not in (spec(case.op).mode_attr, AttrRole.FILL_VALUE)
        emptied = shaping and _output_size(case) != 0 and _output_size(changed) == 0
        if not emptied and _fair(kept, _reference_says(changed), detail if shaping else None):
            out.append(Counterfactual(feature, shows, ordinary, changed, detail))
    return out


def _output_size(case: Case) -> int | None:
    """How many elements the op's output holds for ``case``'s shapes and attributes, whatever its index values
    (None where its shapes break a rule). An attribute's ordinary value that empties the output reads nothing, so
    it shows nothing of what a read did: IREE's and TVM's GatherND crash on index 2**31 into data (1, 0) under
    ``batch_dims=1`` and, under ``batch_dims=0``, answer the empty (1, 0) they read nothing for; the crash was titled
    "for batch_dims=1" where index 2**31 crashes under either (issue 43's hand check).

    >>> _output_size(Case("onnx.GatherND-13", np.zeros((1, 0)), np.array([[2**31]]), {"batch_dims": 1}))
    1
    >>> _output_size(Case("onnx.GatherND-13", np.zeros((1, 0)), np.array([[2**31]]), {"batch_dims": 0}))
    0
    """
    try:
        shape = plan(case.op, np.shape(case.data), np.shape(case.indices), **case.attrs).output_shape
    except (ValueError, TypeError, IndexError):  # a rule broken, or an attribute the plan cannot bind
        return None
    return math.prod(shape)


def _fair(kept: tuple[str, ...], now: tuple[str, ...], attribute: str | None) -> bool:
    """Whether a counterfactual tells anything of the case: it breaks no rule of the docs the case kept; and an
    ``attribute`` that shapes the call (an axis, ``batch_dims``: not the mode, nor the fill, which decide the policy)
    given its ordinary value leaves what the docs ask for as it was (a value, an index error, the same rule) unless
    the rule the case breaks blames that very attribute, or the attribute's default makes the call valid (then
    fixing it is the point: numpy.take's 0-d data breaks a rule only with an axis given, and answers under the
    default axis=None, which flattens; audit of stop 47, 8B n=94). An axis changed so that the index falls out of
    range, or the shapes stop fitting, says nothing of the axis.

    >>> _fair(("value",), ("index error",), "axis"), _fair(("rule", "attribute type", "axis"), ("value",), "axis")
    (False, True)
    >>> _fair(("rule", "0-d input", "data"), ("value",), "axis")
    True
    >>> _fair(("index error",), ("rule", "rank mismatch", "indices"), None), _fair(("index error",), ("value",), None)
    (False, True)
    """
    if now[0] == "rule" and now != kept:
        return False
    settles = kept[0] == "rule" and (kept[-1] == attribute or now == ANSWERS)  # the call made valid by it
    return attribute is None or now[0] == kept[0] or settles


ANSWERS = ("value",)
"""What :func:`_reference_says` of a call the docs answer."""


def _reference_says(case: Case) -> tuple[str, ...]:
    """What the op's docs ask for on ``case``, in short: ``("value",)``, ``("index error",)`` or ``("rule", rule,
    blamed argument)`` (the reference's typed precondition error; its message where it carries none).

    >>> c = Case("mlx.take_along_axis", np.zeros((2, 2)), np.zeros((1, 1), np.int64), {"axis": None})
    >>> _reference_says(c)[0], _reference_says(replace(c, attrs={"axis": 1}))
    ('rule', ('value',))
    """
    try:
        reference(case.op, case.data, case.indices, check_dtypes=False, **case.attrs)
    except IndexError as exc:
        rule = getattr(exc, "rule", None)
        return ("rule", str(rule), str(getattr(exc, "argument", ""))) if rule is not None else ("index error",)
    except (ValueError, TypeError) as exc:
        return ("rule", str(getattr(exc, "rule", None) or exc), str(getattr(exc, "argument", "")))
    return ANSWERS
