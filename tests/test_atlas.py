"""The probe atlas: deterministic, discriminating probes; exactly the expected
cells (derived from the catalog and the condition list); seed-free; never
dies on a broken oracle or a harness fault; a file format that round-trips."""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Sequence

import numpy as np
import pytest

from conformance.campaign import atlas_runner as atlas_module
from conformance.campaign.atlas_runner import expected_cells, run_atlas
from conformance.cases.class_case import axis_sizes
from conformance.cases.probes import CONDITIONS, Group, all_probes, cases_of, condition, probes
from conformance.core.arrays import same_bits
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import Kind, Outcome
from conformance.judge.verdict import CANDIDATES, PolicyValues
from conformance.results.atlas import ATLAS_FORMAT, Atlas, AtlasFileError
from conformance.spec.catalog import specs
from conformance.spec.plans import EqClass
from conformance.spec.policy import CLIP, MODULO, ONNX, WRAP_THEN_CLAMP, WRAP_THEN_FILL, ZERO_FILL, IndexPolicy
from conformance.spec.reference import reference
from oracles.base import Oracle
from oracles.numpy_oracle import oracles_here as numpy_oracles

# -- the probes ------------------------------------------------------------------------


def test_probes_are_deterministic() -> None:
    first, second = all_probes(), all_probes()
    assert len(first) == len(second) > 0
    assert all(p.same(q) for p, q in zip(first, second))
    assert [[c.op for c in cases_of(p)] for p in first[:40]] == [[c.op for c in cases_of(p)] for p in second[:40]]


def test_conditions_are_declared_once_in_order_and_each_has_probes() -> None:
    keys = [c.key for c in CONDITIONS]
    assert len(keys) == len(set(keys))
    groups = [c.group for c in CONDITIONS]
    assert groups == sorted(groups, key=list(Group).index), "conditions are listed group by group"
    for eq in EqClass:
        assert {p.condition for p in probes(eq)} == {c.key for c in CONDITIONS if eq in c.eq_classes}


def _ids_output(case: Case, policy: IndexPolicy) -> np.ndarray | None:
    """The value under ``policy`` with data replaced by element ids 1..n: which element each output reads."""
    ids = np.arange(1, case.data.size + 1, dtype=np.int64).reshape(case.data.shape)
    try:
        return np.asarray(reference(case.op, ids, case.indices, policy=policy, check_dtypes=False, **case.attrs))
    except (IndexError, ValueError, TypeError):
        return None


