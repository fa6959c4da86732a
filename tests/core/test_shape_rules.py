"""The shape rules: what kind of work a request's words ask for, first matching rule first."""

from __future__ import annotations

from panelgate.core.shape_rules import DECIDABLE_SHAPES, RULES, deciding_rule, shape_by_rules
from panelgate.core.types import ChatMessage

FUNCTION = "```python\ndef total(items):\n    return sum(item.price for item in items)\n```"
DIFF = (
    "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n-timeout = 30\n+timeout = 3\n"
)


def asked(text: str, *, system: str = "", before: tuple[str, ...] = ()) -> list[ChatMessage]:
    """A conversation ending in the user asking `text`; `before` alternates user and assistant turns."""
    messages: list[ChatMessage] = [{"role": "system", "content": system}] if system else []
    roles = ("user", "assistant")
    messages += [{"role": roles[n % 2], "content": turn} for n, turn in enumerate(before)]
    return [*messages, {"role": "user", "content": text}]


def test_code_asked_to_be_reviewed_is_a_review() -> None:
    assert shape_by_rules(asked(f"Please review this for bugs:\n{FUNCTION}")) == "review"


def test_code_asked_to_find_bugs_is_a_review() -> None:
    assert shape_by_rules(asked(f"{FUNCTION}\nCan you find the bugs in it?")) == "review"


def test_a_diff_asked_whether_it_looks_right_is_a_review() -> None:
    assert shape_by_rules(asked(f"{DIFF}\nDoes this look right to merge?")) == "review"


def test_code_asked_for_anything_else_is_code() -> None:
    assert shape_by_rules(asked(f"Add type hints to this:\n{FUNCTION}")) == "code"


def test_a_diff_without_a_review_ask_is_code() -> None:
    assert shape_by_rules(asked(f"Apply this to the config loader too:\n{DIFF}")) == "code"


def test_review_words_inside_the_code_do_not_make_a_review() -> None:
    code = "```python\ndef check_review(item):\n    # review and check the item\n    return item\n```"
    assert shape_by_rules(asked(f"Rename the function to snake case.\n{code}")) == "code"


def test_pasted_code_without_a_fence_is_still_code() -> None:
    pasted = "import os\ndef home():\n    return os.environ['HOME']\nprint(home());"
    assert shape_by_rules(asked(f"Make this work on Windows:\n{pasted}")) == "code"


def test_list_all_is_an_enumeration() -> None:
    assert shape_by_rules(asked("List all the member states of the European Union.")) == "enumeration"


def test_enumerate_is_an_enumeration() -> None:
    assert shape_by_rules(asked("Enumerate the HTTP methods defined by RFC 9110.")) == "enumeration"


def test_an_essay_ask_is_prose() -> None:
    assert shape_by_rules(asked("Write an essay on the printing press and the Reformation.")) == "prose"


def test_a_rewrite_ask_is_prose() -> None:
    assert (
        shape_by_rules(asked("Rewrite this paragraph so a child can read it:\nThe mitochondria…")) == "prose"
    )


def test_a_writing_ask_about_design_is_prose() -> None:
    assert shape_by_rules(asked("Write an article about event-driven architecture for our blog.")) == "prose"


def test_design_words_make_a_design() -> None:
    ask = "We are splitting the billing service.\nWhat are the trade-offs of a schema per tenant?"
    assert shape_by_rules(asked(ask)) == "design"


def test_a_short_one_line_question_is_quick() -> None:
    assert shape_by_rules(asked("What is the capital of Peru?")) == "quick"


def test_a_one_line_question_without_a_question_mark_is_quick() -> None:
    assert shape_by_rules(asked("how many bytes are in a kibibyte")) == "quick"


def test_a_one_line_follow_up_in_a_conversation_is_not_quick() -> None:
    assert shape_by_rules(asked("Why?", before=("Is Rust memory safe?", "Mostly, yes."))) == "general"


def test_a_long_one_line_question_is_not_quick() -> None:
    question = "What " + "really " * 40 + "happened at the meeting?"
    assert shape_by_rules(asked(question)) == "general"


def test_an_ask_matching_no_rule_is_general() -> None:
    ask = "Explain how vaccines train the immune system.\nUse measles and flu as examples."
    assert shape_by_rules(asked(ask)) == "general"


def test_the_rules_read_the_last_user_message_not_the_system_prompt() -> None:
    messages = asked("What is the capital of Peru?", system=f"You are a code reviewer.\n{FUNCTION}")
    assert shape_by_rules(messages) == "quick"


def test_text_parts_are_read_like_string_content() -> None:
    parts = [{"type": "text", "text": "Review this:"}, {"type": "text", "text": FUNCTION}]
    assert shape_by_rules([{"role": "user", "content": parts}]) == "review"


def test_a_request_without_a_user_message_is_general() -> None:
    assert shape_by_rules([{"role": "system", "content": "Be brief."}]) == "general"


def test_the_deciding_rule_is_named_for_a_person() -> None:
    rule = deciding_rule(asked(f"Review this:\n{FUNCTION}"))
    assert rule is not None and rule.shape == "review" and "review" in rule.name


def test_the_rules_name_only_shapes_a_request_can_be_asked_for() -> None:
    assert {rule.shape for rule in RULES} <= set(DECIDABLE_SHAPES)
    assert "vision" not in DECIDABLE_SHAPES and "image" not in DECIDABLE_SHAPES
