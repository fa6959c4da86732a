"""The Beta distribution's CDF and quantiles, in plain Python.

A credible interval of a Beta posterior needs the Beta quantile, which the
standard library lacks; scipy has it but would be a heavy dependency for two
numbers per row of the record. The CDF is the regularized incomplete beta
function, evaluated with its continued fraction (modified Lentz, as in
Numerical Recipes §6.4); the quantile inverts it by Newton's method from the
normal approximation, falling back to bisection whenever a step would leave
the bracket, so it cannot diverge. Bisection alone took 60 CDF evaluations
per quantile, and each costs more the more verdicts a cell holds: with a
million verdicts the record's intervals took most of a second; Newton's
method needs a handful.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_TINY = 1e-300
_EDGE = 1e-12
_EPSILON = 1e-15
_MAX_TERMS = 500
_STEPS = 100


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), converging fast for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            result *= step
        if abs(step - 1.0) < _EPSILON:
            break
    return result


def beta_cdf(x: float, a: float, b: float) -> float:
    """P(X ≤ x) for X ~ Beta(a, b): the regularized incomplete beta function I_x(a, b)."""
    if a <= 0 or b <= 0:
        raise ValueError(f"Beta parameters must be positive; got a={a}, b={b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b


def beta_quantile(p: float, a: float, b: float) -> float:
    """The x with P(X ≤ x) = p for X ~ Beta(a, b), to about 1e-15."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a probability is between 0 and 1; got {p}")
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    low, high = 0.0, 1.0
    x = _normal_guess(p, a, b)
    for _ in range(_STEPS):
        error = beta_cdf(x, a, b) - p
        if error < 0.0:
            low = x
        else:
            high = x
        density = _density(x, a, b)
        newton = x - error / density if density > 0.0 else low
        step = newton if low < newton < high else (low + high) / 2.0
        if abs(step - x) <= _EPSILON * max(x, _TINY) or high - low <= _EPSILON:
            return step
        x = step
    return x


def _normal_guess(p: float, a: float, b: float) -> float:
    """Where Newton's steps start: the normal quantile with the Beta's mean and spread, kept inside (0, 1)."""
    mean = a / (a + b)
    spread = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    return min(max(mean + spread * NormalDist().inv_cdf(p), _EDGE), 1.0 - _EDGE)


def _density(x: float, a: float, b: float) -> float:
    log_density = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    return math.exp(log_density + (a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x))


def beta_interval(a: float, b: float, mass: float = 0.9) -> tuple[float, float]:
    """The equal-tailed interval holding `mass` of Beta(a, b) (0.9: the 5th and 95th percentiles)."""
    tail = (1.0 - mass) / 2.0
    return beta_quantile(tail, a, b), beta_quantile(1.0 - tail, a, b)
