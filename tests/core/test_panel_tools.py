"""Tools offered to a panel are left out with a note; a tool history, or a refusing collection, is a 400."""

from __future__ import annotations

import pytest

from panelgate.core.errors import BadRequest
from panelgate.core.panel_tools import tools_left_out
from panelgate.core.types import CollectionInfo, PanelRequest

CORE = CollectionInfo("core", ("m1", "m2"))
HI = [{"role": "user", "content": "hi"}]


def _asked(**fields: object) -> PanelRequest:
    return PanelRequest(model="bench/core", collection="core", messages=HI, **fields)  # type: ignore[arg-type]


def test_a_request_without_tools_has_nothing_to_say():
    assert tools_left_out(_asked(), CORE) == ""


def test_offered_tools_are_left_out_with_a_note_counting_them_and_pointing_to_route():
    note = tools_left_out(_asked(tools_offered=36), CORE)
    assert "offered 36 tools" in note and "left out" in note and "bench/core:route" in note
    assert "offered 1 tool," in tools_left_out(_asked(tools_offered=1), CORE)


def test_a_tool_history_is_refused_pointing_to_route_whatever_the_collection_says():
    with pytest.raises(BadRequest, match=r"bench/core:route") as refused:
        tools_left_out(_asked(tool_history=True, tools_offered=2), CORE)
    assert refused.value.param == "messages"


def test_a_collection_that_refuses_offered_tools_keeps_the_old_refusal():
    refusing = CollectionInfo("core", ("m1",), offered_tools="refuse")
    with pytest.raises(BadRequest, match=r"refuses tools offered to a panel.*bench/core:route") as refused:
        tools_left_out(_asked(tools_offered=3), refusing)
    assert refused.value.param == "tools"
    assert tools_left_out(_asked(), refusing) == ""
