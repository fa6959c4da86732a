"""The route benchmark's two gateways, each relaying to one model on the fake upstream, and their checks.

panelgate is set up through its admin API, as a person would: endpoint
`bench`, one model `m1` (tools on, as a route member needs when a turn
carries tools), collection `agents` with reply `route`; it is asked for
`bench/agents`. LiteLLM's proxy (1.110.2, in `benchmarks/.litellm-venv`,
made by `install_litellm.sh`) gets a config YAML with one deployment, `m1`
-> `openai/m1` at the upstream, a master key, and an environment that keeps
it off the network and quiet (see `litellm_env`); it is asked for `m1` with
that key. Before either is measured, one request per mode must come back
from `m1`: for panelgate, with `bench.reply == "route"`, `bench.alias ==
"m1"` and the header `x-bench-model: m1`.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from gateways import Gateway, admin_steps, bench_endpoint, chat_body, start_panelgate
from processes import Service, free_port

HERE = Path(__file__).resolve().parent
COLLECTION = "agents"
MEMBER = "m1"
ROUTE_MODEL = f"bench/{COLLECTION}"
LITELLM_VERSION = "1.110.2"
LITELLM_VENV = HERE / ".litellm-venv"
LITELLM_INSTALLER = HERE / "install_litellm.sh"
LITELLM_KEY = "sk-bench-loopback-only"
"""LiteLLM's master key for the run: made up here, sent only to 127.0.0.1."""
LITELLM_QUIET_ENV = {
    "LITELLM_OFFLINE_MODE": "true",  # no catalogue, check or tokenizer fetched from the internet
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # the bundled cost map, not one downloaded at start-up
    "LITELLM_DISABLE_LATEST_RELEASE_CHECK": "true",
    "LITELLM_LOG": "WARNING",  # no debug logging; uvicorn at WARNING, so no access line per request
}
"""What LiteLLM is started with beyond its config; no database, Redis or callback is configured at all."""


TOOLS = {"tools": True}
"""A route member must be able to call tools when a turn carries tools; set for every member here."""


def configure_route(base: str, upstream_base: str) -> None:
    admin_steps(
        base,
        [
            ("POST", "/api/endpoints", bench_endpoint(upstream_base)),
            ("POST", "/api/models", {"alias": MEMBER, "served_id": MEMBER, "endpoint": "bench", **TOOLS}),
            ("PUT", f"/api/collections/{COLLECTION}", {"members": [MEMBER], "reply": "route"}),
        ],
    )


def start_panelgate_route(
    workdir: Path, upstream_base: str, database_url: str | None, workers: int = 1, restart: bool = True
) -> Gateway:
    gateway = start_panelgate(
        workdir, upstream_base, database_url, configure_route, ROUTE_MODEL, workers, restart
    )
    gateway.label += " (route)"
    return gateway


def litellm_version(venv: Path) -> str | None:
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    done = subprocess.run(
        [str(python), "-c", "from importlib.metadata import version; print(version('litellm'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or None


def ensure_litellm(venv: Path, install: bool) -> Path:
    """The proxy's launcher; installs it with `install_litellm.sh` when asked, else says how."""
    launcher = venv / "bin" / "litellm"
    if launcher.exists() and litellm_version(venv) == LITELLM_VERSION:
        return launcher
    if not install:
        raise RuntimeError(
            f"LiteLLM {LITELLM_VERSION} is not installed in {venv}: "
            "run `bash benchmarks/install_litellm.sh` or pass --install"
        )
    env = {**os.environ, "LITELLM_VENV": str(venv)}
    subprocess.run(["bash", str(LITELLM_INSTALLER)], env=env, check=True)
    return launcher


def write_litellm_config(path: Path, upstream_base: str) -> None:
    """One deployment, `m1` as an OpenAI-compatible model at the upstream, and the master key.

    Written as JSON, which is YAML too.
    """
    config = {
        "model_list": [
            {
                "model_name": MEMBER,
                "litellm_params": {
                    "model": f"openai/{MEMBER}",
                    "api_base": f"{upstream_base}/v1",
                    "api_key": "unused",
                },
            }
        ],
        "general_settings": {"master_key": LITELLM_KEY},
    }
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")


def litellm_env(home: Path) -> dict[str, str]:
    """A clean environment: none of this machine's keys, database or Redis URLs, a HOME of its own."""
    home.mkdir(parents=True, exist_ok=True)
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    return {**keep, "HOME": str(home), **LITELLM_QUIET_ENV}


def start_litellm(workdir: Path, upstream_base: str, venv: Path, install: bool) -> Gateway:
    """`litellm --config` (uvicorn, one worker) on a free loopback port."""
    launcher = ensure_litellm(venv, install)
    port = free_port()
    config = workdir / "litellm.yaml"
    write_litellm_config(config, upstream_base)
    argv = [str(launcher), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
    env = litellm_env(workdir / "litellm-home")
    service = Service("litellm", argv, env, workdir / "litellm.log")
    base = f"http://127.0.0.1:{port}"
    try:
        service.wait_until_http_ok(f"{base}/health/liveliness", timeout_s=120)
    except Exception:
        service.stop()
        raise
    headers = {"Authorization": f"Bearer {LITELLM_KEY}"}
    return Gateway(f"LiteLLM {LITELLM_VERSION}", service, base, MEMBER, headers)


def ask(gateway: Gateway, stream: bool) -> tuple[int, dict[str, str], str]:
    """One request as the load sends it: status, headers (lower-case names) and body text."""
    headers = {"Content-Type": "application/json", **gateway.headers}
    request = urllib.request.Request(
        gateway.chat_url, data=chat_body(gateway.model, stream), method="POST", headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, got, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        status, got, raw = exc.code, exc.headers, exc.read()
    return status, {k.lower(): v for k, v in got.items()}, raw.decode("utf-8", errors="replace")


def check_relay(gateway: Gateway, stream: bool) -> None:
    """Refuse to measure a gateway whose reply did not come from `m1` (and, for panelgate, by route)."""
    status, headers, text = ask(gateway, stream)
    problems = [] if status == 200 else [f"HTTP {status}"]
    if f"Answer from {MEMBER}" not in text:
        problems.append(f"no answer from {MEMBER}")
    if gateway.model == ROUTE_MODEL:
        problems += route_problems(headers, text, stream)
    if problems:
        mode = "streamed" if stream else "non-streamed"
        raise RuntimeError(
            f"{gateway.label}: a {mode} request for {gateway.model}: {'; '.join(problems)}: {text[:600]}"
        )


def route_problems(headers: dict[str, str], text: str, stream: bool) -> list[str]:
    """What is missing from panelgate's reply for it to be route mode relaying `m1`."""
    problems = []
    if headers.get("x-bench-model") != MEMBER:
        problems.append(f"x-bench-model is {headers.get('x-bench-model')!r}, not {MEMBER!r}")
    if stream:
        events = [line.removeprefix("data: ") for line in text.splitlines() if line.startswith("data: {")]
        bench = next((json.loads(e)["bench"] for e in reversed(events) if '"bench"' in e), {})
    else:
        try:
            bench = json.loads(text).get("bench", {})
        except ValueError:
            bench = {}
    if bench.get("reply") != "route" or bench.get("alias") != MEMBER:
        problems.append(f"bench says reply {bench.get('reply')!r}, alias {bench.get('alias')!r}")
    return problems
