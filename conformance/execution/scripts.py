"""Standalone reproducer scripts, framework-neutral: the template an oracle
fills with the text it runs itself.

An oracle (``oracles/*``) hands :func:`script` a :class:`Program`: its
*prelude* (imports plus ``to_native(a)`` and ``to_numpy(x, like)``, the
bit-exact conversions to and from its framework), its *mode* (``prepare(call,
attrs)``: how an op is run, eagerly or compiled) and the op's *call* (one
Python expression over the native ``data``, ``indices`` and the ``attrs``
dict). The oracle executes that same text, so what a script runs is what the
oracle ran. The script adds the inputs (NumPy literals when small and exact,
else base64 bytes), the reference's expected outcome, and the check: it prints
the expected and the observed outcome (an error with its class) and exits 1
with ``REPRODUCED`` while the oracle still shows the discrepancy, 0 with
``not reproduced`` once it does not. It judges as the campaign does: the
oracle's error classification (:class:`~conformance.core.judgement.Classifier`)
and the campaign's verdicts on the answers it may get
(:class:`~conformance.core.judgement.Judgement`: an internal error, an error of
another class, a shape refusal are each what they are) are printed into it as
data, not restated as rules. A case that crashed or hung the oracle runs in a child process with
a time limit, so that its script neither dies nor hangs.

>>> import numpy as np
>>> from conformance.core.case import Case
>>> from conformance.core.outcome import ErrorClass, Outcome
>>> from conformance.core.oracle import OracleInfo
>>> program = Program("import numpy as np\\n", EAGER, "np.take(data, indices, **attrs)")
>>> info = OracleInfo("numpy", "numpy", "2.4", "cpu", "eager")
>>> case = Case("numpy.take", np.array([1, 2, 3]), np.array([5]), {"axis": 0})
>>> text = script(info, case, Outcome.raised(IndexError("index 5 is out of bounds"), ErrorClass.INDEX_OUT_OF_RANGE),
...     program)
>>> "    return np.take(data, indices, **attrs)" in text and "indices = np.array([5], dtype=np.int64)" in text
True
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from conformance.core.arrays import BFLOAT16, same_bits
from conformance.core.case import Case
from conformance.core.judgement import SAYS_SOURCE, Classifier, Judgement
from conformance.core.oracle import OracleInfo, Reproducer
from conformance.core.outcome import Kind, Outcome

EAGER = '''
def prepare(call, attrs):
    """Eager: the op runs as called, with its attributes."""
    return lambda data, indices: call(data, indices, attrs)
'''
"""The mode source of every oracle that just calls its framework."""

MAX_LITERAL = 64
"""Arrays of at most this many elements are written as NumPy literals (when exact)."""

CHILD_DIFFERS = 10
"""The exit status of an isolated script's child that ran the case and saw it differ."""

CRASH_TIME_LIMIT = 300.0
"""Seconds an isolated child may take for a case that crashed the oracle (a backstop)."""

IMPORT_ALLOWANCE = 60.0
"""Seconds added to a timed-out case's limit for the child to import its framework."""


@dataclass(frozen=True)
class Program:
    """How one oracle runs one op, as source text (see the module docstring);
    ``constants`` are module-level names the call uses (an ONNX ``MODEL``)."""

    prelude: str
    mode: str
    call: str
    constants: Mapping[str, bytes] = field(default_factory=dict)


def unit_source(call: str) -> str:
    """The op as a function, in the script and in the oracle alike.

    >>> print(unit_source("torch.take(data, indices, **attrs)"), end="")
    def call(data, indices, attrs):
        return torch.take(data, indices, **attrs)
    """
    return f"def call(data, indices, attrs):\n    return {call}\n"


def dtype_source(dtype: np.dtype) -> str:
    """``np.float32``, ``ml_dtypes.bfloat16``, ``'<U3'``, ``object``, ``np.dtype('>i4')``.

    >>> dtype_source(np.dtype(bool)), dtype_source(np.dtype(">i4"))
    ('np.bool_', "np.dtype('>i4')")
    """
    if dtype == BFLOAT16:
        return "ml_dtypes.bfloat16"
    if dtype.kind == "O":
        return "object"
    if dtype.kind in "US":
        return repr(dtype.str)
    if dtype == np.dtype(bool):
        return "np.bool_"
    return f"np.{dtype.name}" if dtype.isnative else f"np.dtype({dtype.str!r})"


