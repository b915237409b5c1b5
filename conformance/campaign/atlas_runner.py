"""Building the behaviour atlas: every probe (:mod:`conformance.cases.probes`) through every
op of its class on every oracle that implements the op, judged, as one table
that says how gather behaves across frameworks, condition by condition.

The cells (:class:`~conformance.results.atlas.AtlasCell`) are described
with the file they go to (:mod:`conformance.results.atlas`); each is one
(condition, class, op, oracle):

* ``behaviour``: the judge's word (:func:`~conformance.judge.verdict.judge`, the
  same judge as the campaign's), or ``"harness error"`` when the suite itself
  failed on the probe (its reference or judging raised);
* ``error_class``: the oracle's normalized error class, if it raised;
* ``documented``: whether the verdict conforms, i.e. the op did what its docs say;
* ``example``: the case (:meth:`Case.to_json <conformance.core.case.Case.to_json>`,
  so ``Case.from_json(cell.example)`` rebuilds it) with ``reference`` and
  ``observed``, the short descriptions of what the docs give and what the
  oracle did (and ``message``, the start of its error message), and where
  they are values, the values themselves (``reference_value``,
  ``observed_value``: bit-exact arrays, :mod:`conformance.core.encoding`),
  the evidence for the behaviour the cell names;
* ``probes`` and ``seen``: how many probe cases the cell aggregates and the
  distinct behaviours among them; ``cases``, where there are several, each
  one's attributes and index dtype with its behaviour and observed outcome
  (:func:`case_entry`).

**Answers that depend on memory are named so in every mode.** Where one mode
of a framework answers a probe with a value whose shape is the gather of no
axis of the data (:func:`~conformance.judge.shape_evidence.unexplained_shape`:
the op read outside the input's shape), what every mode of that framework
(same version and device) does on that op and condition depends on what lay
in memory, its errors included: each departing cell there is ``garbage``,
with no error class, its own answer kept in the example beside the proof
(``undefined``), and the proving cell's root causes. Without this, Paddle's
static graph answered ``axis=-4`` with a value on some runs and an IndexError
on others, and two atlases of the same versions differed.

**One cell per (condition, class, op, oracle).** The class is part of the key
because one op can appear in two classes (``numpy.take`` is a block gather,
and with ``axis=None`` a flattened one). Where a cell aggregates several probe
cases (the modes of ``numpy.take``, ``jnp.take``, ``jnp.take_along_axis``;
the three dtypes of ``dtype-min``/``dtype-max``), it shows the **first
non-conforming** one in probe order (mode selector, then dtype), or the first
if all conform: a cell is green only if every case in it conforms.

A probe that the harness cannot translate is recorded in :attr:`Atlas.errors`
(it has no op, so no cell); nothing here raises on a probe, and an oracle
that fails is a protocol-error outcome (:func:`~conformance.execution.fanout.answers`).
The atlas is seed-free: the same catalog, probes and oracles give the same cells.

>>> import numpy as np
>>> from conformance.core.outcome import ErrorClass, Outcome
>>> from conformance.core.oracle import Capabilities, OracleInfo
>>> def take(c):  # NumPy's take, always in mode "clip" (which never hangs)
...     try:
...         return Outcome.returned(np.asarray(np.take(c.data, c.indices, axis=c.attrs["axis"], mode="clip")))
...     except (IndexError, TypeError, ValueError) as exc:
...         return Outcome.raised(exc, ErrorClass.INDEX_OUT_OF_RANGE)
>>> class Take:  # a stand-in oracle
...     name = "take"
...     capabilities = Capabilities()
...     def info(self): return OracleInfo("take", "numpy", "1", "cpu", "eager", ("numpy.take",))
...     def run_many(self, cases, *, timeout=None): return [take(c) for c in cases]
>>> atlas = run_atlas([Take()], {"take": Take().info()}, ops=["numpy.take"])
>>> atlas.keys() == expected_cells({"take": Take().info()}, ops=["numpy.take"])
True
>>> cell = atlas.cell("size", "block gather", "numpy.take", "take")
>>> str(cell.behaviour), cell.documented, cell.probes, [str(b) for b in cell.seen]
('clamps', False, 3, ['clamps'])
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from conformance.campaign.settings import WAIT_STEP_S, Progress
from conformance.cases.probes import Probe, all_probes, cases_of, condition_order
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case
from conformance.core.encoding import encode_array
from conformance.core.oracle import Oracle, OracleInfo
from conformance.core.outcome import Kind, Outcome
from conformance.execution.fanout import Limited, answers
from conformance.judge.judged import Judged
from conformance.judge.shape_evidence import unexplained_shape
from conformance.judge.verdict import PolicyValues, judge, reference_outcome
from conformance.results.atlas import MESSAGE_CHARS, Atlas, AtlasCell, CellKey, RootSighting
from conformance.spec.catalog import specs
from conformance.spec.plans import EqClass


def _error(probe: Probe, op: str | None, exc: BaseException) -> dict[str, Any]:
    return {
        "condition": probe.condition,
        "eq_class": probe.eq_class.value,
        "op": op,
        "error": f"{type(exc).__name__}: {exc}",
    }


STRAY_TRIES = 5
"""How many times each oracle runs a probe case that may read from nothing (:func:`reads_nothing`); its cell
judges the first answer that departs, else the first. OpenVINO's Gather-8 on data (2, 0) with index 1 answers its
documented zero fill on some runs and stray bytes on others: one run a cell of "fills", the next of "fills or
garbage", and two atlases of the same versions differed."""


