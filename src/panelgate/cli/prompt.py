"""What `panelgate ask` asks: the words given, then piped stdin, then any files.

Words and a pipe go together, so `git diff | panelgate ask review "Review
this change"` sends the instruction and the diff it is about (a script whose
stdin is a pipe meant for something else gives `</dev/null`); `-` alone asks
for stdin as the whole prompt. Files follow as `===== FILE: <path> =====`
sections so every seat sees which text came from where, a reply can name the
file it talks about, and the suite's task miner can read the files back out
of a recorded prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from panelgate.cli.failures import UsageProblem

STDIN_WORD = "-"


def _from_stdin(stdin: TextIO | None, asked: bool) -> str:
    """stdin's text when asked for with `-` or when it is piped; else nothing."""
    if stdin is None:
        if asked:
            raise UsageProblem("`-` asks for the prompt on stdin, but there is no stdin")
        return ""
    if asked or not stdin.isatty():
        return stdin.read()
    return ""


def file_section(path: Path) -> str:
    try:
        content = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise UsageProblem(f"cannot read {path}: {error.strerror or error}") from None
    return f"===== FILE: {path} =====\n{content.rstrip()}\n"


def prompt_text(words: Sequence[str], files: Sequence[Path], stdin: TextIO | None) -> str:
    """The prompt; empty when there is nothing to ask."""
    asked_for_stdin = list(words) == [STDIN_WORD]
    given = "" if asked_for_stdin else " ".join(words)
    piped = _from_stdin(stdin, asked=asked_for_stdin)
    parts = [text.strip("\n") for text in (given, piped) if text.strip()]
    parts += [file_section(path) for path in files]
    return "\n\n".join(parts)
