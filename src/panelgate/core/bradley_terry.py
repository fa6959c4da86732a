"""Bradley–Terry strengths from "this answer was better than that one" verdicts.

A pairwise verdict compares two seats of one panel; many of them, across
panels, say which models tend to win. The Bradley–Terry model gives each
model a strength γ with P(a beats b) = γa / (γa + γb); it is fitted here by
Hunter's MM iteration (Hunter 2004, "MM algorithms for generalized
Bradley–Terry models"), which needs no step size and cannot diverge, and
each strength gets an interval from the inverse of the Fisher information.

Without help the fit does not exist when a model won (or lost) every
comparison it was in, which is the usual case early on; so each model also
plays `PRIOR_GAMES` virtual games against an average opponent (strength 1),
winning half. That pulls strengths with little evidence toward the average
and anchors the scale (strength 1 = an average model). With no virtual games
the fit is the plain maximum likelihood estimate, scaled to a geometric mean
of 1 (what the textbook check in the tests uses).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

PRIOR_GAMES = 2.0
"""Virtual games each model plays against an average opponent (half won): a weak pull to the average."""

Z_90 = 1.6448536269514722
"""The normal quantile for a two-sided 90 % interval."""

_TOLERANCE = 1e-10
_MAX_ROUNDS = 10_000


@dataclass(frozen=True)
class Strength:
    """A model's log-strength (0 = average) with its standard error and 90 % interval."""

    log_strength: float
    error: float

    @property
    def interval(self) -> tuple[float, float]:
        return self.log_strength - Z_90 * self.error, self.log_strength + Z_90 * self.error

    @property
    def win_chance(self) -> float:
        """The chance it beats an average model."""
        return 1.0 / (1.0 + math.exp(-self.log_strength))


@dataclass(frozen=True)
class BradleyTerryFit:
    names: tuple[str, ...]
    log_strengths: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]

    def strength(self, name: str) -> Strength:
        i = self.names.index(name)
        return Strength(self.log_strengths[i], math.sqrt(max(self.covariance[i][i], 0.0)))

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """log γa − log γb and its standard error."""
        i, j = self.names.index(a), self.names.index(b)
        c = self.covariance
        return self.log_strengths[i] - self.log_strengths[j], math.sqrt(c[i][i] + c[j][j] - 2 * c[i][j])


def _games(wins: Mapping[tuple[str, str], float]) -> tuple[list[str], list[float], list[list[float]]]:
    names = sorted({name for pair in wins for name in pair})
    index = {name: i for i, name in enumerate(names)}
    won = [0.0] * len(names)
    played = [[0.0] * len(names) for _ in names]
    for (winner, loser), count in wins.items():
        if winner == loser or count <= 0:
            continue
        i, j = index[winner], index[loser]
        won[i] += count
        played[i][j] += count
        played[j][i] += count
    return names, won, played


def _mm(won: list[float], played: list[list[float]], prior: float) -> list[float]:
    """Hunter's MM iteration for the strengths (γ, not logs)."""
    k = len(won)
    gamma = [1.0] * k
    for _ in range(_MAX_ROUNDS):
        fresh = []
        for i in range(k):
            denominator = sum(played[i][j] / (gamma[i] + gamma[j]) for j in range(k) if played[i][j])
            denominator += prior / (gamma[i] + 1.0)
            fresh.append((won[i] + prior / 2.0) / denominator if denominator > 0 else gamma[i])
        if prior <= 0:
            scale = math.exp(sum(math.log(g) for g in fresh) / k)
            fresh = [g / scale for g in fresh]
        change = max(abs(math.log(a / b)) for a, b in zip(fresh, gamma, strict=True))
        gamma = fresh
        if change < _TOLERANCE:
            break
    return gamma


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inverse with partial pivoting (the matrices here are small and well posed)."""
    k = len(matrix)
    work = [row[:] + [1.0 if i == j else 0.0 for j in range(k)] for i, row in enumerate(matrix)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(work[r][col]))
        work[col], work[pivot] = work[pivot], work[col]
        lead = work[col][col]
        work[col] = [value / lead for value in work[col]]
        for r in range(k):
            if r != col and work[r][col]:
                factor = work[r][col]
                work[r] = [a - factor * b for a, b in zip(work[r], work[col], strict=True)]
    return [row[k:] for row in work]


def _covariance(gamma: list[float], played: list[list[float]], prior: float) -> list[list[float]]:
    """The inverse Fisher information of the log-strengths (centred when nothing anchors them)."""
    k = len(gamma)
    info = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if i != j and played[i][j]:
                p = gamma[i] / (gamma[i] + gamma[j])
                weight = played[i][j] * p * (1.0 - p)
                info[i][i] += weight
                info[i][j] -= weight
        p_average = gamma[i] / (gamma[i] + 1.0)
        info[i][i] += prior * p_average * (1.0 - p_average)
    if prior > 0:
        return _inverse(info)
    # log-strengths are only known up to a shift: the pseudo-inverse under a zero-mean constraint
    shifted = _inverse([[value + 1.0 / k for value in row] for row in info])
    return [[value - 1.0 / k for value in row] for row in shifted]


def fit_bradley_terry(
    wins: Mapping[tuple[str, str], float], prior_games: float = PRIOR_GAMES
) -> BradleyTerryFit:
    """Fit strengths from `wins[(a, b)]`: how many times a was judged better than b."""
    names, won, played = _games(wins)
    if not names:
        return BradleyTerryFit((), (), ())
    gamma = _mm(won, played, prior_games)
    covariance = _covariance(gamma, played, prior_games)
    return BradleyTerryFit(
        names=tuple(names),
        log_strengths=tuple(math.log(g) for g in gamma),
        covariance=tuple(tuple(row) for row in covariance),
    )
