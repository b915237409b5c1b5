"""What a user asks an upgrade study for: one framework at two or more
versions, in upgrade order (``onnxruntime==1.30.0 onnxruntime==1.31.1``; a bare
version after the first repeats its framework: ``onnxruntime==1.30.0 1.31.1``).

>>> [r.requirement for r in parse_requests(["onnxruntime==1.30.0", "1.31.1", "onnxruntime~=1.32.0", "1.33.*"])]
['onnxruntime==1.30.0', 'onnxruntime==1.31.1', 'onnxruntime~=1.32.0', 'onnxruntime==1.33.*']
>>> parse_requests(["numpy==2.3.5", "torch==2.13.0"])
Traceback (most recent call last):
...
conformance.upgrade.request.RequestError: versions: all must name one framework, got numpy and torch
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

MIN_VERSIONS = 2
"""An upgrade has a before and an after."""


class RequestError(ValueError):
    """A version list the study cannot run (the CLI makes it a usage error)."""


@dataclass(frozen=True)
class Request:
    """One requested version: a framework (its distribution name, normalized)
    and a PEP 440 specifier (``==1.32.0``, ``==2.3.*``, ``~=0.9.0``)."""

    framework: str
    specifier: str

    @property
    def requirement(self) -> str:
        """What the installer is asked for.

        >>> Request("onnxruntime", "==1.32.0").requirement
        'onnxruntime==1.32.0'
        """
        return f"{self.framework}{self.specifier}"

    @property
    def label(self) -> str:
        """A short name, safe as a folder name: the version for ``==X``, else the specifier.

        >>> Request("numpy", "==2.4.6").label, Request("numpy", "==2.3.*").label, Request("jax", ">=0.9,<0.10").label
        ('2.4.6', '2.3.x', 'ge0.9_lt0.10')
        """
        spec = self.specifier
        if spec.startswith("==") and "," not in spec:
            return spec[2:].replace("*", "x")
        words = {">=": "ge", "<=": "le", "~=": "compat", "!=": "ne", "==": "eq", ">": "gt", "<": "lt"}
        parts = []
        for part in spec.split(","):
            op = next(o for o in (">=", "<=", "~=", "!=", "==", ">", "<", "") if part.startswith(o))
            parts.append(words.get(op, "") + part[len(op) :].replace("*", "x"))
        return re.sub(r"[^A-Za-z0-9._-]+", "_", "_".join(parts))


def _parse_one(text: str, framework: str | None) -> Request:
    """One argument: ``NAME<specifier>``, or a bare version (or specifier) of ``framework``."""
    bare = text.strip()
    if framework is not None and bare and (bare[0].isdigit() or bare[0] in "=<>~!"):
        try:
            return Request(framework, str(SpecifierSet(f"=={bare}" if bare[0].isdigit() else bare)))
        except InvalidSpecifier:
            raise RequestError(f"versions: {text!r} is not a version of {framework} (e.g. 1.32.0)") from None
    try:
        req = Requirement(bare)
    except InvalidRequirement:
        raise RequestError(f"versions: {text!r} is not FRAMEWORK==VERSION (e.g. onnxruntime==1.32.0)") from None
    if req.extras or req.marker or req.url:
        raise RequestError(f"versions: {text!r}: give a framework and a version only (no extras, markers or URLs)")
    if not str(req.specifier):
        raise RequestError(f"versions: {text!r} names no version (write {req.name}==VERSION)")
    return Request(canonicalize_name(req.name), str(req.specifier))


def parse_requests(texts: Sequence[str]) -> list[Request]:
    """The requested versions, checked: at least :data:`MIN_VERSIONS`, one
    framework, none twice; a :class:`RequestError` naming the rule otherwise.

    >>> parse_requests(["onnxruntime==1.31.1"])
    Traceback (most recent call last):
    ...
    conformance.upgrade.request.RequestError: versions: give at least 2 versions to compare
    (e.g. onnxruntime==1.31.1 onnxruntime==1.32.0), got 1
    >>> parse_requests(["jax==0.9.0", "1.0.0", "jax==0.9.0"])
    Traceback (most recent call last):
    ...
    conformance.upgrade.request.RequestError: versions: jax==0.9.0 is given twice
    """
    requests: list[Request] = []
    for text in texts:
        requests.append(_parse_one(text, requests[0].framework if requests else None))
    if len(requests) < MIN_VERSIONS:
        raise RequestError(
            f"versions: give at least {MIN_VERSIONS} versions to compare "
            f"(e.g. onnxruntime==1.31.1 onnxruntime==1.32.0), got {len(requests)}"
        )
    frameworks = list(dict.fromkeys(r.framework for r in requests))
    if len(frameworks) > 1:
        raise RequestError(f"versions: all must name one framework, got {' and '.join(frameworks)}")
    seen: set[str] = set()
    for r in requests:
        if r.label in seen:
            raise RequestError(f"versions: {r.requirement} is given twice")
        seen.add(r.label)
    return requests