def _distinct(outputs: dict[str, np.ndarray | None], names: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs among ``names`` whose outputs are equal (None: the policy raised)."""
    return [
        (a, b)
        for a, b in itertools.combinations(names, 2)
        if outputs[a] is None or outputs[b] is None or same_bits(outputs[a], outputs[b])
    ]  # type: ignore[arg-type]


POLICY_PROBES = [p for p in all_probes() if condition(p.condition).policy]


@pytest.mark.parametrize(
    "probe",
    POLICY_PROBES,
    ids=lambda p: f"{p.condition}-{p.eq_class.name}-{p.class_case.index_dtype}-m{p.class_case.mode}",
)
def test_policy_probes_tell_every_index_policy_apart(probe) -> None:
    """Gathered axes of 3 or more, distinct data, and candidate policies that
    give different outputs wherever they read different elements; the
    policies the condition is about differ outright."""
    assert int(np.min(axis_sizes(probe.class_case))) >= 3
    flat = np.ascontiguousarray(probe.data).reshape(-1)
    assert len({x.tobytes() for x in flat}) == flat.size and not (flat == 0).any()
    cases = cases_of(probe)
    assert cases
    names = [p.name for p, _ in CANDIDATES]
    for case in cases:
        values = PolicyValues(case)
        got = {p.name: values.under(p) for p, _ in CANDIDATES}
        ids = {p.name: _ids_output(case, p) for p, _ in CANDIDATES}
        for a, b in itertools.combinations(names, 2):
            if got[a] is not None and got[b] is not None:
                assert same_bits(got[a], got[b]) == same_bits(ids[a], ids[b]), (case.op, a, b)  # type: ignore[arg-type]
        if probe.condition in ("negative", "minus-size"):
            must = [
                ONNX,
                CLIP,
                ZERO_FILL,
            ]  # wraps, clamps the raw value, rejects: the wrapping policies agree in [-size, -1]
        else:
            must = [MODULO, WRAP_THEN_CLAMP, ZERO_FILL, WRAP_THEN_FILL]
        assert not _distinct(got, [p.name for p in must]), (case.op, case.indices.tolist())


# -- the atlas on a real (in-process) oracle ----------------------------------------------


def _hangs(case: Case) -> bool:
    """NumPy's take(mode="wrap") adds or subtracts the size until an index is in
    range: an int64 extreme (or a uint64 of 2**63 or more) loops for ever."""
    i = case.indices
    if case.op != "numpy.take" or case.attrs.get("mode") != "wrap" or not i.size or i.dtype.kind not in "iu":
        return False
    return int(i.min()) < -(2**40) or int(i.max()) > 2**40


class NoHangNumpy:
    """The in-process NumPy oracle, with the cases known to hang it answered as timeouts (an in-process oracle has no
    time limit)."""

    def __init__(self) -> None:
        (self.oracle,) = numpy_oracles()
        self.name = self.oracle.name

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return self.oracle.info()

    def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
        ran = iter(self.oracle.run_many([c for c in cases if not _hangs(c)]))
        return [Outcome.timed_out(20.0) if _hangs(c) else next(ran) for c in cases]

    def reproducer(self, *args):  # pragma: no cover - not used
        raise NotImplementedError


@pytest.fixture(scope="module")
def numpy_atlas() -> tuple[Atlas, dict[str, OracleInfo]]:
    o = NoHangNumpy()
    infos = {o.name: o.info()}
    return run_atlas([o], infos), infos


def test_atlas_has_exactly_the_expected_cells(numpy_atlas) -> None:
    atlas, infos = numpy_atlas
    expected = expected_cells(infos)
    assert len(atlas.cells) == len(atlas.keys()), "one cell per (condition, class, op, oracle)"
    assert atlas.keys() == expected
    # derived from the catalog and the condition list: every numpy op, every class it is in, every condition of that
    # class
    assert {op for _, _, op, _ in expected} == set(infos["numpy"].ops)
    assert {(cond, eq) for cond, eq, op, _ in expected if op == "numpy.take_along_axis"} >= {
        (c.key, EqClass.ELEMENT.value)
        for c in CONDITIONS
        if EqClass.ELEMENT in c.eq_classes and not c.key.startswith(("attr-mode", "attr-fill", "attr-broadcast"))
    }  # every condition but the attribute domains of attributes numpy.take_along_axis does not have
    order = [CONDITIONS.index(condition(cell.condition)) for cell in atlas.cells]
    assert order == sorted(order), "cells come in condition order"


def test_every_condition_of_every_class_reaches_some_catalog_op() -> None:
    everything = {"all": OracleInfo("all", "fake", "0", "cpu", "eager", tuple(s.key for s in specs()))}
    reached = {(cond, eq) for cond, eq, _, _ in expected_cells(everything)}
    assert reached == {(c.key, eq.value) for c in CONDITIONS for eq in c.eq_classes}


def test_adding_an_op_to_an_oracle_adds_its_cells(numpy_atlas) -> None:
    _, infos = numpy_atlas
    info = infos["numpy"]
    more = {
        "numpy": OracleInfo(info.name, info.framework, info.version, info.device, info.mode, (*info.ops, "torch.take"))
    }
    added = expected_cells(more) - expected_cells(infos)
    assert {op for _, _, op, _ in added} == {"torch.take"}
    assert {cond for cond, _, _, _ in added} == {
        c.key for c in CONDITIONS if EqClass.FLAT in c.eq_classes and not c.key.startswith("attr-")
    }  # torch.take has no attribute: no attribute-domain cell


def test_atlas_cells_say_what_the_docs_say(numpy_atlas) -> None:
    atlas, _ = numpy_atlas
    cell = atlas.cell("in-range", EqClass.BLOCK.value, "numpy.take", "numpy")
    assert (cell.behaviour, cell.documented, cell.error_class) == ("conforms", True, None)
    assert Case.from_json(cell.example).op == "numpy.take" and cell.example["observed"].startswith("value")
    size = atlas.cell("size", EqClass.BLOCK.value, "numpy.take", "numpy")
    assert size.probes == 3 and size.behaviour == "raises" and size.documented  # raise, wrap, clip: all as documented
    assert set(size.seen) == {"raises", "wraps", "clamps"}
    hang = atlas.cell("dtype-max", EqClass.BLOCK.value, "numpy.take", "numpy")
    assert hang.behaviour == "timeout" and not hang.documented and hang.example["attrs"]["mode"] == "wrap"


def test_corners_only_some_seeds_drew_are_probes(numpy_atlas) -> None:
    """Issue 21: a finding that depends on the seed splits the findings of two
    runs. An empty gathered axis runs under every mode of an op (a wrapping
    mode divides by its length), and 0-d data with empty indices is a probe of
    its own: numpy.take(0-d, [], axis=0) returns a value where a rank >= 1 is
    documented, whatever the seed (seeds 7 and 0 disagreed on such corners)."""
    atlas, _ = numpy_atlas
    empty = atlas.cell("empty-axis", EqClass.BLOCK.value, "numpy.take", "numpy")
    assert empty.probes == 3 and {Case.from_json(empty.example).attrs["mode"]} <= {"raise", "wrap", "clip"}
    zero_d = atlas.cell("data-0d-empty-indices", EqClass.BLOCK.value, "numpy.take", "numpy")
    assert not zero_d.documented
    (root,) = zero_d.roots
    assert root.signature.words().endswith(": value instead of error, for precondition: 0-d input"), root


def test_atlas_is_seed_free(numpy_atlas) -> None:
    atlas, infos = numpy_atlas
    again = run_atlas([NoHangNumpy()], infos)
    assert [c.to_json() for c in again.cells] == [c.to_json() for c in atlas.cells]


# -- faults ----------------------------------------------------------------------------


class Raising:
    name = "raising"

    capabilities = Capabilities()

    def info(self) -> OracleInfo:
        return OracleInfo("raising", "fake", "0", "cpu", "eager", ("numpy.take", "torch.gather"))

    def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
        raise RuntimeError("the framework blew up")

    def reproducer(self, *args):  # pragma: no cover - not used
        raise NotImplementedError


def test_an_oracle_that_raises_still_gives_every_cell() -> None:
    o = Raising()
    infos = {o.name: o.info()}
    atlas = run_atlas([o], infos)
    assert atlas.keys() == expected_cells(infos) and atlas.cells
    assert {c.behaviour for c in atlas.cells} == {"protocol error"}
    assert not any(c.documented for c in atlas.cells)


def test_harness_faults_are_recorded_never_raised(monkeypatch) -> None:
    def broken_reference(case: Case) -> Outcome:
        if case.indices.dtype == np.uint64:
            raise RuntimeError("reference broke")
        return original(case)

    def broken_cases(probe, ops=None):
        if probe.condition == "rank-30":
            raise RuntimeError("translate broke")
        return original_cases(probe, ops)

    original, original_cases = atlas_module.reference_outcome, atlas_module.cases_of
    monkeypatch.setattr(atlas_module, "reference_outcome", broken_reference)
    monkeypatch.setattr(atlas_module, "cases_of", broken_cases)
    o = NoHangNumpy()
    atlas = run_atlas([o], {o.name: o.info()}, ops=["numpy.take"])
    harness = [c for c in atlas.cells if c.behaviour == Behaviour.HARNESS_ERROR]
    assert harness and all(c.example["indices"]["dtype"] == "uint64" and not c.documented for c in harness)
    assert "reference broke" in harness[0].example["reference"]
    assert {e["condition"] for e in atlas.errors if e["op"] is None} == {"rank-30"}
    assert not any(c.condition == "rank-30" for c in atlas.cells)


# -- the file ----------------------------------------------------------------------------


def test_atlas_file_round_trips(numpy_atlas, tmp_path) -> None:
    atlas, _ = numpy_atlas
    path = tmp_path / "atlas.json"
    atlas.save(path)
    d = json.loads(path.read_text())
    assert d["format"] == ATLAS_FORMAT and len(d["cells"]) == len(atlas.cells)
    assert [c["key"] for c in d["conditions"]] == [c.key for c in CONDITIONS]
    assert set(d["cells"][0]) >= {
        "condition",
        "eq_class",
        "op",
        "oracle",
        "version",
        "behaviour",
        "error_class",
        "documented",
        "example",
    }
    loaded = Atlas.load(path)
    assert [c.to_json() for c in loaded.cells] == [c.to_json() for c in atlas.cells] and loaded.errors == atlas.errors
    assert not list(tmp_path.glob(".*.tmp")), "written atomically: no temporary file left"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"format": 2, "cells": []}, "atlas format 2 is not supported (this version reads format 1)"),
        ({"format": 1, "entries": []}, "not a gather-conformance atlas file"),
        ([1, 2], "not a gather-conformance atlas file"),
        ({"format": 1, "cells": [{"condition": "size"}]}, "damaged atlas file"),
    ],
)
def test_atlas_load_rejects_what_is_not_an_atlas(tmp_path, content, message) -> None:
    path = tmp_path / "atlas.json"
    path.write_text(json.dumps(content))
    with pytest.raises(AtlasFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Atlas.load(path)
    path.write_text("")
    with pytest.raises(AtlasFileError, match="not JSON"):
        Atlas.load(path)


class _Clip:
    """NumPy's take in mode "clip", as an in-process oracle named ``name``."""

    capabilities = Capabilities()

    def __init__(self, name: str) -> None:
        self.name, self.calls = name, 0

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, "numpy", "1", "cpu", "eager", ("numpy.take",))

    def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
        self.calls += 1
        return [Outcome.returned(np.take(c.data, c.indices, axis=c.attrs["axis"], mode="clip")) for c in cases]