def reads_nothing(case: Case) -> bool:
    """Whether ``case`` asks an op to read from empty data where its answer may still hold elements: the reference
    raises, or gives a non-empty value (a documented fill) where no element exists to read.

    >>> reads_nothing(Case("numpy.take", np.zeros((2, 0)), np.array(1), {"axis": 1, "mode": "raise"}))
    True
    >>> reads_nothing(Case("numpy.take", np.zeros((0, 2)), np.array([], int), {"axis": 0, "mode": "raise"}))
    False
    """
    if np.size(case.data) or not np.size(case.indices):
        return False
    try:
        ref = reference_outcome(case)
    except Exception:  # noqa: BLE001 - the reference failing on a probe is the judging's to record
        return False
    return ref.value is None or np.size(ref.value) > 0


def _plan(ops: Iterable[str] | None) -> tuple[list[tuple[Probe, Case]], list[dict[str, Any]]]:
    """Every (probe, case) pair, a case that may read from nothing :data:`STRAY_TRIES` times in a row, and the
    probes that could not be translated."""
    wanted = list(ops) if ops is not None else None
    pairs: list[tuple[Probe, Case]] = []
    errors: list[dict[str, Any]] = []
    for probe in all_probes():
        try:
            for c in cases_of(probe, wanted):
                pairs += [(probe, c)] * (STRAY_TRIES if reads_nothing(c) else 1)
        except Exception as exc:  # noqa: BLE001 - a probe the harness cannot translate is recorded, never fatal
            errors.append(_error(probe, None, exc))
    return pairs, errors


def _tries(pairs: Sequence[tuple[Probe, Case]]) -> Iterator[tuple[Probe, Case, int]]:
    """Each distinct (probe, case) of ``pairs`` with how many times in a row it is there (:func:`_plan`)."""
    k = 0
    while k < len(pairs):
        n = 1
        while k + n < len(pairs) and pairs[k + n][1] is pairs[k][1]:
            n += 1
        yield pairs[k][0], pairs[k][1], n
        k += n


def expected_cells(infos: Mapping[str, OracleInfo], ops: Iterable[str] | None = None) -> set[CellKey]:
    """The cells an atlas over oracles with these facts must have: one per
    (condition, class, op, oracle) where some probe of the condition translates
    to the op (:func:`~conformance.cases.probes.cases_of`) and the oracle lists it.

    >>> info = OracleInfo("n", "numpy", "1", "cpu", "eager", ("numpy.take",))
    >>> ("uint64-high", "flattened 1-D", "numpy.take", "n") in expected_cells({"n": info})
    True
    """
    pairs, _ = _plan(ops)
    return {
        (p.condition, p.eq_class.value, c.op, name)
        for p, c in pairs
        for name, info in infos.items()
        if c.op in info.ops
    }


