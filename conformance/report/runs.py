"""Run algebra: shards of one run merged into one run, and two runs compared.

>>> a = RunResult({"numpy": "2.4.6"}, 1, {}, {"numpy": 10}, 2.0, {}, [])
>>> b = RunResult({"numpy": "2.4.6"}, 1, {}, {"numpy": 12}, 3.0, {}, [])
>>> merge_runs([a, b]).cases, compare_runs(a, b).is_empty()
({'numpy': 22}, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.core.behaviour import severity
from conformance.core.vocabulary import FindingStatus, RunStatus
from conformance.judge.rootcause import example_words, merged_into
from conformance.judge.signature import Signature
from conformance.report.facts_view import flatten_facts
from conformance.results.finding import Finding, ranked
from conformance.results.run_result import Matrix, MatrixKey, RunResult, history_summary

VOLATILE_FACTS: frozenset[str] = frozenset(
    {
        "started",
        "finished",
        "start",
        "end",
        "date",
        "time",
        "timestamp",
        "hostname",
        "host",
        "pid",
        "shard",
        "shards",
        "shard_index",
        "shard_count",
        "argv",
        "command",
        "out",
        "output",
        "wall_s",
        "seconds",
        "executable",
        "concurrency",  # how many workers ran at once: a figure of the machine, not of the run
        "timing",  # warm-ups, confirmations, slowest cases: figures, never evidence
        "history_effects",  # each shard's own (merged: merge_runs)
    }
)
"""Facts that may differ between shards of one run without making them different runs."""

Cells = dict[str, dict[str, int]]
"""One matrix row: oracle -> behaviour -> count."""


# -- merging shards ---------------------------------------------------------------


def comparable_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The facts that must agree for two results to be shards of one run.

    >>> comparable_facts({"versions": {"torch": "2.13.0"}, "hostname": "ci-3", "shard": 1})
    {'versions': {'torch': '2.13.0'}}
    """
    return {k: v for k, v in facts.items() if k not in VOLATILE_FACTS}


def merge_cells(rows: Iterable[Mapping[str, Mapping[str, int]]]) -> Cells:
    """Matrix rows (oracle -> behaviour -> count) added up (first-seen order kept).

    >>> merge_cells([{"torch": {"raises": 2}}, {"torch": {"raises": 1, "wraps": 1}, "jax": {"raises": 1}}])
    {'torch': {'raises': 3, 'wraps': 1}, 'jax': {'raises': 1}}
    """
    out: Cells = {}
    for cells in rows:
        for oracle, counts in cells.items():
            cell = out.setdefault(oracle, {})
            for behaviour, n in counts.items():
                cell[behaviour] = cell.get(behaviour, 0) + n
    return out


def merge_matrices(matrices: Iterable[Matrix]) -> Matrix:
    """The union of behaviour matrices, counts summed (first-seen key order kept).

    >>> k = MatrixKey("t", "negative", "int")
    >>> merge_matrices([{k: {"torch": {"raises": 2}}}, {k: {"torch": {"raises": 1, "wraps": 1}}}])[k]
    {'torch': {'raises': 3, 'wraps': 1}}
    """
    by_row: dict[MatrixKey, list[Cells]] = {}
    for matrix in matrices:
        for row, cells in matrix.items():
            by_row.setdefault(row, []).append(cells)
    return {row: merge_cells(rows) for row, rows in by_row.items()}


