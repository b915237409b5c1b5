"""Each oracle's short upstream script (issue 39, point 8; :mod:`conformance.execution.glance`) on every op it
runs: the atlas's in-range probe of the op's class (and, where the oracle holds them, bfloat16 data), written by
the oracle as its reproducer writes it, imports only the framework and NumPy (``ml_dtypes`` for bfloat16), takes at
most 30 lines, and prints what NumPy's reference gives (the docs' answer) both as expected and as observed (on
bfloat16, which some ops refuse, what the oracle itself answers: the same value, or an error of the same type; on
strings, where the oracle holds them, a value where it answers one, as the framework gives it: TensorFlow's bytes).
The scripts of one oracle run in one interpreter of their own (the framework is imported once); the first of them
also runs alone, in a fresh interpreter, from a folder outside the checkout.
An oracle that cannot run here is skipped, saying why."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from conformance.cases.probes import cases_of, probes
from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.execution.glance import MAX_LINES, outcome_words
from conformance.judge.verdict import reference_outcome
from conformance.spec.plans import EqClass

ROOT = Path(__file__).resolve().parent.parent

MODULES = {
    "numpy": {"numpy"},
    "torch": {"torch"},
    "tensorflow": {"tensorflow"},
    "jax": {"jax"},
    "onnxruntime": {"onnx", "onnxruntime"},
    "onnx": {"onnx"},
    "openvino": {"openvino", "onnx"},
    "paddle": {"paddle"},
    "mlx": {"mlx"},
    "array-api-strict": {"array_api_strict"},
    "iree": {"iree", "onnx"},
    "tvm": {"tvm", "onnx"},
    "cupy": {"cupy"},
}
"""What a short script may import beside NumPy, by framework (an ONNX runtime builds its model with ``onnx``)."""

ORACLES = (
    "numpy",
    "torch",
    "torch-compile",
    "torch-cuda",
    "tensorflow",
    "tensorflow-function",
    "tensorflow-xla",
    "tensorflow-numpy",
    "jax",
    "jax-default",
    "jax-gpu",
    "onnxruntime",
    "onnxruntime-noopt",
    "onnxruntime-static",
    "onnx-reference",
    "openvino",
    "openvino-onnx",
    "paddle",
    "paddle-static",
    "mlx",
    "mlx-compile",
    "array-api-strict",
    "cupy",
    "iree",
    "tvm",
)

WHOLE_COMPILERS = {"iree", "tvm"}
"""Oracles that compile each model whole (a second or more): only the opset-13 ops, which IREE can lower."""

RUNNER = r"""
import contextlib, importlib, io, json, runpy, sys, traceback
from pathlib import Path

from conformance.core.case import Case
from conformance.execution.glance import outcome_words
from conformance.execution.registry import module_for
from conformance.judge.verdict import narrowed, reference_outcome

name, cases_file, folder, answer = sys.argv[1:5]
module = importlib.import_module(module_for(name))
oracle = next((o for o in module.oracles_here() if o.name == name), None)
if oracle is None:
    why = getattr(module, "unavailable_here", dict)().get(name, "its module builds no such oracle here")
    Path(answer).write_text(json.dumps({"unavailable": why}))
    sys.exit(0)
info, results, todo = oracle.info(), {}, []
for label, d in json.loads(Path(cases_file).read_text()):  # the oracle first (on bfloat16): a script may change
    # global settings (paddle.enable_static())
    case = Case.from_json(d)
    if case.op not in info.ops or oracle.unsupported_reason(case.op, case.data, case.indices, case.attrs):
        continue
    received = narrowed(case) if info.bits == 32 else None
    text = oracle.upstream_script(case, reference_outcome(received if received is not None else case))
    own = oracle.run_in_process(case.op, case.data, case.indices, dict(case.attrs)) if " " in label else None
    todo.append((label, text, own))
for label, text, own in todo:
    path = Path(folder) / f"glance_{len(results)}.py"
    path.write_text(text)
    out, error, raised = io.StringIO(), "", ""
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(path), run_name="__main__")
    except BaseException as exc:
        error, raised = traceback.format_exc(limit=-2), type(exc).__name__
    results[label] = {
        "path": str(path), "stdout": out.getvalue(), "error": error, "raised": raised,
        "own": outcome_words(own) if own is not None else "",
        "own_error": (own.error_type or "") if own is not None else "",
    }
