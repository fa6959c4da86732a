from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.explorer_floor import due_now, early_seats, floor_panels


def test_the_default_floor_is_the_bench_size_and_never_below_ten() -> None:
    assert floor_panels(0, 30) == 30
    assert floor_panels(0, 4) == 10
    assert floor_panels(12, 30) == 12


def test_a_model_that_never_sat_is_due_now() -> None:
    assert due_now(["old", "new"], {"old": 3}, floor=30, seats=2) == ["new"]


def test_nobody_is_due_while_every_model_can_still_wait() -> None:
    assert due_now(["a", "b", "c"], {"a": 5, "b": 9, "c": 0}, floor=30, seats=2) == []


def test_a_model_at_its_deadline_is_due() -> None:
    assert due_now(["a", "b"], {"a": 29, "b": 3}, floor=30, seats=2) == ["a"]


def test_a_crowd_coming_due_together_starts_sitting_before_the_deadline() -> None:
    # five models may each skip two more panels; two seats a panel seat them only if they start now
    crowd = {name: 27 for name in "abcde"}
    assert due_now(list(crowd), crowd, floor=30, seats=2) == ["a", "b"]


def test_a_model_near_its_deadline_sits_early_on_the_shape_its_record_favours() -> None:
    counts = {
        ("m", "code"): Counts(useful=9, not_useful=1),
        ("m", "prose"): Counts(useful=1, not_useful=9),
        ("x", "code"): Counts(useful=5, not_useful=5),
        ("x", "prose"): Counts(useful=5, not_useful=5),
    }
    book = fit_evidence(counts, {})
    near = {"m": 25, "x": 0}
    for shape, expected in [("code", ["m"]), ("prose", [])]:
        seated = early_seats(
            ["m", "x"], shape=shape, book=book, unseated_for=near, floor=30, window=5, by="gap"
        )
        assert seated == expected


def test_a_model_near_its_deadline_sits_early_on_its_thinnest_record_the_most_promising_first() -> None:
    counts = {
        ("m", "code"): Counts(useful=6, not_useful=2),
        ("m", "prose"): Counts(useful=1),
        ("m", "review"): Counts(not_useful=1),
        ("x", "code"): Counts(useful=5, not_useful=5),
        ("x", "prose"): Counts(useful=5, not_useful=5),
        ("x", "review"): Counts(useful=5, not_useful=5),
    }
    book = fit_evidence(counts, {})
    near = {"m": 25, "x": 0}
    # prose and review are equally thin (one verdict each); prose's was useful, so it goes first
    for shape, expected in [("prose", ["m"]), ("review", []), ("code", [])]:
        assert (
            early_seats(["m", "x"], shape=shape, book=book, unseated_for=near, floor=30, window=5) == expected
        )
    # outside the window it waits for its deadline
    assert (
        early_seats(["m", "x"], shape="prose", book=book, unseated_for={"m": 20, "x": 0}, floor=30, window=5)
        == []
    )


def test_nobody_sits_early_with_one_shape_on_record_or_beyond_a_third_of_the_floor() -> None:
    one_shape = fit_evidence({("m", "code"): Counts(useful=1), ("x", "code"): Counts(useful=1)}, {})
    assert early_seats(["m"], shape="code", book=one_shape, unseated_for={"m": 8}, floor=10, window=8) == []
    two_shapes = fit_evidence({("m", "code"): Counts(useful=2), ("m", "prose"): Counts(useful=1)}, {})
    # a floor of 6 lets a model sit early 2 panels before its deadline, not 8
    assert early_seats(["m"], shape="prose", book=two_shapes, unseated_for={"m": 2}, floor=6, window=8) == []
    assert early_seats(["m"], shape="prose", book=two_shapes, unseated_for={"m": 3}, floor=6, window=8) == [
        "m"
    ]