@dataclass
class _Seen:
    """The cases of one cell so far: the one it shows, how many, which behaviours."""

    shown: AtlasCell
    count: int = 1
    behaviours: list[Behaviour] = field(default_factory=list)
    roots: list[RootSighting] = field(default_factory=list)
    cases: list[dict[str, Any]] = field(default_factory=list)


def _example(case: Case, ref: str, got: Outcome, ref_value: Any = None) -> dict[str, Any]:
    example = {**case.to_json(), "reference": ref, "observed": got.describe()}
    if ref_value is not None:  # the values themselves: the evidence for the behaviour the cell names
        example["reference_value"] = encode_array(np.asarray(ref_value))
    if got.kind is Kind.VALUE and got.value is not None:
        example["observed_value"] = encode_array(np.asarray(got.value))
    if got.kind is Kind.ERROR and got.message:
        example["message"] = got.message[:MESSAGE_CHARS]
    return example


def case_entry(case: Case, behaviour: Behaviour, documented: bool, got: Outcome) -> dict[str, Any]:
    """One case of a cell that aggregates several (:attr:`~conformance.results.atlas.AtlasCell.cases`): what sets
    it apart (its attributes, its index dtype) and what the oracle did on it.

    >>> from conformance.core.outcome import ErrorClass
    >>> case = Case("jax.numpy.take", np.arange(3.0), np.array([True]), {"axis": 0, "mode": "clip"})
    >>> case_entry(case, Behaviour.RAISES, True, Outcome.raised(ValueError("indices must have an integer type"),
    ...     ErrorClass.DTYPE_UNSUPPORTED))  # doctest: +NORMALIZE_WHITESPACE
    {'attrs': {'axis': 0, 'mode': 'clip'}, 'indices': 'bool', 'behaviour': 'raises', 'documented': True,
     'observed': 'error ValueError (dtype unsupported)'}
    """
    return {
        "attrs": case.to_json()["attrs"],
        "indices": np.asarray(case.indices).dtype.name,
        "behaviour": behaviour.value,
        "documented": documented,
        "observed": got.describe(),
    }


Sink = Callable[[Probe, Judged], None]
"""Where every judged probe case also goes (the campaign's sightings: findings, matrix, stream)."""


def _judged(
    probe: Probe,
    case: Case,
    info: OracleInfo,
    got: Outcome,
    ref: Outcome | None,
    values: PolicyValues | None,
    failed: str,
    sink: Sink | None,
) -> AtlasCell:
    """The cell one oracle's answer on one case makes (a harness error if the reference or the judge failed)."""
    base = (probe.condition, probe.eq_class.value, case.op, info.name, info.version)
    if ref is not None and values is not None:
        try:
            judged = Judged(
                case,
                info.name,
                info,
                ref,
                got,
                judge(case, ref, got, values, bits=info.bits, framework=info.framework, mode=info.mode),
            )
            if sink is not None:
                sink(probe, judged)
            verdict = judged.verdict
            roots = () if verdict.conforms else (RootSighting(judged.signature(), judged.words()),)
            example = _example(case, ref.describe(), got, ref.value)
            why = None if verdict.conforms else unexplained_shape(case, got)
            if why is not None:
                example["undefined"] = why
            entry = case_entry(case, verdict.behaviour, verdict.conforms, got)
            return AtlasCell(
                *base, verdict.behaviour, got.error_class, verdict.conforms, example, roots=roots, cases=(entry,)
            )
        except Exception as exc:  # noqa: BLE001 - a judge that fails on a probe is a harness error, never fatal
            failed = f"judge raised {type(exc).__name__}: {exc}"
    example = _example(case, f"harness error: {failed}", got)
    entry = case_entry(case, Behaviour.HARNESS_ERROR, False, got)
    return AtlasCell(*base, Behaviour.HARNESS_ERROR, got.error_class, False, example, cases=(entry,))


def _sort_key(cell: AtlasCell, ops: Mapping[str, int], oracles: Mapping[str, int]) -> tuple[int, int, int, int]:
    classes = [c.value for c in EqClass]
    return (
        condition_order(cell.condition),
        classes.index(cell.eq_class),
        ops.get(cell.op, len(ops)),
        oracles.get(cell.oracle, len(oracles)),
    )


