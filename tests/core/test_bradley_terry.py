import pytest

from panelgate.core.bradley_terry import fit_bradley_terry

# Agresti (2002), Categorical Data Analysis §10.6: the 1987 American League East
# (home team, away team, home wins, away wins)
AL_EAST_1987 = [
    ("Milwaukee", "Detroit", 4, 3),
    ("Milwaukee", "Toronto", 4, 2),
    ("Milwaukee", "New York", 4, 3),
    ("Milwaukee", "Boston", 6, 1),
    ("Milwaukee", "Cleveland", 4, 2),
    ("Milwaukee", "Baltimore", 6, 0),
    ("Detroit", "Milwaukee", 3, 3),
    ("Detroit", "Toronto", 4, 2),
    ("Detroit", "New York", 4, 3),
    ("Detroit", "Boston", 6, 0),
    ("Detroit", "Cleveland", 6, 1),
    ("Detroit", "Baltimore", 4, 3),
    ("Toronto", "Milwaukee", 2, 5),
    ("Toronto", "Detroit", 4, 3),
    ("Toronto", "New York", 2, 4),
    ("Toronto", "Boston", 4, 3),
    ("Toronto", "Cleveland", 4, 2),
    ("Toronto", "Baltimore", 6, 0),
    ("New York", "Milwaukee", 3, 3),
    ("New York", "Detroit", 5, 1),
    ("New York", "Toronto", 2, 5),
    ("New York", "Boston", 4, 3),
    ("New York", "Cleveland", 4, 2),
    ("New York", "Baltimore", 6, 1),
    ("Boston", "Milwaukee", 5, 1),
    ("Boston", "Detroit", 2, 5),
    ("Boston", "Toronto", 3, 3),
    ("Boston", "New York", 4, 2),
    ("Boston", "Cleveland", 5, 2),
    ("Boston", "Baltimore", 6, 0),
    ("Cleveland", "Milwaukee", 2, 5),
    ("Cleveland", "Detroit", 3, 3),
    ("Cleveland", "Toronto", 3, 4),
    ("Cleveland", "New York", 4, 3),
    ("Cleveland", "Boston", 4, 2),
    ("Cleveland", "Baltimore", 2, 4),
    ("Baltimore", "Milwaukee", 2, 5),
    ("Baltimore", "Detroit", 1, 5),
    ("Baltimore", "Toronto", 1, 6),
    ("Baltimore", "New York", 2, 4),
    ("Baltimore", "Boston", 1, 6),
    ("Baltimore", "Cleveland", 3, 4),
]

# the published fit (log-strength against Baltimore, standard error)
AGRESTI_ESTIMATES = {
    "Boston": (1.1077, 0.3339),
    "Cleveland": (0.6839, 0.3319),
    "Detroit": (1.4364, 0.3396),
    "Milwaukee": (1.5814, 0.3433),
    "New York": (1.2476, 0.3359),
    "Toronto": (1.2945, 0.3367),
}


def al_east_wins() -> dict[tuple[str, str], float]:
    wins: dict[tuple[str, str], float] = {}
    for home, away, home_wins, away_wins in AL_EAST_1987:
        wins[(home, away)] = wins.get((home, away), 0) + home_wins
        wins[(away, home)] = wins.get((away, home), 0) + away_wins
    return wins


def test_the_plain_fit_reproduces_agrestis_baseball_strengths_and_errors() -> None:
    fit = fit_bradley_terry(al_east_wins(), prior_games=0)
    for team, (estimate, error) in AGRESTI_ESTIMATES.items():
        assert fit.difference(team, "Baltimore") == pytest.approx((estimate, error), abs=5e-5)


def test_two_models_strengths_are_the_odds_of_their_record() -> None:
    fit = fit_bradley_terry({("a", "b"): 6, ("b", "a"): 2}, prior_games=0)
    difference, _ = fit.difference("a", "b")
    assert difference == pytest.approx(1.0986122886681098)  # log(6 / 2)


def test_a_model_that_won_every_comparison_gets_a_finite_strength_with_the_prior() -> None:
    fit = fit_bradley_terry({("a", "b"): 3})
    a, b = fit.strength("a"), fit.strength("b")
    assert 0 < a.log_strength < 3
    assert b.log_strength == pytest.approx(-a.log_strength)
    low, high = a.interval
    assert low < a.log_strength < high
    assert a.win_chance > 0.5


def test_more_comparisons_narrow_the_interval() -> None:
    few = fit_bradley_terry({("a", "b"): 3, ("b", "a"): 1}).strength("a")
    many = fit_bradley_terry({("a", "b"): 30, ("b", "a"): 10}).strength("a")
    assert many.error < few.error


def test_no_comparisons_fit_nobody() -> None:
    assert fit_bradley_terry({}).names == ()