def sum_counts(dicts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Numbers summed key by key; any other value kept if all agree, else listed.

    >>> sum_counts([{"torch": 3, "mode": "fast"}, {"torch": 2, "numpy": 1, "mode": "slow"}])
    {'torch': 5, 'mode': ['fast', 'slow'], 'numpy': 1}
    """
    out: dict[str, Any] = {}
    for d in dicts:
        for k, v in d.items():
            if k not in out:
                out[k] = v
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(out[k], (int, float)):
                out[k] = out[k] + v
            elif out[k] != v:
                out[k] = (out[k] if isinstance(out[k], list) else [out[k]]) + [v]
    return out


def merge_figures(figures: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A campaign's figures over shards: counts and seconds summed, rates
    (``*_per_second``) dropped (the report recomputes throughput), per-key
    dicts (times to first find) merged keeping the smallest value.

    >>> merge_figures([{"oracle_runs": 4, "cases_per_second": 2.0, "time_to_first_find_s": {"k": 3.0}},
    ...                {"oracle_runs": 6, "cases_per_second": 3.0, "time_to_first_find_s": {"k": 1.0, "j": 2.0}}])
    {'oracle_runs': 10, 'time_to_first_find_s': {'k': 1.0, 'j': 2.0}}
    """
    shards = [{k: v for k, v in f.items() if not k.endswith("_per_second")} for f in figures]
    nested = list(dict.fromkeys(k for f in shards for k, v in f.items() if isinstance(v, dict)))
    out = sum_counts({k: v for k, v in f.items() if k not in nested} for f in shards)
    for k in nested:
        merged: dict[str, Any] = {}
        for f in shards:
            for key, v in (f.get(k) or {}).items():
                merged[key] = v if key not in merged or v is None or merged[key] is None else min(merged[key], v)
        out[k] = merged
    return out


def case_size(finding: Finding) -> tuple[int, int, float]:
    """How big a reproducer is (elements, total rank, then time to find): smaller is better.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> sig = Signature("o", "x", "1", "cpu", "eager", "wrong value", "", ())
    >>> f = Finding(sig, Case("o", np.zeros((2, 3)), np.zeros(4, int)), None, {})
    >>> case_size(f)
    (10, 3, 0.0)
    """
    data, indices = finding.case.data, finding.case.indices
    return (int(data.size + indices.size), data.ndim + indices.ndim, finding.first_seen_s)


def merge_group(group: Sequence[Finding]) -> Finding:
    """Findings of one signature as one: counts summed, the earliest time to
    find and the smallest reproducer (with its outcomes, scripts and model)
    kept; "known" wins over "new", a baseline note or link is kept; the execution modes any of them shows in, and
    the root causes merged into any of them by trigger, are the one's.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> sig = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
    ...     ("bad index",))
    >>> big = Finding(sig, Case("torch.take", np.zeros(9), np.zeros(2, int)), None, {}, count=4, first_seen_s=1.0)
    >>> small = Finding(sig, Case("torch.take", np.zeros(2), np.zeros(1, int)), None, {}, count=3, first_seen_s=2.0)
    >>> m = merge_group([big, small]); (m.count, m.first_seen_s, m.case.data.size)
    (7, 1.0, 2)
    """
    best = min(group, key=case_size)
    return replace(
        best,
        count=sum(f.count for f in group),
        first_seen_s=min(f.first_seen_s for f in group),
        status=FindingStatus.KNOWN if any(f.status is FindingStatus.KNOWN for f in group) else best.status,
        baseline_note=best.baseline_note or next((f.baseline_note for f in group if f.baseline_note), None),
        baseline_link=best.baseline_link or next((f.baseline_link for f in group if f.baseline_link), None),
        same_trigger=list(dict.fromkeys(m for f in group for m in f.same_trigger if m != best.signature)),
        modes=dict(sorted({o: m for f in group for o, m in f.modes.items()}.items())),
        scripts={**{o: t for f in group for o, t in f.scripts.items()}, **best.scripts},
    )


def merge_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings deduplicated by signature (tags in any order), each group merged with :func:`merge_group`,
    then listed as a run lists them (:func:`~conformance.results.finding.ranked`: the execution modes of one
    framework merged, worst first, those with one proven trigger as one, led by the worst as in the unsharded run).

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value instead of error", "clamps (raw)",
    ...     ("bad index",))
    >>> f = Finding(sig, Case("numpy.take", np.zeros(2), np.zeros(1, int)), None, {}, count=2)
    >>> [g.count for g in merge_findings([f, f])]
    [4]
    """
    found = list(findings)
    seen = {f.signature for f in found}
    groups: dict[str, list[Finding]] = {}
    for f in found:  # settled again across shards: one shard's ambiguous may be another's named root cause
        own = f.outcomes.get(f.signature.oracle)
        target = merged_into(f.signature, example_words(f.case, own), seen) if own is not None else None
        f = replace(f, signature=target) if target is not None else f
        groups.setdefault(f.signature.key(), []).append(f)
    return ranked([merge_group(group) for group in groups.values()])


def shard_of(run: RunResult) -> tuple[int, int] | None:
    """The ``(i, n)`` a run was drawn as (from its settings), or None if it does not say.

    >>> shard_of(RunResult({}, 0, {"shard": [1, 4]}, {}, 1.0, {}, [])), shard_of(RunResult({}, 0, {}, {}, 1.0, {}, []))
    ((1, 4), None)
    """
    shard = run.budget.get("shard")
    return (int(shard[0]), int(shard[1])) if isinstance(shard, (list, tuple)) and len(shard) == 2 else None


def _label(labels: Sequence[str], k: int, run: RunResult) -> str:
    shard = shard_of(run)
    return f"{labels[k]} (shard {shard[0]}/{shard[1]})" if shard else labels[k]


def shard_problem(runs: Sequence[RunResult], labels: Sequence[str]) -> str | None:
    """Why ``runs`` (named by ``labels``) are not the shards of one run, one
    of each, or None: each must carry its ``i/n``; all the same ``n``, seed,
    settings (selection, examples, budget) and facts (versions, oracles); no
    shard twice (so neither a run with itself); none missing.

    >>> def shard(i, n, seed=0): return RunResult({}, seed, {"seed": seed, "shard": [i, n]}, {}, 1.0, {}, [])
    >>> print(shard_problem([shard(0, 2), shard(0, 2)], ["a", "b"]))
    a and b are both shard 0/2: a shard given twice is counted twice; give each shard once
    >>> print(shard_problem([shard(0, 3), shard(2, 3)], ["a", "b"]))
    shard 1/3 is missing (given: a (shard 0/3), b (shard 2/3)): a merge of shards needs every one of them
    >>> print(shard_problem([shard(0, 2), shard(1, 2, seed=5)], ["a", "b"]))
    b (shard 1/2) does not belong with a (shard 0/2): its settings differ in seed
    >>> print(shard_problem([shard(1, 2)], ["a"]))
    shard 0/2 is missing (given: a (shard 1/2)): a merge of shards needs every one of them
    >>> shard_problem([shard(0, 2), shard(1, 2)], ["a", "b"]) is None
    True
    """
    if len(runs) == 1 and (shard_of(runs[0]) or (0, 1))[1] == 1:
        return None  # one whole run
    shards = [shard_of(r) for r in runs]
    for k, shard in enumerate(shards):
        if shard is None:
            return f"{labels[k]} does not say which shard i/n it is, so it cannot be merged with other results"
    first, first_label = runs[0], _label(labels, 0, runs[0])
    for k, run in enumerate(runs[1:], start=1):
        settings = sorted(
            key
            for key in set(first.budget) | set(run.budget)
            if key != "shard" and first.budget.get(key) != run.budget.get(key)
        )
        if run.seed != first.seed and "seed" not in settings:
            settings = ["seed", *settings]
        old, new = comparable_facts(first.facts), comparable_facts(run.facts)
        facts = sorted(f for f in set(old) | set(new) if old.get(f) != new.get(f))
        differ = f"settings differ in {', '.join(settings)}" if settings else ""
        differ = differ or (f"facts differ in {', '.join(facts)}" if facts else "")
        if differ:
            return f"{_label(labels, k, run)} does not belong with {first_label}: its {differ}"
    seen: dict[tuple[int, int], int] = {}
    for k, shard in enumerate(shards):
        assert shard is not None
        if shard in seen:
            both = f"{labels[seen[shard]]} and {labels[k]} are both shard {shard[0]}/{shard[1]}"
            if labels[seen[shard]] == labels[k]:
                return f"{labels[k]} is given twice: merging a run with itself would count everything twice"
            if shard[1] == 1:
                return f"{both}: two whole runs, not shards of one; compare them with --compare"
            return f"{both}: a shard given twice is counted twice; give each shard once"
        seen[shard] = k
    count = {n for _, n in seen}
    if len(count) > 1:
        return (
            f"the results are shards of different splits "
            f"({', '.join(_label(labels, k, r) for k, r in enumerate(runs))})"
        )
    n = count.pop()
    missing = [i for i in range(n) if (i, n) not in seen]
    if missing:
        given = ", ".join(_label(labels, k, r) for k, r in enumerate(runs))
        names = ", ".join(f"{i}/{n}" for i in missing)
        return (
            f"shard{'s' if len(missing) > 1 else ''} {names} {'are' if len(missing) > 1 else 'is'} missing "
            f"(given: {given}): a merge of shards needs every one of them"
        )
    return None


def shard_mismatch(runs: Sequence[RunResult]) -> str | None:
    """Why these results are not shards of one run (facts that differ), or None.

    >>> a, b = (RunResult({"platform": p}, 0, {}, {}, 1.0, {}, []) for p in ("Linux", "Darwin"))
    >>> print(shard_mismatch([a, b]))
    results 1 and 2 are not shards of one run: their facts differ in platform; compare them instead (compare=True)
    """
    first = comparable_facts(runs[0].facts)
    for i, run in enumerate(runs[1:], start=2):
        other = comparable_facts(run.facts)
        if other != first:
            keys = sorted(k for k in set(first) | set(other) if first.get(k) != other.get(k))
            return (
                f"results 1 and {i} are not shards of one run: their facts differ in {', '.join(keys)}; "
                "compare them instead (compare=True)"
            )
    return None


def merge_status(statuses: Iterable[RunStatus]) -> RunStatus:
    """The status of shards as one run: complete only if every shard is.

    >>> str(merge_status([RunStatus.COMPLETE, RunStatus.COMPLETE])), str(merge_status([RunStatus.COMPLETE,
    ...     RunStatus.INTERRUPTED]))
    ('complete', 'interrupted')
    """
    return next((s for s in statuses if s is not RunStatus.COMPLETE), RunStatus.COMPLETE)


def merge_runs(runs: Sequence[RunResult]) -> RunResult:
    """Shards of one run as one run: the facts must agree (except
    :data:`VOLATILE_FACTS`; else a ValueError); matrices, cases, budgets,
    seconds (worker seconds), figures and raw discrepancies are summed,
    harness errors listed, findings merged with :func:`merge_findings`. The seed is kept if all
    shards share it, else None with the shards' seeds listed in
    ``facts["shard_seeds"]``.

    >>> a = RunResult({"numpy": "2.4.6"}, 1, {"examples": 10}, {"numpy": 10}, 2.0, {}, [])
    >>> b = RunResult({"numpy": "2.4.6"}, 2, {"examples": 10}, {"numpy": 12}, 3.0, {}, [])
    >>> m = merge_runs([a, b]); (m.seed, m.facts["shard_seeds"], m.cases, m.seconds, m.budget)
    (None, [1, 2], {'numpy': 22}, 5.0, {'examples': 20})
    """
    if not runs:
        raise ValueError("no results to merge")
    if len(runs) == 1:
        return runs[0]
    mismatch = shard_mismatch(runs)
    if mismatch:
        raise ValueError(mismatch)
    seeds = [r.seed for r in runs]
    facts = dict(runs[0].facts)
    if len(set(seeds)) > 1:
        facts["shard_seeds"] = seeds
    facts["shards_merged"] = len(runs)
    if any("history_effects" in r.facts for r in runs):
        facts["history_effects"] = history_summary([e for r in runs for e in r.history_effects])
    return RunResult(
        facts=facts,
        seed=seeds[0] if len(set(seeds)) == 1 else None,
        budget=sum_counts(r.budget for r in runs),
        cases=sum_counts(r.cases for r in runs),
        seconds=sum(r.seconds for r in runs),
        matrix=merge_matrices(r.matrix for r in runs),
        findings=merge_findings(f for r in runs for f in r.findings),
        raw_discrepancies=sum(r.raw_discrepancies for r in runs),
        figures=merge_figures(r.figures for r in runs),
        harness_errors=[e for r in runs for e in r.harness_errors],
        status=merge_status(r.status for r in runs),
    )


# -- comparing runs ---------------------------------------------------------------


@dataclass
class Change:
    """One thing that differs between two runs, in words; ``signature``: the
    new run's finding it is about, if any (the report links it)."""

    what: str  # "finding", "status", "outcome", "matrix" or "fact"
    key: str
    before: str
    after: str
    signature: Signature | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "what": self.what,
            "key": self.key,
            "before": self.before,
            "after": self.after,
            "signature": self.signature.key() if self.signature else None,
        }


