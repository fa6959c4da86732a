"""Which functions of a module seeding may plant a bug in, and which parts of them it must never touch.

A planted bug is only a fair task when it changes what the code does and
nothing else: a changed string, comment or docstring is a typo, not a
fault; a change in a `__main__` block, a `TYPE_CHECKING` block, an
annotation or code after a `return` never runs; a changed keyword default
or `round` digit count is a tuning choice no reviewer could call wrong; a
print, log or sleep call does not decide a result. This module reads a
module once (text, tokens, syntax tree) and answers, per function, where
those regions are, in the character positions `tokenize` uses, so an edit
can be checked against them before it is made.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

Nodes = Sequence[ast.AST]
"""Every node of a function, as `ast.walk` gives them."""
Pos = tuple[int, int]
"""A place in the text: 1-based line, 0-based column in characters (as `tokenize` counts)."""

MIN_LINES = 5
MAX_LINES = 80
"""Functions shown in a task: long enough to hide a fault in, short enough to read whole."""

NOISE_CALLS = frozenset({"print", "sleep", "pprint"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
LOG_RECEIVERS = frozenset({"log", "logger", "logging", "warnings"})


@dataclass(frozen=True)
class Span:
    """A half-open stretch of text, from `start` up to (not including) `end`."""

    start: Pos
    end: Pos

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class SeedableFunction:
    """A function a task may show: its name inside the module and the lines it covers (decorators too)."""

    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    first_line: int
    last_line: int


class ModuleSource:
    """One module's text, tokens and syntax tree, read once, with AST positions turned into characters.

    `ast` counts columns in UTF-8 bytes and `tokenize` in characters; every
    position this module hands out is in characters, so a token's place and
    a node's place can be compared directly.
    """

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.tokens = [
            token
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        ]
        self._token_starts = [token.start for token in self.tokens]
        self._untouchable: dict[str, list[Span]] = {}
        self._nodes: dict[str, list[ast.AST]] = {}
        self._line_offsets = [0]
        for line in self.lines:
            self._line_offsets.append(self._line_offsets[-1] + len(line))

    @cached_property
    def tree_dump(self) -> str:
        """The syntax tree as text, to tell an edit that changes meaning from one that does not."""
        return ast.dump(self.tree)

    def start(self, node: ast.AST) -> Pos:
        return (node.lineno, self._chars(node.lineno, node.col_offset))  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> Pos:
        line: int = node.end_lineno  # type: ignore[attr-defined]
        return (line, self._chars(line, node.end_col_offset))  # type: ignore[attr-defined]

    def span(self, node: ast.AST) -> Span:
        return Span(self.start(node), self.end(node))

    def segment(self, span: Span) -> str:
        return self.text[self.offset(span.start) : self.offset(span.end)]

    def offset(self, pos: Pos) -> int:
        """The index into `text` of a position; a line past the end means the end of the text."""
        line, column = pos
        if line > len(self.lines):
            return len(self.text)
        return self._line_offsets[line - 1] + column

    def tokens_in(self, span: Span) -> list[tokenize.TokenInfo]:
        """The tokens that lie wholly inside `span`, in order."""
        first = bisect.bisect_left(self._token_starts, span.start)
        found = []
        for token in self.tokens[first:]:
            if token.start >= span.end:
                break
            if token.end <= span.end:
                found.append(token)
        return found

    def untouchable(self, function: SeedableFunction) -> list[Span]:
        """`untouchable(self, function)`, worked out once per function (every kind asks)."""
        if function.qualname not in self._untouchable:
            self._untouchable[function.qualname] = untouchable(self, function)
        return self._untouchable[function.qualname]

    def nodes(self, function: SeedableFunction) -> Nodes:
        """Every node of `function`, walked once (every kind looks through them)."""
        if function.qualname not in self._nodes:
            self._nodes[function.qualname] = list(ast.walk(function.node))
        return self._nodes[function.qualname]

    def _chars(self, line: int, byte_column: int) -> int:
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        return len(text.encode()[:byte_column].decode(errors="replace"))


def seedable_functions(module: ModuleSource) -> list[SeedableFunction]:
    """Functions and methods (not nested ones, which belong to their outer function) of a fair size.

    Functions under `if __name__ == "__main__":` or `if TYPE_CHECKING:` are
    left out: they never run as part of the module's behaviour.
    """
    found = []
    for qualname, node in _functions(module.tree.body, ""):
        first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        last = node.end_lineno or node.lineno
        if MIN_LINES <= last - first + 1 <= MAX_LINES:
            found.append(SeedableFunction(qualname, node, first, last))
    return found


def _functions(
    body: list[ast.stmt], prefix: str
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}{statement.name}", statement
        elif isinstance(statement, ast.ClassDef):
            yield from _functions(statement.body, f"{prefix}{statement.name}.")
        elif isinstance(statement, ast.If) and not _never_runs(statement):
            yield from _functions(statement.body + statement.orelse, prefix)
        elif isinstance(statement, ast.Try):
            handlers = [line for handler in statement.handlers for line in handler.body]
            yield from _functions(statement.body + handlers + statement.orelse, prefix)


def untouchable(module: ModuleSource, function: SeedableFunction) -> list[Span]:
    """The regions of `function` no edit may reach into.

    Strings, docstrings and comments need no region: no kind edits a string
    or comment token, and a removed call never takes a comment with it.
    """
    return [span for node in module.nodes(function) for span in _untouchable_parts(module, node)]


def _untouchable_parts(module: ModuleSource, node: ast.AST) -> Iterator[Span]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        yield from (module.span(part) for part in _signature_parts(node))
    elif isinstance(node, ast.AnnAssign):
        yield module.span(node.annotation)
    elif isinstance(node, ast.keyword | ast.JoinedStr):
        yield module.span(node.value if isinstance(node, ast.keyword) else node)
    elif isinstance(node, ast.Call):
        if is_noise_call(node):
            yield module.span(node)
        elif _name_of(node.func) == "round" and len(node.args) > 1:
            yield module.span(node.args[1])
    elif isinstance(node, ast.If) and _never_runs(node):
        yield module.span(node)
    for block in _blocks(node):
        yield from _dead_code(module, block)


def _signature_parts(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> Iterator[ast.AST]:
    arguments = node.args
    yield from arguments.defaults
    yield from (default for default in arguments.kw_defaults if default is not None)
    if isinstance(node, ast.Lambda):
        return
    yield from node.decorator_list
    if node.returns is not None:
        yield node.returns
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    yield from (arg.annotation for arg in every if arg is not None and arg.annotation is not None)


def _dead_code(module: ModuleSource, block: list[ast.stmt]) -> Iterator[Span]:
    """Statements after a `return`, `raise`, `break` or `continue` in the same block never run."""
    for index, statement in enumerate(block[:-1]):
        if isinstance(statement, ast.Return | ast.Raise | ast.Break | ast.Continue):
            yield Span(module.start(block[index + 1]), module.end(block[-1]))
            return


def _blocks(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block


def _never_runs(node: ast.If) -> bool:
    """`if __name__ == "__main__":` and `if TYPE_CHECKING:` blocks are not the module's behaviour."""
    test = node.test
    if _name_of(test) == "TYPE_CHECKING":
        return True
    return (
        isinstance(test, ast.Compare)
        and _name_of(test.left) == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def is_noise_call(call: ast.Call) -> bool:
    """A print, log or sleep call: it reports or waits, it does not decide what the code does."""
    func = call.func
    if _name_of(func) in NOISE_CALLS:
        return True
    if isinstance(func, ast.Attribute) and func.attr in LOG_METHODS:
        receiver = (_name_of(func.value) or "").lower().strip("_")
        return receiver in LOG_RECEIVERS or receiver.endswith("_logger")
    return False


def _name_of(node: ast.AST) -> str | None:
    """The last name of `x`, `a.b.x` or `self.x`: what a call or test is called by."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
