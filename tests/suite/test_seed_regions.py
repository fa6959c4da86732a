"""Seeding leaves alone strings, comments, docstrings, `__main__` blocks, dead code, defaults, noise calls."""

from __future__ import annotations

import tokenize
from pathlib import Path

from panelgate.suite.mutations import Edit, Kind, Site, candidates, changes_behaviour, sites
from panelgate.suite.seed import SeedPlan, seed_pairs
from panelgate.suite.seed_regions import ModuleSource, Span, seedable_functions
from panelgate.suite.seed_repo import read_modules
from tests.suite.seeding import PANELGATE_SRC, SAMPLE_REPO, sample_modules


def found_in(source: ModuleSource) -> set[tuple[str, Kind, str]]:
    """Every place seeding would plant a bug: function, kind, and the line as written."""
    return {
        (function.qualname, kind, source.lines[site.line - 1].strip())
        for function in seedable_functions(source)
        for kind in Kind
        for site in sites(source, function, kind)
    }


def guarded() -> ModuleSource:
    module = next(m for m in sample_modules() if m.path == "inventory/guarded.py")
    return ModuleSource(module.path, module.text)


def test_only_the_live_places_of_the_guarded_functions_are_found() -> None:
    assert found_in(guarded()) == {
        ("restock_level", Kind.COMPARISON, "return count < floor"),
        ("rounded_weight", Kind.NUMBER, "return round(weight, 3) * 2"),
        ("retire_code", Kind.COMPARISON, "return upper if dry_run != code.isupper() else code"),
        ("audit_trail", Kind.REMOVED_CALL, "trail.reverse()"),
    }


def test_functions_under_a_main_block_are_never_offered() -> None:
    names = [function.qualname for function in seedable_functions(guarded())]
    assert names == ["restock_level", "rounded_weight", "retire_code", "audit_trail"]
    assert "def demo(count: int) -> int:" in guarded().text


def test_code_after_a_return_raise_break_or_continue_is_dead() -> None:
    source = ModuleSource(
        "dead.py",
        "def settle(balance, payments):\n"
        "    for amount in payments:\n"
        "        if amount < 0:\n"
        "            continue\n"
        "            balance -= amount\n"
        "        balance += amount\n"
        "    return balance > 0\n"
        "    balance = not balance\n",
    )
    lines = {line for _, _, line in found_in(source)}
    assert lines == {"if amount < 0:", "continue", "balance += amount", "return balance > 0"}


def test_symmetric_and_typed_calls_are_not_swapped() -> None:
    source = ModuleSource(
        "calls.py",
        "def spread(low, high, value):\n"
        "    width = max(low, high) - min(low, high)\n"
        "    if isinstance(value, int):\n"
        "        value = getattr(value, 'real')\n"
        "    return divmod(value, width)\n",
    )
    function = seedable_functions(source)[0]
    swaps = [source.lines[site.line - 1].strip() for site in sites(source, function, Kind.SWAPPED_ARGUMENTS)]
    assert swaps == ["return divmod(value, width)"]


def test_no_edit_reaches_into_a_string_or_a_comment() -> None:
    modules = [
        *sample_modules(),
        *read_modules(PANELGATE_SRC / "suite"),
        *read_modules(PANELGATE_SRC / "core"),
    ]
    checked = 0
    for module in modules:
        source = ModuleSource(module.path, module.text)
        words = [
            Span(token.start, token.end)
            for token in source.tokens
            if token.type in (tokenize.STRING, tokenize.COMMENT)
        ]
        for function in seedable_functions(source):
            for kind in Kind:
                for site in candidates(source, function, kind):
                    assert _keeps_words(source, site, words), (module.path, function.qualname, site)
                    checked += 1
    assert checked > 1000


def _keeps_words(source: ModuleSource, site: Site, words: list[Span]) -> bool:
    """A token edit stays out of every string and comment; a removed call takes no comment with it."""
    if site.removed is None:
        return not any(site.edit.span.overlaps(word) for word in words)
    return all(token.type != tokenize.COMMENT for token in source.tokens_in(site.edit.span))