def subset(pairs: Sequence[tuple[Probe, Case]], infos: Mapping[str, OracleInfo], limit: int | None) -> int:
    """How many of ``pairs`` (in probe order) a short budget runs: whole
    conditions, first to last, while their oracle runs stay within ``limit``
    (None: all). Depends on the selection and the limit alone, never on the
    machine, so that one budget gives one atlas subset.

    >>> info = {"n": OracleInfo("n", "numpy", "1", "cpu", "eager", ("numpy.take",))}
    >>> pairs, _ = _plan(["numpy.take"])
    >>> subset(pairs, info, None) == len(pairs), 0 < subset(pairs, info, 60) < len(pairs), subset(pairs, info, 0)
    (True, True, 0)
    """
    if limit is None:
        return len(pairs)
    runs, end = 0, 0
    for k, (probe, case) in enumerate(pairs):
        runs += sum(case.op in i.ops for i in infos.values())
        last_of_condition = k + 1 == len(pairs) or pairs[k + 1][0].condition != probe.condition
        if runs > limit:
            break
        if last_of_condition:
            end = k + 1
    return end


@dataclass
class AtlasRun:
    """An atlas as it is built, condition by condition; safe to read from
    another thread: :meth:`atlas` gives the cells so far (and, once
    :meth:`freeze` is called, no cell is added any more)."""

    oracles: Sequence[str]
    frameworks: Mapping[str, str] = field(default_factory=dict)
    """Each oracle's framework, version and device (:func:`framework_of`): the modes of one framework share it."""
    seen: dict[CellKey, _Seen] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    frozen: bool = False

    @classmethod
    def over(cls, oracles: Sequence[Oracle], infos: Mapping[str, OracleInfo]) -> AtlasRun:
        """The atlas of ``oracles``, in their order (``infos``: what each is)."""
        return cls([o.name for o in oracles], {o.name: framework_of(infos[o.name]) for o in oracles})

    def add(self, cell: AtlasCell) -> None:
        with self.lock:
            if self.frozen:
                return
            if cell.key not in self.seen:
                self.seen[cell.key] = _Seen(cell, 1, [cell.behaviour], list(cell.roots), list(cell.cases))
                return
            s = self.seen[cell.key]
            s.count += 1
            s.behaviours.append(cell.behaviour)
            s.cases += cell.cases
            s.roots += [r for r in cell.roots if r not in s.roots]
            if not cell.documented and (s.shown.documented or _worse(cell.behaviour, s.shown.behaviour)):
                s.shown = cell

    def skip(self, pairs: Iterable[tuple[Probe, Case]], infos: Mapping[str, OracleInfo], why: str) -> None:
        """Record the cells of ``pairs`` not run, and why."""
        with self.lock:
            keys = dict.fromkeys(
                (p.condition, p.eq_class.value, c.op, name)
                for p, c in pairs
                for name, info in infos.items()
                if c.op in info.ops
            )
            self.skipped += [
                dict(zip(("condition", "eq_class", "op", "oracle"), k, strict=True)) | {"why": why}
                for k in keys
                if k not in self.seen
            ]

    def freeze(self) -> None:
        """No more cells: what a stopped campaign writes is what there is now."""
        with self.lock:
            self.frozen = True

    def atlas(self) -> Atlas:
        with self.lock:
            cells = undefined_in_every_mode([_finish(s) for s in self.seen.values()], self.frameworks)
            op_order = {s.key: i for i, s in enumerate(specs())}
            oracle_order = {name: i for i, name in enumerate(self.oracles)}
            ordered = sorted(cells, key=lambda c: _sort_key(c, op_order, oracle_order))
            return Atlas(ordered, list(self.errors), list(self.skipped))


def framework_of(info: OracleInfo) -> str:
    """What the execution modes of one framework share: its name, version and device.

    >>> framework_of(OracleInfo("paddle-static", "paddle", "3.3.1", "cpu", "static graph", ()))
    'paddle 3.3.1 cpu'
    """
    return f"{info.framework} {info.version} {info.device}"


