"""Findings ready to file upstream: one Markdown issue text per finding (issue 22).

Each text is written to ``upstream/<finding>.md`` in the report folder and sits
behind a copy button on the finding's card. It says, in the framework's own
terms: a title (the call, what it did, for which input), the versions and the
platform, a script a maintainer reads in one glance (issue 39: the framework
call on literal arrays in a few lines, at most 30, importing only the framework
and NumPy, ``ml_dtypes`` only where the data are bfloat16; it prints what the
docs ask for, then what the call gave: :mod:`conformance.execution.glance`),
the doc sentence the behaviour departs from (:mod:`conformance.spec.basis`),
the expected and observed outcomes, and one line on what the other frameworks
do on the same atlas condition (or, without an atlas, the finding's other
oracles). A finding without a short script (a file written before them, an
oracle that writes none) shows its full reproducer, which prints
``REPRODUCED`` and exits 1 while the behaviour lasts.

>>> import numpy as np
>>> from conformance.core.case import Case
>>> from conformance.core.outcome import ErrorClass, Outcome
>>> from conformance.judge.signature import Signature
>>> sig = Signature("torch.gather", "torch", "2.13.0", "cpu", "eager", "value instead of error", "wraps",
...     ("bad index",))
>>> f = Finding(sig, Case("torch.gather", np.arange(3.0), np.array([3]), {"dim": 0}),
...     Outcome.raised(IndexError("out of range"), ErrorClass.INDEX_OUT_OF_RANGE),
...             {"torch": Outcome.returned(np.array([0.0]))}, scripts={"torch": "import torch\\n"},
...             upstream_scripts={"torch": "import numpy as np\\nimport torch\\n"})
>>> text = issue_text(f, {"versions": {"torch": "2.13.0"}, "platform": "Linux", "python": "3.11.7"})
>>> print(text.splitlines()[0])
# `torch.gather(data, indices, dim=0)` returns a value instead of an error (it wraps) for data (3,), indices (1,) [3],
dim=0
>>> print(text.split("## Reproduce", 1)[1].split("## What", 1)[0].strip())
Save as `repro.py` and run `python repro.py` (it needs only torch and NumPy): it prints what the docs ask for, then
what the call gives.
<BLANKLINE>
```python
import numpy as np
import torch
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from conformance.core.outcome import Kind, Outcome
from conformance.core.vocabulary import BasisStatus, MismatchKind
from conformance.report.atlas_match import AtlasLinks
from conformance.report.views import file_safe
from conformance.results.finding import Finding
from conformance.spec.basis import Basis
from conformance.spec.catalog import spec

UPSTREAM_DIR = "upstream"


def upstream_path(anchor: str) -> str:
    """Where a finding's issue text goes in the report folder: ``upstream/f-1.md``."""
    return f"{UPSTREAM_DIR}/{file_safe(anchor)}.md"


def _call(finding: Finding) -> str:
    """The call as the reproducer writes it (its ``data`` and ``indices``), attributes included."""
    op = finding.case.op
    args = "".join(f", {k}={v!r}" for k, v in finding.case.attrs.items())
    return f"{op}(data, indices{args})"


def _outcome_words(o: Outcome | None) -> str:
    if o is None:
        return "nothing (not run)"
    if o.kind is Kind.VALUE and o.value is not None:
        return f"`{np.asarray(o.value).tolist()!r}` ({o.describe()})"
    message = f": `{o.message}`" if o.message else ""
    return f"{o.describe()}{message}"


def _how_to_run(finding: Finding, framework: str, short: bool) -> str:
    """The sentence before the script: how to run it and what it shows."""
    if not short:
        return (
            "Save as `repro.py` and run `python repro.py`: it prints REPRODUCED and exits 1 while the behaviour lasts."
        )
    needs = "NumPy" if framework == "numpy" else f"{framework} and NumPy"
    line = (
        f"Save as `repro.py` and run `python repro.py` (it needs only {needs}): it prints what the docs ask for, "
        "then what the call gives."
    )
    observed = finding.outcomes.get(finding.signature.oracle)
    if observed is None:
        return line
    if observed.kind is Kind.ERROR:
        line += " Here the call raises: its error is the observed outcome."
    elif observed.kind is Kind.CRASH:
        line += f" Here the call kills the process ({' '.join(observed.describe().split())})."
    elif observed.kind is Kind.TIMEOUT:
        line += " Here the call does not return."
    return line