def _element(x: Any, names: bool) -> str:
    """One element as source: the shortest text that reads back as the same
    value of its dtype; non-finite floats as ``np.nan`` / ``np.inf`` (plain
    ``nan`` / ``inf`` where ``names`` is false, for comments)."""
    if isinstance(x, np.generic) and (x.dtype.kind == "f" or x.dtype == BFLOAT16):
        v = float(x)
        if math.isnan(v):
            return "np.nan" if names else "nan"
        if math.isinf(v):
            return ("" if v > 0 else "-") + ("np.inf" if names else "inf")
        return str(x)
    if isinstance(x, np.complexfloating):
        return f"complex({_element(x.real, names)}, {_element(x.imag, names)})"
    return repr(x.item() if isinstance(x, np.generic) else x)


def nested_text(a: np.ndarray, names: bool = True) -> str:
    """The elements of ``a`` as nested Python lists (see :func:`_element`).

    >>> nested_text(np.array([[0.1, np.nan]], dtype=np.float32)), nested_text(np.array(3, np.uint8), names=False)
    ('[[0.1, np.nan]]', '3')
    >>> nested_text(np.array(["a", "bé"]))
    "['a', 'bé']"
    """
    if isinstance(a, np.generic):
        return _element(a, names)
    if a.ndim == 0:
        return _element(a[()], names)
    return "[" + ", ".join(nested_text(sub, names) for sub in a) + "]"


def _literal(a: np.ndarray, dtype: str) -> str | None:
    """A NumPy literal that rebuilds ``a`` bit for bit, or None where none does
    (a NaN with a payload or a sign, a value whose text does not read back)."""
    literal = f"np.array({nested_text(a)}, dtype={dtype})"
    try:
        rebuilt = eval(literal, {"np": np, "ml_dtypes": ml_dtypes})  # our own text
    except Exception:  # noqa: BLE001 - no literal for it
        return None
    return literal if same_bits(rebuilt, a) else None


def array_source(a: np.ndarray) -> str:
    """An expression that rebuilds ``a`` bit for bit: a NumPy literal when it
    is small (at most :data:`MAX_LITERAL` elements) and a literal is exact,
    else its bytes in base64 (a NaN with a payload or a sign has no literal).

    >>> array_source(np.array([[1.5, -0.0]], dtype=np.float16))
    'np.array([[1.5, -0.0]], dtype=np.float16)'
    >>> array_source(np.array([0.1, np.nan, -np.inf], dtype=np.float32))
    'np.array([0.1, np.nan, -np.inf], dtype=np.float32)'
    >>> array_source(np.array([0x7FC00001], dtype=np.uint32).view(np.float32))  # a NaN payload: bytes
    "np.frombuffer(base64.b64decode('AQDAfw=='), dtype=np.float32).reshape((1,)).copy()"
    >>> array_source(np.zeros((0, 2), dtype=np.int8))
    'np.empty((0, 2), dtype=np.int8)'
    """
    a = np.asarray(a)
    dtype = dtype_source(a.dtype)
    if a.size == 0:
        return f"np.empty({a.shape!r}, dtype={dtype})"
    if a.dtype.kind == "O":
        return f"np.array({a.tolist()!r}, dtype={dtype})"
    if a.size <= MAX_LITERAL:
        literal = _literal(a, dtype)
        if literal is not None:
            return literal
    raw = base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()
    return f"np.frombuffer(base64.b64decode({raw!r}), dtype={dtype}).reshape({a.shape!r}).copy()"


def values_text(a: np.ndarray | None) -> str:
    """A small array's values for a comment or a message (`` = [...]``), else nothing.

    >>> values_text(np.array([1, 2], np.int32)), values_text(np.zeros(100)), values_text(None)
    (' = [1, 2]', '', '')
    """
    if a is None or a.size == 0 or a.size > MAX_LITERAL or a.dtype.kind == "O":
        return ""
    return " = " + nested_text(a, names=False)


def assignment(name: str, a: np.ndarray) -> str:
    """``name = <source>``, with the values in a comment where the source is bytes and the array small.

    >>> print(assignment("data", np.array([0x7FC00001], dtype=np.uint32).view(np.float32)), end="")
    data = np.frombuffer(base64.b64decode('AQDAfw=='), dtype=np.float32).reshape((1,)).copy()  # [nan] (bits exact only
    as bytes)
    """
    source = array_source(a)
    shown = values_text(np.asarray(a))
    note = f"  # {shown.removeprefix(' = ')} (bits exact only as bytes)" if shown and "b64decode" in source else ""
    return f"{name} = {source}{note}\n"


