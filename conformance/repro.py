"""Standalone reproducers: one Python script per framework for a finding.

A script needs nothing but its framework (and what that framework itself
depends on: NumPy for TensorFlow, JAX and onnxruntime; ``ml_dtypes`` only for
bfloat16). It rebuilds the inputs bit for bit (base64 bytes), calls the op
the way a user would, prints what happened and what the reference expects,
and exits 1 when the discrepancy reproduces, 0 when it does not.

>>> import numpy as np
>>> from conformance.model import Outcome
>>> case = Case("numpy.take", np.array([1, 2, 3]), np.array([5]), {"axis": 0, "mode": "raise"})
>>> script = numpy_script(case, Outcome.raised(IndexError("x"), None))
>>> "np.take(data, indices, axis=0, mode='raise')" in script
True
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import numpy as np

from conformance.arrays import dtype_name
from conformance.findings import Case
from conformance.model import Kind, OracleInfo, Outcome

_CHECK = '''
expected = {expected!r}  # the reference: ("value", dtype, shape, base64 bytes) or ("error", message)
try:
    got = run()
except Exception as exc:  # noqa: BLE001 - any error is an answer
    print("raised", type(exc).__name__, exc)
    # an error where the reference gives a value; or a dtype error where the
    # reference's error is about the indices or shapes (a wrong error class)
    dtype_words = ("dtype", "data type", "registered", "supported", "not implemented", "type mismatch")
    is_dtype = lambda m: any(w in m.lower() for w in dtype_words)  # noqa: E731
    reproduced = expected[0] != "error" or (is_dtype(str(exc)) and not is_dtype(expected[1]))
else:
    print("returned", got.dtype, got.shape, got)
    reproduced = expected[0] == "error" or (str(got.dtype), list(got.shape), base64.b64encode(got.tobytes()).decode()) != tuple(expected[1:])
print("expected", expected[0], *expected[1:2])
print("REPRODUCED" if reproduced else "not reproduced")
sys.exit(1 if reproduced else 0)
'''


def _expected(ref: Outcome) -> tuple:
    if ref.kind is Kind.VALUE and ref.value is not None:
        v = np.asarray(ref.value, order="C")
        raw = base64.b64encode(v.tobytes()).decode() if v.dtype.kind not in "OUS" else repr(v.tolist())
        return ("value", str(v.dtype) if dtype_name(v.dtype) != "bfloat16" else "bfloat16", list(v.shape), raw)
    return ("error", ref.message or "")


def _np_array(name: str, a: np.ndarray) -> str:
    """Source that rebuilds ``a`` bit for bit with NumPy."""
    a = np.asarray(a, order="C")
    if a.dtype.kind in "OUS":
        return f"{name} = np.array({a.tolist()!r}, dtype={'object' if a.dtype.kind == 'O' else repr(a.dtype.str)})"
    dt = "ml_dtypes.bfloat16" if dtype_name(a.dtype) == "bfloat16" else f"np.dtype({a.dtype.str!r})"
    b64 = base64.b64encode(a.tobytes()).decode()
    return f"{name} = np.frombuffer(base64.b64decode({b64!r}), dtype={dt}).reshape({tuple(a.shape)!r}).copy()"


def _header(case: Case, imports: str) -> str:
    bf16 = "import ml_dtypes\n" if "bfloat16" in (dtype_name(case.data.dtype), dtype_name(case.indices.dtype)) else ""
    return f'"""Reproducer for {case.op} with attrs {dict(case.attrs)!r}; tags: {", ".join(case.tags)}."""\nimport base64\nimport sys\n\n{imports}\n{bf16}'


def _kwargs(attrs: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in attrs.items())


def numpy_script(case: Case, ref: Outcome) -> str:
    """A NumPy reproducer (``np.take`` / ``np.take_along_axis``)."""
    fn = case.op.split(".", 1)[1]
    body = f"{_np_array('data', case.data)}\n{_np_array('indices', case.indices)}\n\ndef run():\n    return np.asarray(np.{fn}(data, indices, {_kwargs(case.attrs)}))\n"
    return _header(case, "import numpy as np") + body + _CHECK.format(expected=_expected(ref))


def torch_script(case: Case, ref: Outcome) -> str:
    """A torch-only reproducer: tensors from raw bytes (``torch.frombuffer``)."""

    def tensor(name: str, a: np.ndarray) -> str:
        a = np.asarray(a, order="C")
        tdt = f"torch.{dtype_name(a.dtype)}"
        if not a.size:
            return f"{name} = torch.empty({tuple(a.shape)!r}, dtype={tdt})"
        b64 = base64.b64encode(a.tobytes()).decode()
        return f"{name} = torch.frombuffer(bytearray(base64.b64decode({b64!r})), dtype={tdt}).reshape({tuple(a.shape)!r})"

    fn = case.op.split(".", 1)[1]
    attrs = dict(case.attrs)
    if fn in ("gather", "index_select"):
        call = f"torch.{fn}(data, {_kwargs(attrs)}, index=indices)"
    elif fn == "take":
        call = "torch.take(data, indices)"
    else:
        call = f"torch.{fn}(data, indices, {_kwargs(attrs)})"
    body = f"{tensor('data', case.data)}\n{tensor('indices', case.indices)}\n\n"
    body += "class _Got:\n    def __init__(self, t):\n        self.t = t\n        self.dtype = str(t.dtype).removeprefix('torch.')\n        self.shape = tuple(t.shape)\n"
    body += "    def tobytes(self):\n        t = self.t.contiguous()\n        return bytes(t.reshape(-1).view(torch.uint8).tolist()) if t.numel() else b''\n"
    body += "    def __repr__(self):\n        return repr(self.t)\n\n"
    body += f"def run():\n    return _Got({call})\n"
    return _header(case, "import torch") + body + _CHECK.format(expected=_expected(ref)).replace("list(got.shape)", "list(got.shape)")


def tensorflow_script(case: Case, ref: Outcome, xla: bool = False) -> str:
    """A TensorFlow reproducer (eager, or ``tf.function(jit_compile=True)``)."""
    fn = case.op.split(".", 1)[1]
    call = f"tf.{fn}(p, i, {_kwargs(case.attrs)})"
    wrap = f"tf.function(lambda p, i: {call}, jit_compile=True)" if xla else f"(lambda p, i: {call})"
    body = f"{_np_array('data', case.data)}\n{_np_array('indices', case.indices)}\n\ndef run():\n    return np.asarray({wrap}(tf.constant(data), tf.constant(indices)).numpy())\n"
    return _header(case, "import numpy as np\nimport tensorflow as tf") + body + _CHECK.format(expected=_expected(ref))


def jax_script(case: Case, ref: Outcome) -> str:
    """A JAX reproducer (64-bit types on, as the oracle runs it)."""
    fn = case.op.split(".", 2)[2]
    body = f"{_np_array('data', case.data)}\n{_np_array('indices', case.indices)}\n\ndef run():\n    return np.asarray(jnp.{fn}(jnp.asarray(data), jnp.asarray(indices), {_kwargs(case.attrs)}))\n"
    imports = 'import numpy as np\nimport jax\njax.config.update("jax_enable_x64", True)\nimport jax.numpy as jnp'
    return _header(case, imports) + body + _CHECK.format(expected=_expected(ref))


def model_bytes(case: Case) -> bytes:
    """The single-node ONNX model of ``case`` (from the onnx oracle module)."""
    from oracles.onnx_oracle import model_bytes as build

    return build(case.op, case.data.dtype, case.indices.dtype, case.data.ndim, case.indices.ndim, dict(case.attrs))


def onnx_model_b64(case: Case) -> str | None:
    """``model_bytes`` in base64, or None when the model cannot be built."""
    try:
        return base64.b64encode(model_bytes(case)).decode()
    except Exception:  # e.g. a dtype ONNX has no type for
        return None


def onnxruntime_script(case: Case, ref: Outcome, reference_evaluator: bool = False) -> str:
    """An onnxruntime (or ``onnx.reference``) reproducer with the model inline."""
    b64 = onnx_model_b64(case)
    if reference_evaluator:
        imports, make = "import numpy as np\nimport onnx\nfrom onnx.reference import ReferenceEvaluator", "ReferenceEvaluator(onnx.load_from_string(MODEL))"
    else:
        imports, make = "import numpy as np\nimport onnxruntime as ort", "ort.InferenceSession(MODEL, providers=['CPUExecutionProvider'])"
    body = f"MODEL = base64.b64decode({b64!r})\n{_np_array('data', case.data)}\n{_np_array('indices', case.indices)}\n\n"
    body += f"def run():\n    return np.asarray({make}.run(None, {{'data': data, 'indices': indices}})[0])\n"
    return _header(case, imports) + body + _CHECK.format(expected=_expected(ref))


def script_for(case: Case, ref: Outcome, info: OracleInfo) -> str | None:
    """The reproducer for one oracle's framework, or None if there is none."""
    fw = info.framework
    if fw == "numpy":
        return numpy_script(case, ref)
    if fw == "torch":
        return torch_script(case, ref)
    if fw == "tensorflow":
        return tensorflow_script(case, ref, xla=info.mode == "xla")
    if fw == "jax":
        return jax_script(case, ref)
    if fw in ("onnxruntime", "onnx"):
        return onnxruntime_script(case, ref, reference_evaluator=fw == "onnx")
    return None


def scripts_for(case: Case, ref: Outcome, infos: Mapping[str, OracleInfo]) -> dict[str, str]:
    """``{framework: script}`` for every framework in ``infos`` that has one."""
    out = {}
    for fw, info in infos.items():
        try:
            text = script_for(case, ref, info)
        except Exception as exc:  # a script we cannot write is noted, not fatal
            text = f"# no reproducer: {type(exc).__name__}: {exc}\n"
        if text:
            out[fw] = text
    return out