def _title(finding: Finding) -> str:
    """The call, what it did and what triggers it (the proven trigger, else the finding's condition)."""
    sig = finding.signature
    what = {"value instead of error": "returns a value instead of an error"}.get(str(sig.outcome), str(sig.outcome))
    if sig.outcome.kind is MismatchKind.SPEC_SILENT:
        what = "returns" if finding.outcomes.get(sig.oracle, Outcome(Kind.VALUE)).kind is Kind.VALUE else "answers"
    policy = f" (it {sig.policy.value})" if sig.policy else ""
    return f"`{_call(finding)}` {what}{policy} for {finding.trigger_words()}"


def _trigger_lines(finding: Finding) -> list[str]:
    """The pairs that prove the trigger: each feature as it shows the behaviour, and the outcome without it."""
    if not finding.trigger:
        return []
    lines = ["What triggers it (each changed alone to its ordinary value, the call no longer shows it):", ""]
    lines += [f"- {t.name()}: the same call with {t.ordinary} gives {t.outcome}" for t in finding.trigger]
    return [*lines, ""]


def _basis_lines(finding: Finding) -> list[str]:
    """The doc sentence the finding rests on and its status, or the docs' silence."""
    try:
        doc = spec(finding.case.op).doc
    except ValueError:
        return ["The op is not in the catalog: no doc sentence."]
    ground = finding.basis
    kind = f"This is a {finding.kind.value}: {finding.kind.meaning}."
    if isinstance(ground, Basis):
        required = ground.status is BasisStatus.SILENT
        said = "a requirement; the docs do not say that breaking it is an error" if required else ""
        return [f"> {ground.quote}", "", f"— {ground.url} ({said or ground.status.value})", "", kind]
    return [f"The docs are silent here ({doc}): {ground.reason}.", "", kind]


def others_line(finding: Finding, links: AtlasLinks | None = None) -> str:
    """What the other frameworks do on the atlas condition this finding shows in (the first atlas
    cell that links to it), else what the finding's other oracles did on its own input."""
    mine = links.first_cell(finding) if links is not None else None
    if links is not None and mine is not None:
        oracle = finding.signature.oracle
        others = sorted(f"{c.op} on {c.oracle}: {c.behaviour.value}" for c in links.alike(mine) if c.oracle != oracle)
        if others:
            where = f"`{mine.condition}`, {mine.eq_class}"
            return f"Other frameworks on the same condition ({where}): " + "; ".join(others) + "."
    rest = sorted(f"{name}: {o.describe()}" for name, o in finding.outcomes.items() if name != finding.signature.oracle)
    return "Other oracles on the same input: " + ("; ".join(rest) if rest else "none ran it") + "."


def _framework(facts: Mapping[str, Any], oracle: str) -> str:
    """The framework an oracle runs, from the run's facts (oracle facts by name, or a list of them)."""
    oracles = facts.get("oracles", {})
    if isinstance(oracles, Mapping):
        row = oracles.get(oracle, {})
    else:
        row = next((r for r in oracles if isinstance(r, Mapping) and r.get("name") == oracle), {})
    return str(row.get("framework", oracle.split("-")[0]))


def issue_text(finding: Finding, facts: Mapping[str, Any], links: AtlasLinks | None = None) -> str:
    """The Markdown issue text of one finding (see the module docstring); ``links``: the run's
    atlas, for what the other frameworks do on the same condition."""
    sig = finding.signature
    versions = facts.get("versions", {})
    framework = _framework(facts, sig.oracle)
    short = finding.upstream_scripts.get(sig.oracle)
    script = short or finding.scripts.get(sig.oracle, "# no standalone script for this finding")
    observed = finding.outcomes.get(sig.oracle)
    lines = [
        f"# {_title(finding)}",
        "",
        "## Environment",
        "",
        f"- {framework} {versions.get(framework, sig.version)} ({sig.device}, {sig.mode})",
        f"- NumPy {versions.get('numpy', np.__version__)}",
        f"- Python {facts.get('python', '?')} on {facts.get('platform', '?')}",
        "",
        "## Reproduce",
        "",
        _how_to_run(finding, framework, bool(short)),
        "",
        "```python",
        script.rstrip("\n"),
        "```",
        "",
        *_trigger_lines(finding),
        "## What the docs say",
        "",
        *_basis_lines(finding),
        "",
        "## Expected and observed",
        "",
        f"- expected (the docs): {_outcome_words(finding.reference)}",
        f"- observed ({sig.oracle} {sig.version}): {_outcome_words(observed)}",
        "",
        others_line(finding, links),
        "",
    ]
    return "\n".join(lines)
