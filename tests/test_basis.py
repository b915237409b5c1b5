"""Every catalog decision is traceable to a sentence of the op's own docs, or marked silent (issue 22)."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys

import pytest

from conformance.core.vocabulary import BasisStatus, Decision
from conformance.spec.basis import BASES, Basis, Silent, ground, op_basis
from conformance.spec.catalog import ops, spec

DECISIONS = (Decision.POLICY, Decision.DTYPES, Decision.SHAPES)


@pytest.mark.parametrize("op", ops())
def test_every_catalog_op_has_a_quoted_or_silent_basis_for_policy_dtypes_shapes_and_each_attribute(op: str) -> None:
    grounds = [ground(op, d) for d in DECISIONS]
    grounds += [ground(op, Decision.ATTRIBUTE, a.name) for a in spec(op).attrs]
    assert set(op_basis(op).attrs) == {a.name for a in spec(op).attrs}, "a ground for each attribute, and no other"
    pages = {spec(op).doc} | ({spec(op_basis(op).points_to).doc} if op_basis(op).points_to else set())
    for g in grounds:
        assert isinstance(g, (Basis, Silent))
        if isinstance(g, Basis):
            assert g.quote.strip() and g.url in pages, g
        else:
            assert g.reason.strip()


def test_the_basis_table_names_exactly_the_catalog_ops() -> None:
    assert sorted(BASES) == sorted(ops())


DOCSTRINGS = {
    "numpy.take": "numpy:take",
    "numpy.take_along_axis": "numpy:take_along_axis",
    "torch.gather": "torch:gather",
    "torch.take": "torch:take",
    "torch.take_along_dim": "torch:take_along_dim",
    "torch.index_select": "torch:index_select",
    "tensorflow.gather": "tensorflow:gather",
    "tensorflow.gather_nd": "tensorflow:gather_nd",
    "tensorflow.experimental.numpy.take": "tensorflow.experimental.numpy:take",
    "tensorflow.experimental.numpy.take_along_axis": "tensorflow.experimental.numpy:take_along_axis",
    "jax.numpy.take": "jax.numpy:take",
    "jax.numpy.take_along_axis": "jax.numpy:take_along_axis",
    "jax.lax.gather": "jax.lax:gather",
    "mlx.take": "mlx.core:take",
    "mlx.take_along_axis": "mlx.core:take_along_axis",
    "paddle.gather": "paddle:gather",
    "paddle.gather_nd": "paddle:gather_nd",
    "paddle.take_along_axis": "paddle:take_along_axis",
    "paddle.index_select": "paddle:index_select",
    "paddle.take": "paddle:take",
}
"""Where the installed framework carries the page's text (the docs are rendered from these docstrings)."""

ONNX_OPS = ("onnx.Gather", "onnx.GatherElements", "onnx.GatherND")


def _plain(text: str) -> str:
    """The docstring as a page reads: no reST/Markdown markup, whitespace collapsed."""
    text = re.sub(r":(?:attr|func|code|ref|class|meth):", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a Markdown link reads as its text
    text = text.replace("`", "").replace("\\ ", "")
    text = re.sub(r"^\s*(?:>>>|\.\.\.)\s?", "", text, flags=re.MULTILINE)
    text = re.sub(r"\n\s*(?:[-*]\s+)?", " ", text)
    return re.sub(r"\s+", " ", text)


def _docstring(op: str) -> str | None:
    if op in ONNX_OPS:
        defs = pytest.importorskip("onnx.defs")
        schema = defs.get_schema(op.split(".")[1])
        parts = [schema.doc, *(a.description for a in schema.attributes.values())]
        parts += [i.description for i in schema.inputs] + [t.description for t in schema.type_constraints]
        return "\n".join(parts)
    module, name = DOCSTRINGS[op].split(":")
    if module.split(".")[0] == "paddle" and "tensorflow" in sys.modules:
        return None  # paddle cannot load in a process that has loaded TensorFlow: checked in a process of its own
    try:
        fn = getattr(importlib.import_module(module), name)
    except ImportError:
        return None
    return f"{fn.__doc__}\n{_signature(fn)}"


def _signature(fn: object) -> str:
    """The signature as the page shows it above the text: ``fill_value: StaticScalar | None = None``, one per line."""
    try:
        params = inspect.signature(fn).parameters.values()  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    shown = []
    for p in params:
        note = "" if p.annotation is inspect.Parameter.empty else f": {getattr(p.annotation, '__name__', p.annotation)}"
        default = "" if p.default is inspect.Parameter.empty else f" = {p.default!r}"
        shown.append(f"{p.name}{note}{default}")
    return "\n".join(shown)


@pytest.mark.parametrize("op", [op for op in ops() if op in DOCSTRINGS or op in ONNX_OPS])
def test_each_quote_is_in_the_docs_the_installed_framework_carries(op: str) -> None:
    doc = _docstring(op)
    if doc is None:
        pytest.skip(f"{op}: its framework's docstring is not loadable here")
    page = _plain(doc)
    b = op_basis(op)
    grounds = (b.policy, b.dtypes, b.shapes, *b.attrs.values(), *b.rules.values())
    quotes = [g.quote for g in grounds if isinstance(g, Basis) and g.url == spec(op).doc]
    missing = [q for q in quotes if _plain(q) not in page]
    assert not missing, missing


def test_paddle_quotes_in_a_process_of_their_own() -> None:
    """Paddle dies when loaded after TensorFlow: its quotes are checked in a fresh process."""
    pytest.importorskip("paddle")
    code = (
        "import tests.test_basis as t\n"
        "for op in [o for o in t.DOCSTRINGS if o.startswith('paddle.')]:\n"
        "    t.test_each_quote_is_in_the_docs_the_installed_framework_carries(op)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_no_basis_rests_on_a_pointer_to_another_page() -> None:
    """Audit of stop 46 (7A n=36): tnp.take_along_axis's finding quoted "See the NumPy documentation for
    numpy.take_along_axis." as a documented rule; no outcome departs from a pointer. Each decision rests on the
    sentence of the page pointed to (NumPy's shape sentence: a requirement that stops short of an error)."""
    pointers = [
        (op, g.quote)
        for op in ops()
        for g in (op_basis(op).policy, op_basis(op).dtypes, op_basis(op).shapes, *op_basis(op).attrs.values())
        if isinstance(g, Basis) and "documentation for" in g.quote
    ]
    assert not pointers, pointers
    shapes = op_basis("tensorflow.experimental.numpy.take_along_axis").shapes
    assert isinstance(shapes, Basis) and shapes.status is BasisStatus.SILENT and "must match" in shapes.quote
