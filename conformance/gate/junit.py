"""JUnit XML for CI systems: one test case per finding (a new one fails) and
one per baseline entry (its reproducers replayed: fixed upstream or changed
fails; one for an oracle or version not here is skipped).

>>> from conformance.results.run_result import RunResult
>>> xml = junit_xml(RunResult({}, 0, {}, {}, 1.0, {}, []), [], [])
>>> xml.startswith("<?xml") and 'tests="0"' in xml
True
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from conformance.core.vocabulary import GateFailure, GateProblem, ReplayStatus
from conformance.gate.baseline import Entry, accepting
from conformance.results.run_result import RunResult


def junit_xml(result: RunResult, entries: Sequence[Entry], problems: Sequence[GateProblem]) -> str:
    """The XML document (see the module docstring)."""
    suite = ET.Element("testsuite", name="gather-conformance", time=f"{result.seconds:.3f}")
    failures = skipped = 0
    for f in result.findings:
        case = ET.SubElement(suite, "testcase", classname=f"finding.{f.signature.oracle}", name=f.signature.words())
        if accepting(f, list(entries)) is None:
            ET.SubElement(case, "failure", message="new behaviour, not in the baseline").text = f.signature.key()
            failures += 1
    replayed = {r["entry"]: r for r in result.replay}
    for n, e in enumerate(entries, start=1):
        case = ET.SubElement(suite, "testcase", classname="baseline", name=f"entry {n}: {e.describe()}")
        r = replayed.get(e.describe(), {"status": ReplayStatus.SKIPPED, "detail": "not replayed in this run"})
        status = ReplayStatus(r["status"])
        if status is ReplayStatus.SKIPPED:
            ET.SubElement(case, "skipped", message=r["detail"])
            skipped += 1
        elif status.fails:
            ET.SubElement(case, "failure", message=f"{status}: {r['detail']}").text = e.note
            failures += 1
    for p in problems:
        if p.kind in (GateFailure.HARNESS_ERROR, GateFailure.NOTHING_TESTED):
            case = ET.SubElement(suite, "testcase", classname="harness", name=str(p)[:120])
            ET.SubElement(case, "failure", message=str(p))
            failures += 1
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode")