def test_an_oracle_runs_ahead_through_the_conditions_while_a_slow_one_holds_its_first() -> None:
    """A slow oracle (compiling, or a hang being confirmed) no longer holds
    the others at every condition: the fast one answers every condition while
    the slow one still waits in its first; the atlas is the same as one
    condition at a time."""
    conditions = len(list(atlas_module._conditions(atlas_module._plan(["numpy.take"])[0])))
    fast, saw = _Clip("fast"), []

    class Slow(_Clip):
        def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
            if self.calls == 0:
                for _ in range(300):  # at most 30 s: the old lock-step atlas never let "fast" on
                    if fast.calls == conditions:
                        break
                    threading.Event().wait(0.1)
                saw.append(fast.calls)
            return super().run_many(cases, timeout=timeout)

    slow = Slow("slow")
    infos = {o.name: o.info() for o in (slow, fast)}
    atlas = run_atlas([slow, fast], infos, ops=["numpy.take"])
    assert saw == [conditions]
    assert {c.key for c in atlas.cells} == expected_cells(infos, ops=["numpy.take"])
    mirror = {(c.condition, c.eq_class, c.op, c.behaviour) for c in atlas.cells if c.oracle == "fast"}
    assert mirror == {(c.condition, c.eq_class, c.op, c.behaviour) for c in atlas.cells if c.oracle == "slow"}


