"""A root cause's identity: what makes two discrepancies the same one (the
rule that builds it is :mod:`conformance.judge.rootcause`): the oracle
(framework, version, device, mode), the op family, what happened (a
:class:`~conformance.core.vocabulary.Mismatch` and the observed
:class:`~conformance.core.behaviour.Behaviour`, if one is named) and the
:class:`~conformance.core.vocabulary.Condition` that triggers it. Words given
for the last three are parsed here, once; JSON keeps the words.

>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "wrong value", "clamps (raw)", ("oob-below",))
>>> sig.key()
'numpy.take|numpy|2.4.6|cpu|eager|wrong value|clamps (raw)|oob-below'
>>> sig.condition.kind, sig.policy
(<ConditionKind.REGIME: 'regime'>, <Behaviour.CLAMPS_RAW: 'clamps (raw)'>)
>>> Signature.from_json(sig.to_json()) == sig
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from conformance.core.behaviour import Behaviour
from conformance.core.vocabulary import Condition, Mismatch


@dataclass(frozen=True)
class Signature:
    """What makes two discrepancies the same one (see the module docstring).
    ``op`` is the op family (ONNX opsets merged); ``policy`` the observed
    behaviour where the index policy is the question (None otherwise)."""

    op: str
    oracle: str
    version: str
    device: str
    mode: str
    outcome: Mismatch
    policy: Behaviour | None
    condition: Condition

    def __post_init__(self) -> None:
        """Words become vocabulary members: ``"wrong value"``, ``"wraps"`` (``""``: None), ``("bad index",)``."""
        if not isinstance(self.outcome, Mismatch):
            object.__setattr__(self, "outcome", Mismatch.parse(str(self.outcome)))
        if not isinstance(self.policy, Behaviour):
            object.__setattr__(self, "policy", Behaviour(self.policy) if self.policy else None)
        if not isinstance(self.condition, Condition):
            words: Iterable[str] = self.condition
            object.__setattr__(self, "condition", Condition.parse(words))

    @property
    def tags(self) -> tuple[str, ...]:
        """The condition as words (what JSON holds and baseline entries match)."""
        return self.condition.words()

    def key(self) -> str:
        """A stable string for anchors and JSON (tags sorted); never parsed back."""
        policy = self.policy.value if self.policy else ""
        parts = [self.op, self.oracle, self.version, self.device, self.mode, str(self.outcome), policy]
        return "|".join([*parts, ",".join(sorted(self.tags))])

    def words(self, trigger: str = "", outcome: str = "") -> str:
        """The signature as a sentence for the report; ``trigger``, where given, names what it is for in place of
        the condition (a finding's proven trigger), and ``outcome`` what happened in place of the judge's word
        (``undefined by the docs`` for a finding where the docs are not silent but permissive).

        >>> sig = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "wrong error", "raises", ("negative",))
        >>> sig.words()
        'torch.gather on torch 2.13.0 (cpu, eager): wrong error, observed policy raises, for negative'
        >>> sig.words("int8 indices")
        'torch.gather on torch 2.13.0 (cpu, eager): wrong error, observed policy raises, for int8 indices'
        """
        pol = f", observed policy {self.policy.value}" if self.policy else ""
        named = trigger or ", ".join(sorted(self.tags))
        cond = f", for {named}" if named else ""
        what = outcome or str(self.outcome)
        return f"{self.op} on {self.oracle} {self.version} ({self.device}, {self.mode}): {what}{pol}{cond}"

    def shows_behaviour_of(self, root: Signature) -> bool:
        """Whether this departure shows ``root``'s behaviour, whatever else departs: the policy word where ``root``
        names one (a stray read is a stray read, with the dtype refused or not), else the same outcome with no policy
        word (an index read under some policy is another departure).

        >>> root = Signature("onnx.GatherND", "ov", "1", "cpu", "onnx", "undocumented dtype accepted",
        ...     "fills or garbage", ("undocumented dtype",))
        >>> replace(root, outcome="value instead of error", condition=("bad index",)).shows_behaviour_of(root)
        True
        >>> replace(root, policy=None).shows_behaviour_of(root)
        False
        """
        if root.policy is not None:
            return self.policy is root.policy
        return self.policy is None and self.outcome.kind is root.outcome.kind

    def across_versions(self) -> Signature:
        """The same behaviour at any version: what stays equal across an upgrade.

        >>> Signature("t.g", "t", "2.13.0", "cpu", "eager", "crash", "", ()).across_versions().version
        ''
        """
        return replace(self, version="")

    def to_json(self) -> dict[str, Any]:
        """Its fields as words (``tags`` for the condition), with its :meth:`key`."""
        return {
            "op": self.op,
            "oracle": self.oracle,
            "version": self.version,
            "device": self.device,
            "mode": self.mode,
            "outcome": str(self.outcome),
            "policy": self.policy.value if self.policy else "",
            "tags": list(self.tags),
            "key": self.key(),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Signature:
        """The signature ``d`` describes (its words parsed; ``key`` ignored)."""
        policy = Behaviour(d["policy"]) if d["policy"] else None
        outcome, condition = Mismatch.parse(d["outcome"]), Condition.parse(d["tags"])
        return cls(d["op"], d["oracle"], d["version"], d["device"], d["mode"], outcome, policy, condition)
