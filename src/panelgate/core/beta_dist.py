"""The Beta distribution's CDF and quantiles, in plain Python.

A credible interval of a Beta posterior needs the Beta quantile, which the
standard library lacks; scipy has it but would be a heavy dependency for two
numbers per row of the record. The CDF is the regularized incomplete beta
function, evaluated with its continued fraction (modified Lentz, as in
Numerical Recipes §6.4); the quantile inverts it by bisection, which is slow
by the standards of Newton's method but cannot diverge, and a record of a few
hundred rows needs only milliseconds.
"""

from __future__ import annotations

import math

_TINY = 1e-300
_EPSILON = 1e-15
_MAX_TERMS = 500
_BISECTIONS = 60


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
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2.0
        if beta_cdf(middle, a, b) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def beta_interval(a: float, b: float, mass: float = 0.9) -> tuple[float, float]:
    """The equal-tailed interval holding `mass` of Beta(a, b) (0.9: the 5th and 95th percentiles)."""
    tail = (1.0 - mass) / 2.0
    return beta_quantile(tail, a, b), beta_quantile(1.0 - tail, a, b)
