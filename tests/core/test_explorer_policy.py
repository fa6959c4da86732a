"""The seat-to-learn variants the simulation compares: floor-aware learning seats and capped early seats."""

import random

from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.explorer_policy import (
    ExplorerEvidence,
    ExplorerTuning,
    explorer_order,
    least_known,
    optimistic_challenger,
)

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


def test_a_model_never_judged_on_a_shape_is_challenged_before_a_middling_one_the_record_ranks_higher() -> (
    None
):
    """On a bench whose record pulls a newcomer hard toward the average (a prior worth about fifty
    verdicts here), the challenger's optimism comes from a model's own verdicts with the prior at a
    fifth: a model judged 16 times at a middling rate has told what it is, one never judged on the shape
    has not. The record's estimate alone ranks them the other way."""
    counts = {
        (f"b{k}", shape): Counts(useful=useful, not_useful=6 - useful)
        for k, useful in enumerate([1, 2, 3, 4, 2, 3, 1, 4, 3, 2, 3, 2])
        for shape in ("prose", "review")
    }
    counts |= {
        ("star", "code"): Counts(useful=9, not_useful=3),
        ("steady", "code"): Counts(useful=9, not_useful=7),
        ("fresh", "prose"): Counts(useful=3, not_useful=3),
    }
    book = fit_evidence(counts, {})
    assert book.posterior("steady", "code").mean > book.posterior("fresh", "code").mean
    pool = ["star", "steady", "fresh"]
    assert optimistic_challenger(pool, "star", "code", book, ExplorerTuning()) == "fresh"
    whole_prior = ExplorerTuning(optimism_prior=1.0, width=2.0)
    assert optimistic_challenger(pool, "star", "code", book, whole_prior) == "steady"
