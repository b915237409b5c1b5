"""``gather-conformance baseline rekey`` (issue 21): every entry's reproducers
replayed under the current root-cause rule and the baseline rewritten, notes,
links and at-fault kept, with the entries kept, re-keyed, merged, split and
not reproducing listed."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from conformance.cli.main import main
from conformance.core.behaviour import Behaviour
from conformance.core.case import Case, CaseTags
from conformance.core.oracle import Capabilities, OracleInfo
from conformance.core.outcome import Outcome
from conformance.gate import baseline as bl
from conformance.gate.rekey import rekey

RAISE = {"axis": 0, "mode": "raise"}
BAD = Case("numpy.take", np.arange(5), np.array([7]), RAISE, CaseTags("oob-above", "int64", "int"))
ZERO_D = Case("numpy.take", np.array(3.0), np.array([0]), RAISE, CaseTags("in-range", "int64", "float"))
GOOD = Case("numpy.take", np.arange(5), np.array([2]), RAISE, CaseTags("in-range", "int64", "int"))


class Clip:
    """numpy.take clamping where its docs say raise (clamps), in mode ``mode``."""

    capabilities = Capabilities()

    def __init__(self, name: str, mode: str) -> None:
        self.name, self.mode = name, mode

    def info(self) -> OracleInfo:
        return OracleInfo(self.name, "clipper", "1.0", "cpu", self.mode, ("numpy.take",))

    def run_many(self, cases, *, timeout=None):
        return [Outcome.returned(np.take(c.data, c.indices, axis=0, mode="clip")) for c in cases]


def _entry(oracle: str, mode: str, *cases: Case, **fields: object) -> bl.Entry:
    words = {"outcome": "value instead of error", "policy": "clamps", "condition": ("bad index",)} | fields
    return bl.Entry(
        op="numpy.take",
        oracle=oracle,
        mode=mode,
        versions=">=1",
        note=str(words.pop("note", f"note of {oracle} {words['policy']}")),
        link=f"https://example.org/{oracle}",
        at_fault="framework",
        reproducers=tuple(c.to_json() for c in cases),
        **words,  # type: ignore[arg-type]
    )


def test_each_entry_lands_in_one_list_and_keeps_its_note_link_and_at_fault() -> None:
    entries = [
        _entry("clip", "eager", BAD),  # kept
        _entry("clip", "eager", ZERO_D, note="0-d"),  # the rule now names it a broken precondition: re-keyed
        _entry("clip", "eager", GOOD),  # conforms now: not reproducing
        _entry("absent", "eager", BAD),  # no such oracle here: not run
    ]
    out = rekey(entries, [Clip("clip", "eager")])
    assert out.counts() == {"kept": 1, "rekeyed": 1, "merged": 0, "split": 0, "not reproducing": 1, "not run": 1}
    assert out.entries[0] == entries[0]
    again = out.entries[1]
    assert (again.policy, again.condition) == ("", ("precondition: 0-d input",))
    assert (again.note, again.link, again.at_fault) == ("0-d", "https://example.org/clip", "framework")
    assert out.entries[2:] == entries[2:]  # kept unchanged: replay says fixed, a person removes it


def test_modes_of_one_fact_merge_and_an_entry_showing_two_facts_splits() -> None:
    merged = rekey(
        [_entry("clip", "eager", BAD), _entry("clip-jit", "jit", BAD)], [Clip("clip", "eager"), Clip("clip-jit", "jit")]
    )
    assert merged.counts()["merged"] == 2 and len(merged.entries) == 1
    one = merged.entries[0]
    assert (one.oracle, one.oracles, one.mode) == ("clip", ("clip-jit",), "*")
    assert one.note == "note of clip clamps / note of clip-jit clamps"
    split = rekey([_entry("clip", "eager", BAD, ZERO_D)], [Clip("clip", "eager")])
    assert split.counts()["split"] == 1 and len(split.entries) == 2
    assert sorted(e.condition for e in split.entries) == [("bad index",), ("precondition: 0-d input",)]
    assert all(len(e.reproducers) == 1 and e.note == "note of clip clamps" for e in split.entries)


def test_the_rekeyed_baseline_accepts_what_its_reproducers_show_and_validates() -> None:
    entries = [_entry("clip", "eager", BAD), _entry("clip-jit", "jit", BAD, policy="wraps")]
    out = rekey(entries, [Clip("clip", "eager"), Clip("clip-jit", "jit")])
    from conformance.gate.rekey import document

    doc = json.loads(document(out, "about"))
    assert doc["format"] == bl.BASELINE_FORMAT and not bl.validate(doc)
    from conformance.gate.replay import replay

    assert [str(r.status) for r in replay(out.entries, [Clip("clip", "eager"), Clip("clip-jit", "jit")])] == [
        "reproduces"
    ]


def test_the_cli_rekeys_a_small_baseline_on_the_real_numpy_oracle(tmp_path, capsys) -> None:
    packaged = [e for e in bl.load() if e.oracle == "numpy" and e.outcome == "value instead of error"][:2]
    assert len(packaged) == 2
    kept, fixed = packaged[0], replace(packaged[0], reproducers=(GOOD.to_json(),), note="fixed upstream")
    stale = replace(packaged[1], policy="clamps", note="stale key")
    source = tmp_path / "baseline.json"
    source.write_text(json.dumps({"format": 2, "about": "a", "entries": [e.to_json() for e in (kept, fixed, stale)]}))
    out = tmp_path / "rekeyed.json"
    code = main(["baseline", "rekey", str(source), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "3 entries -> 3: 1 kept, 1 rekeyed, 0 merged, 0 split, 1 not reproducing, 0 not run" in text, text
    assert "not reproducing (1):" in text and "rekeyed (1):" in text
    written = bl.load(out)
    assert written[:2] == [kept, fixed]
    assert written[2] == replace(stale, policy=packaged[1].policy)  # note, link, at-fault kept
    assert json.loads(source.read_text())["format"] == 2  # --out: the source is left as it was


def test_the_cli_refuses_a_baseline_that_is_not_valid(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 3, "entries": [{}]}))
    assert main(["baseline", "rekey", str(bad)]) == 2
    text = capsys.readouterr()
    assert "entry 1: missing op" in text.out + text.err and "Traceback" not in text.out + text.err


def test_an_entry_whose_patterns_still_name_all_it_shows_keeps_them_across_modes() -> None:
    wide = {"policy": "*", "condition": ("*",)}
    kept = rekey([_entry("clip", "eager", BAD, ZERO_D, **wide)], [Clip("clip", "eager")])
    assert kept.counts()["kept"] == 1 and kept.entries == [_entry("clip", "eager", BAD, ZERO_D, **wide)]
    both = [_entry("clip", "eager", BAD, ZERO_D, **wide), _entry("clip-jit", "jit", BAD, ZERO_D, **wide)]
    merged = rekey(both, [Clip("clip", "eager"), Clip("clip-jit", "jit")])
    assert merged.counts()["merged"] == 2
    assert [(e.oracle, e.oracles, e.mode, e.policy, e.condition) for e in merged.entries] == [
        ("clip", ("clip-jit",), "*", "*", ("*",))
    ]


class Slow(Clip):
    """An oracle that met its time limit on every case (a loaded machine)."""

    def run_many(self, cases, *, timeout=None):
        return [Outcome.timed_out(1.0) for _ in cases]


def test_a_time_limit_met_on_a_loaded_machine_never_rekeys_an_entry() -> None:
    entry = _entry("clip", "eager", BAD)
    out = rekey([entry], [Slow("clip", "eager")])
    assert out.entries == [entry] and out.counts()["not run"] == 1


def test_an_ambiguous_replay_where_the_docs_are_silent_stays_with_the_word_it_fits() -> None:
    from conformance.judge.rootcause import settled_forms
    from conformance.judge.signature import Signature

    sig = Signature("array_api.take", "a", "1", "cpu", "eager", "spec silent", "ambiguous", ("extreme",))
    named = bl.Entry(op="array_api.take", oracle="a", outcome="spec silent", policy="clamps", condition=("extreme",))
    assert named.accepts(sig, {Behaviour.CLAMPS, Behaviour.LOW_32_BITS})
    assert not named.accepts(sig, {Behaviour.WRAPS, Behaviour.LOW_32_BITS})
    assert settled_forms(sig, {Behaviour.CLAMPS})[-1] == sig


def test_two_entries_of_one_fact_join_under_the_wider_pattern() -> None:
    """Stop 47: OpenVINO's ONNX GatherND had an entry for indices beyond int32 with policy "*" and one with policy ""
    whose reproducers came to show the same fact; the join kept the first's "" and the next check's finding, whose
    beyond-int32 sighting read the low 32 bits, was NEW. The wider entry stands for both."""
    narrow = _entry("clip", "eager", BAD, policy="clamps")
    wide = _entry("clip", "eager", BAD, ZERO_D, policy="*", condition=("*",))
    joined = rekey([narrow, wide], [Clip("clip", "eager")])
    assert [(e.policy, e.condition) for e in joined.entries] == [("*", ("*",))], joined.entries
    assert all(c in joined.entries[0].reproducers for c in (*narrow.reproducers, *wide.reproducers))
