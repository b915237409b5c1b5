"""The campaign: draw cases, run them through every oracle, keep what differs.

For each equivalence class, Hypothesis draws :class:`~conformance.strategies.ClassCase`
values (generation phase only: a fixed number per class, or until a time
budget runs out). Each is translated into every op of its class
(:mod:`conformance.translate`), run through every oracle that implements the
op, and judged against the reference (:mod:`conformance.compare`). Every
judgement goes into the behaviour matrix; every non-conforming one gets a
:class:`~conformance.findings.Signature`. Raw discrepancies collapse onto
their signatures; each signature is then shrunk (a greedy, structured
search over :func:`~conformance.strategies.simpler` candidates whose
predicate is "still has this signature") to a minimal reproducer, which
becomes a :class:`~conformance.findings.Finding` with the reference, every
oracle's outcome on the op and its class siblings, and standalone scripts.

>>> from oracles.numpy_oracle import NumpyOracle
>>> r = run_campaign([NumpyOracle()], seed=1, max_examples=20, ops=["numpy.take"])
>>> r.cases["numpy"] > 0, r.raw_discrepancies >= len(r.findings)
(True, True)

Public API: :func:`run_campaign`, :func:`main_run`, :func:`load_oracles`,
:func:`evaluate`.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from conformance.compare import CONFORMS, PolicyValues, Verdict, judge, reference_outcome
from conformance.findings import Case, Finding, RunResult, Signature
from conformance.plans import EqClass
from conformance.strategies import POLICY_REGIMES, ClassCase, class_cases, materialize, simpler
from conformance.translate import signature_tags, translate
from conformance.model import Outcome, OracleInfo

DEFAULT_EXAMPLES = 60
"""Examples per equivalence class of the default campaign, which is also the
CI campaign the baseline is seeded from (seed 0): about a minute here."""
SHRINK_EVALS = 40
"""Most candidate cases tried while shrinking one signature."""


class OracleLike(Protocol):
    name: str

    def info(self) -> OracleInfo: ...

    def run(self, op: str, data: Any, indices: Any, **attrs: Any) -> Outcome: ...


@dataclass(frozen=True)
class Judged:
    """One oracle on one translated case."""

    case: Case
    oracle: str
    info: OracleInfo
    reference: Outcome
    outcome: Outcome
    verdict: Verdict

    def signature(self) -> Signature:
        """The discrepancy's signature (its policy only in the policy regimes)."""
        policy = self.verdict.behaviour.value if self.case.tags and self.case.tags[0] in POLICY_REGIMES else ""
        i = self.info
        return Signature(self.case.op, i.name, i.version, i.device, i.mode, self.verdict.outcome, policy, signature_tags(self.case.tags, self.verdict.outcome))


class _OutOfTime(Exception):
    """Raised inside the Hypothesis loop when the time budget is spent."""


def _run_all(oracle: OracleLike, cases: list[Case]) -> list[Outcome]:
    """Outcomes in order, in one batch where the oracle can (``run_many``)."""
    if hasattr(oracle, "run_many") and len(cases) > 1:
        return list(oracle.run_many(cases))
    return [oracle.run(c.op, c.data, c.indices, **c.attrs) for c in cases]


def evaluate(cc: ClassCase, oracles: Sequence[OracleLike], infos: dict[str, OracleInfo], ops: Iterable[str] | None = None) -> list[Judged]:
    """Every (translated case, oracle implementing its op) pair of ``cc``, judged."""
    cases = translate(cc, ops, materialize(cc))
    refs = {id(c): reference_outcome(c) for c in cases}
    values = {id(c): PolicyValues(c) for c in cases}
    judged: list[Judged] = []
    for oracle in oracles:
        info = infos[oracle.name]
        mine = [c for c in cases if c.op in info.ops]
        if not mine:
            continue
        for case, got in zip(mine, _run_all(oracle, mine)):
            ref = refs[id(case)]
            judged.append(Judged(case, oracle.name, info, ref, got, judge(case, ref, got, values[id(case)])))
    return judged


