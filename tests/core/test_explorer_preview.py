from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.explorer_policy import ExplorerTuning
from panelgate.core.explorer_preview import evidence_order, explorer_pool, preview_shape
from panelgate.core.types import ModelInfo

RECORD = {
    ("leader", "general"): Counts(useful=8, not_useful=2),
    ("settled", "general"): Counts(useful=3, not_useful=27),
    ("hopeful", "general"): Counts(useful=1),
    ("unsure", "general"): Counts(not_useful=2),
}
"""A hand-built record: a model judged mostly useful, one judged mostly useless over many verdicts,
one with a single useful verdict (could still be the best) and one with two useless ones."""
BOOK = fit_evidence(RECORD, {})
EVERYONE = ["leader", "settled", "hopeful", "unsure"]
SEATED_LAST_PANEL = dict.fromkeys(EVERYONE, 0)


def model(alias: str, served_id: str | None = None, **facts: object) -> ModelInfo:
    return ModelInfo(alias=alias, served_id=served_id or f"org/{alias}", endpoint="up", **facts)


def reasons(order: list) -> list[tuple[str, str]]:
    return [(candidate.alias, candidate.reason) for candidate in order]


def test_a_model_the_floor_makes_due_comes_first_with_its_reason() -> None:
    waited = {**SEATED_LAST_PANEL, "settled": 9}
    order = evidence_order(EVERYONE, shape="general", seats=1, floor=10, book=BOOK, unseated_for=waited)
    assert reasons(order)[0] == ("settled", "due")
    assert order[0].why == "due: unseated for 9 panels (floor 10)"


def test_a_model_that_never_sat_is_due_whatever_its_record() -> None:
    never = {alias: 0 for alias in EVERYONE if alias != "unsure"}
    order = evidence_order(EVERYONE, shape="general", seats=2, floor=30, book=BOOK, unseated_for=never)
    assert reasons(order)[0] == ("unsure", "due") and order[0].why == "due: never seated (floor 30)"
    assert [c.reason for c in order].count("due") == 1


def test_a_model_near_its_deadline_sits_early_where_its_record_is_thinnest() -> None:
    book = fit_evidence(
        {
            ("m", "code"): Counts(useful=9, not_useful=1),
            ("m", "prose"): Counts(useful=1, not_useful=1),
            ("x", "code"): Counts(useful=5, not_useful=5),
            ("x", "prose"): Counts(useful=5, not_useful=5),
        },
        {},
    )
    near = {"m": 25, "x": 0}
    prose = evidence_order(["m", "x"], shape="prose", seats=1, floor=30, book=book, unseated_for=near)
    assert reasons(prose)[0] == ("m", "early")
    assert prose[0].why == "early: unseated for 25 panels (floor 30), its thinnest record"
    code = evidence_order(["m", "x"], shape="code", seats=1, floor=30, book=book, unseated_for=near)
    assert "early" not in [c.reason for c in code]
    far = evidence_order(
        ["m", "x"], shape="prose", seats=1, floor=30, book=book, unseated_for={"m": 20, "x": 0}
    )
    assert "early" not in [c.reason for c in far]


def test_under_the_gap_variant_a_model_sits_early_on_its_good_shape() -> None:
    book = fit_evidence(
        {
            ("m", "code"): Counts(useful=9, not_useful=1),
            ("m", "prose"): Counts(useful=1, not_useful=9),
            ("x", "code"): Counts(useful=5, not_useful=5),
            ("x", "prose"): Counts(useful=5, not_useful=5),
        },
        {},
    )
    near, early = {"m": 25, "x": 0}, ExplorerTuning(early=5, early_by="gap")
    code = evidence_order(
        ["m", "x"], shape="code", seats=1, floor=30, book=book, unseated_for=near, tuning=early
    )
    assert reasons(code)[0] == ("m", "early") and code[0].why == "early: unseated for 25 panels (floor 30)"
    prose = evidence_order(
        ["m", "x"], shape="prose", seats=1, floor=30, book=book, unseated_for=near, tuning=early
    )
    assert "early" not in [c.reason for c in prose]


