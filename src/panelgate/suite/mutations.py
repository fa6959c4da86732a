"""The ten ways seeding plants a bug: each finds the places in a function where one small change fits.

Every kind is the slip a careful person still makes: a comparison one
step off, `and` for `or`, the other boolean returned, a lost `not`, an
index or bound off by one, a wrong number, two arguments in the wrong
order, a call forgotten, `break` for `continue`, `-=` for `+=`. A finder
only proposes places; `sites()` keeps those that touch no untouchable
region (`seed_regions`), still parse, and really change the syntax tree.
Edits replace exact character stretches found through `tokenize`, so every
line the edit does not touch keeps its bytes.
"""

from __future__ import annotations

import ast
import itertools
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from panelgate.suite.seed_regions import (
    ModuleSource,
    Nodes,
    Pos,
    SeedableFunction,
    Span,
    is_noise_call,
)


class Kind(StrEnum):
    """The kinds of planted bug, by the names tasks and the admin API use."""

    COMPARISON = "comparison"
    AND_OR = "and-or"
    RETURNED_BOOLEAN = "returned-boolean"
    REMOVED_NOT = "removed-not"
    OFF_BY_ONE = "off-by-one"
    NUMBER = "number"
    SWAPPED_ARGUMENTS = "swapped-arguments"
    REMOVED_CALL = "removed-call"
    BREAK_CONTINUE = "break-continue"
    AUGMENTED_ASSIGNMENT = "augmented-assignment"


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` with `text`; everything outside `span` stays as it was."""

    span: Span
    text: str

    def apply(self, module: ModuleSource) -> str:
        source = module.text
        return source[: module.offset(self.span.start)] + self.text + source[module.offset(self.span.end) :]

    def line_shift(self) -> int:
        """How many lines the text after the edit moves down (negative: up)."""
        return self.text.count("\n") - (self.span.end[0] - self.span.start[0])


@dataclass(frozen=True)
class Site:
    """One planted bug: what changes, on which line of the file, and in words for the task's `why`."""

    kind: Kind
    edit: Edit
    line: int
    change: str
    removed: Span | None = None
    """For a removed call: the statement taken out (its whole lines go)."""


COMPARISONS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
AND_OR = {"and": "or", "or": "and"}
BOOLEANS = {"True": "False", "False": "True"}
LOOP_EXITS = {"break": "continue", "continue": "break"}
AUGMENTED = {"+=": "-=", "-=": "+="}
SYMMETRIC_CALLS = frozenset(
    {"max", "min", "hypot", "gcd", "lcm", "isclose", "add", "mul", "eq", "ne", "and_", "or_", "xor"}
    | {"union", "intersection", "symmetric_difference", "isdisjoint"}
)
"""Calls whose arguments may come in either order: swapping them changes nothing."""
TYPED_CALLS = frozenset({"isinstance", "issubclass", "getattr", "hasattr", "setattr", "delattr", "cast"})
"""Calls whose arguments differ in kind (object and type, object and name): a swap fails at once."""
INDEX_NAMES = frozenset(
    {"i", "j", "k", "n", "idx", "index", "start", "end", "stop", "pos", "position", "offset"}
    | {"lo", "hi", "low", "high", "mid", "first", "last", "count", "size", "length", "cursor", "limit"}
)


def sites(module: ModuleSource, function: SeedableFunction, kind: Kind) -> list[Site]:
    """Every fair place in `function` for a bug of `kind`, in the order they appear."""
    return [site for site in candidates(module, function, kind) if changes_behaviour(module, site)]


def candidates(module: ModuleSource, function: SeedableFunction, kind: Kind) -> list[Site]:
    """Places for a bug of `kind` that touch no untouchable region; `changes_behaviour` has the last word."""
    blocked = module.untouchable(function)
    return [site for site in FINDERS[kind](module, module.nodes(function)) if not _blocked(site, blocked)]


def _blocked(site: Site, regions: list[Span]) -> bool:
    """An edit may not reach into an untouchable region; a removed statement may not lie in one.

    Removing a whole call takes its keyword arguments and strings with it,
    which is the bug, not a change to them; what matters is that the
    statement runs (not dead code, not in a `TYPE_CHECKING` block) and is no
    print, log or sleep call (`_removed_calls` leaves those out).
    """
    if site.removed is None:
        return any(site.edit.span.overlaps(region) for region in regions)
    removed = site.removed
    return any(region.start <= removed.start and removed.end <= region.end for region in regions)


def changes_behaviour(module: ModuleSource, site: Site) -> bool:
    """Whether the module with the edit made still parses and means something else."""
    try:
        tree = ast.parse(site.edit.apply(module))
    except SyntaxError:
        return False
    return ast.dump(tree) != module.tree_dump


def _swap_token(kind: Kind, token: tokenize.TokenInfo, swaps: dict[str, str]) -> Site:
    new = swaps[token.string]
    edit = Edit(Span(token.start, token.end), new)
    return Site(kind, edit, token.start[0], f"`{token.string}` became `{new}`")


def _token_between(
    module: ModuleSource, start: Pos, end: Pos, wanted: dict[str, str]
) -> tokenize.TokenInfo | None:
    return next((t for t in module.tokens_in(Span(start, end)) if t.string in wanted), None)


def _comparisons(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for left, right in itertools.pairwise(operands):
                token = _token_between(module, module.end(left), module.start(right), COMPARISONS)
                if token is not None:
                    yield _swap_token(Kind.COMPARISON, token, COMPARISONS)


def _and_or(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if isinstance(node, ast.BoolOp):
            for left, right in itertools.pairwise(node.values):
                token = _token_between(module, module.end(left), module.start(right), AND_OR)
                if token is not None:
                    yield _swap_token(Kind.AND_OR, token, AND_OR)


def _returned_booleans(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        returned = node.value if isinstance(node, ast.Return) else None
        if isinstance(returned, ast.Constant) and isinstance(returned.value, bool):
            yield from _token_sites(module, returned, Kind.RETURNED_BOOLEAN, BOOLEANS)


def _removed_nots(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, operand = module.start(node), module.start(node.operand)
            if start[0] == operand[0]:
                edit = Edit(Span(start, operand), "")
                yield Site(Kind.REMOVED_NOT, edit, start[0], "a `not` was removed")


def _break_continue(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if isinstance(node, ast.Break | ast.Continue):
            yield from _token_sites(module, node, Kind.BREAK_CONTINUE, LOOP_EXITS)


def _augmented(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add | ast.Sub):
            if isinstance(node.value, ast.JoinedStr) or _is_text(node.value):
                continue  # `-=` on text is a type error anyone sees, not a fault to find
            token = _token_between(module, module.end(node.target), module.start(node.value), AUGMENTED)
            if token is not None:
                yield _swap_token(Kind.AUGMENTED_ASSIGNMENT, token, AUGMENTED)


def _token_sites(module: ModuleSource, node: ast.AST, kind: Kind, swaps: dict[str, str]) -> Iterator[Site]:
    for token in module.tokens_in(module.span(node)):
        if token.string in swaps:
            yield _swap_token(kind, token, swaps)
            return


def _numbers(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            literal = module.segment(module.span(node))
            for new in _other_numbers(literal):
                edit = Edit(module.span(node), new)
                yield Site(Kind.NUMBER, edit, edit.span.start[0], f"`{literal}` became `{new}`")


def _other_numbers(literal: str) -> list[str]:
    """Plain decimal literals only: `0x1F`, `1_000` and `1e-9` are written that way on purpose."""
    if literal.isdigit():
        value = int(literal)
        return [str(value + 1)] + ([str(value - 1)] if value >= 1 else [])
    whole, dot, fraction = literal.partition(".")
    if dot and (whole + fraction).isdigit():
        fraction_value = float(literal)
        return [repr(fraction_value * 2), repr(fraction_value / 2)] if fraction_value else ["1.0"]
    return []


def _off_by_one(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    counters = _loop_counters(nodes)
    for node in nodes:
        for bound, any_name in _bounds(node):
            if module.start(bound)[0] == module.end(bound)[0]:
                yield from _shifted(module, bound, any_name or _is_index_name(bound, counters))


def _bounds(node: ast.AST) -> Iterator[tuple[ast.expr, bool]]:
    """Index and range expressions, each with whether any name there is surely a number."""
    if isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Slice):
            yield from ((bound, True) for bound in (node.slice.lower, node.slice.upper) if bound is not None)
        elif not isinstance(node.slice, ast.Tuple):
            yield node.slice, False
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        yield from ((arg, True) for arg in node.args[:2] if not isinstance(arg, ast.Starred))


def _shifted(module: ModuleSource, bound: ast.expr, names_allowed: bool) -> Iterator[Site]:
    number = (
        bound.right if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Add | ast.Sub) else bound
    )
    if isinstance(number, ast.Constant) and type(number.value) is int:
        literal = module.segment(module.span(number))
        if literal.isdigit():
            for new in (str(int(literal) + 1), str(int(literal) - 1)):
                if new != "-1" and not (number is not bound and new == "0"):
                    edit = Edit(module.span(number), new)
                    yield Site(Kind.OFF_BY_ONE, edit, edit.span.start[0], f"`{literal}` became `{new}`")
    elif names_allowed and isinstance(bound, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
        end = module.end(bound)
        text = module.segment(module.span(bound))
        for step in (" + 1", " - 1"):
            edit = Edit(Span(end, end), step)
            yield Site(Kind.OFF_BY_ONE, edit, end[0], f"`{text}` became `{text}{step}`")


def _loop_counters(nodes: Nodes) -> set[str]:
    """Names a `for` loop over `range(...)` or `enumerate(...)` counts with: surely integers."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.iter, ast.Call):
            called = node.iter.func
            target = node.target
            if isinstance(called, ast.Name) and called.id == "range" and isinstance(target, ast.Name):
                names.add(target.id)
            elif isinstance(called, ast.Name) and called.id == "enumerate" and isinstance(target, ast.Tuple):
                first = target.elts[0] if target.elts else None
                if isinstance(first, ast.Name):
                    names.add(first.id)
    return names


def _is_index_name(bound: ast.expr, counters: set[str]) -> bool:
    if isinstance(bound, ast.Name):
        return bound.id in counters or bound.id in INDEX_NAMES
    return isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len"


def _swapped_arguments(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    for node in nodes:
        if not isinstance(node, ast.Call) or _callee(node) in SYMMETRIC_CALLS | TYPED_CALLS:
            continue
        arguments = node.args
        for first, second in itertools.pairwise(arguments):
            if any(
                isinstance(arg, ast.Starred) or _is_marker(arg) or _holds_text(arg) for arg in (first, second)
            ):
                continue
            span = Span(module.start(first), module.end(second))
            one, two = module.segment(module.span(first)), module.segment(module.span(second))
            if span.start[0] != span.end[0] or one == two:
                continue
            between = module.segment(Span(module.end(first), module.start(second)))
            edit = Edit(span, f"{two}{between}{one}")
            yield Site(Kind.SWAPPED_ARGUMENTS, edit, span.start[0], f"`{one}` and `{two}` were swapped")


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _removed_calls(module: ModuleSource, nodes: Nodes) -> Iterator[Site]:
    """A statement that is only a call, on lines of its own, without a comment, not alone in its block.

    Never the function's last statement: the answer may name the line on
    either side of the gap, so the listing must show a line below it.
    """
    function_end = getattr(nodes[0], "end_lineno", None) or 0
    for node in nodes:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or len(block) < 2 or not isinstance(block[0], ast.stmt):
                continue
            for statement in block:
                last_line = statement.end_lineno or statement.lineno
                if (
                    last_line < function_end
                    and _is_only_a_call(statement)
                    and _stands_alone(module, statement)
                ):
                    yield _removal(module, statement)


def _is_only_a_call(statement: ast.stmt) -> bool:
    """`f(...)` or `await f(...)` as a statement of its own, and not a print, log or sleep call."""
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value.value if isinstance(statement.value, ast.Await) else statement.value
    return isinstance(value, ast.Call) and not is_noise_call(value)


def _stands_alone(module: ModuleSource, statement: ast.stmt) -> bool:
    start, end = module.start(statement), module.end(statement)
    before = module.lines[start[0] - 1][: start[1]]
    after = module.lines[end[0] - 1][end[1] :]
    whole = Span((start[0], 0), (end[0] + 1, 0))
    has_comment = any(token.type == tokenize.COMMENT for token in module.tokens_in(whole))
    return not before.strip() and not after.strip() and not has_comment


def _removal(module: ModuleSource, statement: ast.stmt) -> Site:
    removed = module.span(statement)
    edit = Edit(Span((removed.start[0], 0), (removed.end[0] + 1, 0)), "")
    call = module.lines[removed.start[0] - 1].strip()
    return Site(Kind.REMOVED_CALL, edit, removed.start[0], f"the call `{call}` was removed", removed)


def _is_marker(node: ast.expr) -> bool:
    """Text, `None`, a boolean or an empty display: swapped with a value, it reads wrong at a glance."""
    if isinstance(node, ast.Constant):
        return type(node.value) not in (int, float, complex)
    return isinstance(node, ast.Tuple | ast.List | ast.Dict | ast.Set) and not _elements(node)


def _holds_text(node: ast.expr) -> bool:
    """Whether text is written inside: a swap would carry strings across, and strings are left alone."""
    return any(isinstance(inner, ast.JoinedStr) or _is_text(inner) for inner in ast.walk(node))


def _elements(node: ast.Tuple | ast.List | ast.Dict | ast.Set) -> list[ast.expr | None]:
    return list(node.keys) if isinstance(node, ast.Dict) else list(node.elts)


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)


Finder = Callable[[ModuleSource, Nodes], Iterator[Site]]
FINDERS: dict[Kind, Finder] = {
    Kind.COMPARISON: _comparisons,
    Kind.AND_OR: _and_or,
    Kind.RETURNED_BOOLEAN: _returned_booleans,
    Kind.REMOVED_NOT: _removed_nots,
    Kind.OFF_BY_ONE: _off_by_one,
    Kind.NUMBER: _numbers,
    Kind.SWAPPED_ARGUMENTS: _swapped_arguments,
    Kind.REMOVED_CALL: _removed_calls,
    Kind.BREAK_CONTINUE: _break_continue,
    Kind.AUGMENTED_ASSIGNMENT: _augmented,
}