@dataclass
class _Tally:
    """What the loop accumulates."""

    start: float
    cases: Counter = field(default_factory=Counter)
    matrix: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    first: dict[Signature, tuple[ClassCase, float]] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    raw: int = 0
    drawn: int = 0

    def add(self, cc: ClassCase, judged: list[Judged]) -> None:
        self.drawn += 1
        for j in judged:
            self.cases[j.oracle] += 1
            key = f"{j.case.op}|{j.case.tags[0]}|{j.case.tags[2].removeprefix('data:')}"
            cell = self.matrix.setdefault(key, {}).setdefault(j.oracle, {})
            cell[j.verdict.behaviour.value] = cell.get(j.verdict.behaviour.value, 0) + 1
            if j.verdict.conforms:
                continue
            self.raw += 1
            sig = j.signature()
            self.counts[sig] += 1
            self.first.setdefault(sig, (cc, time.perf_counter() - self.start))


def _drive(body: Callable[[ClassCase], None], eq_class: EqClass, *, seed: int | None, max_examples: int) -> None:
    """Call ``body`` on ``max_examples`` Hypothesis draws of ``eq_class``
    (deterministic: a fixed seed, or derandomized when ``seed`` is None)."""

    @settings(
        max_examples=max_examples, database=None, deadline=None, phases=[Phase.generate],
        suppress_health_check=list(HealthCheck), derandomize=seed is None, print_blob=False,
    )  # fmt: skip
    @given(class_cases((eq_class,)))
    def loop(cc: ClassCase) -> None:
        body(cc)

    if seed is not None:
        loop = hypothesis_seed(seed)(loop)
    with _no_local_constants():
        try:
            loop()
        except _OutOfTime:
            pass


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis (>= 6.13x) mixes literals harvested from every imported local
    module into generation, so a seeded campaign would draw differently under
    pytest, ``run`` and ``check`` (different modules imported). A campaign's
    cases must depend on its seed alone: draw with no local constants."""
    from hypothesis.internal.conjecture import providers

    original = providers._get_local_constants
    providers._get_local_constants = providers.Constants
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()


def shrink(cc: ClassCase, has_signature: Callable[[ClassCase], bool], max_evals: int = SHRINK_EVALS) -> ClassCase:
    """The smallest case reachable from ``cc`` by :func:`simpler` steps that
    keeps ``has_signature`` (greedy: take the first, simplest, candidate that
    does, and start again).

    >>> from conformance.plans import EqClass
    >>> cc = ClassCase(EqClass.FLAT, (4, 3), (2, 2), None, 0, "int32", "int64", "in-range", False, "strided", 3, 99)
    >>> small = shrink(cc, lambda c: len(c.data_shape) >= 1)
    >>> small.data_shape, small.index_shape, small.seed, small.layout
    ((1,), (), 0, 'contiguous')
    """
    evals = 0
    improved = True
    while improved and evals < max_evals:
        improved = False
        for candidate in simpler(cc):
            evals += 1
            if has_signature(candidate):
                cc, improved = candidate, True
                break
            if evals >= max_evals:
                break
    return cc


def _signature_test(sig: Signature, oracle: OracleLike, infos: dict[str, OracleInfo]) -> Callable[[ClassCase], bool]:
    def has(cc: ClassCase) -> bool:
        try:
            return any(j.signature() == sig for j in evaluate(cc, [oracle], infos, [sig.op]))
        except Exception:  # a candidate the pipeline cannot even build is not the signature
            return False

    return has


def _finding(sig: Signature, cc: ClassCase, oracles: Sequence[OracleLike], infos: dict[str, OracleInfo], seed: int | None) -> Finding:
    """A finding from a minimal class case: the op's case, reference, every
    oracle's outcome on the op, and every sibling op's outcomes."""
    from conformance.repro import onnx_model_b64, scripts_for

    judged = evaluate(cc, oracles, infos)
    own = [j for j in judged if j.case.op == sig.op]
    case = next((j.case for j in own if j.signature() == sig), own[0].case if own else translate(cc, [sig.op])[0])
    outcomes = {j.oracle: j.outcome for j in own}
    siblings = [
        {"op": j.case.op, "oracle": j.oracle, "attrs": j.case.attrs, "outcome": j.outcome.describe(), "verdict": j.verdict.outcome, "behaviour": j.verdict.behaviour.value}
        for j in judged if j.case.op != sig.op
    ]  # fmt: skip
    ref = reference_outcome(case)
    frameworks = sorted({infos[n].framework for n in outcomes} | {infos[sig.oracle].framework})
    return Finding(
        signature=sig, case=case, reference=ref, outcomes=outcomes, seed=seed,
        scripts=scripts_for(case, ref, {infos[n].framework: infos[n] for n in outcomes}),
        onnx_model_b64=onnx_model_b64(case) if sig.op.startswith("onnx.") else None,
        class_case=_class_case_json(cc), siblings=siblings, frameworks=frameworks,
    )  # fmt: skip


def _class_case_json(cc: ClassCase) -> dict[str, Any]:
    d = asdict(cc)
    d["eq_class"] = cc.eq_class.value
    return d


def run_campaign(
    oracles: Sequence[OracleLike],
    *,
    seed: int | None = 0,
    max_examples: int | None = None,
    budget_s: float | None = None,
    ops: Iterable[str] | None = None,
    out_dir: str | Path | None = None,
    shrink_evals: int = SHRINK_EVALS,
    facts: dict[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> RunResult:
    """Run a campaign over ``oracles`` (anything with ``.name``, ``.info()``
    and ``.run(op, data, indices, **attrs)``; ``run_many`` is used if present).

    ``max_examples`` is per equivalence class (default :data:`DEFAULT_EXAMPLES`
    when no ``budget_s`` is given); ``budget_s`` stops drawing when spent
    (split evenly between the classes). ``ops`` restricts to catalog keys or
    names. With ``out_dir``, writes ``<out_dir>/results.json``.
    """
    ops = list(ops) if ops is not None else None
    infos = {o.name: o.info() for o in oracles}
    covered = {k for i in infos.values() for k in i.ops}
    classes = [c for c in EqClass if any(k in covered for k in _class_ops(c, ops))]
    per_class = max_examples if max_examples is not None else (DEFAULT_EXAMPLES if budget_s is None else 10**6)
    tally = _Tally(time.perf_counter())
    say = progress or (lambda _msg: None)
    for n, eq_class in enumerate(classes):
        deadline = None if budget_s is None else tally.start + budget_s * (n + 1) / len(classes)

        def body(cc: ClassCase) -> None:
            if deadline is not None and time.perf_counter() > deadline:
                raise _OutOfTime
            tally.add(cc, evaluate(cc, oracles, infos, ops))

        _drive(body, eq_class, seed=seed, max_examples=per_class)
        say(f"{eq_class.value}: {tally.drawn} cases so far, {len(tally.counts)} signatures")
    loop_s = time.perf_counter() - tally.start
    draw_s, drawn = _bare_draw_seconds(classes, seed, per_class if budget_s is None else max(tally.drawn // max(len(classes), 1), 1))
    by_name = {o.name: o for o in oracles}
    findings = []
    for sig, (cc, first_s) in sorted(tally.first.items(), key=lambda kv: kv[1][1]):
        small = shrink(cc, _signature_test(sig, by_name[sig.oracle], infos), shrink_evals)
        f = _finding(sig, small, oracles, infos, seed)
        f.count, f.first_seen_s = tally.counts[sig], round(first_s, 3)
        findings.append(f)
    say(f"shrunk {len(findings)} findings")
    total_s = time.perf_counter() - tally.start
    result = RunResult(
        facts=(facts if facts is not None else {}) | {"oracles": {n: asdict(i) for n, i in infos.items()}},
        seed=seed,
        budget={"max_examples_per_class": per_class, "budget_s": budget_s, "ops": ops, "classes": [c.value for c in classes], "shrink_evals": shrink_evals},
        cases=dict(tally.cases),
        seconds=round(total_s, 3),
        matrix=tally.matrix,
        findings=findings,
        raw_discrepancies=tally.raw,
        figures={
            "class_cases": tally.drawn,
            "oracle_runs": sum(tally.cases.values()),
            "loop_seconds": round(loop_s, 3),
            "cases_per_second": round(tally.drawn / loop_s, 2) if loop_s else None,
            "oracle_runs_per_second": round(sum(tally.cases.values()) / loop_s, 2) if loop_s else None,
            "bare_draws": drawn,
            "bare_draw_seconds": round(draw_s, 3),
            "bare_draws_per_second": round(drawn / draw_s, 2) if draw_s else None,
            "shrink_seconds": round(total_s - loop_s - draw_s, 3),
            "raw_discrepancies": tally.raw,
            "signatures": len(findings),
            "time_to_first_find_s": {f.signature.key(): f.first_seen_s for f in findings},
        },
    )
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        result.save(Path(out_dir) / "results.json")
    return result


def _class_ops(eq_class: EqClass, ops: list[str] | None) -> list[str]:
    from conformance.translate import targets

    return [s.key for s in targets(eq_class, ops)]


def _bare_draw_seconds(classes: Sequence[EqClass], seed: int | None, per_class: int) -> tuple[float, int]:
    """Seconds to draw (and materialize) the same examples with no oracle:
    the bare cost of the strategies, for the throughput figure."""
    count = 0

    def body(cc: ClassCase) -> None:
        nonlocal count
        materialize(cc)
        count += 1

    start = time.perf_counter()
    for eq_class in classes:
        _drive(body, eq_class, seed=seed, max_examples=per_class)
    return time.perf_counter() - start, count


# -- oracles and the command line ----------------------------------------------------


def load_oracles(names: Sequence[str] | None = None, *, in_process: bool = False) -> list[OracleLike]:
    """The oracles called ``names`` (default: every available one), isolated
    in worker processes unless ``in_process``."""
    import oracles as registry

    chosen = list(names) if names else registry.available()
    return [registry.get(n, isolated=not in_process) for n in chosen]


def main_run(args: argparse.Namespace) -> int:
    """``gather-conformance run``. Reads from ``args`` (missing ones default):

    * ``seed`` (int, default 0), ``max_examples`` (per class, default
      :data:`DEFAULT_EXAMPLES`), ``budget`` (seconds, default none),
    * ``ops`` (catalog keys or names, default all), ``oracles`` (names,
      default every available one), ``in_process`` (bool),
    * ``out`` (folder, default ``reports``): writes ``<out>/results.json``.

    Prints a summary; returns 0.
    """
    oracles = load_oracles(getattr(args, "oracles", None), in_process=bool(getattr(args, "in_process", False)))
    try:
        result = run_campaign(
            oracles, seed=getattr(args, "seed", 0), max_examples=getattr(args, "max_examples", None),
            budget_s=getattr(args, "budget", None), ops=getattr(args, "ops", None) or None,
            out_dir=getattr(args, "out", "reports"), facts=_run_facts(), progress=print,
        )  # fmt: skip
    finally:
        for o in oracles:
            getattr(o, "close", lambda: None)()
    print(summary(result))
    return 0


def _run_facts() -> dict[str, Any]:
    try:
        from conformance.execution.environment import run_facts

        return dict(run_facts())
    except Exception as exc:  # facts are best effort; the run is not
        return {"problem": f"run_facts failed: {exc}"}


def summary(result: RunResult) -> str:
    """A few lines: throughput, collapse, and one line per finding."""
    f = result.figures
    lines = [
        f"{f['class_cases']} cases ({f['oracle_runs']} oracle runs) in {f['loop_seconds']} s: {f['cases_per_second']} cases/s; "
        f"bare draws {f['bare_draws_per_second']}/s",
        f"{result.raw_discrepancies} raw discrepancies -> {len(result.findings)} findings",
    ]
    lines += [f"  [{x.first_seen_s:7.2f}s x{x.count:<5}] {x.signature.words()}" for x in result.findings]
    return "\n".join(lines)


__all__ = ["DEFAULT_EXAMPLES", "Judged", "evaluate", "load_oracles", "main_run", "run_campaign", "shrink", "summary"]
