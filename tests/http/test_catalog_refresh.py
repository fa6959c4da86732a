"""Refreshing the catalog: fetched when reachable, read from the cached copy otherwise, from addresses a
person may change; by hand or as the scheduler's `catalog-refresh` job."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalog.loopback import (
    MODELS_DEV_PATH,
    OPENROUTER_PATH,
    CatalogServer,
    facts,
    point_catalogs_at,
    refresh,
)
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def groq(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    gateway.add_endpoint("groq", upstream.url)
    upstream.serve("llama-3.3-70b-versatile")
    gateway.add_model("llama", "llama-3.3-70b-versatile", endpoint="groq")
    point_catalogs_at(gateway, catalogs)
    return gateway


def origins(report: dict) -> dict[str, tuple[str, int]]:
    return {source["source"]: (source["origin"], source["entries"]) for source in report["sources"]}


def test_a_refresh_fetches_both_catalogs_and_keeps_a_copy_in_the_data_folder(
    groq: Gateway, catalogs: CatalogServer
) -> None:
    report = refresh(groq)
    assert origins(report) == {"models.dev": ("fetched", 6), "openrouter": ("fetched", 4)}
    assert sorted(catalogs.requests) == sorted([MODELS_DEV_PATH, OPENROUTER_PATH])
    assert [listing["endpoint"] for listing in report["listings"]] == ["groq"]
    assert (Path(groq.home) / "catalog" / "models.dev.json").is_file()
    assert (Path(groq.home) / "catalog" / "openrouter.json").is_file()
    window = facts(groq, "llama")["facts"]["context_window"]
    assert (window["value"], window["source"]) == (131_072, "models.dev")
    shown = groq.api("GET", "/api/catalog", expect=200)["sources"]
    assert [(s["source"], s["origin"], s["url"]) for s in shown] == [
        ("models.dev", "fetched", catalogs.url + MODELS_DEV_PATH),
        ("openrouter", "fetched", catalogs.url + OPENROUTER_PATH),
    ]


def test_an_unreachable_catalog_is_read_from_its_cached_copy(groq: Gateway, catalogs: CatalogServer) -> None:
    refresh(groq)
    catalogs.fail(MODELS_DEV_PATH)
    catalogs.publish(OPENROUTER_PATH, {"unexpected": "shape"})
    report = refresh(groq)
    assert origins(report) == {"models.dev": ("cache", 6), "openrouter": ("cache", 4)}
    details = {source["source"]: source["detail"] for source in report["sources"]}
    assert "HTTP 503" in details["models.dev"] and "cached copy" in details["models.dev"]
    assert facts(groq, "llama")["facts"]["price"]["value"] == {"input": 0.59, "output": 0.79}


def test_without_a_cached_copy_an_unreachable_catalog_is_unavailable_and_changes_nothing(
    groq: Gateway, catalogs: CatalogServer
) -> None:
    catalogs.fail(MODELS_DEV_PATH, 500)
    report = refresh(groq)
    assert origins(report)["models.dev"] == ("unavailable", 0)
    assert "no cached copy" in report["sources"][0]["detail"]
    assert facts(groq, "llama")["matched"] == {}


def test_an_empty_address_never_fetches_and_reads_the_cached_copy(
    groq: Gateway, catalogs: CatalogServer
) -> None:
    refresh(groq)
    groq.api("PUT", "/api/catalog/sources/models.dev", {"url": ""}, expect=200)
    groq.api("PUT", "/api/catalog/sources/openrouter", {"url": ""}, expect=200)
    catalogs.requests.clear()
    report = refresh(groq)
    assert origins(report) == {"models.dev": ("cache", 6), "openrouter": ("cache", 4)}
    assert catalogs.requests == []
    audit = groq.api("GET", "/api/audit?entity=catalog")["changes"]
    assert (audit[0]["key"], audit[0]["after"]) == ("openrouter", {"url": ""})


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/catalog/sources/models.dev", {"url": "ftp://mirror/api.json"}, "url"),
        ("/api/catalog/sources/models.dev", {"url": "https://user:secret@mirror/api.json"}, "url"),
        ("/api/catalog/sources/models.dev", {"url": 3}, "url"),
        ("/api/catalog/sources/models.dev", {"address": "https://mirror"}, "address"),
        ("/api/catalog/sources/elsewhere", {"url": "https://mirror/api.json"}, "source"),
    ],
)
def test_a_bad_catalog_address_is_refused(groq: Gateway, path: str, body: dict, field: str) -> None:
    refused = groq.api("PUT", path, body, expect=400)
    assert refused["error"]["field"] == field
    assert "secret" not in refused["error"]["message"]


def test_the_scheduler_job_refreshes_the_catalog(groq: Gateway) -> None:
    jobs = [job["name"] for job in groq.api("GET", "/api/scheduler")["jobs"]]
    assert "catalog-refresh" in jobs
    run = groq.api("POST", "/api/scheduler/jobs/catalog-refresh/run", expect=200)["run"]
    assert run["outcome"] == "ok"
    assert run["detail"].startswith(
        "catalogs: models.dev fetched (6), openrouter fetched (4); listings read: 1 of 1"
    )
    assert facts(groq, "llama")["facts"]["context_window"]["source"] == "models.dev"
