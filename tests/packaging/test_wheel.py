"""The wheel built from this repository installs into a new venv without the test tools and serves panels.

The wheel is built with `pip wheel --no-deps --no-build-isolation` (hatchling
comes with the test extra, so nothing is downloaded) and installed into a new
venv with `--no-deps --no-index`. Its runtime dependencies are not fetched
from PyPI (the tests stay offline): `runtime_view` links the distributions
its `Requires-Dist` needs, and only those, from this test venv into a folder
the new venv sees through a `.pth` file, checking every version range on the
way. Then the new venv's `panelgate` starts from nothing (migrating a new
SQLite database with the wheel's migrations), answers `/health`, serves a
panel against the loopback upstream, and serves its API docs' files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from panelgate import __version__
from tests.packaging.runtime_view import link_runtime, runtime_closure, wheel_requirements
from tests.support.gateway import Gateway, wait_for_health
from tests.support.upstream import FakeUpstream

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TEST_TOOLS = ("pytest", "playwright", "ruff", "mypy", "schemathesis", "hypothesis", "hatchling")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    subprocess.run(
        [
            *pip,
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    (built,) = out.glob("panelgate-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with the wheel installed and its runtime dependencies visible (see the docstring)."""
    home = tmp_path_factory.mktemp("wheel-venv")
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    runtime = home / "runtime"
    link_runtime(runtime_closure(wheel_requirements(wheel)), runtime)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "panelgate-runtime.pth").write_text(f"{runtime}\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python),
         "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True, timeout=300,
    )  # fmt: skip
    return venv


def test_wheel_requires_no_test_tool_outside_the_test_extra(wheel: Path) -> None:
    requirements = wheel_requirements(wheel)
    runtime = {r.name.lower() for r in requirements if r.marker is None or r.marker.evaluate({"extra": ""})}
    in_test_extra = {
        r.name.lower() for r in requirements if r.marker is not None and r.marker.evaluate({"extra": "test"})
    }
    assert "fastapi" in runtime and "uvicorn" in runtime
    assert not runtime & set(TEST_TOOLS)
    assert {"pytest", "playwright", "ruff", "mypy", "schemathesis"} <= in_test_extra


def test_wheel_holds_every_file_the_package_reads_at_run_time(wheel: Path) -> None:
    """Templates, static files, migrations and the suite's starter cases: every file under src/panelgate."""
    source = ROOT / "src"
    tracked = subprocess.run(
        ["git", "ls-files", "panelgate"], cwd=source, check=True, capture_output=True, text=True, timeout=60
    ).stdout.split()
    with zipfile.ZipFile(wheel) as archive:
        packed = set(archive.namelist())
    assert tracked, "git lists the package's files"
    assert [name for name in tracked if name not in packed] == []


def test_installed_wheel_reports_its_version(venv: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin" / "panelgate"), "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert __version__ in done.stdout


def test_installed_wheel_runs_its_own_copy_without_the_test_tools(venv: Path) -> None:
    probe = (
        "import importlib.util, panelgate; print(panelgate.__file__); "
        f"print([t for t in {TEST_TOOLS!r} if importlib.util.find_spec(t)])"
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    where, tools = done.stdout.splitlines()
    assert Path(where).is_relative_to(venv), "the venv imports the wheel's panelgate, not the work tree's"
    assert tools == "[]"


@pytest.fixture
def served(venv: Path, tmp_path: Path) -> Iterator[Gateway]:
    """`panelgate serve` of the new venv on an empty data folder (SQLite, migrated by the wheel's code)."""
    gateway = Gateway(tmp_path / "home", in_process=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    env.update(PANELGATE_HOME=str(gateway.home), PANELGATE_KEEPALIVE_S="0.5")
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    gateway.home.mkdir(parents=True)
    with gateway.log_path.open("wb") as log:  # the child keeps its own copy of the handle
        gateway.process = subprocess.Popen(
            ["panelgate", "serve", "--port", str(gateway.port)], env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        wait_for_health(gateway.url, gateway.process, gateway.log_path, 60)
        yield gateway
    finally:
        gateway.close()


def test_installed_wheel_serves_a_panel(served: Gateway, upstream: FakeUpstream) -> None:
    upstream.serve("m1", "m2")
    served.add_endpoint("up", upstream.url)
    served.add_model("m1")
    served.add_model("m2")
    served.gateway_settings(max_calls=2, max_explorers=0)
    served.save_collection("pair", ["m1", "m2"])
    reply = httpx.post(
        f"{served.url}/v1/chat/completions",
        json={"model": "bench/pair", "messages": [{"role": "user", "content": "say hi"}]},
        timeout=60,
    )
    assert reply.status_code == 200, reply.text
    seats = reply.json()["bench"]["seats"]
    assert [(seat["alias"], seat["status"], seat["answer"]) for seat in seats] == [
        ("m1", "ok", "answer from m1"),
        ("m2", "ok", "answer from m2"),
    ]


def test_installed_wheel_serves_its_api_docs_files(served: Gateway) -> None:
    assert httpx.get(f"{served.url}/docs", timeout=30).status_code == 200
    script = httpx.get(f"{served.url}/docs/assets/swagger-ui-bundle.js", timeout=30)
    assert script.status_code == 200 and "SwaggerUIBundle" in script.text
