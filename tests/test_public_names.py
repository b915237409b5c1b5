"""What users call stays working, whatever moves inside: the console script,
the pytest plugin (by entry point, and by the README's one ``conftest.py``
line), the worker module, and the README's Python examples, run as the
README shows them."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

import conformance
from conformance.execution.process import WorkerProcess

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def _run(argv: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600, check=False)


def test_the_console_script_runs(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("gather-conformance")
    run = _run([str(script), "ops"], tmp_path)
    assert run.returncode == 0 and "numpy.take" in run.stdout, run.stderr


def test_the_readme_api_script_runs_piped_to_python_from_another_folder(tmp_path: Path) -> None:
    script = next(b for b in _python_blocks(README) if 'oracles.get("numpy")' in b)
    run = _run([sys.executable, "-"], tmp_path, stdin=script)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["[[9, 10, 11], [3, 4, 5]]", "error IndexError (index out of range)"]


def test_the_readme_reference_examples_hold() -> None:
    block = next(b for b in _python_blocks(README) if "gather_multiaxis" in b and ">>>" in b)
    block = re.sub(r" {2,}#[^\n]*", "", block)  # the README's remarks beside the lines
    test = doctest.DocTestParser().get_doctest(block, {}, "README", "README.md", 0)
    result = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE).run(test)
    assert result.attempted and not result.failed
    assert callable(conformance.reference) and callable(conformance.gather_multiaxis)


def test_the_worker_module_starts_as_python_dash_m() -> None:
    worker = WorkerProcess("discover", {"modules": []}, "public-names")
    try:
        assert worker.process.args[1:3] == ["-m", "conformance.execution.worker"]
    finally:
        worker.close()


def test_the_readme_conftest_line_registers_the_plugin_without_its_entry_point(tmp_path: Path) -> None:
    line = next(ln for ln in README.splitlines() if ln.startswith("pytest_plugins"))
    (tmp_path / "conftest.py").write_text(line + "\n")
    argv = [sys.executable, "-m", "pytest", "-p", "no:gather_conformance", "-p", "no:cacheprovider", "-q"]
    argv += ["--gather-conformance", "--gc-oracles", "numpy", "--gc-ops", "numpy.take_along_axis", "-k", "in-range"]
    run = _run(argv, tmp_path)
    assert run.returncode == 0 and re.search(r"\b1 passed\b", run.stdout), run.stdout[-2000:]
