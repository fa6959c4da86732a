"""The two gateways under test, each started on a loopback port and given the same 3-seat collection.

panelgate is configured the way a person would: through its admin JSON API
(one endpoint pointing at the fake upstream, three models on it, a
collection `trio`, gateway limits 3 calls / 0 explorers). The reference,
Benchwarmers, lives in its own virtualenv (`benchmarks/.ref-venv`, made on
first use from PyPI) and is configured by writing its data folder's config
files; it is started with its own launcher. Neither ever sees a real key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from processes import Service, free_port

COLLECTION = "trio"
MEMBERS = ["m1", "m2", "m3"]
MODEL_ID = f"bench/{COLLECTION}"
REFERENCE_PACKAGE = "benchwarmers"


@dataclass
class Gateway:
    label: str
    service: Service
    base_url: str
    model: str = MODEL_ID
    """The model every benchmark request asks for."""
    headers: dict[str, str] = field(default_factory=dict)
    """Sent with every benchmark request (a gateway key, for one)."""

    @property
    def chat_url(self) -> str:
        return f"{self.base_url}/v1/chat/completions"


def chat_body(model: str, stream: bool, content: str = "hi") -> bytes:
    return json.dumps(
        {"model": model, "messages": [{"role": "user", "content": content}], "stream": stream}
    ).encode()


def call_json(
    method: str, url: str, body: object | None = None, timeout_s: float = 30.0
) -> tuple[int, bytes]:
    """One HTTP call with a JSON body; returns (status, raw reply) for any status."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token := os.environ.get("PANELGATE_ADMIN_TOKEN"):
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def check_panel(gateway: Gateway, stream: bool) -> None:
    """Ask the collection once; refuse to benchmark a gateway that does not answer with all three seats."""
    status, raw = call_json("POST", gateway.chat_url, json.loads(chat_body(MODEL_ID, stream)))
    text = raw.decode("utf-8", errors="replace")
    missing = [m for m in MEMBERS if f"Answer from {m}" not in text]
    if status != 200 or missing:
        mode = "streamed" if stream else "non-streamed"
        raise RuntimeError(
            f"{gateway.label}: a {mode} request for {MODEL_ID} got HTTP {status}"
            f"{' without the answers of ' + ', '.join(missing) if missing else ''}: {text[:600]}"
        )


def panelgate_command() -> list[str]:
    script = Path(sys.executable).with_name("panelgate")
    return [str(script)] if script.exists() else [sys.executable, "-m", "panelgate"]


def panelgate_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("panelgate")
    except PackageNotFoundError:
        return "unknown"


