"""NGS parameter sets (S9): one frozen, versioned object stored with every replay."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

__all__ = ["NGSParams", "NGS_DEFAULT", "NGS_2018", "FR18_FACTORS", "PARAMETER_SETS", "get_params"]


@dataclass(frozen=True)
class NGSParams:
    """Every constant of the scheme (S9). Fractions are kept exact so thresholds compare exactly."""

    name: str = "ngs-15a"
    version: int = 1
    window_boards: int = 2000  # S4
    window_years: int = 3  # S4, S14.6
    gain: float = 2.0  # S3.4, FAQ 42
    rpcf: float = 0.75  # S3.4 regular-pair convergence factor
    regular_share: Fraction = Fraction(17, 20)  # S3.4, S14.5: strictly more than 85%
    initial_grade: float = 42.0  # S5.1
    initial_grade_green: float = 55.0  # S5.1, first session green-pointed (weighting 3)
    restart_grade: float = 50.0  # S5.1, FR 11
    padding_boards: int = 300  # S4
    mature_boards: int = 1000  # S4
    f_butler: float = 5.4  # S3.3
    f_cross: float = 6.48  # S3.3
    f_aggregate: float = 8.2  # S3.3
    f_swiss_imp: float = 5.4  # Swiss pairs IMPs are scored against a datum (docs/decisions)
    weighting_factors: tuple[tuple[int, float], ...] = ((1, 1.0), (2, 1.0), (3, 2.0))  # S3.10
    known_threshold: Fraction = Fraction(2, 3)  # S3.8: strictly more than 2/3
    known_by_players: bool = False  # S9.1: count players instead of pairs
    default_boards: int = 24  # S3.7
    forecast_sd: float = 6.34  # S3.5, FR 5/18
    multiple_teams_share: Fraction = Fraction(1, 4)  # S3.2, FAQ 46 quarter rule
    new_partner_min_boards: int | None = None  # S9.1: 150 under ngs-2018

    def factor(self, weighting: int) -> float:
        """The event weighting factor of S3.10 (unknown types count as club, factor 1)."""
        for kind, value in self.weighting_factors:
            if kind == weighting:
                return value
        return 1.0

    def first_grade(self, weighting: int) -> float:
        """Initial grade of a member whose first graded session has this weighting (S5.1)."""
        return self.initial_grade_green if weighting == 3 else self.initial_grade

    @property
    def team_handicap_factor(self) -> float:
        """IMPs per board per grade point between two teams (FR 7: 2/6.48 = 0.3086)."""
        return 2.0 / self.f_cross


NGS_DEFAULT = NGSParams()
NGS_2018 = replace(NGS_DEFAULT, name="ngs-2018", known_by_players=True, new_partner_min_boards=150)
FR18_FACTORS = replace(
    NGS_DEFAULT, name="fr18-factors", f_butler=5.10, f_cross=6.12, f_swiss_imp=5.10
)

PARAMETER_SETS: dict[str, NGSParams] = {p.name: p for p in (NGS_DEFAULT, NGS_2018, FR18_FACTORS)}


def get_params(name: str) -> NGSParams:
    """The named parameter set (S9, S9.1, S3.3)."""
    try:
        return PARAMETER_SETS[name]
    except KeyError:
        raise KeyError(
            f"unknown NGS parameter set {name!r}; known: {sorted(PARAMETER_SETS)}"
        ) from None
