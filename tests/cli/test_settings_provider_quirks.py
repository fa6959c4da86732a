"""`panelgate settings` turns each provider-quirk behaviour off and on again, one flag each."""

from __future__ import annotations

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway

QUIRKS = ("retry_empty_length", "detect_quota_notices", "swap_alerts")


def shown(gateway: Gateway) -> dict[str, object]:
    found = gateway.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    return {name: found[name] for name in QUIRKS}


def test_each_quirk_is_on_until_turned_off_and_back_on(gateway: Gateway) -> None:
    assert shown(gateway) == dict.fromkeys(QUIRKS, True)
    off = panelgate("settings", "--no-retry-empty-length", "--no-detect-quota-notices", url=gateway.url)
    assert off.returncode == 0, off.stderr
    assert shown(gateway) == {"retry_empty_length": False, "detect_quota_notices": False, "swap_alerts": True}
    on = panelgate("settings", "--retry-empty-length", "--no-swap-alerts", url=gateway.url)
    assert on.returncode == 0, on.stderr
    assert shown(gateway) == {"retry_empty_length": True, "detect_quota_notices": False, "swap_alerts": False}


def test_a_quirk_setting_that_is_not_true_or_false_is_refused(gateway: Gateway) -> None:
    refused = gateway.api("PATCH", "/api/settings/gateway", {"swap_alerts": "yes"}, expect=400)
    assert "swap_alerts must be true or false" in refused["error"]["message"]
    assert shown(gateway)["swap_alerts"] is True