# -- asked, not assumed (issue 39, point 7) -----------------------------------------------


def _installed() -> dict[str, Oracle]:
    """Every oracle installed here, built in this process (conftest imports Paddle first)."""
    from oracles import (
        array_api_oracle,
        cupy_oracle,
        iree_oracle,
        jax_oracle,
        mlx_oracle,
        numpy_oracle,
        onnx_oracle,
        openvino_oracle,
        paddle_oracle,
        tensorflow_oracle,
        tf_numpy_oracle,
        torch_oracle,
        tvm_oracle,
    )

    modules = (paddle_oracle, numpy_oracle, torch_oracle, tensorflow_oracle, tf_numpy_oracle, onnx_oracle, jax_oracle)
    modules += (cupy_oracle, mlx_oracle, array_api_oracle, openvino_oracle, iree_oracle, tvm_oracle)
    return {o.name: o for m in modules for o in m.oracles_here()}


@pytest.fixture(scope="module")
def installed() -> dict[str, Oracle]:
    return _installed()


def _probe_cases(condition_key: str, op_prefix: str) -> list[Case]:
    return [c for p in all_probes() if p.condition == condition_key for c in cases_of(p) if c.op.startswith(op_prefix)]


ASKED = [
    ("index-bool", "jax.numpy.take", ("jax", "jax-default")),
    ("attr-mode-word-promise-in-bounds", "jax.numpy.take", ("jax", "jax-default")),
    ("index-float", "onnx.", ("onnx-reference", "onnxruntime", "onnxruntime-noopt", "onnxruntime-static")),
    ("attr-axis-numpy-int", "onnx.", ("onnx-reference", "onnxruntime", "openvino-onnx")),
    ("data-str", "openvino.", ("openvino",)),
    ("data-str", "onnx.", ("openvino-onnx",)),
    ("data-complex64", "onnx.", ("openvino-onnx",)),
    ("data-object", "tensorflow.experimental.numpy.", ("tensorflow-numpy",)),
]
"""Atlas probes once declared "not supported" or never probed, each now handed to the framework: its refusal (at
session creation, at conversion, at trace time) or its value is the cell."""


