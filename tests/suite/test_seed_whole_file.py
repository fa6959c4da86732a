"""Seeding's whole-file mode: the module shown whole (100–400 lines), the fault anywhere in it."""

from __future__ import annotations

from panelgate.suite.mutations import Kind
from panelgate.suite.seed import WHOLE_FILE_LINES, SeedPlan, seed_pairs
from panelgate.suite.seed_repo import read_modules
from tests.suite.seeding import PANELGATE_SRC, listing

CORE = PANELGATE_SRC / "core"


def test_each_pair_shows_a_whole_module_numbered_as_in_the_file_with_the_fault_on_its_line() -> None:
    modules = read_modules(CORE)
    kinds = tuple(kind for kind in Kind if kind is not Kind.REMOVED_CALL)
    pairs = seed_pairs(modules, SeedPlan(repo="core", count=4, kinds=kinds, seed=5, whole_file=True))
    assert len(pairs) == 4
    texts = {module.path: module.text.splitlines() for module in modules}
    for pair in pairs:
        control, bug = listing(pair.control), listing(pair.bug)
        assert control == [line.rstrip() for line in texts[pair.path]], "the control is the module as written"
        assert len(control) in WHOLE_FILE_LINES
        changed = [n for n, (a, b) in enumerate(zip(control, bug, strict=True), start=1) if a != b]
        assert changed == list(pair.fault_lines)
        assert pair.bug["id"].startswith("seeded-hard-core-") and "whole file" in pair.bug["prompt"]
    assert len({pair.path for pair in pairs}) == 4, "one pair per module: its control is the module"


def test_modules_outside_the_size_range_give_no_whole_file_pair() -> None:
    small = [m for m in read_modules(CORE) if len(m.text.splitlines()) < 100]
    assert small and seed_pairs(small, SeedPlan(repo="core", count=3, whole_file=True)) == []
