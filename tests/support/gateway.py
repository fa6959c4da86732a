"""A real panelgate server for tests, listening on loopback.

Each test gets a fresh data folder and, when `PANELGATE_TEST_DATABASE_URL`
names a PostgreSQL server, a fresh database on it, so every test starts from
an empty bench; when `PANELGATE_TEST_REDIS_URL` names a Redis server, the
gateway keeps its shared state there under a key prefix of its own. By
default the server runs in a thread of the test process (the same app and
uvicorn as `panelgate serve`, without paying the imports for every test);
`in_process=False` runs `panelgate serve` as a child process
that can be killed (SIGKILL) and started again on the same data, which is how
durability is tested.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, TypeVar

import httpx

from tests.support.ports import free_port

T = TypeVar("T")
TEST_DATABASE_URL = os.environ.get("PANELGATE_TEST_DATABASE_URL", "")
TEST_REDIS_URL = os.environ.get("PANELGATE_TEST_REDIS_URL", "")


def psql(server_url: str, sql: str) -> None:
    subprocess.run(["psql", server_url, "-v", "ON_ERROR_STOP=1", "-qc", sql], check=True, capture_output=True)


def wait_for_health(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    """Until the child serving `url` answers `/health`; fails with its log if it exits or stays silent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"panelgate exited at start:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(
        f"panelgate did not answer /health within {timeout} s:\n{log.read_text(errors='replace')}"
    )


def database_url(server_url: str, name: str) -> str:
    return f"{server_url.rsplit('/', 1)[0]}/{name}"


