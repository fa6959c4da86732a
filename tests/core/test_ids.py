from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelgate.core.ids import call_id, panel_id


def test_panel_id_carries_the_second_it_was_seated_and_the_token() -> None:
    assert panel_id(datetime(2026, 10, 20, 9, 5, 7), "a1b2") == "p20261020-090507-a1b2"


@pytest.mark.parametrize("token", ["", "abc", "abcde", "zzzz", "A1B2"])
def test_panel_id_refuses_a_token_that_is_not_four_hex_characters(token: str) -> None:
    with pytest.raises(ValueError, match="4 lower-case hex"):
        panel_id(datetime(2026, 1, 1), token)


def test_call_id_is_the_panel_and_the_seat_suffix() -> None:
    assert call_id("p20261020-090507-a1b2", "explorer2") == "p20261020-090507-a1b2.explorer2"


@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(9999, 1, 1)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(9999, 1, 1)),
)
def test_panel_ids_sort_by_the_time_they_were_seated(first: datetime, second: datetime) -> None:
    first, second = first.replace(microsecond=0), second.replace(microsecond=0)
    assert (panel_id(first, "0000") < panel_id(second, "0000")) == (first < second)