@dataclass
class Comparison:
    """What appeared, disappeared or changed from an old run to a new one."""

    appeared: list[Finding] = field(default_factory=list)
    disappeared: list[Finding] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    fact_changes: list[Change] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.appeared or self.disappeared or self.changed or self.fact_changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "appeared": [f.signature.key() for f in self.appeared],
            "disappeared": [f.signature.key() for f in self.disappeared],
            "changed": [c.to_json() for c in self.changed],
            "fact_changes": [c.to_json() for c in self.fact_changes],
        }


def cell_summary(counts: Mapping[str, int]) -> str:
    """A matrix cell in words, most alarming behaviour first.

    >>> cell_summary({"conforms": 90, "clamps": 10})
    'clamps 10, conforms 90'
    """
    return ", ".join(f"{b} {n}" for b, n in sorted(counts.items(), key=lambda bn: (-severity(bn[0]), -bn[1])))


def row_label(key: MatrixKey) -> str:
    """A matrix row in words, for a comparison's table.

    >>> row_label(MatrixKey("torch.gather", "negative", "int"))
    'torch.gather|negative|int'
    """
    return f"{key.op}|{key.regime}|{key.data_family}"


def finding_changes(before: Finding, after: Finding) -> list[Change]:
    """What changed in one finding between runs: its version, status or outcome.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> sig = Signature("t.g", "t", "1", "cpu", "eager", "wrong value", "", ())
    >>> f = Finding(sig, Case("t.g", np.zeros(1), np.zeros(1, int)), None, {})
    >>> [(c.what, c.before, c.after) for c in finding_changes(f, replace(f, signature=replace(sig, version="2")))]
    [('finding', 't 1', 't 2')]
    """
    sig_b, sig_a = before.signature, after.signature
    label = sig_a.words()
    out = []
    if sig_b.version != sig_a.version:
        before_version, after_version = f"{sig_b.oracle} {sig_b.version}", f"{sig_a.oracle} {sig_a.version}"
        out.append(Change("finding", label, before_version, after_version, sig_a))
    if before.status != after.status:
        out.append(Change("status", label, before.status, after.status, sig_a))
    ob, oa = before.outcomes.get(sig_b.oracle), after.outcomes.get(sig_a.oracle)
    if ob is not None and oa is not None and ob.describe() != oa.describe():
        out.append(Change("outcome", label, ob.describe(), oa.describe(), sig_a))
    return out