def test_the_probes_issue_39_names_exist_for_every_mode() -> None:
    """bool indices reach jnp.take under each of its modes, clip and wrap included; jnp.take gets
    "promise_in_bounds" (jnp.take_along_axis's mode, not its own); float indices reach every ONNX op."""
    assert {c.attrs["mode"] for c in _probe_cases("index-bool", "jax.numpy.take") if c.op == "jax.numpy.take"} == {
        None,
        "fill",
        "clip",
        "wrap",
    }
    words = _probe_cases("attr-mode-word-promise-in-bounds", "jax.numpy.")
    assert {(c.op, c.attrs["mode"]) for c in words} == {("jax.numpy.take", "promise_in_bounds")}
    assert {c.op for c in _probe_cases("index-float", "onnx.")} == {s.key for s in specs() if s.framework == "onnx"}


@pytest.mark.parametrize(("condition_key", "op_prefix", "names"), ASKED, ids=[f"{a[0]}:{a[1]}" for a in ASKED])
def test_these_probes_are_run_not_declared(installed, condition_key, op_prefix, names) -> None:
    cases = _probe_cases(condition_key, op_prefix)
    assert cases
    here = [n for n in names if n in installed]
    if not here:
        pytest.skip(f"none of {names} installed")
    for name in here:
        oracle = installed[name]
        for case in (c for c in cases if c.op in oracle.info().ops):
            out = oracle.run_in_process(case.op, case.data, case.indices, dict(case.attrs))
            assert out.kind in (Kind.VALUE, Kind.ERROR), (name, case.op, case.attrs, out.describe())


def test_jnp_take_answers_bool_indices_under_clip_and_wrap_itself(installed) -> None:
    """What the atlas now shows (JAX 0.10.2, checked by hand with jax and NumPy alone): "clip" refuses bool
    indices ("indices must have an integer type"), "wrap" returns a value; "promise_in_bounds" is no mode of
    jnp.take ("Invalid mode 'promise_in_bounds' for np.take")."""
    if "jax" not in installed:
        pytest.skip("no jax")
    jax = installed["jax"]
    cases = {c.attrs["mode"]: c for c in _probe_cases("index-bool", "jax.numpy.take") if c.op == "jax.numpy.take"}
    clip, wrap = (jax.run_in_process(c.op, c.data, c.indices, dict(c.attrs)) for c in (cases["clip"], cases["wrap"]))
    assert clip.kind is Kind.ERROR and wrap.kind is Kind.VALUE, (clip.describe(), wrap.describe())
    for word in _probe_cases("attr-mode-word-promise-in-bounds", "jax.numpy.take"):  # block and flattened
        out = jax.run_in_process(word.op, word.data, word.indices, dict(word.attrs))
        assert out.kind is Kind.ERROR and "promise_in_bounds" in (out.message or ""), out.describe()


CANNOT_EXPRESS = re.compile(
    r"^(?P<oracle>[\w-]+): ("
    r"(data|index) dtype \S+: (the array API standard|\w+)( tensors)? has no "  # no such dtype in the framework
    r"|\w+=.*: ONNX has no (bool|None|integer attribute held in an array)"  # no such ONNX attribute
    r"|[\w.]+ does not implement "  # no such op
    r"|(data|index) of rank \d+: \w+ tensors have at most \d+ dimensions"  # no tensor of that rank (Paddle's 9)
    r")"
    r"|^cupy\.take has no mode argument$"  # no such argument
)
"""A declaration the atlas keeps: the call cannot be written for the framework at all (a dtype it has no type
for, an attribute type ONNX lacks, an op or argument it does not have, a rank its tensors cannot have)."""


