"""The log's two formats for records a request did not write: one JSON object a line, tracebacks included."""

import logging
import sys

import orjson

from panelgate.http.log_formats import JsonLines, TextLines


def failed_record() -> logging.LogRecord:
    try:
        raise ValueError("the upstream sent nothing")
    except ValueError:
        return logging.LogRecord(
            "panelgate.engine.panel", logging.ERROR, __file__, 1, "panel %s failed", ("p1",), sys.exc_info()
        )


def test_a_json_record_with_a_traceback_stays_one_line_and_keeps_the_traceback() -> None:
    line = JsonLines().format(failed_record())

    assert "\n" not in line
    written = orjson.loads(line)
    assert (written["level"], written["logger"], written["message"]) == (
        "ERROR",
        "panelgate.engine.panel",
        "panel p1 failed",
    )
    assert "ValueError: the upstream sent nothing" in written["error"]
    assert written.keys() == {"time", "level", "logger", "message", "error"}, "no ids outside a request"


def test_a_text_record_outside_a_request_carries_no_ids() -> None:
    first_line = TextLines().format(failed_record()).splitlines()[0]

    assert first_line.endswith("ERROR panelgate.engine.panel: panel p1 failed")
