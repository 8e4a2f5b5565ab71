"""Board-level play: contract scores and each board's distribution of table results.

A board is a list of possible outcomes (contract, declarer, tricks, NS score), with the
probability that a table of two equally strong pairs reaches each one. Outcomes are sorted by
NS score; a table draws a latent ``y = skill x (NS strength - EW strength) + N(0, 1)`` and takes
the outcome whose probability interval (on the normal scale) holds ``y``. Ties between tables
come from the discrete outcomes, so a board's flatness (FR 18) follows from its probabilities;
the scores themselves are real duplicate scores, so Butler and cross-IMP figures are realistic.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "Board",
    "Outcome",
    "SKILL_PER_PERCENT",
    "contract_score",
    "make_board",
    "vulnerable",
]

_NORMAL = NormalDist()

# Latent shift per percentage point of strength difference. Calibrated (tests/simulate) so a
# pair 1 % stronger than its field scores 1 % more on average, as the NGS assumes: without
# ties the slope would be 100 / (2 sqrt(pi)) = 28.2 % per unit; ties lower it a little.
SKILL_PER_PERCENT = 0.037

# Vulnerability by board number (1-16 repeating): None, NS, EW, All.
_VUL = (
    "-",
    "NS",
    "EW",
    "All",
    "NS",
    "EW",
    "All",
    "-",
    "EW",
    "All",
    "-",
    "NS",
    "All",
    "-",
    "NS",
    "EW",
)
_SEATS = {"NS": ("N", "S"), "EW": ("E", "W")}


def vulnerable(board: int, side: str) -> bool:
    v = _VUL[(board - 1) % 16]
    return v == "All" or v == side


def contract_score(level: int, strain: str, doubled: int, vul: bool, tricks: int) -> int:
    """Declarer's score for a contract (Laws 72-77 scoring table). ``doubled``: 0, 1 or 2."""
    need = level + 6
    if tricks < need:
        down = need - tricks
        if doubled == 0:
            return -(100 if vul else 50) * down
        if vul:
            penalty = 200 + 300 * (down - 1)
        else:
            penalty = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
        return -penalty * (2 if doubled == 2 else 1)
    per_trick = 20 if strain in "CD" else 30
    trick_points = per_trick * level + (10 if strain == "N" else 0)
    trick_points *= (1, 2, 4)[doubled]
    score = trick_points
    score += (500 if vul else 300) if trick_points >= 100 else 50
    if level == 6:
        score += 750 if vul else 500
    elif level == 7:
        score += 1500 if vul else 1000
    score += (0, 50, 100)[doubled]
    over = tricks - need
    if doubled == 0:
        score += over * per_trick
    else:
        score += over * (200 if vul else 100) * doubled
    return score


@dataclass(frozen=True)
class Outcome:
    contract: str  # "4H", "3NX", "PASS"
    declarer: str  # N, E, S, W ("" when passed out)
    tricks: int | None
    ns_score: int


@dataclass(frozen=True)
class Board:
    """One deal: outcomes by NS score, and the normal-scale cut points between them."""

    number: int
    outcomes: tuple[Outcome, ...]
    cuts: tuple[float, ...]  # len(outcomes) - 1 increasing cut points

    def play(self, shift: float, noise: float) -> Outcome:
        """The outcome at a table where NS are ``shift`` latent units better than EW."""
        return self.outcomes[bisect.bisect_right(self.cuts, shift + noise)]


def _strain_and_level(rng: random.Random, kind: str) -> tuple[str, int]:
    strain = rng.choices("SHDCN", weights=(26, 26, 14, 12, 22))[0]
    if kind == "part":
        level = rng.choice((1, 2, 2, 2, 3, 3)) if strain != "N" else rng.choice((1, 1, 2))
    elif kind == "game":
        level = {"S": 4, "H": 4, "N": 3}.get(strain, 5)
    else:
        level = 7 if rng.random() < 0.1 else 6
    return strain, level


def _trick_weights(rng: random.Random, centre: int, spread: float) -> dict[int, float]:
    """Probabilities of each number of tricks around the double-dummy ``centre``."""
    weights = {}
    for delta in range(-3, 4):
        tricks = centre + delta
        if 0 <= tricks <= 13:
            weights[tricks] = rng.random() ** 0.5 * (spread ** abs(delta))
    return weights


