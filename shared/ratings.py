"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2012), pure and synchronous.

A race of N racers is scored as the pairwise results its standings imply: each racer beat
everyone ranked below and lost to everyone above (ties — equal rank — score ½). Each race is
one rating period for its racers, the way online servers commonly apply Glicko-2. A rating is
provisional while its deviation is above :data:`PROVISIONAL_RD`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5  # system constant: how fast volatility may change
PROVISIONAL_RD = 110.0
EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one period with ``results`` = (opponent, score 0/½/1)."""
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, min(DEFAULT_RD, SCALE * math.sqrt(phi**2 + sigma**2)),
                      sigma)
    inv_v = 0.0
    total = 0.0
    for opp, score in results:
        mu_j = (opp.rating - DEFAULT_RATING) / SCALE
        phi_j = opp.rd / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inv_v
    delta = v * total

    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    new_mu = mu + new_phi**2 * total
    return Rating(SCALE * new_mu + DEFAULT_RATING, SCALE * new_phi, new_sigma)


def race_results(ranks: Sequence[int]) -> list[list[tuple[int, float]]]:
    """For racers with these ranks (1 = best), each racer's (opponent index, score) pairs."""
    out: list[list[tuple[int, float]]] = []
    for i, ri in enumerate(ranks):
        row = []
        for j, rj in enumerate(ranks):
            if i != j:
                row.append((j, 1.0 if ri < rj else 0.0 if ri > rj else 0.5))
        out.append(row)
    return out


def rate_race(ratings: Sequence[Rating], ranks: Sequence[int], tau: float = TAU) -> list[Rating]:
    """Everyone's new rating after one race; all updates use the pre-race ratings."""
    return [
        update(ratings[i], [(ratings[j], s) for j, s in row], tau)
        for i, row in enumerate(race_results(ranks))
    ]