def matrix_changes(old: Matrix, new: Matrix) -> list[Change]:
    """Matrix cells whose set of behaviours changed.

    >>> k = MatrixKey("t", "negative", "int")
    >>> [(c.key, c.before, c.after) for c in matrix_changes({k: {"a": {"wraps": 3}}}, {k: {"a": {"raises": 3}}})]
    [('t|negative|int · a', 'wraps 3', 'raises 3')]
    """
    out = []
    for row in dict.fromkeys([*old, *new]):
        b_row, a_row = old.get(row, {}), new.get(row, {})
        for oracle in dict.fromkeys([*b_row, *a_row]):
            b, a = b_row.get(oracle, {}), a_row.get(oracle, {})
            if set(b) != set(a):
                where = f"{row_label(row)} · {oracle}"
                out.append(Change("matrix", where, cell_summary(b) or "—", cell_summary(a) or "—"))
    return out


def fact_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Comparable facts (flattened) that changed.

    >>> [(c.key, c.before, c.after) for c in fact_changes({"v": {"torch": "1"}, "host": "a"}, {"v": {"torch": "2"}})]
    [('v.torch', '1', '2')]
    """
    before, after = flatten_facts(comparable_facts(old)), flatten_facts(comparable_facts(new))
    keys = dict.fromkeys([*before, *after])
    return [Change("fact", k, before.get(k, "—"), after.get(k, "—")) for k in keys if before.get(k) != after.get(k)]


def compare_runs(old: RunResult, new: RunResult) -> Comparison:
    """Findings that appeared or disappeared (matched across versions with
    :meth:`Signature.across_versions`), findings whose version, status or
    outcome changed, matrix cells whose behaviours changed, and facts that changed.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.core.outcome import Outcome
    >>> def run(version, behaviour):
    ...     sig = Signature("torch.take", "torch", version, "cpu", "eager", "value instead of error", "wraps",
    ...     ("bad index",))
    ...     f = Finding(sig, Case("torch.take", np.zeros(2), np.zeros(1, int)), Outcome.returned(np.zeros(1)), {})
    ...     matrix = {MatrixKey("torch.take", "negative", "float"): {"torch": {behaviour: 3}}}
    ...     return RunResult({"torch": version}, 0, {}, {}, 1.0, matrix, [f])
    >>> c = compare_runs(run("2.12.0", "wraps"), run("2.13.0", "raises"))
    >>> [(ch.what, ch.before, ch.after) for ch in c.changed]
    [('finding', 'torch 2.12.0', 'torch 2.13.0'), ('matrix', 'wraps 3', 'raises 3')]
    >>> [(ch.key, ch.before, ch.after) for ch in c.fact_changes]
    [('torch', '2.12.0', '2.13.0')]
    """
    old_by = {f.signature.across_versions(): f for f in old.findings}
    new_by = {f.signature.across_versions(): f for f in new.findings}
    return Comparison(
        appeared=[f for k, f in new_by.items() if k not in old_by],
        disappeared=[f for k, f in old_by.items() if k not in new_by],
        changed=[c for k, f in new_by.items() if k in old_by for c in finding_changes(old_by[k], f)]
        + matrix_changes(old.matrix, new.matrix),
        fact_changes=fact_changes(old.facts, new.facts),
    )
