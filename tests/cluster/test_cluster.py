"""Replicas behind a load balancer behave as one gateway: the cluster of compose.yaml, started on this
host by `scripts/cluster` (PostgreSQL, Redis, nginx and `panelgate serve` processes), each behaviour
observed from outside, talking to each replica by its own port and through the balancer."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.http.route_helpers import FIRST
from tests.support.upstream import FakeUpstream

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "cluster"
ADMIN_TOKEN = "cluster-admin-token-for-tests"
MEMBERS = ["m1", "m2", "m3"]
CUT_SHORT = 0  # not an HTTP status: the connection closed before the reply's body arrived


@dataclass(frozen=True)
class Cluster:
    """What `scripts/cluster status` says is up: the balancer's and each replica's address and pid."""

    state: Path
    balancer: str
    replicas: tuple[str, ...]
    pids: dict[str, int]
    database_url: str
    key: str = ""


def cluster_script(*args: str) -> str:
    env = {name: value for name, value in os.environ.items() if not name.startswith("PANELGATE_")}
    done = subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"scripts/cluster {args[0]} failed:\n{done.stdout}{done.stderr}"
    return done.stdout


def status(state: Path) -> list[list[str]]:
    """`scripts/cluster status`: per part, its name, address, pid and `up` or `down`."""
    return [line.split() for line in cluster_script("status", "--state", str(state)).splitlines()]


def read_status(state: Path) -> Cluster:
    parts = status(state)
    assert all(word == "up" for *_, word in parts), parts
    address = {name: url for name, url, _, _ in parts}
    pids = {name: int(pid) for name, _, pid, _ in parts}
    replicas = tuple(url for name, url in address.items() if name.startswith("replica-"))
    return Cluster(state, address["balancer"], replicas, pids, address["postgres"])


def started_cluster(upstream: FakeUpstream) -> Iterator[Cluster]:
    """Two replicas from an env file of the test's own, arranged through the balancer: endpoint `up`,
    members m1–m3, the panel collection `core`, the route collection `agents`, and a gateway key."""
    # Under /tmp and open to others' traversal: as root, PostgreSQL runs as `postgres` and must reach it.
    workspace = Path(tempfile.mkdtemp(prefix="panelgate-cluster-"))
    workspace.chmod(0o711)
    env_file = workspace / "cluster.env"
    env_file.write_text(f"PANELGATE_ADMIN_TOKEN={ADMIN_TOKEN}\nPANELGATE_KEEPALIVE_S=0.5\n")
    env_file.chmod(0o600)
    state = workspace / "state"
    try:
        cluster_script("up", "--replicas", "2", "--env-file", str(env_file), "--state", str(state))
        cluster = read_status(state)
        arrange(cluster.balancer, upstream)
        key = admin(cluster.balancer, "POST", "/api/keys", {"name": "tests"}, expect=201)["key"]
        yield Cluster(
            cluster.state, cluster.balancer, cluster.replicas, cluster.pids, cluster.database_url, key
        )
    finally:
        if state.exists():
            cluster_script("down", "--state", str(state))
        env_file.unlink(missing_ok=True)
        workspace.rmdir()


def arrange(url: str, upstream: FakeUpstream) -> None:
    admin(url, "POST", "/api/endpoints", {"name": "up", "base_url": upstream.url}, expect=201)
    for alias in MEMBERS:
        body = {"alias": alias, "served_id": alias, "endpoint": "up", "tools": True}
        admin(url, "POST", "/api/models", body, expect=201)
    admin(url, "PATCH", "/api/settings/gateway", {"max_calls": 3, "max_explorers": 0}, expect=200)
    admin(url, "PUT", "/api/collections/core", {"members": MEMBERS}, expect=200)
    admin(url, "PUT", "/api/collections/agents", {"members": MEMBERS, "reply": "route"}, expect=200)


@pytest.fixture(scope="module")
def cluster_upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(MEMBERS) as server:
        yield server


@pytest.fixture(scope="module")
def cluster(cluster_upstream: FakeUpstream) -> Iterator[Cluster]:
    yield from started_cluster(cluster_upstream)


@pytest.fixture
def upstream(cluster_upstream: FakeUpstream) -> FakeUpstream:
    """The cluster's upstream, forgetting earlier tests' requests and behaviours."""
    cluster_upstream.reset()
    return cluster_upstream


# ---- talking to the cluster ---------------------------------------------------------------------


def admin(url: str, method: str, path: str, body: Any = None, expect: int | None = None) -> Any:
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    reply = httpx.request(method, f"{url}{path}", json=body, headers=headers, timeout=60)
    if expect is not None:
        assert reply.status_code == expect, f"{method} {path} → {reply.status_code}: {reply.text}"
    return reply.json() if reply.content else None


def chat(url: str, key: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    headers["Authorization"] = f"Bearer {key}"
    return httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers, timeout=60)


def panel(url: str, key: str, collection: str = "core") -> httpx.Response:
    return chat(
        url, key, {"model": f"bench/{collection}", "messages": [{"role": "user", "content": "say hi"}]}
    )


def seated(reply: httpx.Response) -> set[str]:
    assert reply.status_code == 200, reply.text
    return {seat["alias"] for seat in reply.json()["bench"]["seats"]}


def recorded_panels(url: str, collection: str) -> list[str]:
    shown = admin(url, "GET", f"/api/panels?limit=200&collection={collection}&answers=false", expect=200)
    return [p["id"] for p in shown["panels"]]


def save_collection(cluster: Cluster, name: str) -> None:
    """Collection `name` of m1–m3, saved through the balancer and in use on every replica."""
    admin(cluster.balancer, "PUT", f"/api/collections/{name}", {"members": MEMBERS}, expect=200)
    for url in cluster.replicas:
        assert seated(panel(url, cluster.key, name)) == set(MEMBERS)


def early_in_a_minute() -> None:
    """Wait out the last seconds of a clock minute: key limits count per clock minute."""
    into = time.time() % 60
    if into > 50:
        time.sleep(60.5 - into)


# ---- one gateway --------------------------------------------------------------------------------


def test_a_route_conversation_stays_on_its_member_whichever_replica_answers(
    cluster: Cluster, upstream: FakeUpstream
):
    first_replica, second_replica = cluster.replicas
    session = {"X-Claude-Code-Session-Id": "cluster-session"}
    first = chat(first_replica, cluster.key, {"model": "bench/agents", "messages": FIRST}, **session)
    assert first.status_code == 200, first.text
    assert first.headers["X-Bench-Model"] == "m1"
    conversation = first.headers["X-Bench-Conversation"]

    # On the other replica m1 fails an unrelated turn and m2, answering it, earns a useful verdict.
    upstream.behave("m1", status=500)
    other = chat(
        second_replica, cluster.key, {"model": "bench/agents", "messages": [{"role": "user", "content": "x"}]}
    )
    assert other.headers["X-Bench-Model"] == "m2"
    verdict = {"call": other.json()["bench"]["call"], "useful": True}
    judged = httpx.post(
        f"{second_replica}/bench/verdict",
        json=verdict,
        headers={"Authorization": f"Bearer {cluster.key}"},
        timeout=30,
    )
    assert judged.status_code == 200, judged.text
    upstream.behave("m1")
    fresh = chat(
        second_replica, cluster.key, {"model": "bench/agents", "messages": [{"role": "user", "content": "y"}]}
    )
    assert fresh.headers["X-Bench-Model"] == "m2", "a new conversation now starts on m2"

    turns = [
        *FIRST,
        {"role": "assistant", "content": "answer from m1"},
        {"role": "user", "content": "and now?"},
    ]
    for url in (second_replica, first_replica, cluster.balancer, cluster.balancer):
        later = chat(url, cluster.key, {"model": "bench/agents", "messages": turns}, **session)
        assert later.status_code == 200, later.text
        assert (later.headers["X-Bench-Conversation"], later.headers["X-Bench-Model"]) == (conversation, "m1")
    for url in cluster.replicas:
        listed = admin(url, "GET", "/api/routes?collection=agents", expect=200)["conversations"]
        assert {c["id"]: c["turns"] for c in listed}[conversation] == 5


def test_a_keys_rpm_holds_across_replicas(cluster: Cluster, upstream: FakeUpstream):
    created = admin(cluster.balancer, "POST", "/api/keys", {"name": "limited", "rpm": 6}, expect=201)
    targets = [*cluster.replicas, cluster.balancer] * 4
    early_in_a_minute()
    with ThreadPoolExecutor(max_workers=len(targets)) as pool:
        replies = list(pool.map(lambda url: panel(url, created["key"]), targets))
    statuses = sorted(reply.status_code for reply in replies)
    assert statuses == [200] * 6 + [429] * 6
    assert len(upstream.requests) == 6 * len(MEMBERS), "a refused panel asked no model"


def test_an_edit_through_one_replica_shows_on_the_others_next_request(cluster: Cluster):
    """Each edit is announced to every replica on the cluster's Redis (store/shared/change_notices.py),
    so the next panel on another replica already seats by it: no replica serves a stale bench."""
    first_replica, second_replica = cluster.replicas
    for number, (editor, asker) in enumerate(
        [(first_replica, second_replica), (second_replica, first_replica)]
    ):
        name = f"fresh{number}"
        admin(editor, "PUT", f"/api/collections/{name}", {"members": ["m1", "m2"]}, expect=200)
        assert seated(panel(asker, cluster.key, name)) == {"m1", "m2"}
        admin(editor, "PUT", f"/api/collections/{name}", {"members": ["m3"]}, expect=200)
        assert seated(panel(asker, cluster.key, name)) == {"m3"}
        admin(asker, "PUT", f"/api/collections/{name}", {"members": ["m1", "m3"]}, expect=200)
        assert seated(panel(editor, cluster.key, name)) == {"m1", "m3"}


def test_every_panel_is_recorded_once(cluster: Cluster):
    save_collection(cluster, "counted")
    before = recorded_panels(cluster.balancer, "counted")  # the panels that found it on each replica
    targets = [*cluster.replicas, cluster.balancer, cluster.balancer] * 10
    with ThreadPoolExecutor(max_workers=8) as pool:
        replies = list(pool.map(lambda url: panel(url, cluster.key, "counted"), targets))
    assert [r.status_code for r in replies] == [200] * len(targets)
    answered = [r.json()["bench"]["panel"] for r in replies]
    for url in cluster.replicas:
        assert sorted(recorded_panels(url, "counted")) == sorted(before + answered)


def test_the_scheduler_runs_a_due_job_once_whichever_replicas_tick(cluster: Cluster, upstream: FakeUpstream):
    """Only the daily probe is switched on; the scheduler was turned on two days ago (written into the
    store, as if the cluster had run since), so its latest due time is owed: every replica ticks
    (each `PATCH` applies at once where it lands), and it runs once, on the lease holder."""
    first_replica, _ = cluster.replicas
    others_off = {
        job: False
        for job in ("speed-test", "capability-probe", "auto-retire", "catalog-refresh", "suite-pass")
    }
    admin(first_replica, "PATCH", "/api/scheduler", {"jobs": others_off}, expect=200)
    admin(first_replica, "PATCH", "/api/scheduler", {"mode": "run"}, expect=200)
    backdate = "UPDATE scheduler_settings SET changed_at = changed_at - interval '2 days' WHERE key = 'mode'"
    subprocess.run(["psql", cluster.database_url, "-v", "ON_ERROR_STOP=1", "-qc", backdate], check=True)

    targets = [*cluster.replicas, cluster.balancer] * 4
    with ThreadPoolExecutor(max_workers=len(targets)) as pool:
        ticked = list(pool.map(lambda url: admin(url, "PATCH", "/api/scheduler", {"mode": "run"}), targets))
    try:
        assert all(view["mode"] == "run" for view in ticked)
        deadline = time.monotonic() + 30
        while True:
            runs = admin(first_replica, "GET", "/api/scheduler/runs?job=daily-probe", expect=200)["runs"]
            if (runs and all(run["outcome"] != "running" for run in runs)) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert [(run["outcome"], run["asked_by"]) for run in runs] == [("ok", None)]
        assert sorted(request.model for request in upstream.requests) == MEMBERS, "each member probed once"
        runners = [admin(url, "GET", "/api/scheduler", expect=200)["runner"] for url in cluster.replicas]
        assert len({runner["holder"] for runner in runners}) == 1
        assert sorted(runner["here"] for runner in runners) == [False, True]
    finally:
        admin(first_replica, "PATCH", "/api/scheduler", {"mode": "off"}, expect=200)


# ---- a replica dies ------------------------------------------------------------------------------


@pytest.fixture
def doomed_cluster(cluster_upstream: FakeUpstream) -> Iterator[Cluster]:
    """A cluster of its own: this test kills one of its replicas."""
    yield from started_cluster(cluster_upstream)


def test_killing_a_replica_mid_load_loses_no_acknowledged_panel(
    doomed_cluster: Cluster, cluster_upstream: FakeUpstream
):
    cluster = doomed_cluster
    cluster_upstream.reset()
    for alias in MEMBERS:
        cluster_upstream.behave(alias, delay=0.2)  # panels are in flight when the replica dies
    save_collection(cluster, "load")
    victim = psutil.Process(cluster.pids["replica-1"])
    acknowledged: list[str] = []
    killed = threading.Event()

    def one_panel(number: int) -> int:
        if number == 20:
            victim.kill()  # SIGKILL, while other panels are being answered
            killed.set()
        try:
            reply = panel(cluster.balancer, cluster.key, "load")
        except httpx.RemoteProtocolError:
            # The victim wrote a reply's headers and died before its body: the client saw the
            # reply cut short, so that panel was never acknowledged.
            return CUT_SHORT
        if reply.status_code == 200:
            acknowledged.append(reply.json()["bench"]["panel"])
        return reply.status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(one_panel, range(60)))
    assert killed.is_set()
    assert [(name, word) for name, *_, word in status(cluster.state) if word == "down"] == [
        ("replica-1", "down")
    ]
    assert statuses.count(200) >= 40, statuses

    after = [panel(cluster.balancer, cluster.key, "load") for _ in range(10)]
    assert [r.status_code for r in after] == [200] * 10, "the balancer sends every panel to the survivor"
    acknowledged += [r.json()["bench"]["panel"] for r in after]
    survivor = cluster.replicas[1]
    recorded = recorded_panels(survivor, "load")
    assert sorted(set(recorded) & set(acknowledged)) == sorted(acknowledged)
    assert len(recorded) == len(set(recorded))