def undefined_in_every_mode(cells: Sequence[AtlasCell], frameworks: Mapping[str, str]) -> list[AtlasCell]:
    """``cells`` with every departing cell of a (condition, class, op,
    framework) where some mode proved a read outside the input's shape
    (``example["undefined"]``) named ``garbage`` (see the module docstring).

    >>> def cell(oracle, behaviour, error, undefined=None):
    ...     example = {"observed": "an answer"} | ({"undefined": undefined} if undefined else {})
    ...     return AtlasCell("axis", "block gather", "p.g", oracle, "3", behaviour, error, False, example)
    >>> cells = [cell("p", "wrong error", None, "its output has rank 4 ..."), cell("p-static", "wrong error",
    ...     "index out of range"), cell("q", "wrong error", "index out of range")]
    >>> [(c.oracle, str(c.behaviour), str(c.error_class)) for c in undefined_in_every_mode(cells,
    ...     {"p": "p 3 cpu", "p-static": "p 3 cpu", "q": "q 1 cpu"})]  # doctest: +NORMALIZE_WHITESPACE
    [('p', 'garbage', 'None'), ('p-static', 'garbage', 'None'),
     ('q', 'wrong error', 'index out of range')]
    """
    proofs: dict[tuple[str, str, str, str], AtlasCell] = {}
    for c in cells:
        if "undefined" in c.example and c.oracle in frameworks:
            proofs.setdefault((c.condition, c.eq_class, c.op, frameworks[c.oracle]), c)
    out = []
    for c in cells:
        proof = proofs.get((c.condition, c.eq_class, c.op, frameworks.get(c.oracle, "")))
        if proof is None or c.documented:
            out.append(c)
            continue
        why = proof.example["undefined"]
        note = (
            why
            if proof is c
            else f"{proof.oracle} answered this probe so ({why}): what this mode does here depends on memory"
        )
        out.append(
            replace(
                c,
                behaviour=Behaviour.GARBAGE,
                error_class=None,
                seen=(Behaviour.GARBAGE,),
                cases=tuple(e if e["documented"] else e | {"behaviour": Behaviour.GARBAGE.value} for e in c.cases),
                roots=proof.roots,
                example=c.example | {"undefined": note},
            )
        )
    return out


def _conditions(pairs: Sequence[tuple[Probe, Case]]) -> Iterator[list[tuple[Probe, Case]]]:
    """``pairs`` cut into runs of one condition each (probe order)."""
    chunk: list[tuple[Probe, Case]] = []
    for pair in pairs:
        if chunk and pair[0].condition != chunk[-1][0].condition:
            yield chunk
            chunk = []
        chunk.append(pair)
    if chunk:
        yield chunk


def missing_cells(
    atlas: Atlas, infos: Mapping[str, OracleInfo], ops: Iterable[str] | None, why: str
) -> list[dict[str, Any]]:
    """The cells an atlas over ``infos`` would have that ``atlas`` neither has
    nor lists as skipped, as skipped cells (``why``: the reason).

    >>> info = {"n": OracleInfo("n", "numpy", "1", "cpu", "eager", ("numpy.take",))}
    >>> len(missing_cells(Atlas([]), info, ["numpy.take"], "stopped")) == len(expected_cells(info, ["numpy.take"]))
    True
    """
    have = atlas.keys() | {(s["condition"], s["eq_class"], s["op"], s["oracle"]) for s in atlas.skipped}
    keys = ("condition", "eq_class", "op", "oracle")
    return [dict(zip(keys, k, strict=True)) | {"why": why} for k in sorted(expected_cells(infos, ops) - have)]


SUBSET = "not in the subset a budget this short runs"
"""Why a short budget's atlas skips a cell (the rest of the atlas, after the subset)."""


