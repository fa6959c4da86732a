from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from panelgate.core.sizing import (
    IMAGE_TOKENS,
    count_images,
    estimate_tokens,
    fits,
    message_text,
    prompt_preview,
)
from panelgate.core.types import ChatMessage, ModelInfo

PICTURE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg"}}


def text(role: str, words: str) -> ChatMessage:
    return {"role": role, "content": words}


def parts(role: str, *items: Any) -> ChatMessage:
    return {
        "role": role,
        "content": [{"type": "text", "text": i} if isinstance(i, str) else i for i in items],
    }


def test_message_text_of_string_content_is_the_string() -> None:
    assert message_text(text("user", "hello")) == "hello"


def test_message_text_joins_text_parts_and_leaves_images_out() -> None:
    assert message_text(parts("user", "look", PICTURE, "here")) == "look\nhere"


def test_message_without_content_has_no_text() -> None:
    assert message_text({"role": "assistant", "content": None}) == ""


def test_images_are_counted_across_messages() -> None:
    assert count_images([parts("user", PICTURE, "a"), text("assistant", "b"), parts("user", PICTURE)]) == 2


def test_estimate_is_chars_over_four_times_one_point_one() -> None:
    assert estimate_tokens([text("user", "x" * 400)]) == 110


def test_system_text_counts_toward_the_estimate() -> None:
    assert estimate_tokens([text("system", "x" * 200), text("user", "x" * 200)]) == 110


def test_any_text_is_at_least_one_token() -> None:
    assert estimate_tokens([text("user", "x")]) == 1


def test_no_text_is_no_tokens() -> None:
    assert estimate_tokens([text("user", "")]) == 0


def test_each_image_adds_a_flat_image_cost() -> None:
    assert estimate_tokens([parts("user", "x" * 400, PICTURE, PICTURE)]) == 110 + 2 * IMAGE_TOKENS


messages = st.lists(
    st.builds(text, st.sampled_from(["system", "user", "assistant"]), st.text(max_size=300)), max_size=6
)


@given(messages, messages)
def test_more_conversation_never_lowers_the_estimate(
    first: list[ChatMessage], more: list[ChatMessage]
) -> None:
    assert estimate_tokens(first + more) >= estimate_tokens(first)


@given(st.text(max_size=500), st.text(max_size=500))
def test_longer_text_never_lowers_the_estimate(words: str, extra: str) -> None:
    assert estimate_tokens([text("user", words + extra)]) >= estimate_tokens([text("user", words)])


def test_unknown_context_window_always_fits() -> None:
    assert fits(ModelInfo("m1", "m1", "e"), 10**9)


def test_a_window_exactly_the_estimate_fits_and_one_less_does_not() -> None:
    assert fits(ModelInfo("m1", "m1", "e", context_window=8192), 8192)
    assert not fits(ModelInfo("m1", "m1", "e", context_window=8191), 8192)


def test_preview_is_the_last_user_message_with_whitespace_collapsed() -> None:
    convo = [
        text("system", "be brief"),
        text("user", "first"),
        text("assistant", "ok"),
        text("user", " a \n\n b\tc "),
    ]
    assert prompt_preview(convo) == "a b c"


def test_preview_shows_images_as_placeholders_never_their_bytes() -> None:
    preview = prompt_preview([parts("user", "what is", PICTURE, "this?")])
    assert preview == "what is [image] this?"
    assert "base64" not in preview


def test_preview_is_cut_to_the_limit() -> None:
    preview = prompt_preview([text("user", "word " * 100)], limit=20)
    assert len(preview) <= 20
    assert preview.startswith("word word")
    assert preview.endswith("…")


def test_preview_of_a_conversation_without_a_user_message_is_empty() -> None:
    assert prompt_preview([text("system", "rules")]) == ""