Path(answer).write_text(json.dumps({"framework": info.framework, "results": results}))
"""


def in_range_cases() -> dict[str, Case]:
    """One in-range probe per catalog op (the atlas's first row, every class), by op; and, labelled
    ``<op> bfloat16`` and ``<op> str``, the same on bfloat16 and on string data for the first op of each namespace
    in each class (ONNX: opset 13)."""
    cases: dict[str, Case] = {}
    for eq in EqClass:
        namespaces = set()
        for probe in probes(eq):
            if probe.condition == "in-range":
                for case in cases_of(probe):
                    cases.setdefault(case.op, case)
                    older_onnx = case.op.startswith("onnx.") and not case.op.endswith("-13")  # no bfloat16 before 13
                    if case.op.rsplit(".", 1)[0] not in namespaces and not older_onnx:
                        namespaces.add(case.op.rsplit(".", 1)[0])
                        data = np.asarray(case.data)
                        cases[f"{case.op} bfloat16"] = replace(case, data=data.astype(BFLOAT16))
                        cases[f"{case.op} str"] = replace(case, data=data.astype(str))
    return {label: Case.from_json(c.to_json()) for label, c in cases.items()}  # as the runner reads them


def imports(script: str) -> set[str]:
    """The top-level packages a script imports."""
    names = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def allowed(framework: str, script: str) -> set[str]:
    """NumPy, the framework's own modules, and ml_dtypes where the arrays are bfloat16."""
    return {"numpy"} | MODULES[framework] | ({"ml_dtypes"} if "bfloat16" in script else set())


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.mark.parametrize("name", ORACLES)
def test_each_short_script_prints_the_reference_answer_on_an_in_range_probe(name: str, tmp_path: Path) -> None:
    cases = in_range_cases()
    if name in WHOLE_COMPILERS:
        cases = {label: c for label, c in cases.items() if not c.op.startswith("onnx.") or c.op.endswith("-13")}
    (tmp_path / "cases.json").write_text(json.dumps([[label, c.to_json()] for label, c in cases.items()]))
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    answer = tmp_path / "answer.json"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, name, str(tmp_path / "cases.json"), str(scripts), str(answer)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0 and answer.exists(), done.stderr[-2000:]
    got = json.loads(answer.read_text())
    if "unavailable" in got:
        pytest.skip(f"{name} is not available here: {got['unavailable']}")
    results, framework = got["results"], got["framework"]
    assert results, f"{name} wrote no short script"
    problems = []
    for op, r in results.items():
        text = Path(r["path"]).read_text()
        want = outcome_words(reference_outcome(cases[op]))
        if not text:
            problems.append((op, "no short script"))
            continue
        lines = text.splitlines()
        if len(lines) > MAX_LINES or not imports(text) <= allowed(framework, text):
            problems.append((op, len(lines), imports(text) - allowed(framework, text)))
        printed = r["stdout"].splitlines()
        other = op.endswith((" bfloat16", " str"))
        if f"expected (the docs): {want}" not in printed:
            problems.append((op, "expected", r["stdout"][-500:]))
        if other and r["own_error"]:  # the oracle's own error, raised by the short script too
            if r["raised"] != r["own_error"]:
                problems.append((op, f"{name} raised {r['own_error']}", r["error"][-800:]))
        elif op.endswith(" bfloat16") and f"observed: {r['own']}" not in printed:
            problems.append((op, f"{name} answered {r['own']}", r["stdout"][-500:], r["error"][-800:]))
        elif op.endswith(" str") and (r["error"] or not any(p.startswith("observed: value") for p in printed)):
            problems.append((op, f"{name} answered {r['own']}", r["stdout"][-500:], r["error"][-800:]))  # as bytes?
        elif not other and (r["error"] or f"observed: {want}" not in printed):
            problems.append((op, r["stdout"][-500:], r["error"][-800:]))
    assert problems == [], "\n".join(map(str, problems))

    first = next(iter(results.values()))
    alone = tmp_path / "elsewhere"
    alone.mkdir()
    (alone / "repro.py").write_text(Path(first["path"]).read_text())
    run = subprocess.run(
        [sys.executable, "repro.py"],
        check=False,
        cwd=alone,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == first["stdout"].splitlines()[-1], run.stderr[-2000:]
