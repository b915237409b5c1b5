"""The behaviour matrix as the report shows it: rows op × index regime (split
by data dtype family only where the families behave differently), a column
per oracle, and in each cell the behaviours, most alarming first, with the
findings behind them.

>>> from conformance.results.run_result import MatrixKey
>>> rows = matrix_rows({MatrixKey("t.g", "negative", "int"): {"a": {"raises": 1}}}, ["a", "b"], [])
>>> [(r.op, str(r.regime), r.families, r.cells["a"].worst, r.cells["b"]) for r in rows]
[('t.g', 'negative', ['int'], 'raises', None)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from conformance.core.arrays import dtype_family
from conformance.core.behaviour import severity
from conformance.core.case import OpKey
from conformance.report.runs import Cells, cell_summary, merge_cells
from conformance.results.finding import Finding
from conformance.results.run_result import Matrix, RunResult


@dataclass
class MatrixCell:
    """One oracle on one matrix row."""

    counts: dict[str, int]
    worst: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def ordered(self) -> list[tuple[str, int]]:
        return sorted(self.counts.items(), key=lambda bn: (-severity(bn[0]), -bn[1]))

    @property
    def title(self) -> str:
        return cell_summary(self.counts)


@dataclass
class MatrixRow:
    """One row of the matrix: an op, a regime, the dtype families it covers."""

    op: str
    regime: str
    families: list[str]
    cells: dict[str, MatrixCell | None]


def worst_behaviour(counts: Mapping[str, int]) -> str:
    """The most alarming behaviour of a cell (ties: the most frequent).

    >>> worst_behaviour({"conforms": 99, "garbage": 1}), worst_behaviour({})
    ('garbage', '')
    """
    return max(counts.items(), key=lambda bn: (severity(bn[0]), bn[1]))[0] if counts else ""


def finding_family(finding: Finding) -> str:
    """The dtype family of a finding's data (``str`` for strings).

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("o", "x", "1", "cpu", "eager", "wrong value", "", ())
    >>> finding_family(Finding(sig, Case("o", np.array(["a"]), np.zeros(1, int)), None, {}))
    'str'
    """
    return dtype_family(finding.case.data.dtype)


def same_op(finding_op: str, row_op: str) -> bool:
    """Whether a finding's op is a matrix row's op (an ONNX opset ignored where the row names none).

    >>> same_op("onnx.Gather-13", "onnx.Gather"), same_op("onnx.Gather-13", "onnx.Gather-11"), same_op("t", "t")
    (True, False, True)
    """
    if finding_op == row_op:
        return True
    try:
        return OpKey.parse(finding_op).family == row_op
    except ValueError:
        return False


def in_regime(finding: Finding, regime: str) -> bool:
    """Whether a finding belongs to an index regime (by its signature's or its case's tags).

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("o", "x", "1", "cpu", "eager", "wrong value", "", ("negative",))
    >>> f = Finding(sig, Case("o", np.zeros(1), np.zeros(1, int)), None, {})
    >>> in_regime(f, "negative"), in_regime(f, "oob-above"), in_regime(f, "")
    (True, False, True)
    """
    tags = finding.case.tags
    return not regime or regime in finding.signature.tags or (tags is not None and tags.regime == regime)


def findings_for(
    findings: Sequence[Finding], op: str, regime: str, families: Sequence[str], oracle: str
) -> list[Finding]:
    """The findings behind a matrix cell: same op (see :func:`same_op`) and
    oracle, in the row's regime, data of one of the row's dtype families.

    >>> import numpy as np
    >>> from conformance.core.case import Case
    >>> from conformance.judge.signature import Signature
    >>> sig = Signature("torch.gather", "torch", "2", "cpu", "eager", "value instead of error", "wraps", ("bad index",))
    >>> from conformance.core.case import CaseTags
    >>> tags = CaseTags("negative", "int64", "float")
    >>> f = Finding(sig, Case("torch.gather", np.zeros(2), np.zeros(1, int), tags=tags), None, {})
    >>> [len(findings_for([f], "torch.gather", regime, ["float"], "torch")) for regime in ("negative", "oob-above")]
    [1, 0]
    """
    return [
        f
        for f in findings
        if same_op(f.signature.op, op)
        and oracle in (f.modes or {f.signature.oracle: ""})
        and in_regime(f, regime)
        and (not families or not families[0] or finding_family(f) in families)
    ]


def family_groups(by_family: Mapping[str, Cells], oracles: Sequence[str]) -> list[list[str]]:
    """The dtype families of one op × regime, grouped: all together when they
    behave alike (the same worst behaviour for every oracle), else one by one.

    >>> family_groups({"int": {"a": {"raises": 1}}, "float": {"a": {"raises": 2}}}, ["a"])
    [['int', 'float']]
    >>> family_groups({"int": {"a": {"raises": 1}}, "float": {"a": {"wraps": 2}}}, ["a"])
    [['int'], ['float']]
    """
    shapes = {tuple(worst_behaviour(cells.get(o, {})) for o in oracles) for cells in by_family.values()}
    return [list(by_family)] if len(shapes) == 1 else [[fam] for fam in by_family]


def matrix_rows(matrix: Matrix, oracles: Sequence[str], findings: Sequence[Finding]) -> list[MatrixRow]:
    """Rows op × regime, split by :func:`family_groups`, each cell with its findings.

    >>> from conformance.results.run_result import MatrixKey as K
    >>> m = {K("t", "negative", "int"): {"a": {"raises": 1}}, K("t", "negative", "float"): {"a": {"raises": 2}},
    ...      K("t", "oob-above", "int"): {"a": {"clamps": 1}}, K("t", "oob-above", "float"): {"a": {"garbage": 1}}}
    >>> [(str(r.regime), r.families, r.cells["a"].worst) for r in matrix_rows(m, ["a"], [])]
    [('negative', ['int', 'float'], 'raises'), ('oob-above', ['int'], 'clamps'), ('oob-above', ['float'], 'garbage')]
    """
    groups: dict[tuple[str, str], dict[str, Cells]] = {}
    for key, by_oracle in matrix.items():
        groups.setdefault((key.op, key.regime), {})[key.data_family] = by_oracle
    of_op = {op: [f for f in findings if same_op(f.signature.op, op)] for op, _ in groups}  # once per op, not per cell
    rows = []
    for (op, regime), by_family in groups.items():
        for families in family_groups(by_family, oracles):
            merged = merge_cells(by_family[fam] for fam in families)
            row_cells = {
                o: MatrixCell(merged[o], worst_behaviour(merged[o]), findings_for(of_op[op], op, regime, families, o))
                if merged.get(o)
                else None
                for o in oracles
            }
            rows.append(MatrixRow(op, regime, families, row_cells))
    return rows


def oracle_columns(run: RunResult) -> list[str]:
    """The matrix columns: every oracle in the matrix, the cases or the findings, first seen first.

    >>> from conformance.results.run_result import MatrixKey
    >>> oracle_columns(RunResult({}, 0, {}, {"b": 1, "a": 1}, 1.0, {MatrixKey("t", "in-range", "int"): {"a": {}}}, []))
    ['a', 'b']
    """
    in_matrix = [o for by_oracle in run.matrix.values() for o in by_oracle]
    return list(dict.fromkeys(in_matrix + list(run.cases) + [f.signature.oracle for f in run.findings]))
