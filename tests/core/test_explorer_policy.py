"""The seat-to-learn variants the simulation compares: floor-aware learning seats and capped early seats."""

import random

from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.explorer_policy import ExplorerEvidence, ExplorerTuning, explorer_order, least_known

FLOOR = 30


def test_among_equally_known_models_the_seat_to_learn_goes_to_the_one_nearest_its_floor() -> None:
    counts = {(alias, "code"): Counts(useful=1, not_useful=1) for alias in ("a", "b", "c")}
    book = fit_evidence(counts, {})
    waited = {"a": 3, "b": 25, "c": 10}
    assert least_known(["a", "b", "c"], "code", book, waited) == "b"
    assert least_known(["a", "b", "c"], "code", book, {"a": 3, "b": 2}) == "c"  # never sat: due now


def test_fewer_verdicts_still_come_before_a_nearer_floor_deadline() -> None:
    counts = {("a", "code"): Counts(useful=1), ("b", "code"): Counts(useful=2, not_useful=2)}
    book = fit_evidence(counts, {})
    assert least_known(["a", "b"], "code", book, {"a": 0, "b": 28}) == "a"


def test_early_floor_seats_take_no_more_than_their_cap() -> None:
    """Five models near their deadline, each least known on `code`: with a cap of one, only one sits early
    and the other seat is the record's to give."""
    near = [f"n{k}" for k in range(5)]
    counts = {
        (alias, shape): Counts(useful=2, not_useful=2) for alias in near for shape in ("prose", "review")
    }
    counts |= {("star", "code"): Counts(useful=40, not_useful=5)}
    book = fit_evidence(counts, {})
    waited = {alias: FLOOR - 4 for alias in near} | {"star": 0}
    tuning = ExplorerTuning(early=8, early_by="spread", early_cap=1, leader_share=1.0)
    evidence = ExplorerEvidence(book=book, unseated_for=waited, rng=random.Random(1), tuning=tuning)
    order = explorer_order([*near, "star"], shape="code", seats=2, floor=FLOOR, evidence=evidence)
    assert order[0] in near
    assert sum(alias in near for alias in order[:2]) == 1
