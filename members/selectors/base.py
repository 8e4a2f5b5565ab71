"""Helpers every member page shares: the member of a login, the parameter set, score units,
counts as written."""

from __future__ import annotations

from grading.engine.types import IMP_SCORING, PERCENT_SCORING, TEAMS_SCORING
from grading.models import (
    Scoring,
)
from members.models import Member

IMP_SCORINGS = IMP_SCORING | TEAMS_SCORING  # the pairs' own IMPs, the teams' cross-IMPs (S3.6)
PERCENT_SCORINGS = PERCENT_SCORING


def member_for_user(*, user) -> Member | None:
    """The user's membership; read once per request (the user keeps it, as Django's
    one-to-one accessor does), however many parts of the page ask."""
    if not user.is_authenticated:
        return None
    try:
        return user.member
    except Member.DoesNotExist:
        return None


def score_unit(scoring: str) -> str:
    if scoring in PERCENT_SCORINGS:
        return "%"
    if scoring in IMP_SCORINGS:
        return "IMPs"
    if scoring == Scoring.AGGREGATE:
        return "points"
    return ""


def score_text(value: float | None, scoring: str) -> str:
    if value is None:
        return "—"
    unit = score_unit(scoring)
    if unit == "%":
        return f"{value:.2f}%"
    if unit == "IMPs":
        return f"{value:+.1f} IMPs"
    if unit == "points":
        return f"{value:.0f} points"
    return f"{value:.2f}"


def count_text(value) -> str:
    """A count as a reader writes it, its thousands separated ("37,377 boards"); anything
    else (None: empty; text) as it is. The pages' one way of writing a count."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value)
