"""Seeding: plant one bug in a real function of the person's code; the function as written is its control.

A pair of tasks comes out of each planted bug: the changed function (shape
`seeded`, right answer `FAULT: line N`) and the same function as written
(shape `control`, right answer `NO FAULT`). Both send the same words around
the code, so nothing but the code tells them apart, and a model that cries
fault everywhere loses on the controls what it gains on the bugs.

Choices are drawn from one `random.Random(seed)`: first the kind (in a
shuffled rotation, so a handful of pairs covers many kinds), then a
function that offers that kind, then a place in it. The same repository
and seed give the same tasks. Each function carries at most one pair, so
no two tasks show the same code.

Whole-file mode (`SeedPlan.whole_file`, the harder tier) shows the whole
module instead of one function: only modules of `WHOLE_FILE_LINES` lines
qualify, the fault may sit in any function of it, and each module carries
at most one pair (its control is the module itself).

Pure: module texts in, task files (as `task.json` objects) out.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from panelgate.suite.mutations import Kind, Site, candidates, changes_behaviour
from panelgate.suite.seed_regions import ModuleSource, SeedableFunction, seedable_functions
from panelgate.suite.seed_repo import RepoModule

SEEDED = "seeded"
CONTROL = "control"
KIND_WORDS = {
    Kind.COMPARISON: "a comparison",
    Kind.AND_OR: "`and`/`or`",
    Kind.RETURNED_BOOLEAN: "a returned `True`/`False`",
    Kind.REMOVED_NOT: "a dropped `not`",
    Kind.OFF_BY_ONE: "an index or bound off by one",
    Kind.NUMBER: "a number",
    Kind.SWAPPED_ARGUMENTS: "two arguments swapped",
    Kind.REMOVED_CALL: "a call deleted",
    Kind.BREAK_CONTINUE: "`break`/`continue`",
    Kind.AUGMENTED_ASSIGNMENT: "`+=`/`-=`",
}
WHOLE_FILE_LINES = range(100, 401)
"""Modules whole-file mode shows: long enough that the fault could be anywhere, short enough to read."""
NO_FAULT = {"regex": r"\bNO\s+FAULT\b", "label": "NO FAULT"}
ANY_FAULT = {"regex": r"\bFAULT:\s*line\s+\d+", "label": "FAULT: line N"}


@dataclass(frozen=True)
class SeedPlan:
    """What to seed: from which registered repository, how many pairs, which kinds, which random seed."""

    repo: str
    count: int
    kinds: tuple[Kind, ...] = tuple(Kind)
    seed: int = 0
    draft: bool = True
    whole_file: bool = False


@dataclass(frozen=True)
class SeededPair:
    """A planted bug and its control, each as the `task.json` object the suite reads."""

    bug: dict[str, Any]
    control: dict[str, Any]
    path: str
    function: str
    kind: Kind
    fault_lines: tuple[int, ...]
    change: str

    def summary(self) -> dict[str, Any]:
        """The pair as the admin API reports it: ids, where, what changed, which lines are right."""
        return {
            "bug": self.bug["id"],
            "control": self.control["id"],
            "path": self.path,
            "function": self.function,
            "kind": self.kind.value,
            "fault_lines": list(self.fault_lines),
            "change": self.change,
            "draft": self.bug["draft"],
        }


def seed_pairs(
    modules: Sequence[RepoModule], plan: SeedPlan, taken: frozenset[str] = frozenset()
) -> list[SeededPair]:
    """Up to `plan.count` pairs (fewer when the code offers no more), none with an id in `taken`."""
    rng = random.Random(plan.seed)
    pool = _FunctionPool(modules, rng, plan.whole_file)
    rotation = list(dict.fromkeys(plan.kinds))
    rng.shuffle(rotation)
    pairs: list[SeededPair] = []
    spent: set[Kind] = set()
    turn = 0
    while len(pairs) < plan.count and len(spent) < len(rotation):
        kind = rotation[turn % len(rotation)]
        turn += 1
        if kind in spent:
            continue
        pair = _plant(pool, kind, plan, rng, taken)
        if pair is None:
            spent.add(kind)
        else:
            pairs.append(pair)
    return pairs


@dataclass
class _FunctionPool:
    """The repository's functions in a seeded random order, each module parsed when first reached.

    Searches go round the modules: each starts after the module the last
    pair came from, so a handful of pairs comes from many modules. With
    `whole_file`, only modules of `WHOLE_FILE_LINES` lines are searched, and
    a module that gave a pair gives no other.
    """

    modules: Sequence[RepoModule]
    rng: random.Random
    whole_file: bool = False
    _order: list[int] = field(default_factory=list)
    _parsed: dict[int, list[tuple[ModuleSource, SeedableFunction]]] = field(default_factory=dict)
    _used: set[tuple[str, str]] = field(default_factory=set)
    _next: int = 0

    def __post_init__(self) -> None:
        self._order = list(range(len(self.modules)))
        self.rng.shuffle(self._order)

    def unused(self) -> Iterator[tuple[int, ModuleSource, SeedableFunction]]:
        for turn in range(len(self._order)):
            place = (self._next + turn) % len(self._order)
            for module, function in self._functions(self._order[place]):
                if (module.path, function.qualname) not in self._used and (module.path, "") not in self._used:
                    yield place, module, function

    def use(self, place: int, module: ModuleSource, function: SeedableFunction) -> None:
        self._used.add((module.path, "" if self.whole_file else function.qualname))
        self._next = place + 1

    def _functions(self, index: int) -> list[tuple[ModuleSource, SeedableFunction]]:
        if index not in self._parsed:
            found = self.modules[index]
            if self.whole_file and len(found.text.splitlines()) not in WHOLE_FILE_LINES:
                self._parsed[index] = []
                return []
            try:
                module = ModuleSource(found.path, found.text)
            except (SyntaxError, ValueError, tokenize.TokenError):
                module = None  # not Python this interpreter reads: nothing to plant in
            functions = [] if module is None else [(module, f) for f in seedable_functions(module)]
            self.rng.shuffle(functions)
            self._parsed[index] = functions
        return self._parsed[index]


def _plant(
    pool: _FunctionPool, kind: Kind, plan: SeedPlan, rng: random.Random, taken: frozenset[str]
) -> SeededPair | None:
    for place, module, function in pool.unused():
        places = candidates(module, function, kind)
        rng.shuffle(places)
        site = next((option for option in places if changes_behaviour(module, option)), None)
        if site is None:
            continue
        pair = _pair(module, function, site, plan)
        if pair.bug["id"] in taken or pair.control["id"] in taken:
            continue
        pool.use(place, module, function)
        return pair
    return None


def _pair(module: ModuleSource, function: SeedableFunction, site: Site, plan: SeedPlan) -> SeededPair:
    mutated_text = site.edit.apply(module).splitlines(keepends=True)
    if plan.whole_file:  # the window is the module: line numbers are the file's own
        original, mutated = module.lines, mutated_text
        shown = dataclasses.replace(function, first_line=1, last_line=len(module.lines))
    else:
        original = module.lines[function.first_line - 1 : function.last_line]
        mutated = mutated_text[function.first_line - 1 : function.last_line + site.edit.line_shift()]
        shown = function
    lines = fault_lines(site, shown, mutated)
    tier = "seeded-hard" if plan.whole_file else "seeded"
    stem = f"{tier}-{plan.repo}-{_digest(plan.repo, module.path, function.qualname, site)}"
    where = f"`{module.path}`" if plan.whole_file else f"`{function.qualname}` in `{module.path}`"
    common = {
        "score_in": "first_line",
        "draft": plan.draft,
        "source": f"seeded from repository `{plan.repo}`, {module.path} (seed {plan.seed})",
        "license": "",
    }
    bug = {
        "id": f"{stem}-bug",
        "title": f"{where} with a planted fault ({site.kind.value})",
        "why": f"Planted on line {_lines_in_words(lines)} ({site.kind.value}): {site.change}.",
        "shape": SEEDED,
        "prompt": _prompt(module.path, mutated, plan.whole_file),
        "must_find": [fault_clause(lines)],
        "must_not_claim": [NO_FAULT],
        **common,
    }
    control = {
        "id": f"{stem}-control",
        "title": f"{where} as written (control of {stem}-bug)",
        "why": f"The untouched function, paired with {stem}-bug: answering a fault here is a false alarm.",
        "shape": CONTROL,
        "prompt": _prompt(module.path, original, plan.whole_file),
        "must_find": [NO_FAULT],
        "must_not_claim": [ANY_FAULT],
        **common,
    }
    return SeededPair(bug, control, module.path, function.qualname, site.kind, lines, site.change)


def fault_lines(site: Site, function: SeedableFunction, mutated: Sequence[str]) -> tuple[int, ...]:
    """The numbers, as the bug's prompt shows them, of the lines an answer may name.

    A changed token sits on one line. A deleted call leaves no line behind,
    so the nearest line of code above the gap and the nearest below it are
    both right answers.
    """
    gap = site.line - function.first_line + 1
    if site.removed is None:
        return (gap,)
    above = next((n for n in range(gap - 1, 0, -1) if _is_code(mutated[n - 1])), None)
    below = next((n for n in range(gap, len(mutated) + 1) if _is_code(mutated[n - 1])), None)
    return tuple(n for n in (above, below) if n is not None)


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def fault_clause(lines: tuple[int, ...]) -> Any:
    """The bug task's must-find clause: `FAULT: line N`, or either line for a deleted one."""
    if len(lines) == 1:
        return {"regex": rf"\bFAULT:\s*line\s+{lines[0]}\b", "label": f"FAULT: line {lines[0]}"}
    return {"any_of": [f"FAULT: line {n}" for n in lines]}


