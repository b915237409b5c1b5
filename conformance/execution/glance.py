"""The script a maintainer reads in one glance (issue 39, point 8): the framework call on literal arrays
in a few lines, with the output seen and the output the docs ask for; what an upstream issue text
(:mod:`conformance.report.upstream`) shows. The suite's own reproducers (:mod:`conformance.execution.scripts`)
stay as they are, for the gate: they judge as the campaign does and carry the oracle's whole prelude.

An oracle describes how it calls one op as a :class:`Snippet` (``FrameworkOracle.call_snippet`` in
``oracles/_common.py``): the imports, the lines that configure the framework, how a NumPy array
becomes its input, the op's call (its unit's call, the attributes written out by :func:`with_attrs`),
the lines of its execution mode around that call, and how its answer becomes NumPy. :func:`glance`
writes the script: ``import numpy as np`` and the framework, a print of what the docs ask for (first: a
framework may refuse the inputs themselves), the data and indices as literals, the call, a print of what came
back. Nothing but the framework and NumPy is
imported (``ml_dtypes`` only where the arrays are bfloat16); a call that crashes the process or hangs
does so in the script too (a comment says so before it).

>>> import numpy as np
>>> from conformance.core.case import Case
>>> from conformance.core.oracle import OracleInfo
>>> from conformance.core.outcome import ErrorClass, Outcome
>>> torch_like = Snippet(("import torch",), "torch.gather(data, index=indices, dim=0)",
...     data="torch.from_numpy({array})", indices="torch.from_numpy({array})", output="{out}.numpy()")
>>> info = OracleInfo("torch", "torch", "2.13.0", "cpu", "eager")
>>> case = Case("torch.gather", np.array([1.5, 2.5], np.float32), np.array([2]), {"dim": 0})
>>> print(glance(info, case, Outcome.raised(IndexError("out of range"), ErrorClass.INDEX_OUT_OF_RANGE), torch_like))
# torch.gather on torch 2.13.0 (cpu, eager)
import numpy as np
import torch
<BLANKLINE>
print('expected (the docs): error (index out of range)')
data = torch.from_numpy(np.array([1.5, 2.5], dtype=np.float32))
indices = torch.from_numpy(np.array([2], dtype=np.int64))
out = torch.gather(data, index=indices, dim=0)
got = out.numpy()
print("observed: value", got.dtype, list(got.shape), "=", got.tolist())
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import Kind, Outcome
from conformance.execution.scripts import array_source, dtype_source, value_source

MAX_LINES = 30
"""The most lines a glance may have (issue 39's acceptance test)."""

EAGER_RUN = ("out = {call}",)
"""The run lines of every eager mode: the call as it is."""


@dataclass(frozen=True)
class Snippet:
    """How one oracle calls one op, as a few lines of source (see the module docstring):

    * ``imports``: the framework's import lines (NumPy is always imported as ``np``);
    * ``call``: the op, one expression over the framework's ``data`` and ``indices``;
    * ``data``, ``indices``: how a NumPy array (``{array}``: its literal) becomes the framework's input;
    * ``setup``: lines before the inputs (the framework's settings: 64-bit types, the device);
    * ``run``: the execution mode, lines that leave the answer in ``out`` (``{call}``: the call);
    * ``output``: the answer as a NumPy array (``{out}``: the answer).

    >>> Snippet(("import torch",), "torch.take(data, indices)").run
    ('out = {call}',)
    """

    imports: tuple[str, ...]
    call: str = ""
    data: str = "{array}"
    indices: str = "{array}"
    setup: tuple[str, ...] = ()
    run: tuple[str, ...] = EAGER_RUN
    output: str = "np.asarray({out})"

    def with_call(self, call: str) -> Snippet:
        """The same frame around another call."""
        return replace(self, call=call)


_PLACEHOLDER = re.compile(r"\{(\w+)(?:=([^{}]*))?\}")


def with_attrs(call: str, attrs: Mapping[str, Any], placeholders: bool = False) -> str:
    """A unit's call with its attributes written out: ``**attrs`` becomes keywords; with
    ``placeholders`` (a glance text of its own), ``{name}`` becomes the attribute's value and
    ``{name=default}`` its value or the default; a call that still reads ``attrs`` gets it as a dict
    as a dict literal. A ValueError for a value with no source text, a KeyError for an attribute a placeholder
    needs and the case lacks.

    >>> with_attrs("torch.gather(data, index=indices, **attrs)", {"dim": 1})
    'torch.gather(data, index=indices, dim=1)'
    >>> with_attrs("tf.gather(data, indices, **attrs)", {})
    'tf.gather(data, indices)'
    >>> with_attrs("ops.gather(d, i, ops.constant(np.int64({axis})), {batch_dims=0})", {"axis": -1}, True)
    'ops.gather(d, i, ops.constant(np.int64(-1)), 0)'
    >>> print(with_attrs('cp.take(data, indices, **{k: v for k, v in attrs.items() if k != "mode"})', {"axis": 0}))
    cp.take(data, indices, **{k: v for k, v in {'axis': 0}.items() if k != "mode"})
    """
    if placeholders:
        call = _PLACEHOLDER.sub(lambda m: value_source(attrs[m[1]]) if m[1] in attrs or m[2] is None else m[2], call)
    kwargs = ", ".join(f"{k}={value_source(v)}" for k, v in attrs.items())
    call = call.replace(", **attrs", f", {kwargs}" if kwargs else "").replace("**attrs", kwargs)
    return re.sub(r"\battrs\b", lambda _: value_source(dict(attrs)), call)


def literal(a: np.ndarray) -> str:
    """An expression that rebuilds ``a`` bit for bit with NumPy alone (a writeable array): a literal where one is exact
    (see :func:`~conformance.execution.scripts.array_source`), else its bytes in hex.

    >>> literal(np.array([[1, 2]], dtype=np.int8))
    'np.array([[1, 2]], dtype=np.int8)'
    >>> literal(np.array([0x7FC00001], dtype=np.uint32).view(np.float32))  # a NaN payload
    "np.frombuffer(bytes.fromhex('0100c07f'), dtype=np.float32).reshape((1,)).copy()"
    """
    a = np.asarray(a)
    source = array_source(a)
    if "b64decode" not in source:
        return source
    raw = np.ascontiguousarray(a).tobytes().hex()
    return f"np.frombuffer(bytes.fromhex({raw!r}), dtype={dtype_source(a.dtype)}).reshape({a.shape!r}).copy()"


BITS = '[hex(b) for b in got.reshape(-1).view(f"u{got.itemsize}").tolist()]'
"""The observed elements as hex bits, as :func:`outcome_words` writes the expected ones."""


def shows_bits(a: np.ndarray | None) -> bool:
    """Whether a value's elements are shown as bits too: a real floating-point value holding a NaN
    (whose payload and sign its text does not show).

    >>> shows_bits(np.array([1.0, np.nan])), shows_bits(np.array([1.0, -0.0])), shows_bits(np.array(["a"]))
    (True, False, False)
    """
    if a is None or not (a.dtype.kind == "f" or a.dtype == BFLOAT16):
        return False
    return bool(np.isnan(a.astype(np.float64)).any())


def outcome_words(o: Outcome) -> str:
    """An outcome as the glance prints it: a value with its dtype, shape and elements (as ``tolist``
    gives them, the way the observed line prints; where a NaN is among them, their bits too), or an
    error's class.

    >>> from conformance.core.outcome import ErrorClass
    >>> outcome_words(Outcome.returned(np.array([1.0, np.nan], np.float32)))
    "value float32 [2] = [1.0, nan] bits = ['0x3f800000', '0x7fc00000']"
    >>> outcome_words(Outcome.returned(np.array(["abc"])))
    "value <U3 [1] = ['abc']"
    >>> outcome_words(Outcome.raised(IndexError("index 3 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE))
    'error (index out of range)'
    """
    if o.kind is Kind.VALUE and o.value is not None:
        v = np.asarray(o.value)
        bits = ""
        if shows_bits(v):
            raw = np.ascontiguousarray(v).reshape(-1).view(f"u{v.itemsize}").tolist()
            bits = f" bits = {[hex(b) for b in raw]!r}"
        return f"value {v.dtype} {list(v.shape)} = {v.tolist()!r}{bits}"
    if o.kind is Kind.ERROR:
        return f"error ({o.error_class.value if o.error_class else 'other'})"
    return o.describe()


def _fill(template: str, name: str, text: str) -> str:
    return template.replace("{" + name + "}", text)


def glance(info: OracleInfo, case: Case, expected: Outcome, snippet: Snippet, observed: Outcome | None = None) -> str:
    """The short script of ``case`` on the oracle ``info`` describes (see the module docstring):
    ``expected`` is what the docs ask for, ``observed`` what the oracle did (a crash or a hang gets a
    comment before the call). A ValueError where the script would exceed :data:`MAX_LINES`."""
    data, indices = np.asarray(case.data), np.asarray(case.indices)
    arrays = [data, indices] + ([np.asarray(expected.value)] if expected.value is not None else [])
    ml = any(a.dtype == BFLOAT16 for a in arrays)
    lines = [
        f"# {case.op} on {info.framework} {info.version} ({info.device}, {info.mode})",
        "import numpy as np",
        *(["import ml_dtypes"] if ml else []),
        *snippet.imports,
        *snippet.setup,
        "",
        f"print({'expected (the docs): ' + outcome_words(expected)!r})",
        f"data = {_fill(snippet.data, 'array', literal(data))}",
        f"indices = {_fill(snippet.indices, 'array', literal(indices))}",
    ]
    if observed is not None and observed.kind in (Kind.CRASH, Kind.TIMEOUT):
        what = "crashes this process" if observed.kind is Kind.CRASH else "does not return"
        lines.append(f"# the call below {what} (observed: {' '.join(observed.describe().split())})")
    lines += [_fill(line, "call", snippet.call) for line in snippet.run]
    bits = f', "bits =", {BITS}' if shows_bits(expected.value) else ""
    lines += [
        f"got = {_fill(snippet.output, 'out', 'out')}",
        f'print("observed: value", got.dtype, list(got.shape), "=", got.tolist(){bits})',
    ]
    if len(lines) > MAX_LINES:
        raise ValueError(f"a glance of {case.op} on {info.name} would take {len(lines)} lines (at most {MAX_LINES})")
    return "\n".join(lines) + "\n"