def test_seeding_reads_the_repository_s_own_modules_not_its_tests() -> None:
    assert (SAMPLE_REPO / "tests" / "checks_stock.py").is_file()
    assert [module.path for module in sample_modules()] == [
        "inventory/__init__.py",
        "inventory/batches.py",
        "inventory/guarded.py",
        "inventory/pricing.py",
        "inventory/stock.py",
    ]


def test_a_module_that_does_not_parse_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def half(:\n    return 1\n")
    (tmp_path / "fine.py").write_text(
        "def clamp(value, low, high):\n"
        '    """Keep value within [low, high]."""\n'
        "    if value < low:\n"
        "        return low\n"
        "    return min(value, high)\n"
    )
    pairs = seed_pairs(read_modules(tmp_path), SeedPlan(repo="t", count=3, seed=1))
    assert pairs and {pair.path for pair in pairs} == {"fine.py"}


def test_a_call_that_ends_the_function_is_never_removed() -> None:
    source = ModuleSource(
        "tail.py",
        "def drain(queue, sink):\n"
        "    items = list(queue)\n"
        "    queue.clear()\n"
        "    sink.extend(items)\n"
        "    sink.sort()\n",
    )
    removed = sorted(line for _, kind, line in found_in(source) if kind is Kind.REMOVED_CALL)
    assert removed == ["queue.clear()", "sink.extend(items)"]


def test_decorators_inner_defaults_lambda_defaults_and_commented_calls_are_left_alone() -> None:
    source = ModuleSource(
        "inner.py",
        "@retry(3, 0.5)\n"
        "def weigh(parcels, scale):\n"
        "    def heavier(parcel, margin=2):\n"
        "        return parcel.kg > margin\n"
        "    scale.reset()  # a fresh tare for every batch\n"
        "    parcels.sort(key=lambda parcel, extra=3: parcel.kg + extra)\n"
        "    scale.calibrate()\n"
        "    return [parcel for parcel in parcels if heavier(parcel)]\n",
    )
    assert sorted((kind, line) for _, kind, line in found_in(source)) == [
        (Kind.COMPARISON, "return parcel.kg > margin"),
        (Kind.REMOVED_CALL, "parcels.sort(key=lambda parcel, extra=3: parcel.kg + extra)"),
        (Kind.REMOVED_CALL, "scale.calibrate()"),
    ]


def test_type_checking_blocks_annotations_and_comments_inside_a_call_are_left_alone() -> None:
    source = ModuleSource(
        "typed.py",
        "from typing import TYPE_CHECKING, Literal\n"
        "if TYPE_CHECKING:\n"
        "    def stub(a: int, b: int) -> bool:\n"
        '        """Only for the type checker."""\n'
        "        if a < b:\n"
        "            return True\n"
        "        return a == b\n"
        "def pack(boxes, truck):\n"
        "    if TYPE_CHECKING:\n"
        "        assert len(boxes) > 0\n"
        "    sizes: Literal[1, 2]\n"
        "    truck.load(\n"
        "        boxes,  # heaviest first\n"
        "    )\n"
        "    return truck.full()\n",
    )
    assert [function.qualname for function in seedable_functions(source)] == ["pack"]
    assert found_in(source) == set()


def test_an_edit_that_breaks_the_syntax_or_changes_nothing_is_no_bug() -> None:
    source = ModuleSource("same.py", "def f(x):\n    y = x + 1\n    return y\n")
    line_two = Span((2, 8), (2, 13))
    assert changes_behaviour(source, Site(Kind.NUMBER, Edit(line_two, "x +  2"), 2, ""))
    assert not changes_behaviour(source, Site(Kind.NUMBER, Edit(line_two, "x +  1"), 2, ""))
    assert not changes_behaviour(source, Site(Kind.NUMBER, Edit(line_two, "x + (1"), 2, ""))
