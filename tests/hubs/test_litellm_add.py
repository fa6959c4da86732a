"""Adding a deployment through a LiteLLM proxy in database mode (a loopback stand-in: the real proxy's
database needs Prisma's downloaded engines), then onboarding it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hubs.helpers import gateway_shows_no, on_bench, secrets_in_bodies
from tests.support.gateway import Gateway
from tests.support.litellm_hub import LiteLLMHub

MASTER = "sk-master-5a5a5a5a5a"
ENDPOINT_KEY = "sk-virtual-key-7b7b7b"
UPSTREAM_KEY = "sk-upstream-9c9c9c9c"
DEPLOYMENTS = [
    {
        "model_name": "small",
        "litellm_params": {
            "model": "openai/small",
            "api_base": "https://models.example.net/v1",
            "api_key": UPSTREAM_KEY,
            "litellm_credential_name": "example-cred",
            "extra_headers": {"X-Title": "bench", "Authorization": f"Bearer {UPSTREAM_KEY}"},
        },
        "model_info": {"id": "d1", "db_model": True},
    },
    {"model_name": "haiku", "litellm_params": {"model": "anthropic/haiku"}, "model_info": {"id": "d2"}},
]


@pytest.fixture
def hub() -> Iterator[LiteLLMHub]:
    with LiteLLMHub(MASTER, DEPLOYMENTS) as server:
        yield server


def _endpoint(gateway: Gateway, hub: LiteLLMHub) -> None:
    gateway.add_endpoint("proxy", f"{hub.url}/v1", key=MASTER, hub="litellm", admin_key=MASTER)


def _ask(model: str = "large") -> dict[str, str]:
    return {"model": model, "connection": "models.example.net"}


def test_an_add_sends_one_new_deployment_without_any_key_and_onboards_it(gateway: Gateway, hub: LiteLLMHub):
    _endpoint(gateway, hub)
    added = gateway.api("POST", "/api/hubs/proxy/add", {**_ask(), "suite": "quick"}, expect=200)
    (new,) = hub.calls_to("POST", "/model/new")
    assert new.body == {
        "model_name": "large",
        "litellm_params": {
            "model": "openai/large",
            "api_base": "https://models.example.net/v1",
            "litellm_credential_name": "example-cred",
            "extra_headers": {"X-Title": "bench"},
        },
        "model_info": {"tags": ["models.example.net"]},
    }
    assert new.headers["authorization"] == f"Bearer {MASTER}"
    assert secrets_in_bodies(hub.calls, [MASTER, UPSTREAM_KEY, UPSTREAM_KEY[:8]]) == []
    assert added["sent"] == [{"method": "POST", "path": "/model/new", "body": new.body}]
    assert added["onboarding"]["served_id"] == "large" and added["onboarding"]["endpoint"] == "proxy"
    assert on_bench(gateway, "large")["served_id"] == "large"
    gateway_shows_no(gateway, MASTER, UPSTREAM_KEY)


def test_adding_twice_sends_one_deployment(gateway: Gateway, hub: LiteLLMHub):
    _endpoint(gateway, hub)
    gateway.api("POST", "/api/hubs/proxy/add", _ask(), expect=200)
    again = gateway.api("POST", "/api/hubs/proxy/add", _ask(), expect=200)
    assert len(hub.calls_to("POST", "/model/new")) == 1
    assert again["plan"]["already"] is True and again["sent"] == []
    assert len(gateway.api("GET", "/api/onboarding", expect=200)["items"]) == 1


def test_a_plan_writes_nothing(gateway: Gateway, hub: LiteLLMHub):
    _endpoint(gateway, hub)
    plan = gateway.api("POST", "/api/hubs/proxy/plan", _ask(), expect=200)["plan"]
    assert plan["blocked"] is None and plan["checked"] is True
    assert any("Authorization" in note for note in plan["notes"])
    assert hub.writes() == []
    assert gateway.api("GET", "/api/onboarding", expect=200)["items"] == []


def test_a_proxy_keeping_its_models_in_its_config_file_is_refused_with_advice(
    gateway: Gateway, hub: LiteLLMHub
):
    hub.store_models = False
    _endpoint(gateway, hub)
    refused = gateway.api("POST", "/api/hubs/proxy/add", _ask(), expect=409)
    assert (
        "config file" in refused["error"]["message"]
        and "STORE_MODEL_IN_DB=True" in refused["error"]["message"]
    )
    assert gateway.api("GET", "/api/onboarding", expect=200)["items"] == []


def test_a_version_not_checked_is_a_note_not_a_refusal(gateway: Gateway, hub: LiteLLMHub):
    hub.version = "1.999.0"
    _endpoint(gateway, hub)
    added = gateway.api("POST", "/api/hubs/proxy/add", _ask(), expect=200)
    assert added["plan"]["checked"] is False
    assert any("1.999.0" in note and "1.108" in note for note in added["plan"]["notes"])
    assert len(hub.calls_to("POST", "/model/new")) == 1


def test_without_an_admin_key_the_endpoints_own_key_is_tried(gateway: Gateway, hub: LiteLLMHub):
    hub.master_key = ENDPOINT_KEY
    gateway.add_endpoint("proxy", f"{hub.url}/v1", key=ENDPOINT_KEY, hub="litellm")
    gateway.api("POST", "/api/hubs/proxy/add", _ask(), expect=200)
    assert hub.calls_to("POST", "/model/new")[0].headers["authorization"] == f"Bearer {ENDPOINT_KEY}"
