"""Seeding plants one parseable change in a real function and keeps the function as written as the control."""

from __future__ import annotations

import ast

import pytest

from panelgate.suite.mutations import Edit, Kind, Site
from panelgate.suite.seed import SeededPair, SeedPlan, fault_lines, seed_pairs
from panelgate.suite.seed_regions import SeedableFunction, Span
from panelgate.suite.seed_repo import read_modules
from tests.suite.seeding import PANELGATE_SRC, lines_as_written, listing, parsed_in_place, sample_modules


def one_pair(kind: Kind, seed: int = 3) -> SeededPair:
    pairs = seed_pairs(sample_modules(), SeedPlan(repo="sample", count=1, kinds=(kind,), seed=seed))
    assert len(pairs) == 1, f"the sample repository offers no {kind}"
    return pairs[0]


@pytest.mark.parametrize("kind", list(Kind))
def test_every_kind_changes_a_sample_function_and_keeps_it_parseable(kind: Kind) -> None:
    pair = one_pair(kind)
    bug, control = listing(pair.bug), listing(pair.control)
    assert pair.kind is kind
    modules = sample_modules()
    assert control == lines_as_written(modules, pair.path, pair.function)
    mutated = parsed_in_place(modules, pair.path, pair.function, bug)
    assert ast.dump(mutated) != ast.dump(parsed_in_place(modules, pair.path, pair.function, control))
    assert pair.bug["shape"] == "seeded" and pair.control["shape"] == "control"


@pytest.mark.parametrize("kind", [kind for kind in Kind if kind is not Kind.REMOVED_CALL])
def test_a_changed_token_sits_on_the_line_the_answer_key_names(kind: Kind) -> None:
    pair = one_pair(kind)
    bug, control = listing(pair.bug), listing(pair.control)
    assert len(bug) == len(control)
    changed = [
        n for n, (mine, theirs) in enumerate(zip(bug, control, strict=True), start=1) if mine != theirs
    ]
    assert changed == list(pair.fault_lines)
    (line,) = pair.fault_lines
    assert pair.bug["must_find"] == [
        {"regex": rf"\bFAULT:\s*line\s+{line}\b", "label": f"FAULT: line {line}"}
    ]
    assert pair.bug["must_not_claim"] == [{"regex": r"\bNO\s+FAULT\b", "label": "NO FAULT"}]


def test_a_changed_line_differs_only_where_the_token_was() -> None:
    pair = one_pair(Kind.COMPARISON)
    (line,) = pair.fault_lines
    before, after = listing(pair.control)[line - 1], listing(pair.bug)[line - 1]
    start = next(i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b)
    assert before[:start] == after[:start]
    assert before[-10:] == after[-10:], "the rest of the line keeps its bytes"


def test_a_deleted_call_may_be_named_on_either_neighbouring_line() -> None:
    pair = one_pair(Kind.REMOVED_CALL)
    bug, control = listing(pair.bug), listing(pair.control)
    above, below = pair.fault_lines
    assert pair.bug["must_find"] == [{"any_of": [f"FAULT: line {above}", f"FAULT: line {below}"]}]
    gone = len(control) - len(bug)
    assert gone >= 1 and below == above + 1
    assert bug[:above] == control[:above] and bug[above:] == control[above + gone :]
    removed = "\n".join(control[above : above + gone]).strip()
    assert removed.endswith(")") and "(" in removed, f"a call went: {removed!r}"


def test_the_neighbours_of_a_deleted_call_skip_blank_and_comment_lines() -> None:
    shown = [
        "def f(items):\n",
        "    items.sort()\n",
        "\n",
        "    # the call went here\n",
        "    return items\n",
    ]
    node = ast.parse("def f(): pass").body[0]
    assert isinstance(node, ast.FunctionDef)
    function = SeedableFunction("f", node, 10, 14)
    removed = Site(Kind.REMOVED_CALL, Edit(Span((13, 0), (14, 0)), ""), 13, "", Span((13, 4), (13, 20)))
    assert fault_lines(removed, function, shown) == (2, 5)


def test_the_same_seed_gives_the_same_tasks_and_another_seed_others() -> None:
    plan = SeedPlan(repo="sample", count=8, seed=42)
    first, again = seed_pairs(sample_modules(), plan), seed_pairs(sample_modules(), plan)
    assert [(p.bug, p.control) for p in first] == [(p.bug, p.control) for p in again]
    other = seed_pairs(sample_modules(), SeedPlan(repo="sample", count=8, seed=43))
    assert [p.bug["id"] for p in other] != [p.bug["id"] for p in first]


def test_each_function_carries_one_pair_at_most_and_taken_ids_are_passed_over() -> None:
    plan = SeedPlan(repo="sample", count=40, seed=5)
    pairs = seed_pairs(sample_modules(), plan)
    places = [(p.path, p.function) for p in pairs]
    assert len(places) == len(set(places)) and len(pairs) > 10
    taken = frozenset({pairs[0].bug["id"]})
    again = seed_pairs(sample_modules(), SeedPlan(repo="sample", count=1, seed=5), taken)
    assert again and again[0].bug["id"] != pairs[0].bug["id"]


def test_a_few_pairs_cover_many_kinds() -> None:
    pairs = seed_pairs(sample_modules(), SeedPlan(repo="sample", count=len(Kind), seed=9))
    assert {pair.kind for pair in pairs} == set(Kind)


def test_bug_and_control_send_the_same_words_around_the_code() -> None:
    pair = one_pair(Kind.NUMBER)
    bug_words = pair.bug["prompt"].split("```")
    control_words = pair.control["prompt"].split("```")
    assert bug_words[0] == control_words[0] and bug_words[2] == control_words[2]
    assert pair.control["must_find"] == [{"regex": r"\bNO\s+FAULT\b", "label": "NO FAULT"}]
    assert pair.control["must_not_claim"] == [{"regex": r"\bFAULT:\s*line\s+\d+", "label": "FAULT: line N"}]
    assert pair.bug["draft"] is True and pair.control["draft"] is True
    assert pair.bug["score_in"] == "first_line"


def test_panelgate_s_own_code_offers_every_kind() -> None:
    modules = read_modules(PANELGATE_SRC)
    pairs = seed_pairs(modules, SeedPlan(repo="panelgate", count=len(Kind), seed=2026))
    assert {pair.kind for pair in pairs} == set(Kind)
    for pair in pairs:
        bug, control = listing(pair.bug), listing(pair.control)
        assert control == lines_as_written(modules, pair.path, pair.function)
        mutated = parsed_in_place(modules, pair.path, pair.function, bug)
        as_written = parsed_in_place(modules, pair.path, pair.function, control)
        assert ast.dump(mutated) != ast.dump(as_written), pair.summary()
