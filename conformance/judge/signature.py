"""A root cause's identity: what makes two discrepancies the same one (the
rule that builds it is :mod:`conformance.judge.rootcause`).

>>> sig = Signature("numpy.take", "numpy", "2.4.6", "cpu", "eager", "value", "clip", ("oob-below", "int64"))
>>> sig.key()
'numpy.take|numpy|2.4.6|cpu|eager|value|clip|int64,oob-below'
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Signature:
    """What makes two discrepancies the same one: a root cause (the rule is
    :mod:`conformance.judge.rootcause`). ``op`` is the op family (ONNX opsets
    merged), ``tags`` the condition that triggers it."""

    op: str
    oracle: str
    version: str
    device: str
    mode: str
    outcome: str  # Kind value of the oracle's outcome, or a mismatch class
    policy: str  # observed policy (Behaviour value), or "" if not a policy question
    tags: tuple[str, ...]

    def key(self) -> str:
        """A stable string for anchors and JSON (tags sorted); never parsed back."""
        return "|".join(
            [
                self.op,
                self.oracle,
                self.version,
                self.device,
                self.mode,
                self.outcome,
                self.policy,
                ",".join(sorted(self.tags)),
            ]
        )

    def words(self) -> str:
        """The signature as a sentence for the report.

        >>> Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "error", "raises", ("negative",)).words()
        'torch.gather on torch 2.13.0 (cpu, eager): error, observed policy raises, for negative'
        """
        pol = f", observed policy {self.policy}" if self.policy else ""
        cond = f", for {', '.join(sorted(self.tags))}" if self.tags else ""
        return f"{self.op} on {self.oracle} {self.version} ({self.device}, {self.mode}): {self.outcome}{pol}{cond}"

    def across_versions(self) -> Signature:
        """The same behaviour at any version: what stays equal across an upgrade.

        >>> Signature("t.g", "t", "2.13.0", "cpu", "eager", "error", "", ()).across_versions().version
        ''
        """
        return replace(self, version="")
