"""Which explorer candidates sit out a long prompt, from the speed test's long-prompt figures."""

from __future__ import annotations

from panelgate.core.long_prompts import LONG_PROMPT_CHARS, LongPromptTest, is_long, misfits
from panelgate.core.sizing import estimate_tokens


def test_a_candidate_over_three_times_the_tested_median_sits_out():
    tests = {"a": LongPromptTest(3, 3, 2.0), "b": LongPromptTest(3, 3, 3.0), "c": LongPromptTest(3, 3, 9.5)}
    why = misfits(["a", "b", "c"], tests)
    assert list(why) == ["c"] and "9.5 s" in why["c"] and "3.0 s" in why["c"]


def test_a_candidate_just_under_three_times_the_median_still_sits():
    tests = {"a": LongPromptTest(3, 3, 2.0), "b": LongPromptTest(3, 3, 3.0), "c": LongPromptTest(3, 3, 9.0)}
    assert misfits(["a", "b", "c"], tests) == {}


def test_a_failed_test_sits_out_and_an_untested_model_sits():
    tests = {"a": LongPromptTest(3, 0), "b": LongPromptTest(3, 2, 4.0)}
    assert misfits(["a", "b", "new"], tests) == {
        "a": "failed the long-prompt speed test (0 of 3 runs answered)"
    }


def test_only_the_candidates_in_the_pool_set_the_median():
    tests = {"a": LongPromptTest(3, 3, 1.0), "b": LongPromptTest(3, 3, 1.0), "c": LongPromptTest(3, 3, 5.0)}
    assert misfits(["a", "b", "c"], tests) == {"c": misfits(["a", "b", "c"], tests)["c"]}
    assert misfits(["b", "c"], tests) == {}, "the median of 1 s and 5 s is 3 s: 5 s is not over 9 s"


def test_a_prompt_is_long_past_eight_thousand_characters_of_text():
    def text(chars: int) -> int:
        return estimate_tokens([{"role": "user", "content": "x" * chars}])

    assert not is_long(text(LONG_PROMPT_CHARS)) and is_long(text(LONG_PROMPT_CHARS + 40))
    assert not is_long(text(2_000))