def value_source(value: Any) -> str:
    """Source for an attribute value (a dict of them too; non-finite floats as ``float('nan')``).

    >>> value_source({"axis": None, "fill_value": float("nan")})
    "{'axis': None, 'fill_value': float('nan')}"
    >>> value_source({"axis": np.int64(1), "dim": np.array(1)})
    "{'axis': np.int64(1), 'dim': np.array(1, dtype=np.int64)}"
    """
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {value_source(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
        return f"np.array({value.item()!r}, dtype=np.{value.dtype.name})"  # an attribute given as a 0-d array
    text = repr(value)
    try:
        exact = repr(eval(text, {"np": np})) == text  # our own text
    except Exception:  # noqa: BLE001 - an object whose repr is no expression
        exact = False
    if not exact:
        raise ValueError(f"cannot write {value!r} as Python source")
    return text


def _expected_source(reference: Outcome) -> str:
    if reference.kind is Kind.VALUE and reference.value is not None:
        return assignment("EXPECTED_VALUE", reference.value) + "EXPECTED_ERROR = None\n"
    if reference.kind is Kind.ERROR:
        error_class = reference.error_class.value if reference.error_class else "other"
        return (
            f"EXPECTED_VALUE = None\nEXPECTED_ERROR = ({error_class!r}, "
            f"{f'{reference.error_type}: {reference.message}'!r})\n"
        )
    raise ValueError(f"a reproducer needs the reference's value or error, not {reference.describe()}")


def _judgement_source(judgement: Judgement, classifier: Classifier) -> str:
    """The campaign's classifier and verdicts as data (see :class:`Classifier`, :class:`Judgement`).

    >>> print(_judgement_source(Judgement((("other", "ok", False),), (), ("differs", True)), Classifier()), end="")
    SEEN_ERROR = (None, None, None)
    INTERNAL_TYPES = ()
    STATED_TYPES = ()
    INTERNAL_NEEDLES = ()
    ERROR_TYPES = {}
    CLASSIFIER = ()
    JUDGED_ERRORS = {'other': ('ok', False)}
    JUDGED_VALUES = ()
    JUDGED_OTHER = ('differs', True)
    TRIES = 1
    """
    values = "".join(
        f"    ({label!r}, {array_source(np.asarray(v))}, {words!r}, {shows!r}),\n"
        for label, v, words, shows in judgement.values
    )
    errors = ", ".join(f"{word!r}: ({words!r}, {shows!r})" for word, words, shows in judgement.errors)
    rows = "".join(f"    ({word!r}, {needles!r}),\n" for word, needles in classifier.rows)
    types = {name: word for word, names in reversed(classifier.types) for name in names}  # the first row wins
    return (
        f"SEEN_ERROR = {classifier.seen or (None, None, None)!r}\n"
        f"INTERNAL_TYPES = {tuple(sorted(classifier.internal_types))!r}\n"
        f"STATED_TYPES = {tuple(sorted(classifier.stated_types))!r}\n"
        f"INTERNAL_NEEDLES = {tuple(classifier.internal_needles)!r}\n"
        f"ERROR_TYPES = {dict(sorted(types.items()))!r}\n"
        f"CLASSIFIER = {'(' + chr(10) + rows + ')' if rows else '()'}\n"
        f"JUDGED_ERRORS = {{{errors}}}\n"
        f"JUDGED_VALUES = {'(' + chr(10) + values + ')' if values else '()'}\n"
        f"JUDGED_OTHER = {judgement.other!r}\n"
        f"TRIES = {judgement.tries!r}\n"
    )


_CHECK = '''
# -- the check --------------------------------------------------------------------------------


def same_bits(got, want):
    """Same dtype, shape and bytes (NaN payloads and -0.0 count); strings and objects by value."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind in "OUS":
        return got.tolist() == want.tolist()
    return np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def values(a):
    """The elements, on one line (NaN, -0.0 and every digit as NumPy prints them)."""
    return np.array2string(np.asarray(a), separator=", ", threshold=200, max_line_width=10**6).replace("\\n", "")


def bit_lines(got, want):
    """Where two arrays of one dtype and shape differ, bit for bit (the first few)."""
    g = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(got.size, -1)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8).reshape(want.size, -1)
    return [
        f"  at {tuple(int(i) for i in np.unravel_index(flat, got.shape))}: observed bytes {g[flat].tobytes().hex()}, "
        f"expected {w[flat].tobytes().hex()}"
        for flat in np.flatnonzero((g != w).any(axis=1))[:5]
    ]


def classify(exc):
    """The error's class as the oracle classifies it (its own rules, as data): the framework's fault by its words
    (INTERNAL_NEEDLES) or type (INTERNAL_TYPES, unless a STATED_TYPES error's words classify it), else by its type
    (ERROR_TYPES), else by the whole words of its message (CLASSIFIER, says)."""
    name, text = type(exc).__name__, str(exc).lower()
    if (name, str(exc)) == SEEN_ERROR[:2]:
        return SEEN_ERROR[2]
    said = ERROR_TYPES.get(name) or next((w for w, needles in CLASSIFIER if any(says(text, n) for n in needles)), None)
    stated = name in STATED_TYPES and said is not None
    if name in INTERNAL_TYPES and not stated or any(says(text, n) for n in INTERNAL_NEEDLES):
        return "internal"
    return said or "other"


def run_once():
    """Run the case once: the lines that say what happened and the campaign's verdict
    on it (JUDGED_*: its verdicts, as data), and whether it shows the finding."""
    try:
        got = observe()
    except Exception as exc:  # noqa: BLE001 - any error is an answer
        error_class = classify(exc)
        words, shows = JUDGED_ERRORS.get(error_class, JUDGED_ERRORS["other"])
        return [f"observed: error ({error_class}) {type(exc).__name__}: {exc}", f"judged: {words}"], shows
    lines = [f"observed: value {got.dtype} {list(got.shape)} = {values(got)}"]
    for label, value, words, shows in JUDGED_VALUES:
        if same_bits(got, value):
            return lines + [f"judged: {words} (the {label} value)"], shows
    words, shows = JUDGED_OTHER
    lines.append(f"judged: {words}")
    if EXPECTED_ERROR is None and got.dtype == EXPECTED_VALUE.dtype and got.shape == EXPECTED_VALUE.shape:
        if got.dtype.kind not in "OUS":
            lines += bit_lines(got, EXPECTED_VALUE)
    return lines, shows


def differs():
    """Print what the reference expects, then run the case (up to TRIES times, where the finding is a read
    outside the input: each run reads whatever bytes lie there, zeros too) and print what happened and its verdict;
    True while it shows the finding."""
    if EXPECTED_ERROR is None:
        print("expected: value", EXPECTED_VALUE.dtype, list(EXPECTED_VALUE.shape), "=", values(EXPECTED_VALUE))
    else:
        print("expected: error (%s) %s" % EXPECTED_ERROR)
    for attempt in range(1, TRIES + 1):
        lines, shows = run_once()
        if shows:
            break
    if TRIES > 1:
        print(f"run {attempt} of at most {TRIES} (a read outside the input finds whatever bytes lie there)")
    print("\\n".join(lines))
    return shows
'''

_MAIN = """

if __name__ == "__main__":
    reproduced = differs()
    print("REPRODUCED" if reproduced else "not reproduced")
    sys.exit(1 if reproduced else 0)
"""

_CHILD_MAIN = f"""

if __name__ == "__main__":
    sys.exit({CHILD_DIFFERS} if differs() else 0)  # the parent (at the top) prints the verdict
"""

_ISOLATE = """
# This case {what} the oracle: everything below runs in a child process with a time limit,
# so that this script itself neither dies nor hangs (--time-limit SECONDS to change it).
if __name__ == "__main__" and "--child" not in sys.argv:
    import argparse
    import signal
    import subprocess

    parser = argparse.ArgumentParser(description="Exit status 1 and REPRODUCED while the discrepancy is there.")
    parser.add_argument(
        "--time-limit", type=float, default={limit!r}, help="seconds the child may take, imports included"
    )
    limit = parser.parse_args().time_limit
    try:
        # -u: its output survives a crash
        child = subprocess.run([sys.executable, "-u", __file__, "--child"], timeout=limit)
    except subprocess.TimeoutExpired:
        print(f"observed: no answer within {{limit:g}} s (the child was killed)")
        reproduced = True
    else:
        if child.returncode < 0:
            print(f"observed: the child died of signal {{signal.Signals(-child.returncode).name}}")
        elif child.returncode not in (0, {differs}):
            print(f"observed: the child exited with status {{child.returncode}}")
        reproduced = child.returncode != 0
    print("REPRODUCED" if reproduced else "not reproduced")
    sys.exit(1 if reproduced else 0)
"""


def _time_limit(observed: Outcome) -> float:
    if observed.kind is Kind.TIMEOUT:
        return round(observed.seconds + IMPORT_ALLOWANCE, 1)
    return CRASH_TIME_LIMIT


def _banner(title: str) -> str:
    return f"\n# -- {title} ".ljust(96, "-") + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _said(outcome: Outcome) -> str:
    """An outcome for the header: its description, a small value's elements, an error's message."""
    values = values_text(outcome.value) if outcome.kind is Kind.VALUE and outcome.value is not None else ""
    return outcome.describe() + values + (f": {outcome.message}" if outcome.message else "")


def _header(
    info: OracleInfo, case: Case, reference: Outcome, program: Program, observed: Outcome | None, ml: bool
) -> str:
    """The comment that opens a script: what it runs and what it expects."""
    data, indices = np.asarray(case.data), np.asarray(case.indices)
    needs = "NumPy" if info.framework == "numpy" else f"{info.framework} and NumPy"
    lines = [
        f"Reproducer: {info.name} ({info.framework} {info.version}, {info.device}, {info.mode}) on {case.op}:",
        f"    {program.call}    with attrs = {value_source(dict(case.attrs))}",
        f"data: {data.dtype} {list(data.shape)}, indices: {indices.dtype} {list(indices.shape)}"
        + (f"; tags: {case.tags.words()}" if case.tags else ""),
        f"The reference expects: {_said(reference)}",
        *([f"The oracle observed: {_said(observed)}"] if observed else []),
        f"Needs {needs}{' (and ml_dtypes)' if ml else ''}. Exit status 1 and REPRODUCED while {info.name}",
        (
            "still shows the discrepancy, judged as the campaign judges it (the data below); 0 and 'not reproduced' "
            "once not."
        ),
    ]
    return "".join(f"# {_one_line(line) if i != 1 else line.rstrip()}\n" for i, line in enumerate(lines))


def script(
    info: OracleInfo,
    case: Case,
    reference: Outcome,
    program: Program,
    observed: Outcome | None = None,
    judgement: Judgement | None = None,
    classifier: Classifier | None = None,
) -> str:
    """The reproducer of ``case`` on the oracle ``info`` describes, which runs
    ``program``; ``reference`` is what the op must do (a value or an error),
    ``observed`` what the oracle did (a crash or a timeout makes the script
    run the case in a child process); ``judgement`` the campaign's verdicts on
    the answers it may get (without it: differing from ``reference``) and
    ``classifier`` the oracle's error classes, both printed as data."""
    arrays = [case.data, case.indices] + ([reference.value] if reference.value is not None else [])
    ml = any(np.asarray(a).dtype == BFLOAT16 for a in arrays)
    text = (
        _header(info, case, reference, program, observed, ml)
        + "\nimport base64  # noqa: F401 - for inputs as bytes\nimport re\nimport sys\n"
    )
    isolate = observed is not None and observed.kind in (Kind.CRASH, Kind.TIMEOUT)
    if observed is not None and isolate:
        what = "crashed" if observed.kind is Kind.CRASH else "hung"
        text += _ISOLATE.format(what=what, limit=_time_limit(observed), differs=CHILD_DIFFERS)
    text += (
        _banner(f"the framework, as the {info.name} oracle runs it (the same text)")
        + program.prelude.strip("\n")
        + "\n"
    )
    text += _banner(f"the execution mode: {info.mode}") + program.mode.strip("\n") + "\n"
    text += _banner(f"the op: {case.op}") + unit_source(program.call)
    text += _banner("the case") + ("import ml_dtypes  # noqa: E402\n\n" if ml else "")
    text += "".join(
        f"{name} = base64.b64decode({base64.b64encode(raw).decode()!r})\n" for name, raw in program.constants.items()
    )
    text += (
        assignment("data", case.data)
        + assignment("indices", case.indices)
        + f"attrs = {value_source(dict(case.attrs))}\n"
    )
    text += _expected_source(reference)
    text += _banner("the campaign's judgement, as data") + _judgement_source(
        judgement or Judgement.against(reference), classifier or Classifier()
    )
    text += '\n\ndef observe():\n    """The case, run as the oracle runs it: its answer as NumPy."""\n'
    text += "    return to_numpy(prepare(call, attrs)(to_native(data), to_native(indices)), data)\n"
    # the check reads messages with the oracle's own whole-word matching (SAYS_SOURCE: the same text)
    return text + "\n" + _CHECK + "\n" + SAYS_SOURCE + (_CHILD_MAIN if isolate else _MAIN)


def save(reproducer: Reproducer, directory: Path) -> Path:
    """Write the script (``repro_<oracle>.py``) and its attachments into
    ``directory``; the script's path.

    >>> import tempfile
    >>> save(Reproducer("onnx-reference", "print()", {"model.onnx": b"x"}), Path(tempfile.mkdtemp())).name
    'repro_onnx_reference.py'
    """
    directory.mkdir(parents=True, exist_ok=True)
    for name, raw in reproducer.attachments.items():
        (directory / name).write_bytes(raw)
    path = directory / reproducer.filename
    path.write_text(reproducer.text, encoding="utf-8")
    return path
