"""The files `panelgate ask -f` sent, kept on this machine under the panel's id for `panelgate suite mine`.

The gateway never stores a prompt, so the only place the files a panel saw
still exist as sent is the machine that sent them. `ask` reads each file
once, sends that text, and after the reply writes the same text here under
the panel id the reply names: `<data folder>/asked/<panel>.json`, private
to the user (the folder 0700, the file 0600), the data folder being
`PANELGATE_HOME` or the per-user one, as for `panelgate serve`. Mining
reads it back and sends it to the server, which freezes it as fixtures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from panelgate.cli.failures import CliFailure
from panelgate.cli.output import Output
from panelgate.core.files import write_atomically

ASKED = "asked"
PANEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
WHERE = "the data folder's asked/ (PANELGATE_HOME, else the per-user data folder)"


def asked_folder() -> Path:
    """Where kept files live: the same data folder `panelgate serve` on this machine would use."""
    from pydantic import ValidationError  # the server's settings, loaded only when a file is kept

    from panelgate.settings import Settings

    try:
        return Settings().data_dir / ASKED
    except ValidationError as error:
        raise CliFailure(f"a PANELGATE_* setting is not valid: {error.errors()[0]['msg']}") from None


def kept_file(panel: str) -> Path:
    if not PANEL_ID.fullmatch(panel):
        raise CliFailure(f"`{panel}` is not a panel id (e.g. p20261130-101500-a1b2)")
    return asked_folder() / f"{panel}.json"


def read_sent(files: Sequence[Path]) -> dict[str, str]:
    """Each file under the path the models are shown, holding the text they are sent.

    Read the way `prompt.file_section` reads it, so what is kept is what was sent."""
    sent: dict[str, str] = {}
    for path in files:
        try:
            sent[str(path)] = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue  # `prompt_text` has already refused an unreadable file
    return sent


def keep(output: Output, bench: dict[str, Any] | None, sent: dict[str, str]) -> None:
    """Write the sent files under the reply's panel id; say where, or why not (the answers stand)."""
    if not sent:
        return
    panel = (bench or {}).get("panel")
    if not isinstance(panel, str) or not PANEL_ID.fullmatch(panel):
        output.note("the files were not kept for mining: the reply named no panel id")
        return
    document = {"panel": panel, "collection": (bench or {}).get("collection"), "files": sent}
    try:
        file = asked_folder() / f"{panel}.json"
        _write_private(file, json.dumps(document, ensure_ascii=False))
    except (OSError, CliFailure) as error:
        reason = error.message if isinstance(error, CliFailure) else (error.strerror or str(error))
        output.note(f"the files were not kept for mining: {reason}")
        return
    output.note(f"files kept for `panelgate suite mine {panel}` in {file}")


def read_kept(panel: str) -> dict[str, str] | None:
    """The files kept for `panel` (path as shown → text), or None when none were kept here."""
    file = kept_file(panel)
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CliFailure(f"{file} cannot be read as kept files: {error}") from None
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, dict) or not all(
        isinstance(path, str) and isinstance(text, str) for path, text in files.items()
    ):
        raise CliFailure(f"{file} does not hold kept files (a `files` object of path → text)")
    return files


def _write_private(file: Path, text: str) -> None:
    """Write whole or not at all, in folders readable by the user alone."""
    file.parent.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomically(file, text)