def start_panelgate(
    workdir: Path,
    upstream_base: str,
    database_url: str | None,
    configure: Callable[[str, str], None] | None = None,
    model: str = MODEL_ID,
    workers: int = 1,
    restart: bool = True,
) -> Gateway:
    """`panelgate serve` on a free port with a fresh data folder, configured through the admin API.

    `configure(base, upstream_base)` sets it up (default: the 3-seat panel); `model` is what the
    benchmark then asks for. With `restart` the server is then stopped and started again on the same
    folder, so what is measured is a gateway started on a stored setup, as after any restart (and as
    the reference starts from its file), not the process that also served the setup's admin calls.
    """
    port = free_port()
    home = workdir / "panelgate-home"
    home.mkdir(parents=True)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_") or k == "PANELGATE_ADMIN_TOKEN"
    }
    env["PANELGATE_HOME"] = str(home)
    if database_url:
        env["PANELGATE_DATABASE_URL"] = database_url
    argv = [
        *panelgate_command(),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    service = Service("panelgate", argv, env, workdir / "panelgate.log")
    base = f"http://127.0.0.1:{port}"
    processes = f", {workers} workers" if workers > 1 else ""
    gateway = Gateway(f"panelgate {panelgate_version()}{processes}", service, base, model)
    try:
        service.wait_until_http_ok(f"{base}/health", timeout_s=60)
        (configure or configure_panelgate)(base, upstream_base)
        if restart:
            service.stop()
            service = gateway.service = Service("panelgate", argv, env, workdir / "panelgate-restarted.log")
            service.wait_until_http_ok(f"{base}/health", timeout_s=60)
    except Exception:
        service.stop()
        raise
    return gateway


def configure_panelgate(base: str, upstream_base: str) -> None:
    admin_steps(
        base,
        [
            ("POST", "/api/endpoints", bench_endpoint(upstream_base)),
            *(("POST", "/api/models", {"alias": m, "served_id": m, "endpoint": "bench"}) for m in MEMBERS),
            ("PATCH", "/api/settings/gateway", {"max_calls": len(MEMBERS), "max_explorers": 0}),
            ("PUT", f"/api/collections/{COLLECTION}", {"members": MEMBERS}),
        ],
    )


def bench_endpoint(upstream_base: str) -> dict[str, object]:
    """The admin API body for endpoint `bench`: the fake upstream, no key."""
    return {"name": "bench", "base_url": f"{upstream_base}/v1", "key_name": None}


def admin_steps(base: str, steps: list[tuple[str, str, object]]) -> None:
    """Admin API calls in order; the first one panelgate refuses stops the setup with its reply."""
    for method, path, body in steps:
        status, raw = call_json(method, base + path, body)
        if not 200 <= status < 300:
            raise RuntimeError(
                f"panelgate refused {method} {path} (HTTP {status}): {raw.decode(errors='replace')[:600]}"
            )


def ensure_reference(venv: Path, version: str) -> Path:
    """The reference's launcher, installing `benchwarmers==version` into `venv` when it is not there yet."""
    launcher = venv / "bin" / REFERENCE_PACKAGE
    python = venv / "bin" / "python"
    if launcher.exists():
        installed = subprocess.run(
            [
                str(python),
                "-c",
                f"from importlib.metadata import version; print(version('{REFERENCE_PACKAGE}'))",
            ],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if installed == version:
            return launcher
    print(f"installing {REFERENCE_PACKAGE}=={version} into {venv} (once)", file=sys.stderr, flush=True)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"{REFERENCE_PACKAGE}=={version}",
        ],
        check=True,
    )
    return launcher


def write_reference_config(home: Path, upstream_base: str) -> None:
    """The reference's own config files for the same endpoint, models, collection and limits."""
    config = home / "config"
    config.mkdir(parents=True)
    api_base = f"{upstream_base}/v1"
    endpoints = {"bench": {"base": api_base, "key": "bench", "default": True, "kind": "local"}}
    registrations = "".join(
        f'\n- model_id: {m}\n  model_name: {m}\n  api_base: "{api_base}"\n  api_key_name: bench\n'
        for m in MEMBERS
    )
    collection = {
        "members": MEMBERS,
        "shape": "",
        "description": "three seats for the benchmark",
        "tags": [],
        "reply": "all",
        "merger": "",
    }
    (config / "endpoints.json").write_text(json.dumps(endpoints, indent=2), encoding="utf-8")
    (config / "extra-openai-models.yaml").write_text(registrations, encoding="utf-8")
    (config / "collections.json").write_text(json.dumps({COLLECTION: collection}, indent=2), encoding="utf-8")
    (config / "gateway.json").write_text(
        json.dumps({"max_calls": len(MEMBERS), "max_explorers": 0}), encoding="utf-8"
    )


def start_reference(workdir: Path, upstream_base: str, venv: Path, version: str) -> Gateway:
    """`benchwarmers serve` (dashboard and gateway on one port) on a free loopback port."""
    launcher = ensure_reference(venv, version)
    port = free_port()
    home = workdir / "reference-home"
    write_reference_config(home, upstream_base)
    env = {
        **os.environ,
        "BENCHWARMERS_HOME": str(home),
        "LLM_USER_PATH": str(workdir / "reference-llm"),  # never the llm CLI's real key store
        "BENCH_CLIENT": "builtin",
        "BENCHWARMERS_KEY_BENCH": "benchmark-placeholder",
        "BENCH_BIND": "127.0.0.1",
        "BENCH_PORT": str(port),
    }
    service = Service("reference", [str(launcher), "serve"], env, workdir / "reference.log")
    base = f"http://127.0.0.1:{port}"
    try:
        service.wait_until_http_ok(f"{base}/health", timeout_s=60)
    except Exception:
        service.stop()
        raise
    return Gateway(f"{REFERENCE_PACKAGE} {version}", service, base)