def test_every_declaration_left_is_of_a_call_that_cannot_be_expressed(installed) -> None:
    """Over every probe of the atlas: each oracle declares a case only where the call cannot be expressed,
    saying why; never a dtype the framework has a type for (OpenVINO's strings, an ONNX model with complex
    or string tensors, TensorFlow's object arrays) nor an attribute ONNX carries (a NumPy integer)."""
    reasons: dict[str, set[str]] = {}
    for probe in all_probes():
        for case in cases_of(probe):
            for name, oracle in installed.items():
                if case.op not in oracle.info().ops:
                    continue
                data, indices = np.asarray(case.data), np.asarray(case.indices)
                reason = oracle.unsupported_reason(case.op, data, indices, dict(case.attrs))
                if reason:
                    reasons.setdefault(name, set()).add(reason)
    bad = sorted(r for rs in reasons.values() for r in rs if not CANNOT_EXPRESS.match(r))
    assert not bad, bad
    onnx_models = {"onnxruntime", "onnx-reference", "openvino-onnx", "iree", "tvm"}
    for name in onnx_models & set(reasons):  # an ONNX model declares only what ONNX cannot write
        assert all("Python objects" in r or "attribute" in r for r in reasons[name]), reasons[name]
    assert not any("dtype <U" in r or "dtype str" in r for r in reasons.get("openvino", ())), reasons["openvino"]
    assert not reasons.get("tensorflow-numpy"), reasons["tensorflow-numpy"]


class _StrayOnRepeat(NoHangNumpy):
    """NumPy, except that a case reading from empty data answers stray bytes on every run after its first (as
    OpenVINO's Gather-8 did on data (2, 0), index 1: its zero fill on one run, stray bytes on the next)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[int, int] = {}

    def run_many(self, cases: Sequence[Case], *, timeout: float | None = None) -> list[Outcome]:
        out = super().run_many(cases, timeout=timeout)
        for k, c in enumerate(cases):
            if atlas_module.reads_nothing(c):
                self.seen[id(c)] = self.seen.get(id(c), 0) + 1
                out[k] = out[k] if self.seen[id(c)] == 1 else Outcome.returned(np.array([7.5e-41], np.float32))
        return out


def test_a_probe_that_may_read_from_nothing_runs_again_and_its_cell_keeps_the_stray_read() -> None:
    """Regression (stop 45): the cell empty-axis-scalar-oob / openvino.Gather-8 was "fills" on one run and "fills
    or garbage" on the next. A case that may read from empty data runs STRAY_TRIES times, and its cell judges the
    first answer that departs: the same cell whichever run met the stray bytes, with the same probe count."""
    honest, stray = NoHangNumpy(), _StrayOnRepeat()
    plain = run_atlas([honest], {honest.name: honest.info()}, ops=["numpy.take"])
    tried = run_atlas([stray], {stray.name: stray.info()}, ops=["numpy.take"])
    cells = {c.key: c for c in plain.cells}
    assert cells.keys() == {c.key for c in tried.cells}
    empty = [c for c in tried.cells if atlas_module.reads_nothing(Case.from_json(c.example))]
    assert empty and all(not c.documented for c in empty)
    turned = [c for c in empty if cells[c.key].documented]
    assert turned and all(c.behaviour is Behaviour.GARBAGE for c in turned)
    assert all(cells[c.key].behaviour == c.behaviour for c in empty if c not in turned)
    assert all(c.probes == cells[c.key].probes for c in tried.cells)
    assert max(stray.seen.values()) == atlas_module.STRAY_TRIES


def test_a_cell_shows_its_worst_departing_probe_whichever_probe_met_it() -> None:
    """Stop 47: MLX's take_along_axis on dtype-min indices read far outside its input: in the quiet checks its int32
    probe crashed and its int8 probe read stray bytes, beside busy loops the other way round; the cell showed the
    first departing probe, "crash" in one and "fills or garbage" in the other. A crash is shown before a stray read,
    whatever the order of the probes that met them."""
    from conformance.campaign.atlas_runner import AtlasRun
    from conformance.results.atlas import AtlasCell

    def cell(behaviour: str) -> AtlasCell:
        return AtlasCell(
            "dtype-min", "element gather", "mlx.take_along_axis", "mlx", "0.32.4", behaviour, None, False, {}
        )

    shown = []
    for order in (["fills or garbage", "crash"], ["crash", "fills or garbage"]):
        run = AtlasRun(["mlx"])
        for b in order:
            run.add(cell(b))
        shown.append(run.seen[cell("crash").key].shown.behaviour.value)
    assert shown == ["crash", "crash"], shown
