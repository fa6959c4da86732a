"""The doubled output budget an empty answer cut at its token limit is asked again with."""

from __future__ import annotations

from panelgate.core.output_budget import ASSUMED_DEFAULT, doubled_budget


def test_every_budget_field_the_call_carries_is_doubled() -> None:
    asked = {"max_tokens": 300, "max_completion_tokens": 300, "temperature": 0}
    assert doubled_budget(asked, None) == {"max_tokens": 600, "max_completion_tokens": 600, "temperature": 0}


def test_a_call_without_a_budget_gets_twice_the_assumed_default() -> None:
    assert doubled_budget({"temperature": 1}, None) == {
        "temperature": 1,
        "max_completion_tokens": 2 * ASSUMED_DEFAULT,
    }


def test_the_models_maximum_caps_the_doubled_budget() -> None:
    assert doubled_budget({"max_tokens": 3000}, 4000) == {"max_tokens": 4000}


def test_a_budget_that_cannot_grow_is_not_asked_again() -> None:
    assert doubled_budget({"max_tokens": 4000}, 4000) is None
    assert doubled_budget({}, ASSUMED_DEFAULT) is None
