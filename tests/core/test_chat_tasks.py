"""A chat UI's background tasks are told by their `### Task:` prompt; a collection says who owes verdicts."""

from __future__ import annotations

import pytest

from panelgate.core.chat_tasks import is_background_task, owes_verdicts
from panelgate.core.types import ChatMessage

TITLE = (
    "### Task:\nName this chat in five words.\n### Chat History:\n<chat_history>\nUSER: hi\n</chat_history>"
)
TASK: list[ChatMessage] = [{"role": "user", "content": TITLE}]
CHAT: list[ChatMessage] = [{"role": "user", "content": "What does ### Task: mean in a prompt?"}]


def test_a_last_user_message_opening_with_the_task_heading_is_a_background_task():
    assert is_background_task(TASK)
    system: ChatMessage = {"role": "system", "content": "be brief"}
    briefed = [system, {"role": "user", "content": "\n" + TITLE}]
    assert is_background_task(briefed)


def test_the_task_heading_in_a_list_of_parts_counts_too():
    assert is_background_task([{"role": "user", "content": [{"type": "text", "text": TITLE}]}])


def test_a_question_that_only_mentions_the_heading_is_a_chat():
    assert not is_background_task(CHAT)


def test_only_the_last_user_message_decides():
    answered: list[ChatMessage] = [{"role": "assistant", "content": "Greetings"}]
    earlier_task = [*TASK, *answered, {"role": "user", "content": "and now?"}]
    assert not is_background_task(earlier_task)
    assert not is_background_task([{"role": "system", "content": TITLE}])


@pytest.mark.parametrize(
    ("setting", "task_owes", "chat_owes"),
    [("all", True, True), ("chats", False, True), ("none", False, False)],
)
def test_the_collection_setting_says_which_panels_owe_verdicts(
    setting: str, task_owes: bool, chat_owes: bool
):
    assert owes_verdicts(setting, TASK) is task_owes  # type: ignore[arg-type]
    assert owes_verdicts(setting, CHAT) is chat_owes  # type: ignore[arg-type]