def run_atlas(
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    ops: Iterable[str] | None = None,
    *,
    timeout: float | None = None,
    sink: Sink | None = None,
    limit: int | None = None,
    halt: Callable[[], str | None] | None = None,
    into: AtlasRun | None = None,
    progress: Progress | None = None,
    findings: Callable[[], int] = lambda: 0,
) -> Atlas:
    """Every probe on every oracle, condition by condition (one batch per
    oracle per condition, each oracle running ahead in a thread of its own:
    :class:`_Ahead`), judged in condition order and aggregated into cells
    (see the module docstring). ``ops`` restricts the ops as a
    campaign's ``--ops`` does (names or keys); ``timeout`` is the per-case
    limit for isolated oracles (default: their own). Some probes hang some
    frameworks (``numpy.take(mode="wrap")`` on an int64 extreme loops for
    ever), and each costs one time limit. ``sink`` receives every judged
    probe case (with its probe). ``limit``: at most this many oracle runs, as
    the whole first conditions (:func:`subset`; the rest is skipped, and
    said so in :attr:`Atlas.skipped`); ``halt``, asked before each
    condition, says why to stop there (a deadline, a signal) or None;
    ``into`` receives the cells as they come; ``progress`` hears of each
    oracle's batch done (one condition on one oracle; with ``findings()``
    so far). Never raises on a probe."""
    pairs, errors = _plan(ops)
    run = into if into is not None else AtlasRun.over(oracles, infos)
    run.errors += errors
    end = subset(pairs, infos, limit)
    chunks = list(_conditions(pairs[:end]))
    if progress is not None:  # counted in oracle batches (one oracle, one condition): the work as it is done
        progress.phase("atlas", sum(_busy(chunk, infos[o.name]) for chunk in chunks for o in oracles))
    done = None if progress is None else (lambda: progress.advance(findings=findings()))
    ahead = _Ahead(chunks, [Limited(o, timeout) for o in oracles], infos, halt, done)
    try:
        for n, chunk in enumerate(chunks):
            why = halt() if halt is not None else None
            outcomes = ahead.answers(n) if not why else None
            if outcomes is None:
                run.skip([pair for rest in chunks[n:] for pair in rest], infos, why or ahead.why())
                break
            _judge_chunk(chunk, oracles, infos, outcomes, sink, run)
    finally:
        ahead.stop()
    run.skip(pairs[end:], infos, SUBSET)
    return run.atlas()


def _busy(chunk: Sequence[tuple[Probe, Case]], info: OracleInfo) -> bool:
    """Whether an oracle has a case in a condition's chunk (a batch to run)."""
    return any(c.op in info.ops for _, c in chunk)


class _Ahead:
    """Every oracle's batches, condition after condition, each oracle in a
    thread of its own that runs ahead of the judging: a slow oracle (a
    compilation, a hang being confirmed) no longer holds the others at every
    condition, while the judging still takes the conditions in order (the
    same cells, sightings and findings in the same order as one condition at
    a time). An oracle's thread asks ``halt`` before each condition and stops
    when it says why; :meth:`answers` then gives None."""

    def __init__(
        self,
        chunks: Sequence[Sequence[tuple[Probe, Case]]],
        runners: Sequence[Oracle],
        infos: Mapping[str, OracleInfo],
        halt: Callable[[], str | None] | None,
        done: Callable[[], None] | None = None,
    ) -> None:
        self._chunks, self._infos, self._halt, self._done_one = chunks, infos, halt, done
        self._done: list[dict[str, list[Outcome]]] = [{} for _ in chunks]
        self._names = [r.name for r in runners]
        self._why: str | None = None
        self._failure: BaseException | None = None
        self._stopped = False
        self._lock = threading.Condition()
        for runner in runners:
            threading.Thread(target=self._run, args=(runner,), name=f"atlas-{runner.name}", daemon=True).start()

    def _run(self, runner: Oracle) -> None:
        ops = self._infos[runner.name].ops
        try:
            for n, chunk in enumerate(self._chunks):
                why = self._halt() if self._halt is not None else None
                with self._lock:
                    if why or self._stopped:
                        self._why = self._why or why
                        self._lock.notify_all()
                        return
                cases = [c for _, c in chunk if c.op in ops]
                got = answers(runner, cases) if cases else []
                with self._lock:
                    self._done[n][runner.name] = got
                    self._lock.notify_all()
                if cases and self._done_one is not None:
                    self._done_one()
        except BaseException as exc:  # noqa: BLE001 - raised in the judging thread (answers() never raises otherwise)
            with self._lock:
                self._failure = exc
                self._lock.notify_all()

    def answers(self, n: int) -> dict[str, list[Outcome]] | None:
        """Every oracle's outcomes for condition ``n`` (waiting for them), or
        None if an oracle's thread stopped before it or ``halt`` says why
        while waiting (see :meth:`why`; a batch under way ends on its own)."""
        with self._lock:
            while not self._lock.wait_for(
                lambda: len(self._done[n]) == len(self._names) or self._why or self._failure, WAIT_STEP_S
            ):  # a batch under way may take long (a compilation, a hang confirmed): the deadline does not wait for it
                why = self._halt() if self._halt is not None else None
                if why:
                    self._why = self._why or why
                    return None
            if self._failure is not None:
                raise self._failure
            return self._done[n] if len(self._done[n]) == len(self._names) else None

    def why(self) -> str:
        """Why an oracle's thread stopped early."""
        return self._why or "stopped"

    def stop(self) -> None:
        """No more conditions for any oracle (a batch under way ends on its own)."""
        with self._lock:
            self._stopped = True


