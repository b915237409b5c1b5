"""One finding: a root cause (:class:`~conformance.judge.signature.Signature`)
with its minimal reproducer, every oracle's outcome on it and how many raw
examples it stands for; and a :class:`HarnessError`, an exception in the
suite itself, recorded with its case.

>>> HarnessError.from_json(HarnessError("judge", "ValueError: x", {"seed": 1}).to_json()).stage
'judge'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from conformance.cases.counterfactual import brief
from conformance.core.blame import Rule
from conformance.core.case import Case, OpKey
from conformance.core.outcome import Kind, Outcome
from conformance.core.vocabulary import (
    BasisStatus,
    ConditionKind,
    Feature,
    FindingKind,
    FindingStatus,
    Mismatch,
    MismatchKind,
)
from conformance.judge import rootcause
from conformance.judge.cost import user_cost
from conformance.judge.kind import (
    finding_basis,
    foreign_values,
    observed_kind,
    rank,
    reads_from_nothing,
    reads_past_index_batch,
)
from conformance.judge.shape_evidence import waived_for_empty
from conformance.judge.signature import Signature
from conformance.judge.verdict import STRAY, DtypeStatus, read_as
from conformance.spec.basis import Ground, dtype_requirement

DRAWN = frozenset(
    {
        ConditionKind.REGIME,
        ConditionKind.BAD_INDEX,
        ConditionKind.EMPTY_OUTPUT,
        ConditionKind.EMPTY_AXIS,
        ConditionKind.EMPTY_DATA,
        ConditionKind.BEYOND_INT32,
    }
)
"""Conditions that are only the generator's category of a case (``in-range``, ``bad index``): a finding no
counterfactual names is named by its case instead (:meth:`Finding.trigger_words`)."""


@dataclass(frozen=True)
class Tried:
    """One counterfactual of a finding's case (:mod:`conformance.cases.counterfactual`) run on its oracle: the
    feature, the value that shows the behaviour and the ordinary one, what the oracle answered to the ordinary one,
    whether that conforms, and whether it ``removes`` the finding's behaviour (it conforms, or departs only in
    another way, another finding's: :meth:`~conformance.judge.signature.Signature.shows_behaviour_of`); a feature
    that removes it is part of the trigger.

    >>> t = Tried("index dtype", "", "int8", "int64", "error IndexError (index out of range)", True, True)
    >>> t.words(), Tried.from_json(t.to_json()) == t
    ('int8 indices: the same as int64 conform (error IndexError (index out of range))', True)
    >>> Tried("out-of-range indices", "", "[-128]", "[0]", "value float32[1, 1]", False, True).words()
    'indices [-128]: the same as [0] do not show it (another departure: value float32[1, 1])'
    """

    feature: str
    detail: str
    shows: str
    ordinary: str
    outcome: str
    conforms: bool
    removes: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature", Feature(self.feature))

    def name(self) -> str:
        """The feature as a trigger names it: ``int8 indices``, ``axis=-9223372036854775808``, ``empty dimensions``."""
        feature = Feature(self.feature)
        if feature is Feature.INDEX_DTYPE:
            return f"{self.shows} indices"
        if feature is Feature.DATA_DTYPE:
            return f"{self.shows} data"
        if feature is Feature.ATTRIBUTE:
            return f"{self.detail}={self.shows}"
        if feature is Feature.OUT_OF_RANGE:
            return f"indices {self.shows}"
        return f"{feature.value} ({self.shows})"

    def words(self) -> str:
        """The pair a report shows: ``int8 indices: the same as int64 conform (error ...)``."""
        if self.conforms:
            return f"{self.name()}: the same as {self.ordinary} conform ({self.outcome})"
        if self.removes:
            return f"{self.name()}: the same as {self.ordinary} do not show it (another departure: {self.outcome})"
        return f"{self.name()}: the same as {self.ordinary} still show it ({self.outcome})"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "feature": Feature(self.feature).value}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Tried:
        return cls(**d)


@dataclass
class Finding:
    """One signature, shrunk to its minimal reproducer."""

    signature: Signature
    case: Case
    reference: Outcome
    outcomes: dict[str, Outcome]
    count: int = 1
    first_seen_s: float = 0.0
    seed: int | None = None
    scripts: dict[str, str] = field(default_factory=dict)
    """Oracle name -> its standalone Python script."""
    upstream_scripts: dict[str, str] = field(default_factory=dict)
    """Oracle name -> the same call in a few lines on literal arrays, for an upstream issue text
    (:mod:`conformance.execution.glance`); empty in files written before them and for oracles that write none."""
    onnx_model_b64: str | None = None
    status: FindingStatus = FindingStatus.NEW
    """Known where the baseline accepts it."""
    baseline_note: str | None = None
    baseline_link: str | None = None
    class_case: dict[str, Any] | None = None
    """The drawn (shrunk) class-level case (see :class:`conformance.cases.class_case.ClassCase`)."""
    siblings: list[dict[str, Any]] = field(default_factory=list)
    """The same class case through the class's other ops."""
    variants: dict[str, dict[str, int]] = field(default_factory=dict)
    """What the root cause merges: ``"op"`` -> {op key: count}, ``"regime"``, dtypes, behaviours."""
    framework: str = ""
    """The framework of the signature's oracle (empty in files written before modes merged: the oracle's name)."""
    modes: dict[str, str] = field(default_factory=dict)
    """Oracle name -> execution mode, for every mode of the framework in which the finding shows
    (empty: only the signature's own); each has its reproducer in ``scripts``."""
    conforming_modes: dict[str, str] = field(default_factory=dict)
    """Oracle name -> execution mode, for the framework's modes that conform on the finding's example."""
    built_from: list[Signature] = field(default_factory=list)
    """The root causes as drawn that building renamed into this one (an example built to tell the candidates
    apart named the behaviour): the atlas cells that recorded them stand for this finding."""
    tried: list[Tried] = field(default_factory=list)
    """The counterfactuals of its case run on its oracle (empty: none was run, as when time was up)."""
    same_trigger: list[Signature] = field(default_factory=list)
    """The root causes with the same proven trigger on the same framework and op (:func:`by_trigger`): one fact, shown
    by this finding, each still a signature the baseline and the atlas know (in each of its modes)."""

    @property
    def trigger(self) -> list[Tried]:
        """The features whose change to the ordinary value removes the behaviour: what triggers the finding."""
        return [t for t in self.tried if t.removes]

    def trigger_words(self) -> str:
        """The trigger as a finding is named by: its features, or, where no single change removes the behaviour,
        the full condition (the signature's).

        >>> import numpy as np
        >>> sig = Signature("paddle.take_along_axis", "paddle", "3.3.1", "cpu", "dygraph", "wrong value", "garbage",
        ...     ("in-range",))
        >>> f = Finding(sig, Case("paddle.take_along_axis", np.zeros(3), np.zeros(1, np.int8)), Outcome.unsupported(""),
        ...     {}, tried=[Tried("index dtype", "", "int8", "int64", "value", True, True)])
        >>> f.trigger_words(), replace(f, tried=[]).trigger_words()
        ('int8 indices', 'data (3,), indices (1,) [0]')
        """
        if self.trigger:
            return ", ".join(t.name() for t in self.trigger)
        if self.signature.condition.kind in DRAWN:
            return self._case_words()
        return ", ".join(sorted(self.signature.tags)) or "any input"

    def _case_words(self) -> str:
        """The case itself, in brief: its shapes, its indices and its attributes (a finding no single change removes,
        whose condition is only the generator's category: onnx-reference's GatherElements fails "Need at least 0 and
        at most 64 array objects" on an axis of 70 elements, and was titled "for in-range"; audit of stop 48).

        >>> sig = Signature("onnx.GatherElements", "onnx-reference", "1", "cpu", "reference", "wrong error", "",
        ...     ("in-range",))
        >>> case = Case("onnx.GatherElements-11", np.zeros((1, 70, 1)), np.full((1, 1, 1), 69), {"axis": 1})
        >>> Finding(sig, case, Outcome.unsupported(""), {})._case_words()
        'data (1, 70, 1), indices (1, 1, 1) [69], axis=1'
        """
        indices = np.asarray(self.case.indices)
        return f"data {np.shape(self.case.data)}, indices {indices.shape} {brief(indices)}{self._attrs_words()}"

    def _attrs_words(self) -> str:
        """The case's attributes as a title's tail: ``, axis=1, mode='clip'`` ("" where it has none)."""
        return "".join(f", {name}={value!r}" for name, value in self.case.attrs.items())

    def title(self) -> str:
        """The finding in one line, named by its trigger where one is proven (:meth:`trigger_words`), else by its
        condition (:meth:`~conformance.judge.signature.Signature.words`; a broken precondition with the shapes that
        break it). Where the docs do not define the outcome (the judge's ``spec silent``), the title says what the
        framework did and what the docs make of it.

        >>> import numpy as np
        >>> sig = Signature("paddle.gather", "paddle-static", "3.3.1", "cpu", "static", "spec silent", "", ())
        >>> f = Finding(sig, Case("paddle.gather", np.zeros((0, 1)), np.array(0)), Outcome.unsupported(""),
        ...     {"paddle-static": Outcome.returned(np.array(None, dtype=object))})
        >>> f.title()
        'paddle.gather on paddle-static 3.3.1 (cpu, static): returns None (the docs are silent)'
        >>> sig = Signature("torch.gather", "torch", "2", "cpu", "eager", "value instead of error", "",
        ...     ("precondition: rank mismatch",))
        >>> Finding(sig, Case("torch.gather", np.zeros(2), np.array(1)), Outcome.unsupported(""), {}).title()[38:]
        'value instead of error, for precondition: rank mismatch (data (2,), indices ())'
        """
        outcome, misread = "", self.misread_dtype  # a dtype misread: the out-of-range indices are no part of it
        departs = self.dtype_no_part
        if self.signature.outcome.kind is MismatchKind.SPEC_SILENT:  # "spec silent" only where the docs are
            status = {
                BasisStatus.UNDEFINED: "undefined by the docs",
                BasisStatus.IMPLEMENTATION_DEFINED: "left to the implementation by the docs",
            }.get(self.basis.status, "the docs are silent")
            outcome = f"{self._did()} ({status})"
        elif self.from_nothing and self.signature.policy is None:
            outcome = f"{self.signature.outcome} (from an empty input: fills or garbage)"
        elif reads_past_index_batch(self.case, self.outcomes.get(self.signature.oracle), self.signature.policy):
            outcome = f"{self.signature.outcome} (batches the indices lack: their indices read past the buffer)"
        elif self._foreign_values():
            outcome = f"{self.signature.outcome} (garbage: values the data does not hold)"
        elif (read := self._read_as()) is not None:
            outcome = f"{self.signature.outcome} (read as {read})"
        elif misread is not None:
            outcome = f"{MismatchKind.UNDOCUMENTED_DTYPE} (in range too)"
        elif departs is not None:
            outcome = str(departs)
        trigger = ", ".join(t.name() for t in self.trigger if misread is None or Feature(t.feature) is misread)
        if self.signature.condition.kind is ConditionKind.SHAPES_REFUSED and (waived := waived_for_empty(self.case)):
            trigger = self._waived_words(waived)
        blamed = self.reference.argument  # the attribute the reference's typed error blames, named with its value
        named = f"{blamed}={self.case.attrs[blamed]!r}" if blamed is not None and blamed in self.case.attrs else ""
        if not trigger and self.signature.condition.kind in (ConditionKind.PRECONDITION, ConditionKind.SHAPES_REFUSED):
            shapes = f"data {np.shape(self.case.data)}, indices {np.shape(self.case.indices)}"
            shapes = f"{named}; {shapes}" if named else shapes
            refused = self.signature.condition.kind is ConditionKind.SHAPES_REFUSED  # the outcome says it already
            trigger = shapes if refused else f"{', '.join(sorted(self.signature.tags))} ({shapes})"
        elif not trigger and self.signature.condition.kind is ConditionKind.UNDOCUMENTED_DTYPE:
            trigger = self._dtypes()  # "for uint64 indices", not the generator's "for undocumented dtype"
        elif not trigger and self.signature.condition.kind in DRAWN:
            trigger = self._case_words()
        elif not trigger:  # torch.compile's internal error for dim=3: the case breaks the rule of that attribute
            trigger = named
        elif self.signature.condition.kind is ConditionKind.PRECONDITION and (rule := self._broken_rule()):
            trigger = f"{trigger} (breaks: {rule})"  # batch_dims=1: of which rule, with which axis
        dtype_named = self.signature.outcome.kind is MismatchKind.UNDOCUMENTED_DTYPE and departs is None
        if dtype_named and OpKey.parse(self.case.op).opset:
            trigger = f"{trigger} in {self.case.op}"  # ONNX's types are its opset's: bfloat16 is GatherElements-13's
        return self.signature.words(trigger, outcome)

    def _read_as(self) -> int | None:
        """The int an attribute of a type the docs refuse was read as, where the oracle's answer is that int's
        (:func:`~conformance.judge.verdict.read_as`: TensorFlow's ``batch_dims=1.5`` as 1); None otherwise.

        >>> sig = Signature("tensorflow.gather_nd", "tensorflow", "2.21.0", "cpu", "eager", "value instead of error",
        ...     "", ("precondition: attribute type",))
        >>> case = Case("tensorflow.gather_nd", np.arange(8.0).reshape(2, 4), np.array([[1], [0]]), {"batch_dims": "1"})
        >>> from conformance.judge.verdict import reference_outcome
        >>> f = Finding(sig, case, reference_outcome(case), {"tensorflow": Outcome.returned(np.array([1.0, 4.0]))})
        >>> f.title().split(": ", 1)[1].split(", for ")[0]
        'value instead of error (read as 1)'
        """
        got = self.outcomes.get(self.signature.oracle)
        if (
            got is None
            or got.kind is not Kind.VALUE
            or self.signature.outcome.kind is not MismatchKind.VALUE_INSTEAD_OF_ERROR
        ):
            return None
        return read_as(self.case, self.reference, np.asarray(got.value))

    def _waived_words(self, rule: Rule) -> str:
        """The condition of a refusal whose call keeps ``rule`` only because its indices are empty
        (:func:`~conformance.judge.shape_evidence.waived_for_empty`): the shapes, the attributes and the rule.

        >>> sig = Signature("onnx.GatherElements", "onnxruntime", "1", "cpu", "session", "shapes refused", "", ())
        >>> case = Case("onnx.GatherElements-11", np.zeros((1, 1)), np.zeros((4, 0), np.int64), {"axis": 1})
        >>> Finding(sig, case, Outcome.returned(np.zeros((4, 0))), {})._waived_words(Rule.INDEX_LARGER)
        "empty indices (4, 0), which with elements would break 'index larger than input' (data (1, 1), axis=1)"
        """
        return (
            f"empty indices {np.shape(self.case.indices)}, which with elements would break '{rule.value}' "
            f"(data {np.shape(self.case.data)}{self._attrs_words()})"
        )

    def _broken_rule(self) -> str:
        """The precondition the reference says the case breaks, in its own words without the op's name; "" where it
        names none. A proven trigger says what to change, not which rule with which other value (tf.gather's
        "value instead of error, for batch_dims=1" left out that axis was 0: audit of stop 46, 7A n=105).

        >>> sig = Signature("tensorflow.gather", "tensorflow", "2.21.0", "cpu", "eager", "value instead of error", "",
        ...     ("precondition: batch_dims above axis",))
        >>> case = Case("tensorflow.gather", np.zeros((2, 1, 1)), np.array([[1]]), {"axis": 0, "batch_dims": 1})
        >>> from conformance.judge.verdict import reference_outcome
        >>> Finding(sig, case, reference_outcome(case), {})._broken_rule()
        'batch_dims (1) must be less than or equal to axis (0)'
        """
        ref = self.reference
        message = (ref.message or "") if ref.kind is Kind.ERROR and ref.rule is not None else ""
        head, _, rest = message.partition(": ")
        return rest if rest and " " not in head else message

    def _dtypes(self) -> str:
        """The case's dtypes the op's docs do not list: ``uint64 indices``, ``int8 data``, or both.

        >>> sig = Signature("onnx.Gather", "openvino-onnx", "1", "cpu", "fe", "undocumented dtype accepted", "",
        ...     ("undocumented dtype",))
        >>> case = Case("onnx.Gather-1", np.zeros(1, np.float32), np.zeros(1, np.uint64), {"axis": 0})
        >>> Finding(sig, case, Outcome.unsupported(""), {}).title()[-35:]
        'for uint64 indices in onnx.Gather-1'
        """
        status = DtypeStatus.of(self.case)
        data, indices = np.asarray(self.case.data).dtype.name, np.asarray(self.case.indices).dtype.name
        words = ([] if status.data else [f"{data} data"]) + ([] if status.index else [f"{indices} indices"])
        return ", ".join(words) or f"{indices} indices"

    def _foreign_values(self) -> bool:
        """Its value holds numbers neither the data nor the reference's value holds
        (:func:`~conformance.judge.kind.foreign_values`).

        >>> import numpy as np
        >>> sig = Signature("openvino.GatherND", "openvino", "1", "cpu", "opset", "wrong value", "", ("empty",))
        >>> case = Case("openvino.GatherND-8", np.array([[-2.5]], np.float32), np.zeros((2, 0), np.int64))
        >>> ref = Outcome.returned(np.full((2, 1, 1), -2.5, np.float32))
        >>> Finding(sig, case, ref, {"openvino": Outcome.returned(np.array([[[1e-36]], [[-2.5]]], np.float32))}).title()
        'openvino.GatherND on openvino 1 (cpu, opset): wrong value (garbage: values the data does not hold), for data
        (1, 1), indices (2, 0) []'
        """
        return foreign_values(self.signature, self.case, self.reference, self.outcomes.get(self.signature.oracle))

    def _did(self) -> str:
        """What the framework did, in a few words: ``returns None``, ``reads outside its input``, ``returns values
        from an empty input (fills or garbage)``, ``raises IndexError``."""
        got = self.outcomes.get(self.signature.oracle)
        if got is None or got.kind is not Kind.VALUE:
            return f"raises {got.error_type}" if got is not None and got.kind is Kind.ERROR else "answers"
        if got.value is not None and got.value.dtype.kind == "O" and got.value.size == 1 and got.value.item() is None:
            return "returns None"
        if self.signature.policy in STRAY:
            return "reads outside its input"
        if self.from_nothing:
            return "returns values from an empty input (fills or garbage)"
        return "returns a value"

    def __post_init__(self) -> None:
        self.status = FindingStatus(self.status)

    @property
    def kind(self) -> FindingKind:
        """Bug, hazard or question (:func:`~conformance.judge.kind.observed_kind`, on :attr:`basis`)."""
        got = self.outcomes.get(self.signature.oracle)
        return observed_kind(self.signature, self.reference, self.case, got, self.basis)

    @property
    def from_nothing(self) -> bool:
        """Whether its own oracle's value was read from an empty input
        (:func:`~conformance.judge.kind.reads_from_nothing`)."""
        return reads_from_nothing(self.case, self.outcomes.get(self.signature.oracle))

    @property
    def basis(self) -> Ground:
        """The doc sentence, or the silence, the finding rests on (:func:`~conformance.judge.kind.finding_basis`); for
        a dtype misread in range too (:attr:`misread_dtype`), the sentence listing the dtypes, as a requirement."""
        misread = self.misread_dtype
        if misread is not None:
            return dtype_requirement(self.case.op, index=misread is Feature.INDEX_DTYPE)
        departs = self.dtype_no_part
        sig = self.signature if departs is None else replace(self.signature, outcome=Mismatch(departs))
        return finding_basis(sig, self.reference, self.case, self.outcomes.get(self.signature.oracle))

    @property
    def misread_dtype(self) -> Feature | None:
        """The dtype feature (index or data) that alone triggers the finding, where the docs do not list that dtype
        and the same call with its indices in range departs too (the out-of-range indices are no part of it): the
        finding is the dtype accepted and misread, not a bounds check (Paddle's take_along_axis with int8 indices
        [3, 0] reads garbage, and with [0, 0] too: audit of stop 46, 7A n=61 and 6A n=68; also where the in-range
        call departs as another finding does, which made it part of the trigger: audit of stop 48, 10A n=49); None
        otherwise.

        >>> import numpy as np
        >>> sig = Signature("paddle.take_along_axis", "paddle", "3.3.1", "cpu", "dygraph", "value instead of error",
        ...     "garbage", ("bad index",))
        >>> case = Case("paddle.take_along_axis", np.zeros((1, 1, 2)), np.array([3, 0], np.int8), {"axis": 2})
        >>> dtype = Tried("index dtype", "", "int8", "int64", "error IndexError (index out of range)", True, True)
        >>> oob = Tried("out-of-range indices", "", "[3, 0]", "[0, 0]", "value float32[1, 1, 2]", False, False)
        >>> f = Finding(sig, case, Outcome.unsupported(""), {}, tried=[dtype, oob])
        >>> f.misread_dtype, replace(f, tried=[dtype]).misread_dtype
        (<Feature.INDEX_DTYPE: 'index dtype'>, None)
        >>> g = replace(f, tried=[dtype, replace(oob, removes=True)])
        >>> g.misread_dtype, g.title().endswith("(in range too), observed policy garbage, for int8 indices")
        (<Feature.INDEX_DTYPE: 'index dtype'>, True)
        >>> f.title().endswith("undocumented dtype accepted (in range too), observed policy garbage, for int8 indices")
        True
        >>> f.basis.quote[-40:], f.kind.value
        ('Supported data type are int32 and int64.', 'hazard')
        """
        in_range = [t for t in self.tried if Feature(t.feature) is Feature.OUT_OF_RANGE]
        departs = any(not t.conforms for t in in_range)  # in range it still departs, as another finding or not
        features = {Feature(t.feature) for t in self.trigger} - ({Feature.OUT_OF_RANGE} if departs else set())
        if len(features) != 1 or not features <= {Feature.INDEX_DTYPE, Feature.DATA_DTYPE}:
            return None
        (feature,) = features
        status = DtypeStatus.of(self.case)
        documented = status.index if feature is Feature.INDEX_DTYPE else status.data
        return feature if departs and not documented else None

    @property
    def dtype_no_part(self) -> MismatchKind | None:
        """Where the judge named the finding "undocumented dtype accepted" but the same call with the ordinary dtype
        departs the same way and another feature removes it, the dtype plays no part: the outcome the call departs
        as whatever its dtype (a value instead of an error, a wrong value), else None. OpenVINO's ONNX GatherND
        with int8 indices [-128] read stray bytes; int64 [-128] reads the same, and [0] conforms: its missing
        bounds check, not the dtype (audit of stop 48, 10A n=54).

        >>> import numpy as np
        >>> sig = Signature("onnx.GatherND", "openvino-onnx", "1", "cpu", "onnx", "undocumented dtype accepted",
        ...     "fills or garbage", ("undocumented dtype",))
        >>> case = Case("onnx.GatherND-11", np.zeros((1, 1)), np.array([[-128]], np.int8))
        >>> wide = Tried("index dtype", "", "int8", "int64", "value float32[1, 1]", False, False)
        >>> oob = Tried("out-of-range indices", "", "[-128]", "[0]", "value float32[1, 1]", True, True)
        >>> from conformance.core.outcome import ErrorClass
        >>> error = Outcome(Kind.ERROR, error_class=ErrorClass.INDEX_OUT_OF_RANGE)
        >>> f = Finding(sig, case, error, {}, tried=[wide, oob])
        >>> str(f.dtype_no_part), f.title()[46:]
        ('value instead of error', 'value instead of error, observed policy fills or garbage, for indices [-128]')
        """
        if self.signature.outcome.kind is not MismatchKind.UNDOCUMENTED_DTYPE or not self.trigger:
            return None
        dtypes = (Feature.INDEX_DTYPE, Feature.DATA_DTYPE)
        if not any(Feature(t.feature) in dtypes and not t.removes for t in self.tried):
            return None
        errs = self.reference.kind is Kind.ERROR
        return MismatchKind.VALUE_INSTEAD_OF_ERROR if errs else MismatchKind.WRONG_VALUE

    def fact(self) -> Signature:
        """The finding's identity across execution modes (:func:`~conformance.judge.rootcause.fact`)."""
        return rootcause.fact(self.signature, self.framework or self.signature.oracle)

    def mode_signatures(self) -> list[Signature]:
        """The signature in each mode in which the finding shows (its own first).

        >>> import numpy as np
        >>> sig = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "crash", "", ())
        >>> f = Finding(sig, Case("torch.take", np.zeros(1), np.zeros(1, int)), Outcome.unsupported(""), {},
        ...             framework="torch", modes={"torch": "eager", "torch-compile": "compile (inductor)"})
        >>> [(s.oracle, s.mode) for s in f.mode_signatures()]
        [('torch', 'eager'), ('torch-compile', 'compile (inductor)')]
        """
        others = [
            replace(self.signature, oracle=o, mode=m) for o, m in self.modes.items() if o != self.signature.oracle
        ]
        return [self.signature, *others]

    def member_signatures(self) -> list[Signature]:
        """Every root cause the finding stands for: its own in each mode, then those merged by trigger.

        >>> import numpy as np
        >>> sig = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "crash", "", ())
        >>> other = replace(sig, outcome="wrong value")
        >>> f = Finding(sig, Case("torch.take", np.zeros(1), np.zeros(1, int)), Outcome.unsupported(""), {},
        ...             same_trigger=[other])
        >>> [str(s.outcome) for s in f.member_signatures()]
        ['crash', 'wrong value']
        """
        return [*self.mode_signatures(), *self.same_trigger]

    def to_json(self) -> dict[str, Any]:
        skip = ("signature", "case", "reference", "outcomes", "built_from", "tried", "same_trigger")
        d = {k: v for k, v in asdict(self).items() if k not in skip}
        d["built_from"] = [s.to_json() for s in self.built_from]
        d["tried"] = [t.to_json() for t in self.tried]
        d["same_trigger"] = [s.to_json() for s in self.same_trigger]
        d["trigger"] = [t.to_json() for t in self.trigger]
        d["title"] = self.title()
        d["status"] = self.status.value
        d["signature"] = self.signature.to_json()
        d["case"] = self.case.to_json()
        d["reference"] = self.reference.to_json()
        d["outcomes"] = {k: o.to_json() for k, o in self.outcomes.items()}
        d["kind"] = self.kind.value
        d["basis"] = self.basis.to_json()
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Finding:
        d = {k: v for k, v in d.items() if k not in ("kind", "basis", "trigger", "title")}  # derived, never read back
        return cls(
            signature=Signature.from_json(d.pop("signature")),
            case=Case.from_json(d.pop("case")),
            reference=Outcome.from_json(d.pop("reference")),
            outcomes={k: Outcome.from_json(o) for k, o in d.pop("outcomes").items()},
            status=FindingStatus(d.pop("status", FindingStatus.NEW)),
            built_from=[Signature.from_json(s) for s in d.pop("built_from", [])],
            tried=[Tried.from_json(t) for t in d.pop("tried", [])],
            same_trigger=[Signature.from_json(s) for s in d.pop("same_trigger", [])],
            **d,
        )