def _contract_text(level: int, strain: str, doubled: int) -> str:
    return f"{level}{strain}" + ("", "X", "XX")[doubled]


def make_board(rng: random.Random, number: int, spread: float = 0.37) -> Board:
    """A random deal's outcome distribution.

    Kinds: partscore, game or slam for one side, contested by a second contract (a different
    level or strain, or the opponents competing or sacrificing); tricks vary around each
    contract's double-dummy number. ``spread`` sets how far tricks stray (its flatness).
    """
    if rng.random() < 0.002:  # everyone plays the same contract and makes the same tricks
        side = rng.choice(("NS", "EW"))
        strain, level = _strain_and_level(rng, "game")
        tricks = level + 6
        score = contract_score(level, strain, 0, vulnerable(number, side), tricks)
        declarer = rng.choice(_SEATS[side])
        sign = 1 if side == "NS" else -1
        outcome = Outcome(_contract_text(level, strain, 0), declarer, tricks, sign * score)
        return Board(number, (outcome,), ())
    kind = rng.choices(("part", "game", "slam"), weights=(46, 44, 10))[0]
    side = rng.choice(("NS", "EW"))
    other = "EW" if side == "NS" else "NS"
    strain, level = _strain_and_level(rng, kind)
    dd = level + 6 + rng.choice((-1, 0, 0, 0, 1, 1))
    candidates: list[tuple[float, int, str, int, str, int]] = []  # weight, level, strain...

    def add(weight: float, lvl: int, stn: str, dbl: int, by: str, centre: int) -> None:
        for tricks, w in _trick_weights(rng, min(13, max(0, centre)), spread).items():
            candidates.append((weight * w, lvl, stn, dbl, by, tricks))

    main = 0.45 + 0.45 * rng.random()
    add(main, level, strain, 0, side, dd)
    alt = rng.random()
    if kind == "game":
        if alt < 0.55:  # some stop in a partscore
            add(1 - main, level - 1 if strain != "N" else 2, strain, 0, side, dd)
        elif alt < 0.8 and strain in "SH":  # or play 3NT instead
            add(1 - main, 3, "N", 0, side, dd - 1 + rng.choice((0, 1)))
        else:  # the opponents sacrifice, doubled
            opp_strain = rng.choice("SHDC".replace(strain, ""))
            add(
                1 - main,
                level if opp_strain > strain else level + 1,
                opp_strain,
                1,
                other,
                level + 6 - rng.choice((2, 3)),
            )
    elif kind == "part":
        if alt < 0.5:  # the opponents compete
            opp_strain = rng.choice("SHDC".replace(strain, ""))
            opp_level = max(1, min(3, level + rng.choice((0, 1))))
            add(1 - main, opp_level, opp_strain, 0, other, opp_level + 6 + rng.choice((-1, 0, 1)))
        elif alt < 0.8:  # some overbid to game
            game = {"S": 4, "H": 4, "N": 3}.get(strain, 5)
            add(1 - main, game, strain, 0, side, dd)
        else:  # some are doubled
            add(1 - main, level, strain, 1, side, dd)
    else:  # slam: some stop in game
        add(1 - main, 4 if strain in "SHN" else 5, strain, 0, side, dd)
    scores: dict[int, tuple[float, Outcome]] = {}
    for weight, lvl, stn, dbl, by, tricks in candidates:
        vul = vulnerable(number, by)
        sign = 1 if by == "NS" else -1
        score = sign * contract_score(lvl, stn, dbl, vul, tricks)
        declarer = _SEATS[by][rng.random() < 0.5]
        outcome = Outcome(_contract_text(lvl, stn, dbl), declarer, tricks, score)
        if score in scores:
            previous_weight, previous = scores[score]
            keep = previous if previous_weight >= weight else outcome
            scores[score] = (previous_weight + weight, keep)
        else:
            scores[score] = (weight, outcome)
    ordered = sorted(scores.items())
    total = sum(weight for _, (weight, _) in ordered)
    cuts = []
    running = 0.0
    for _, (weight, _) in ordered[:-1]:
        running += weight / total
        cuts.append(_NORMAL.inv_cdf(min(max(running, 1e-9), 1 - 1e-9)))
    return Board(number, tuple(outcome for _, (_, outcome) in ordered), tuple(cuts))