def _judge_chunk(
    pairs: Sequence[tuple[Probe, Case]],
    oracles: Sequence[Oracle],
    infos: Mapping[str, OracleInfo],
    outcomes: Mapping[str, Sequence[Outcome]],
    sink: Sink | None,
    run: AtlasRun,
) -> None:
    """One condition's probe cases, as every oracle answered them, judged into ``run``."""
    pending = {name: iter(got) for name, got in outcomes.items()}
    for probe, case, tries in _tries(pairs):
        ref: Outcome | None = None
        values: PolicyValues | None = None
        failed = ""
        try:
            ref, values = reference_outcome(case), PolicyValues(case)
        except Exception as exc:  # noqa: BLE001 - the reference failing on a probe is a harness error
            failed = f"reference raised {type(exc).__name__}: {exc}"
            run.errors.append(_error(probe, case.op, exc))
        for oracle in oracles:
            info = infos[oracle.name]
            if case.op not in info.ops:
                continue
            runs = [next(pending.get(oracle.name, iter(())), None) for _ in range(tries)]
            got = [a or Outcome.protocol_error("no answer for this case") for a in runs]
            run.add(
                _judged(probe, case, info, _first_departing(case, info, got, ref, values), ref, values, failed, sink)
            )


WORST_FIRST = (Behaviour.CRASH, Behaviour.TIMEOUT, Behaviour.GARBAGE, Behaviour.FILLS_OR_GARBAGE)
"""The behaviours a cell shows before any other of its departing probes', worst first: which of a condition's
probes reads far outside its input and dies, and which reads stray bytes, depends on the process's memory map
(MLX's take_along_axis on dtype-min indices: int32 -2**31 crashed and int8 -128 read garbage in the quiet checks, the
other way round beside busy loops, and the first departing probe's word was the cell's: stop 47)."""
_WORST_RANK = {w: n for n, w in enumerate(WORST_FIRST)}


def _worse(a: Behaviour, b: Behaviour) -> bool:
    """Whether a departing probe's ``a`` is shown before another's ``b`` (:data:`WORST_FIRST`; else the first seen).

    >>> _worse(Behaviour.CRASH, Behaviour.FILLS_OR_GARBAGE), _worse(Behaviour.GARBAGE, Behaviour.CRASH)
    (True, False)
    >>> _worse(Behaviour.WRAPS, Behaviour.CLAMPS)
    False
    """
    return _WORST_RANK.get(a, len(WORST_FIRST)) < _WORST_RANK.get(b, len(WORST_FIRST))


def _first_departing(
    case: Case, info: OracleInfo, got: Sequence[Outcome], ref: Outcome | None, values: PolicyValues | None
) -> Outcome:
    """Of one case's answers (:data:`STRAY_TRIES` where it may read from nothing), the first the judge does not
    accept, else the first: a stray read seen once is the fact, whichever run met it."""
    if len(got) == 1 or ref is None or values is None:
        return got[0]
    for answer in got:
        try:
            if not judge(case, ref, answer, values, bits=info.bits, framework=info.framework, mode=info.mode).conforms:
                return answer
        except Exception:  # noqa: BLE001 - the judging of the answer kept records the harness error
            return answer
    return got[0]


def _finish(s: _Seen) -> AtlasCell:
    """The cell a condition's cases make: the one shown, how many, which behaviours, every root cause, and each
    case's own answer where there are several."""
    cases = tuple(s.cases) if s.count > 1 else ()
    return replace(s.shown, probes=s.count, seen=tuple(dict.fromkeys(s.behaviours)), roots=tuple(s.roots), cases=cases)