@dataclass(frozen=True)
class HarnessError:
    """An exception in the suite itself (drawing, translating, the reference,
    judging, shrinking), with the case it happened on: shown in the report and
    failing ``check``, while the campaign goes on.

    >>> HarnessError.from_json(HarnessError("judge", "ValueError: x", {"seed": 1}).to_json()).stage
    'judge'
    """

    stage: str
    error: str
    class_case: Mapping[str, Any] | None = None
    traceback: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "error": self.error,
            "class_case": dict(self.class_case or {}) or None,
            "traceback": self.traceback,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HarnessError:
        return cls(d["stage"], d["error"], d.get("class_case"), d.get("traceback", ""))


def across_modes(findings: list[Finding]) -> list[Finding]:
    """Findings that differ only in the execution mode of one framework as
    one (:meth:`Finding.fact`), in the order of their first member: the modes
    in which it shows listed, each mode's own reproducer kept (from the
    finding seen in that mode), counts and variants added up; the modes that
    conform are those some member saw conform and no member saw show it.

    >>> import numpy as np
    >>> sig = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
    ...     ("bad index",))
    >>> case = Case("torch.take", np.zeros(3), np.array([-1]))
    >>> eager = Finding(sig, case, Outcome.returned(np.zeros(1)), {}, count=2, framework="torch",
    ...                 scripts={"torch": "e"}, conforming_modes={"torch-compile": "compile"})
    >>> compiled = Finding(replace(sig, oracle="torch-compile", mode="compile"), case, Outcome.returned(np.zeros(1)),
    ...                    {}, count=3, framework="torch", scripts={"torch-compile": "c"})
    >>> [(f.count, f.modes, f.scripts, f.conforming_modes) for f in across_modes([eager, compiled])]
    [(5, {'torch': 'eager', 'torch-compile': 'compile'}, {'torch': 'e', 'torch-compile': 'c'}, {})]
    """
    groups: dict[Signature, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.fact(), []).append(f)
    return [_merged(group) for group in groups.values()]


