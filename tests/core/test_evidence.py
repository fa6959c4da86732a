import random

import pytest

from panelgate.core.beta_dist import beta_interval
from panelgate.core.evidence import SUITE_WEIGHT, Counts, fit_evidence
from panelgate.core.evidence_prior import Prior, fit_prior

SHAPES = ("general", "code", "prose", "review")


def consistent_bench() -> dict[tuple[str, str], Counts]:
    """Models whose shapes agree: strong ones are strong everywhere, weak ones weak everywhere."""
    counts: dict[tuple[str, str], Counts] = {}
    for n, rate in enumerate([0.9, 0.85, 0.8, 0.3, 0.25, 0.2, 0.6, 0.5]):
        for shape in SHAPES:
            useful = round(20 * rate)
            counts[(f"m{n}", shape)] = Counts(useful=useful, not_useful=20 - useful)
    return counts


def test_an_empty_record_gives_the_default_prior_and_a_posterior_around_one_half() -> None:
    book = fit_evidence({}, {})
    posterior = book.posterior("new", "code")
    assert book.prior.mean == Prior().mean
    assert book.prior.shape_var == pytest.approx(Prior().shape_var)
    assert posterior.mean == pytest.approx(0.5)
    assert posterior.judged == 0


def test_verdicts_add_to_the_prior_as_a_conjugate_update() -> None:
    counts = consistent_bench()
    book = fit_evidence(counts, {})
    alpha, beta = book.prior_for("m0", "code")
    posterior = book.posterior("m0", "code")
    assert (posterior.alpha, posterior.beta) == pytest.approx((alpha + 18, beta + 2))
    assert posterior.judged == 20


def test_a_share_of_the_prior_weighs_it_less_and_the_cells_own_verdicts_more() -> None:
    counts = consistent_bench() | {("new", "code"): Counts(useful=2)}
    book = fit_evidence(counts, {})
    alpha, beta = book.prior_for("new", "code")
    whole, fifth = book.posterior("new", "code"), book.posterior("new", "code", prior_share=0.2)
    assert (fifth.alpha, fifth.beta) == pytest.approx((0.2 * alpha + 2, 0.2 * beta))
    assert whole.mean < fifth.mean < 1.0  # nearer its own two useful answers
    unjudged, unjudged_fifth = book.posterior("new", "prose"), book.posterior("new", "prose", prior_share=0.2)
    assert unjudged_fifth.mean == pytest.approx(unjudged.mean)  # the prior's mean is kept, less sure
    assert unjudged_fifth.spread > unjudged.spread
    assert book.posterior("new", "code") is whole  # each share remembered on its own


def test_a_new_shape_starts_from_the_models_own_record_on_other_shapes() -> None:
    counts = {key: cell for key, cell in consistent_bench().items() if key != ("m0", "code")}
    book = fit_evidence(counts, {})
    strong, weak = book.posterior("m0", "code"), book.posterior("m5", "code")
    assert book.prior.model_var + book.prior.family_var > book.prior.shape_var  # a model's shapes agree
    assert strong.judged == 0
    assert strong.mean > 0.75
    assert weak.mean < 0.35


def test_a_new_sibling_starts_from_its_familys_record() -> None:
    counts = consistent_bench()
    for n in range(8):  # every model has a sibling (the same weights elsewhere) with the same record
        counts |= {(f"m{n}-b", shape): counts[(f"m{n}", shape)] for shape in SHAPES}
    families = {alias: f"family{alias[1]}" for alias, _ in counts} | {"m0-c": "family0"}
    book = fit_evidence(counts, families)
    sibling, stranger = book.posterior("m0-c", "code"), book.posterior("stranger", "code")
    assert book.prior.family_var > 0.02  # the bench shows that siblings agree
    assert sibling.judged == 0
    assert sibling.mean > 0.75
    assert stranger.mean == pytest.approx(book.prior.mean, abs=0.01)


