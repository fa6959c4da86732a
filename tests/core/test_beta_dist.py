import math

import pytest

from panelgate.core.beta_dist import beta_cdf, beta_interval, beta_quantile

# scipy.stats.beta.ppf(p, a, b) (scipy 1.17), as published reference values
KNOWN_QUANTILES = [
    (0.05, 2, 3, 0.09761146288641434),
    (0.95, 2, 3, 0.7513953742698181),
    (0.05, 0.5, 0.5, 0.0061558297024311365),
    (0.95, 31.5, 12.25, 0.8244938620244926),
    (0.5, 200, 800, 0.19979994680685992),
    (0.001, 3, 7, 0.02366355126521486),
    (0.05, 1.2, 40, 0.002320154785430187),
]


@pytest.mark.parametrize(("p", "a", "b", "expected"), KNOWN_QUANTILES)
def test_beta_quantiles_match_published_values(p: float, a: float, b: float, expected: float) -> None:
    assert beta_quantile(p, a, b) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9])
def test_beta_quantiles_match_the_closed_forms_of_beta_a_1_and_beta_1_b(p: float) -> None:
    assert beta_quantile(p, 3.5, 1) == pytest.approx(p ** (1 / 3.5), abs=1e-12)
    assert beta_quantile(p, 1, 4) == pytest.approx(1 - (1 - p) ** (1 / 4), abs=1e-12)


@pytest.mark.parametrize(("x", "a", "b"), [(0.3, 2, 5), (0.7, 6, 3), (0.5, 10, 10), (0.05, 1, 30)])
def test_the_cdf_of_whole_parameters_is_a_binomial_tail(x: float, a: int, b: int) -> None:
    n = a + b - 1
    tail = sum(math.comb(n, k) * x**k * (1 - x) ** (n - k) for k in range(a, n + 1))
    assert beta_cdf(x, a, b) == pytest.approx(tail, abs=1e-12)


def test_a_symmetric_beta_has_its_median_at_one_half() -> None:
    assert beta_quantile(0.5, 7.3, 7.3) == pytest.approx(0.5, abs=1e-12)


def test_the_90_percent_interval_is_the_5th_to_95th_percentile() -> None:
    low, high = beta_interval(2, 3)
    assert (low, high) == pytest.approx((0.09761146288641434, 0.7513953742698181), abs=1e-12)


def test_a_probability_outside_0_1_is_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        beta_quantile(1.5, 2, 2)
