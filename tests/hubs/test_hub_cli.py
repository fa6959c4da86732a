"""`panelgate hub set|list|plan|add`, run as a person would, against a LiteLLM stand-in."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.litellm_hub import LiteLLMHub

MASTER = "sk-cli-master-2d2d2d2d"
DEPLOYMENT = {
    "model_name": "small",
    "litellm_params": {"model": "openai/small", "api_base": "https://a.example/v1"},
}


def test_a_person_makes_an_endpoint_a_hub_plans_and_adds_a_model(gateway: Gateway):
    with LiteLLMHub(MASTER, [DEPLOYMENT], virtual_keys=("sk-listing-only",)) as hub:
        gateway.add_endpoint("proxy", f"{hub.url}/v1", key="sk-listing-only", key_name="proxy")
        made = panelgate(
            "hub", "set", "proxy", "--hub", "litellm", "--admin-key-stdin", url=gateway.url, stdin=MASTER
        )
        assert made.returncode == 0, made.stderr
        assert "admin key kept as proxy-admin" in made.stdout and MASTER not in made.stdout

        listed = panelgate("hub", "list", url=gateway.url)
        assert listed.returncode == 0, listed.stderr
        assert "a.example" in listed.stdout and "LiteLLM proxy" in listed.stdout

        planned = panelgate("hub", "plan", "proxy", "large", "-c", "a.example", url=gateway.url)
        assert planned.returncode == 0, planned.stderr
        assert "would send: POST /model/new" in planned.stdout and hub.writes() == []

        added = panelgate("hub", "add", "proxy", "large", "-c", "a.example", "--json", url=gateway.url)
        assert added.returncode == 0, added.stderr
        reply = json.loads(added.stdout)
        assert reply["onboarding"]["alias"] == "large" and len(hub.calls_to("POST", "/model/new")) == 1

        refused = panelgate("hub", "plan", "proxy", "large", "-c", "nowhere", url=gateway.url)
        assert refused.returncode != 0 and "no connection `nowhere`" in refused.stderr