def test_shapes_that_do_not_agree_are_not_pooled() -> None:
    rng = random.Random(7)
    counts = {}
    for n in range(30):
        for shape in SHAPES:
            rate = rng.betavariate(2, 3)
            useful = sum(rng.random() < rate for _ in range(12))
            counts[(f"m{n}", shape)] = Counts(useful=useful, not_useful=12 - useful)
    prior = fit_prior({key: (c.successes, c.trials) for key, c in counts.items()}, {})
    assert prior.model_var + prior.family_var < 0.2 * prior.shape_var
    assert prior.shape_var == pytest.approx(0.04, abs=0.015)  # Beta(2, 3) has variance 0.04


def test_a_few_models_strong_on_two_shapes_do_not_lift_their_other_shapes() -> None:
    """Explorers judge a strong model's strong shapes again and again; three such models are not a
    bench whose models are good at everything, so their unjudged shape stays near the bench's mean."""
    rng = random.Random(11)
    counts = {}
    for n in range(30):
        for shape in SHAPES:
            rate, judged = rng.betavariate(2, 3), rng.randint(1, 4)
            useful = sum(rng.random() < rate for _ in range(judged))
            counts[(f"m{n}", shape)] = Counts(useful=useful, not_useful=judged - useful)
    stars = ("m0", "m1", "m2")
    for star in stars:
        counts |= {(star, "code"): Counts(160, 40), (star, "review"): Counts(160, 40)}
        del counts[(star, "prose")]
    book = fit_evidence(counts, {})
    for star in stars:
        assert book.posterior(star, "prose").mean == pytest.approx(book.prior.mean, abs=0.05)


def test_one_model_judged_again_and_again_does_not_lift_the_bench_mean() -> None:
    """Explorers re-seat the promising model: its 200 verdicts count as one well-known cell, not 200
    answers, so the many barely judged cells are not pulled toward its 90 %."""
    cells = {("star", "code"): (180.0, 200.0)}
    cells |= {(f"m{n}", "code"): (1.0, 3.0) for n in range(20)}
    pooled = (180 + 20 + 1) / (200 + 60 + 2)
    prior = fit_prior(cells, {})
    assert pooled > 0.75
    assert 0.3 < prior.mean < 0.45


def test_a_suite_result_counts_as_a_fraction_of_a_verdict() -> None:
    cell = Counts(useful=2, not_useful=1, suite_right=4, suite_wrong=2)
    assert (cell.successes, cell.trials, cell.judged) == (2 + 4 * SUITE_WEIGHT, 3 + 6 * SUITE_WEIGHT, 3)
    counts = consistent_bench() | {("m6", "review"): cell}
    book = fit_evidence(counts, {})
    alpha, beta = book.prior_for("m6", "review")
    posterior = book.posterior("m6", "review")
    assert (posterior.alpha - alpha, posterior.beta - beta) == pytest.approx((4.0, 2.0))
    assert posterior.judged == 3


def test_the_interval_is_the_posteriors_90_percent_interval_and_holds_the_mean() -> None:
    posterior = fit_evidence(consistent_bench(), {}).posterior("m6", "prose")
    low, high = posterior.interval()
    assert (low, high) == pytest.approx(beta_interval(posterior.alpha, posterior.beta, 0.9))
    assert low < posterior.mean < high


def test_more_verdicts_narrow_the_interval() -> None:
    few = fit_evidence({("m", "code"): Counts(useful=3, not_useful=1)}, {}).posterior("m", "code")
    many = fit_evidence({("m", "code"): Counts(useful=30, not_useful=10)}, {}).posterior("m", "code")
    assert many.spread < few.spread
    assert many.interval()[1] - many.interval()[0] < few.interval()[1] - few.interval()[0]


def test_a_thompson_draw_is_reproducible_under_a_seed() -> None:
    posterior = fit_evidence(consistent_bench(), {}).posterior("m2", "code")
    assert posterior.draw(random.Random(3)) == posterior.draw(random.Random(3))
