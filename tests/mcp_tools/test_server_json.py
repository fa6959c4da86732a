"""`server.json`, the MCP Registry entry: valid under the registry's published schema (a fixture: no
download at test time), naming this package as pyproject.toml does, and each server it describes,
started as described (`panelgate mcp` over stdio, `panelgate serve` with the tools at /mcp), lists
the tools."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx2
import jsonschema
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.support.gateway import Gateway, free_port, migrated_sqlite_template, wait_for_health
from tests.support.upstream import FakeUpstream

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "fixtures" / "mcp_registry" / "server.schema.json"
TOOLS = {"list_collections", "ask", "verdict", "pending_verdicts", "record"}


def entry() -> dict[str, Any]:
    return dict(json.loads((ROOT / "server.json").read_text()))


def package(transport: str) -> dict[str, Any]:
    (found,) = [p for p in entry()["packages"] if p["transport"]["type"] == transport]
    return dict(found)


def command_of(described: dict[str, Any]) -> list[str]:
    """The package's command as a client runs it: its script (installed beside this Python), then its
    arguments."""
    script = shutil.which(described["identifier"], path=str(Path(sys.executable).parent))
    assert script, f"no `{described['identifier']}` command installed beside {sys.executable}"
    return [script, *(argument["value"] for argument in described.get("packageArguments", []))]


def environment(described: dict[str, Any], **given: str) -> dict[str, str]:
    """The package's variables: the ones given, else their defaults; PATH and HOME of this run."""
    env = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}
    for variable in described.get("environmentVariables", []):
        value = given.get(variable["name"], variable.get("default"))
        if value is not None:
            env[variable["name"]] = value
    return env


def test_the_entry_is_valid_under_the_registrys_published_schema():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    problems = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(entry())]
    assert problems == []
    assert entry()["$schema"] == schema["$id"]


def test_the_entry_names_this_package_at_its_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    described = entry()
    assert described["version"] == project["version"]
    assert {(p["registryType"], p["identifier"], p["version"]) for p in described["packages"]} == {
        ("pypi", project["name"], project["version"])
    }
    assert {p["transport"]["type"] for p in described["packages"]} == {"stdio", "streamable-http"}
    assert project["scripts"][project["name"]]  # `uvx panelgate ...` runs this script


async def test_the_stdio_server_as_described_lists_the_tools(bench: Gateway, upstream: FakeUpstream):
    described = package("stdio")
    command, *args = command_of(described)
    server = StdioServerParameters(
        command=command, args=args, env=environment(described, PANELGATE_URL=bench.url)
    )
    async with Client(server) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS


async def test_the_http_server_as_described_lists_the_tools(tmp_path: Path):
    described = package("streamable-http")
    port = str(free_port())
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(migrated_sqlite_template(), home / "panelgate.db")  # as every test gateway starts
    env = environment(described, PANELGATE_PORT=port) | {"PANELGATE_HOME": str(home)}
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(command_of(described), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_health(f"http://127.0.0.1:{port}", process, log_path, 60)
        url = re.sub(r"\{(\w+)\}", lambda found: env[found[1]], described["transport"]["url"])
        async with (
            httpx2.AsyncClient(timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
    finally:
        process.terminate()
        process.wait(timeout=30)