def _lines_in_words(lines: tuple[int, ...]) -> str:
    return " or ".join(str(n) for n in lines) + (
        " (a deleted line: either neighbour)" if len(lines) > 1 else ""
    )


def _prompt(path: str, lines: Sequence[str], whole_file: bool = False) -> str:
    kinds = ", ".join(KIND_WORDS[kind] for kind in Kind)
    what = "file" if whole_file else "function"
    shown = f"Review the whole file `{path}`" if whole_file else f"Review this function from `{path}`"
    return (
        f"{shown}. It may hold one planted fault, a single small change from "
        f"the code its authors wrote ({kinds}), or it may be exactly as they wrote it. "
        "Lines are numbered.\n\n"
        f"```python\n{numbered(lines)}```\n\n"
        "Answer on the first line with `FAULT: line N` (N: the number of the line that holds the fault) "
        f"or `NO FAULT` when the {what} is correct, then give your reason in a few sentences."
    )


def numbered(lines: Sequence[str]) -> str:
    """The lines with their numbers in front, as the prompt shows them; each line's own text unchanged."""
    width = max(3, len(str(len(lines))))
    return "".join(f"{n:>{width}} | {line.rstrip(chr(10))}\n" for n, line in enumerate(lines, start=1))


def _digest(repo: str, path: str, qualname: str, site: Site) -> str:
    span = site.edit.span
    key = f"{repo}\0{path}\0{qualname}\0{site.kind.value}\0{span.start}\0{span.end}\0{site.edit.text}"
    return hashlib.sha256(key.encode()).hexdigest()[:10]
