"""The two ways a log record is written: a text line for a person, a JSON object for a log collector.

Both add the ids of the request being served (`core/log_context.py`): the
text line ends with `key=… route=… panel=… calls=… conv=…`, so a person can
grep a panel id; the JSON object has them as fields, with the access line's
status and milliseconds. Neither writes anything but the record's message
and those ids: what a request carried (headers, query, body) never reaches
a record in the first place.
"""

from __future__ import annotations

import logging
import time

import orjson

from panelgate.core.log_context import current

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class TextLines(logging.Formatter):
    """`time LEVEL logger: message`, then the request's ids when a request is being served."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        context = current.get()
        if context is None:
            return line
        ids = context.text()
        return f"{line} {ids}" if ids else line


class JsonLines(logging.Formatter):
    """One JSON object per record: time (ISO 8601, UTC), level, logger, message and the ids known."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": _utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        context = current.get()
        if context is not None:
            line.update(context.fields())
        ms = getattr(record, "ms", None)
        if ms is not None:  # the access line
            line["status"] = getattr(record, "status", None)
            line["ms"] = ms
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return orjson.dumps(line).decode()


def _utc(created: float) -> str:
    """`2026-05-01T12:00:00.250Z`: what log collectors parse without being told a format."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{int(created % 1 * 1000):03d}Z"
