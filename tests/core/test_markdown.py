from hypothesis import given
from hypothesis import strategies as st

from panelgate.core.markdown import fallback_note, footer, heading, merged_footer, not_asked, section
from panelgate.core.types import SeatResult, Skip

PANEL = "p20261020-090507-a1b2"


def result(suffix: str, alias: str, status: str = "ok", **rest: object) -> SeatResult:
    label = "member" if suffix.startswith("member") else suffix.replace("explorer", "explorer ").strip()
    kind = "member" if suffix.startswith("member") else "explorer"
    return SeatResult(f"{PANEL}.{suffix}", label, alias, kind, status, 12.34, **rest)  # type: ignore[arg-type]


SEATS = [
    result("member1", "m1", answer="Use a lock.\n"),
    result("member2", "m2", "error", error="HTTP 429:\n  rate limited"),
    result("explorer", "x1", "empty"),
    result("explorer2", "x2", answer="\n\nTwo answers.  "),
]


def test_heading_names_collection_panel_seats_and_shape() -> None:
    assert heading("core", PANEL, 3, 2, "review", "collection") == (
        f"**bench/core** · panel `{PANEL}` · 3 members + 2 explorers · shape review (collection)\n\n"
    )


def test_heading_counts_one_seat_in_the_singular_and_takes_a_prefixed_name() -> None:
    assert "· 1 member + 1 explorer ·" in heading("bench/core", PANEL, 1, 1, "general", "default")
    assert "bench/bench/" not in heading("bench/core", PANEL, 1, 1, "general", "default")


def test_not_asked_lists_each_skipped_model_and_why() -> None:
    skipped = [
        Skip("member", "gone", "retired from the bench on 2026-10-20: withdrawn"),
        Skip("with", "m9", "cannot see images"),
    ]
    assert not_asked(skipped) == (
        "Not asked: gone (retired from the bench on 2026-10-20: withdrawn); m9 (cannot see images)\n\n"
    )


def test_not_asked_is_empty_when_everyone_was_asked() -> None:
    assert not_asked([]) == ""


def test_an_ok_section_shows_label_alias_call_status_seconds_and_answer() -> None:
    assert section(SEATS[0]) == f"## member — m1\n`{PANEL}.member1` · ok · 12.3s\n\nUse a lock.\n\n"


def test_an_error_section_shows_the_error_on_one_italic_line() -> None:
    assert section(SEATS[1]).endswith("\n\n_error: HTTP 429: rate limited_\n\n")


def test_an_empty_section_says_no_text_came_back_and_suggests_a_token_budget() -> None:
    body = section(SEATS[2])
    assert "no text" in body.lower()
    assert "token budget" in body


def test_a_section_trims_the_blank_lines_around_an_answer() -> None:
    assert section(SEATS[3]).endswith("s\n\nTwo answers.\n\n")


def test_footer_says_how_to_record_a_verdict_for_each_call() -> None:
    text = footer([s.call for s in SEATS])
    assert 'POST /bench/verdict {"call": "<call id>", "useful": true|false, "note": "..."}' in text
    assert "panelgate verdict <call> --useful" in text
    assert all(f"`{s.call}`" in text for s in SEATS)


def test_fallback_note_is_one_italic_line() -> None:
    assert fallback_note("the merger timed out") == (
        "_Merged reply unavailable: the merger timed out; every answer follows._\n\n"
    )


def test_merged_footer_names_the_merger_its_call_and_each_seat_status() -> None:
    merger = result("merger", "m1")
    text = merged_footer(merger, SEATS)
    assert f"`m1` (`{PANEL}.merger`)" in text
    assert "member `m2` error" in text
    assert "explorer `x1` empty" in text


@given(st.permutations(SEATS))
def test_a_streamed_reply_is_the_whole_reply_with_seats_in_finishing_order(order: list[SeatResult]) -> None:
    opening = heading("core", PANEL, 2, 2, "general", "default") + not_asked([Skip("member", "g", "gone")])
    closing = footer([s.call for s in SEATS])
    whole = opening + "".join(section(s) for s in SEATS) + closing
    streamed = opening + "".join(section(s) for s in order) + closing
    assert streamed.startswith(opening)
    assert streamed.endswith(closing)
    middle = streamed[len(opening) : len(streamed) - len(closing)]
    for seat in SEATS:
        assert middle.count(section(seat)) == 1
        middle = middle.replace(section(seat), "", 1)
    assert middle == ""
    assert len(streamed) == len(whole)


def test_every_piece_ends_with_a_blank_line_so_pieces_never_run_together() -> None:
    pieces = [heading("core", PANEL, 1, 0, "general", "default"), not_asked([Skip("member", "g", "gone")])]
    pieces += [section(s) for s in SEATS] + [fallback_note("no ok seat")]
    assert all(piece.endswith("\n\n") and not piece.endswith("\n\n\n") for piece in pieces)


def test_footers_close_every_code_span_they_open() -> None:
    for text in (footer([s.call for s in SEATS]), footer([]), merged_footer(result("merger", "m1"), SEATS)):
        assert text.count("`") % 2 == 0, text
