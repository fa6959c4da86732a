"""How `panelgate serve` and each of its workers log: one format, and none of the costly record fields.

Every line goes through the root logger's one handler, uvicorn's own lines
included (serve gives uvicorn no logging config of its own), so with
`PANELGATE_LOG_FORMAT=json` every line is one JSON object. Neither format
shows the calling frame, thread or process, so those record fields are not
gathered either (the logging HOWTO's "Optimization" settings): gathering
them took more than half of each access line's 24 µs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from panelgate.http.log_formats import JsonLines, TextLines

FORMATTERS: dict[str, Callable[[], logging.Formatter]] = {"text": TextLines, "json": JsonLines}
"""`PANELGATE_LOG_FORMAT`'s values."""


def set_up_logging(level: str, log_format: str = "text") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(FORMATTERS[log_format]())
    logging.basicConfig(level=level.upper(), handlers=[handler])
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging._srcfile = None  # the HOWTO's switch for the caller lookup
