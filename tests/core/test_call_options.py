from typing import Any

from panelgate.core.call_options import call_options, clamped
from panelgate.core.types import ModelInfo


def model(**facts: Any) -> ModelInfo:
    return ModelInfo(alias="m1", served_id="m1", endpoint="up", **facts)


def test_the_callers_options_go_as_sent_to_a_model_with_none_stored_and_no_known_maximum():
    asked = {"temperature": 0, "max_tokens": 100_000, "stop": ["END"], "seed": 7}
    assert call_options(asked, model()) is asked


def test_stored_options_fill_in_what_the_caller_left_out():
    stored = model(options={"temperature": 1, "top_p": 0.9})
    assert call_options({"max_tokens": 50}, stored) == {"temperature": 1, "top_p": 0.9, "max_tokens": 50}


def test_the_caller_wins_where_both_set_an_option():
    stored = model(options={"temperature": 1, "seed": 3})
    assert call_options({"temperature": 0}, stored) == {"temperature": 0, "seed": 3}


def test_a_callers_null_does_not_erase_a_stored_value():
    stored = model(options={"temperature": 1})
    assert call_options({"temperature": None, "top_p": None}, stored) == {"temperature": 1, "top_p": None}


def test_a_callers_max_tokens_overrides_a_stored_max_completion_tokens():
    stored = model(options={"max_completion_tokens": 4000, "temperature": 1})
    assert call_options({"max_tokens": 64}, stored) == {"temperature": 1, "max_tokens": 64}


def test_a_max_tokens_over_the_models_maximum_is_clamped_to_it():
    asked = {"max_tokens": 100_000, "max_completion_tokens": 200, "temperature": 0}
    sent = call_options(asked, model(max_output=8192))
    assert sent == {"max_tokens": 8192, "max_completion_tokens": 200, "temperature": 0}
    assert asked["max_tokens"] == 100_000, "the caller's options were changed in place"


def test_a_stored_max_tokens_is_clamped_like_the_callers():
    assert call_options({}, model(options={"max_tokens": 9000}, max_output=4096)) == {"max_tokens": 4096}


def test_values_that_are_not_token_counts_are_left_for_the_upstream_to_judge():
    asked = {"max_tokens": True, "max_completion_tokens": "lots"}
    assert clamped(asked, 10) is asked