def run_in_own_loop(make: Any) -> None:
    """Run the coroutine `make()` returns on a loop of its own, whatever loop the caller is in."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(make())
        except BaseException as exc:
            failures.append(exc)

    runner = threading.Thread(target=run)
    runner.start()
    runner.join()
    if failures:
        raise RuntimeError("could not migrate a test database template") from failures[0]


@functools.cache
def migrated_sqlite_template() -> Path:
    """An SQLite database migrated to the newest schema once per test process.

    Every gateway on SQLite starts from a copy of it: migrating from nothing
    took most of a gateway's start-up (a fifth of a second, per test).
    """
    home = Path(tempfile.mkdtemp(prefix="panelgate-sqlite-template-"))

    async def migrate() -> None:
        from panelgate.settings import Settings
        from panelgate.store import Database

        database = await Database.open(Settings(home=home))
        await database.close()

    run_in_own_loop(migrate)
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    leftovers = sorted(p.name for p in home.iterdir() if p.name.startswith("panelgate.db-"))
    assert not leftovers, f"the template database left {leftovers} behind after closing"
    return home / "panelgate.db"


@functools.cache
def migrated_template(server_url: str) -> str:
    """A database migrated to the newest schema once per run, copied for every test's gateway.

    Migrating from nothing was most of a PostgreSQL test's start-up; a copy
    (`CREATE DATABASE ... TEMPLATE`) is a file copy on the server.
    """
    name = f"pg_template_{uuid.uuid4().hex[:12]}"
    psql(server_url, f'CREATE DATABASE "{name}"')
    atexit.register(psql, server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    async def migrate() -> None:
        from panelgate.settings import Settings
        from panelgate.store import Database

        home = Path(tempfile.mkdtemp(prefix="panelgate-template-"))
        database = await Database.open(Settings(home=home, database_url=database_url(server_url, name)))
        await database.close()

    run_in_own_loop(migrate)
    return name


class ScratchPostgres:
    """A database of its own on the test PostgreSQL server (a migrated copy), dropped afterwards."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.name = f"pg_test_{uuid.uuid4().hex[:12]}"

    def create(self) -> str:
        template = migrated_template(self.server_url)
        psql(self.server_url, f'CREATE DATABASE "{self.name}" TEMPLATE "{template}"')
        return database_url(self.server_url, self.name)

    def drop(self) -> None:
        psql(self.server_url, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Gateway:
    """One panelgate process; `url` is its base (no trailing slash)."""

    def __init__(
        self,
        home: Path,
        *,
        env: dict[str, str] | None = None,
        in_process: bool = True,
        log_level: str = "warning",
    ) -> None:
        """`log_level` is `serve --log-level` for a child process (`info` writes the access log)."""
        self.home = home
        self.in_process = in_process
        self.log_level = log_level
        self.server: ThreadServer | None = None
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.extra_env = dict(env or {})
        self.database: ScratchPostgres | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = home / "server.log"
        self._client: httpx.Client | None = None
        self._sdk_clients: list[Any] = []

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
        env.update(PANELGATE_HOME=str(self.home), PANELGATE_KEEPALIVE_S="0.5", **self.extra_env)
        if TEST_DATABASE_URL and "PANELGATE_DATABASE_URL" not in self.extra_env:
            self.database = ScratchPostgres(TEST_DATABASE_URL)
            env["PANELGATE_DATABASE_URL"] = self.database.create()
            self.extra_env["PANELGATE_DATABASE_URL"] = env["PANELGATE_DATABASE_URL"]
        if TEST_REDIS_URL and "PANELGATE_REDIS_URL" not in self.extra_env:
            prefix = f"test-{uuid.uuid4().hex[:12]}"  # siblings and restarts share it; other tests do not
            self.extra_env.update(PANELGATE_REDIS_URL=TEST_REDIS_URL, PANELGATE_REDIS_PREFIX=prefix)
            env.update(PANELGATE_REDIS_URL=TEST_REDIS_URL, PANELGATE_REDIS_PREFIX=prefix)
        sqlite_file = self.home / "panelgate.db"
        if "PANELGATE_DATABASE_URL" not in env and not sqlite_file.exists():
            shutil.copyfile(migrated_sqlite_template(), sqlite_file)
        return env

    def start(self, timeout: float = 60.0) -> Gateway:
        self.home.mkdir(parents=True, exist_ok=True)
        if self.in_process:
            self.server = ThreadServer(self.environment(), self.port).start(timeout)
            return self
        with self.log_path.open("ab") as log:  # the child keeps its own copy of the handle
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "panelgate",
                    "serve",
                    "--port",
                    str(self.port),
                    "--log-level",
                    self.log_level,
                ],
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_for_health(self.url, self.process, self.log_path, timeout)
        except BaseException:
            self.stop()  # a child that never answered is not left running for the next test
            raise
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs, as in a crash."""
        assert not self.in_process, "only a child-process gateway can be killed"
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def sibling(self) -> Gateway:
        """A second gateway process on this one's data folder and database (closed by the caller,
        leaving the database to this one)."""
        return Gateway(self.home, env=self.extra_env, in_process=self.in_process)

    def keep(self, client: T) -> T:
        """An SDK client pointed at this gateway, closed with it (so no socket is left to the GC)."""
        self._sdk_clients.append(client)
        return client

    def close(self) -> None:
        for sdk_client in self._sdk_clients:
            sdk_client.close()
        if self._client is not None:
            self._client.close()
        self.stop()
        if self.database is not None:
            self.database.drop()

    # ---- the admin API, for arranging a bench in a test -------------------------

    def api(self, method: str, path: str, json: Any = None, expect: int | None = None) -> Any:
        if self._client is None:
            token = self.extra_env.get("PANELGATE_ADMIN_TOKEN")
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            self._client = httpx.Client(base_url=self.url, timeout=30, headers=headers)
        response = self._client.request(method, path, json=json)
        if expect is not None and response.status_code != expect:
            raise AssertionError(f"{method} {path} → {response.status_code}: {response.text}")
        return response.json() if response.content else None

    def add_endpoint(self, name: str, base_url: str, **fields: Any) -> Any:
        return self.api("POST", "/api/endpoints", {"name": name, "base_url": base_url, **fields}, expect=201)

    def add_model(
        self,
        alias: str,
        served_id: str | None = None,
        endpoint: str = "up",
        *,
        unlisted: bool = False,
        **facts: Any,
    ) -> Any:
        """Put a model on the bench; its endpoint must list it (`FakeUpstream.serve`) unless `unlisted`."""
        body = {"alias": alias, "served_id": served_id or alias, "endpoint": endpoint, **facts}
        if unlisted:
            body["unlisted"] = True
        return self.api("POST", "/api/models", body, expect=201)

    def save_collection(self, name: str, members: list[str], **fields: Any) -> Any:
        return self.api("PUT", f"/api/collections/{name}", {"members": members, **fields}, expect=200)

    def gateway_settings(self, **limits: Any) -> Any:
        return self.api("PATCH", "/api/settings/gateway", limits, expect=200)


class ThreadServer:
    """The app under uvicorn in a thread of its own, with its own event loop."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        import uvicorn

        from panelgate.http.app import create_app
        from panelgate.settings import Settings
        from tests.support.prompt_server import PromptServer

        settings = Settings(
            **{
                k.removeprefix("PANELGATE_").lower(): v
                for k, v in env.items()
                if k.startswith("PANELGATE_") and not k.startswith("PANELGATE_KEY_")
            },
            port=port,
        )
        config = uvicorn.Config(
            create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
        )
        self.uvicorn = PromptServer(config)
        self.thread = threading.Thread(target=self.uvicorn.run, name=f"panelgate:{port}", daemon=True)

    def start(self, timeout: float) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.uvicorn.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the in-process gateway did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.uvicorn.stop_soon()
        self.thread.join(30)


def break_recording(gateway: Gateway) -> None:
    """Make the gateway's database refuse to record panels (the seats table goes away).

    A real fault in a real store: a panel that is running when this is done
    fails at the end, after its reply started, which is what tests of errors
    inside a stream need.
    """
    run_sql(gateway, "ALTER TABLE seats RENAME TO seats_gone")


def run_sql(gateway: Gateway, statement: str) -> None:
    """One SQL statement on the gateway's own database, PostgreSQL or SQLite, as an operator would."""
    if gateway.database is not None:
        psql(gateway.extra_env["PANELGATE_DATABASE_URL"], statement)
        return
    import sqlite3

    with sqlite3.connect(gateway.home / "panelgate.db") as connection:
        connection.execute(statement)
