"""The upgrade study's environments, built by a fake installer (no network,
no venv): each is built once and then found in the cache, the suite is
re-installed when its sources change, the framework's own pin and the pins the
resolver names are dropped (and reported), the version installed is the one
the environment reports, and a version that cannot be installed is one error
naming it."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance.upgrade.environments import ENV_MARKER, InstallError, VenvProvider
from conformance.upgrade.installer import Completed, Installer
from conformance.upgrade.request import Request, parse_requests

CONSTRAINTS = "# exact\nnumpy==2.4.6\nonnx==1.23.2\nonnxruntime==1.31.1\njax==0.10.2\njaxlib==0.10.2\n"
REQUIRES = [
    "numpy>=1.26",
    'hypothesis>=6.100; extra == "campaign"',
    'onnx>=1.16; extra == "onnx"',
    'onnxruntime>=1.23; extra == "onnx"',
    'jax>=0.8; extra == "jax"',
]
PIP_CONFLICT = """Collecting jax==0.9.0
ERROR: Cannot install jax==0.9.0 because these package versions have conflicting dependencies.

The conflict is caused by:
    jax 0.9.0 depends on jaxlib<=0.9.0 and >=0.9.0
    The user requested (constraint) jaxlib==0.10.2

To fix this you could try to:
1. loosen the range of package versions you've specified
2. remove package versions to allow pip attempt to solve the dependency conflict

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/
"""
PIP_MISSING = (
    "ERROR: Could not find a version that satisfies the requirement onnxruntime==9.9.9 (from versions: 1.31.1, "
    "1.32.0)\nERROR: No matching distribution found for onnxruntime==9.9.9\n"
)


class FakeInstaller:
    """Plays uv/pip/venv: records every command; installs answer from ``installs`` in turn."""

    def __init__(self, installed: dict[str, str], installs: Sequence[Completed] = (), requires=REQUIRES) -> None:
        self.installed, self.installs, self.commands, self.requires = installed, list(installs), [], requires
        self.constraints: list[str] = []

    def __call__(self, command: Sequence[str], timeout: float) -> Completed:
        command = list(command)
        self.commands.append(command)
        if "wheel" in command:
            out = Path(command[command.index("-w") + 1])
            out.mkdir(parents=True)
            with zipfile.ZipFile(out / "gather_conformance-0.1.0-py3-none-any.whl", "w") as z:
                metadata = "Name: gather-conformance\n" + "".join(f"Requires-Dist: {r}\n" for r in self.requires)
                z.writestr("gather_conformance-0.1.0.dist-info/METADATA", metadata)
        elif "venv" in command:
            (Path(command[-1]) / "bin").mkdir(parents=True)
        elif "describe" in command:
            names = command[command.index("describe") + 2 :]
            answer = {"format": 1, "python": "3.11.7", "versions": {n: self.installed.get(n) for n in names}}
            answer |= {"oracles": [self._oracle(names[0])], "problems": {}}
            Path(command[command.index("describe") + 1]).write_text(json.dumps(answer))
        elif "install" in command:
            if "-c" in command:
                self.constraints.append(Path(command[command.index("-c") + 1]).read_text())
            return self.installs.pop(0) if self.installs else Completed(0, "Successfully installed")
        return Completed(0, "")

    def _oracle(self, framework: str) -> dict[str, object]:
        version = self.installed.get(framework, "0")
        return {"name": framework, "framework": framework, "version": version, "device": "cpu", "mode": "eager"} | {
            "ops": [],
            "distributions": [framework],
        }

    def ran(self, word: str) -> list[list[str]]:
        return [c for c in self.commands if word in c]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "conformance").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "gather-conformance"\n')
    (root / "conformance" / "x.py").write_text("X = 1\n")
    (root / "constraints-ci.txt").write_text(CONSTRAINTS)
    return root


def _provider(suite: Path, tmp_path: Path, fake: FakeInstaller, **kw) -> VenvProvider:
    return VenvProvider(
        suite, suite / "constraints-ci.txt", tmp_path / "cache", Installer(), fake, python="python3", **kw
    )


def _quiet(line: str) -> None:
    pass


def test_an_environment_is_built_once_then_found_in_the_cache_and_the_suite_refreshed_when_it_changes(
    suite: Path, tmp_path: Path
) -> None:
    fake = FakeInstaller({"onnxruntime": "1.32.0"})
    (env,) = _provider(suite, tmp_path, fake).prepare(parse_requests(["onnxruntime==1.32.*", "1.31.1"])[:1], _quiet)
    assert not env.facts.cached and env.facts.installed == "1.32.0", "the version is read in the environment"
    assert (Path(env.facts.path) / ENV_MARKER).is_file() and Path(env.facts.path).name.startswith("onnxruntime-1.32.x-")
    (install,) = fake.ran("install")
    assert (
        install[-2].startswith("gather-conformance[campaign,onnx] @ file://") and install[-1] == "onnxruntime==1.32.*"
    )
    assert "onnxruntime==" not in fake.constraints[0] and "onnx==1.23.2" in fake.constraints[0]

    again = FakeInstaller({"onnxruntime": "1.32.0"})
    (env,) = _provider(suite, tmp_path, again).prepare([Request("onnxruntime", "==1.32.*")], _quiet)
    assert env.facts.cached and again.ran("venv") == [] and again.ran("install") == [] and again.ran("wheel") == []

    (suite / "conformance" / "x.py").write_text("X = 2\n")
    changed = FakeInstaller({"onnxruntime": "1.32.0"})
    (env,) = _provider(suite, tmp_path, changed).prepare([Request("onnxruntime", "==1.32.*")], _quiet)
    (install,) = changed.ran("install")
    assert env.facts.cached and changed.ran("venv") == [] and "--no-deps" in install and "--force-reinstall" in install

    rebuilt = FakeInstaller({"onnxruntime": "1.32.0"})
    _provider(suite, tmp_path, rebuilt, rebuild=True).prepare([Request("onnxruntime", "==1.32.*")], _quiet)
    assert len(rebuilt.ran("venv")) == 1, "--rebuild ignores the cache"

    (suite / "pyproject.toml").write_text('[project]\nname = "gather-conformance"\n# a comment\n')
    same = FakeInstaller({"onnxruntime": "1.32.0"})
    (env,) = _provider(suite, tmp_path, same).prepare([Request("onnxruntime", "==1.32.*")], _quiet)
    assert env.facts.cached and same.ran("venv") == [], "the same requirements: the same environment"
    (suite / "pyproject.toml").write_text('[project]\nname = "gather-conformance"\n# numpy>=2\n')
    other = FakeInstaller({"onnxruntime": "1.32.0"}, requires=["numpy>=2", *REQUIRES[1:]])
    (env,) = _provider(suite, tmp_path, other).prepare([Request("onnxruntime", "==1.32.*")], _quiet)
    assert not env.facts.cached and len(other.ran("venv")) == 1, "other requirements: another environment"


def test_the_pins_the_resolver_names_as_conflicting_are_relaxed_and_reported(suite: Path, tmp_path: Path) -> None:
    fake = FakeInstaller({"jax": "0.9.0", "jaxlib": "0.9.0"}, [Completed(1, PIP_CONFLICT)])
    (env,) = _provider(suite, tmp_path, fake).prepare([Request("jax", "==0.9.0")], _quiet)
    first, second = fake.constraints
    assert "jax==" not in first and "jaxlib==0.10.2" in first
    assert "jaxlib" not in second and "numpy==2.4.6" in second
    assert env.facts.relaxed == {"jaxlib==0.10.2": "0.9.0"} and env.facts.installed == "0.9.0"


def test_a_version_the_index_does_not_have_is_one_error_naming_it_and_leaves_no_environment(
    suite: Path, tmp_path: Path
) -> None:
    fake = FakeInstaller({}, [Completed(1, PIP_MISSING)])
    with pytest.raises(InstallError) as caught:
        _provider(suite, tmp_path, fake).prepare([Request("onnxruntime", "==9.9.9")], _quiet)
    message = str(caught.value)
    assert message.startswith("onnxruntime==9.9.9 cannot be installed: Could not find a version that satisfies")
    assert "(from versions: 1.31.1, 1.32.0)" in message and "\n" not in message
    assert list((tmp_path / "cache" / "envs").glob("onnxruntime-*/")) == []


def test_uv_runs_every_step_where_it_is_on_path() -> None:
    uv = Installer("/usr/bin/uv")
    assert uv.create(Path("/e"), "/usr/bin/python3")[:2] == ["/usr/bin/uv", "venv"]
    install = uv.install(Path("/e/bin/python"), ["w.whl"], no_deps=True, reinstall=True)
    assert install == [
        "/usr/bin/uv",
        "pip",
        "install",
        "--python",
        "/e/bin/python",
        "--no-deps",
        "--reinstall",
        "w.whl",
    ]
    assert uv.wheel(Path("/src"), Path("/out"), "python3")[:3] == ["/usr/bin/uv", "build", "--quiet"]