def ranked(findings: list[Finding]) -> list[Finding]:
    """``findings`` as a run lists them: the execution modes of one framework
    merged (:func:`across_modes`), bugs first by severity, then hazards, then questions
    (:func:`~conformance.judge.kind.rank`; then :func:`~conformance.judge.cost.user_cost`; stable: first seen first).

    >>> import numpy as np
    >>> crash = Signature("torch.take", "torch", "2.13.0", "cpu", "eager", "crash", None, ())
    >>> case = Case("torch.take", np.zeros(3), np.array([0]))
    >>> found = [Finding(crash, case, Outcome.returned(np.zeros(1)), {}),
    ...          Finding(replace(crash, outcome="wrong value"), case, Outcome.returned(np.ones(1)), {})]
    >>> [str(f.signature.outcome) for f in ranked(found)]
    ['wrong value', 'crash']
    """
    return by_trigger(sorted(across_modes(findings), key=lambda f: (rank(f.signature, f.kind), user_cost(f.signature))))


def trigger_key(f: Finding) -> tuple[Any, ...] | None:
    """What makes two findings one fact by trigger: the framework, version, device, op family and the proven
    trigger's features with the values that show them (out-of-range indices: with the kind of outcome they show,
    whatever the values and the policy word: XLA's ``[-1]`` read as ``x[0]``, its ``[3]`` read as ``x[2]`` and its
    ``[7]`` on an empty output are one missing bounds check, where a crash is another); None where no trigger is
    proven."""
    if not f.trigger:
        return None
    sig = f.signature
    behaviour = str(sig.outcome.kind)
    features = tuple(
        sorted(
            (str(t.feature), t.detail, behaviour if t.feature is Feature.OUT_OF_RANGE else t.shows) for t in f.trigger
        )
    )
    return (f.framework or sig.oracle, sig.version, sig.device, sig.op, features)


