"""What `panelgate ask` asks: the words given, else piped stdin, then any files.

Files follow the prompt as `===== FILE: <path> =====` sections so every seat
sees which text came from where, and a reply can name the file it talks about.
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
    if list(words) == [STDIN_WORD]:
        text = _from_stdin(stdin, asked=True)
    elif words:
        text = " ".join(words)
    else:
        text = _from_stdin(stdin, asked=False)
    parts = [text.strip("\n")] if text.strip() else []
    parts += [file_section(path) for path in files]
    return "\n\n".join(parts)