def test_the_leader_has_the_best_mean_and_the_challenger_could_still_overturn_it() -> None:
    order = evidence_order(
        EVERYONE, shape="general", seats=1, floor=10, book=BOOK, unseated_for=SEATED_LAST_PANEL
    )
    assert reasons(order) == [
        ("hopeful", "challenger"),
        ("leader", "leader"),
        ("unsure", "few verdicts"),
        ("settled", "behind"),
    ]
    two_seats = evidence_order(
        EVERYONE, shape="general", seats=2, floor=10, book=BOOK, unseated_for=SEATED_LAST_PANEL
    )
    assert reasons(two_seats)[2] == ("unsure", "least known")
    assert two_seats[2].why.startswith("least known next: ")
    assert order[0].why == "challenger: could still overturn the leader leader"
    assert order[1].why.startswith("leader: best posterior mean (7")
    assert order[2].why.startswith("few verdicts: wide interval (")


def test_no_challenger_once_the_record_has_settled_who_is_better() -> None:
    book = fit_evidence({("a", "general"): Counts(useful=40), ("b", "general"): Counts(not_useful=40)}, {})
    order = evidence_order(
        ["a", "b"], shape="general", seats=1, floor=10, book=book, unseated_for={"a": 0, "b": 0}
    )
    assert reasons(order) == [("a", "leader"), ("b", "behind")]
    two_seats = evidence_order(
        ["a", "b"], shape="general", seats=2, floor=10, book=book, unseated_for={"a": 0, "b": 0}
    )
    assert reasons(two_seats) == [("b", "least known"), ("a", "leader")]
    assert two_seats[0].why == "least known: 40 verdicts on this shape, the leader's lead settled"


def test_the_next_panel_takes_one_model_of_a_family_and_only_as_many_as_its_seats() -> None:
    roster = {
        "leader": model("leader", "org/twin"),
        "hopeful": model("hopeful", "elsewhere/twin:free"),
        "settled": model("settled"),
        "unsure": model("unsure"),
    }
    preview = preview_shape(
        roster,
        shape="general",
        seats=2,
        floor=10,
        rule="evidence",
        book=BOOK,
        unseated_for=SEATED_LAST_PANEL,
    )
    assert [c.alias for c in preview.candidates if c.next_panel] == ["hopeful", "unsure"]
    assert (preview.seats, preview.floor, preview.rule) == (2, 10, "evidence")


def test_the_old_rule_lists_the_longest_unseated_first() -> None:
    roster = {alias: model(alias) for alias in EVERYONE}
    preview = preview_shape(
        roster,
        shape="general",
        seats=1,
        floor=10,
        rule="stalest",
        book=BOOK,
        unseated_for={"leader": 0, "settled": 4, "hopeful": 2},
    )
    assert [c.alias for c in preview.candidates] == ["unsure", "settled", "hopeful", "leader"]
    assert preview.candidates[0].why == "stalest first: never seated"
    assert preview.candidates[1].why == "stalest first: unseated for 4 panels"
    assert [c.next_panel for c in preview.candidates] == [True, False, False, False]


def test_the_pool_leaves_out_members_their_family_and_models_that_may_not_explore() -> None:
    roster = {
        "member": model("member", "org/kin"),
        "sibling": model("sibling", "other/kin"),
        "gone": model("gone", retired=True),
        "adhoc": model("adhoc", ad_hoc=True),
        "painter": model("painter", role="image"),
        "eyes": model("eyes", role="vision", vision=True),
        "coder": model("coder", role="code"),
        "plain": model("plain"),
    }
    assert explorer_pool(roster, "general", taken=["member"]) == ["plain"]
    assert explorer_pool(roster, "code", taken=["member"]) == ["coder", "plain"]
    assert explorer_pool(roster, "vision") == ["eyes"]