def by_trigger(findings: list[Finding]) -> list[Finding]:
    """Findings with one proven trigger (:func:`trigger_key`) as one: the first (in the given order, the worst) shows
    it, the others' root causes listed in ``same_trigger`` (with their modes), counts and variants added up.

    >>> import numpy as np
    >>> sig = Signature("paddle.take_along_axis", "paddle", "3.3.1", "cpu", "dygraph", "wrong value", "garbage",
    ...     ("in-range",))
    >>> int8 = [Tried("index dtype", "", "int8", "int64", "value", True, True)]
    >>> case = Case("paddle.take_along_axis", np.zeros(3), np.zeros(1, np.int8))
    >>> a = Finding(sig, case, Outcome.unsupported(""), {}, count=2, framework="paddle", tried=int8)
    >>> b = replace(a, signature=replace(sig, outcome="value instead of error", condition=("bad index",)), count=3)
    >>> [(f.count, [str(s.outcome) for s in f.same_trigger]) for f in by_trigger([a, b])]
    [(5, ['value instead of error'])]
    """
    groups: dict[Any, list[Finding]] = {}
    for i, f in enumerate(findings):
        groups.setdefault(trigger_key(f) or i, []).append(f)
    out = []
    for group in groups.values():
        first, rest = group[0], group[1:]
        if not rest:
            out.append(first)
            continue
        members = [*first.same_trigger, *(s for f in rest for s in f.member_signatures())]
        out.append(
            replace(
                first,
                count=sum(f.count for f in group),
                variants=_added_variants(group),
                same_trigger=list(dict.fromkeys(members)),
                built_from=list(dict.fromkeys([*first.built_from, *(s for f in rest for s in f.built_from)])),
            )
        )
    return out


