"""What a campaign is asked to do (:class:`Settings`) and where it reports
progress (:class:`Progress`); shared by the campaign, the finding builder and
the commands.

>>> Settings(max_examples=5).per_class(), Settings(budget_s=30).per_class()
(5, 1000000)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from conformance.campaign.shrinker import SHRINK_EVALS

DEFAULT_EXAMPLES = 60
"""Examples per equivalence class of the default campaign (seed 0)."""
MAX_SHRINK_S = 180.0
"""With no budget, shrinking still ends this many seconds after drawing (then
findings keep their first example): no seed can make a run shrink for ever."""
PROBE_TIMEOUT_S = 5.0
"""Per-case time limit of the probe atlas (a few probes hang some frameworks for good)."""
DRAW_SHARE, SHRINK_SHARE = 0.6, 0.22
"""Of a time budget: drawing gets the first 60% (the oracles' start-up
included), shrinking the next 22%; past that, findings keep their first
example, and the rest is for writing the report."""


@dataclass(frozen=True)
class Settings:
    """What a campaign draws and how long it may take.

    ``max_examples`` is per equivalence class (default :data:`DEFAULT_EXAMPLES`
    when there is no ``budget_s``); ``budget_s`` bounds the whole run;
    ``shard = (i, n)`` judges only the drawn cases ``k`` with ``k % n == i``
    (every shard draws the same stream). ``atlas`` runs the probe atlas first
    (:mod:`conformance.results.atlas`; the commands always do, on isolated oracles: some
    probes hang frameworks, and only an isolated oracle has a time limit).
    """

    seed: int | None = 0
    max_examples: int | None = None
    budget_s: float | None = None
    ops: tuple[str, ...] | None = None
    shard: tuple[int, int] = (0, 1)
    shrink_evals: int = SHRINK_EVALS
    atlas: bool = False
    probe_timeout: float = PROBE_TIMEOUT_S

    def per_class(self) -> int:
        if self.max_examples is not None:
            return self.max_examples
        return DEFAULT_EXAMPLES if self.budget_s is None else 10**6

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "ops": list(self.ops) if self.ops else None,
            "shard": list(self.shard),
            "max_examples_per_class": self.per_class(),
        }


class Progress(Protocol):
    """Where the campaign says how it is doing (the console implements it)."""

    def phase(self, name: str, total: int | None) -> None: ...

    def advance(self, *, findings: int) -> None: ...