def _merged(group: list[Finding]) -> Finding:
    # the default mode ('jax' before 'jax-default'), whatever came first
    first = min(group, key=lambda f: f.signature.oracle)
    modes: dict[str, str] = {}
    scripts = dict(first.scripts)
    upstream = dict(first.upstream_scripts)
    for f in group:
        modes |= f.modes or {f.signature.oracle: f.signature.mode}
        own = f.modes or {f.signature.oracle: ""}
        scripts |= {o: text for o, text in f.scripts.items() if o in own}
        upstream |= {o: text for o, text in f.upstream_scripts.items() if o in own}
    conforming = {o: m for f in group for o, m in f.conforming_modes.items() if o not in modes}
    return replace(
        first,
        count=sum(f.count for f in group),
        first_seen_s=min(f.first_seen_s for f in group),
        scripts=scripts,
        upstream_scripts=upstream,
        variants=_added_variants(group),
        framework=first.framework or first.signature.oracle,
        modes=dict(sorted(modes.items())),
        conforming_modes=dict(sorted(conforming.items())),
        built_from=list(dict.fromkeys(s for f in group for s in f.built_from)),
        onnx_model_b64=first.onnx_model_b64 or next((f.onnx_model_b64 for f in group if f.onnx_model_b64), None),
    )


def _added_variants(group: list[Finding]) -> dict[str, dict[str, int]]:
    """The variants of findings merged into one: each value's counts added up."""
    variants: dict[str, dict[str, int]] = {}
    for f in group:
        for kind, counts in f.variants.items():
            into = variants.setdefault(kind, {})
            for value, n in counts.items():
                into[value] = into.get(value, 0) + n
    return variants
