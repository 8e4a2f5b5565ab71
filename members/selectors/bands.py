"""Bands drawn as playing cards, published grades counted by band, and what a status means
(S4, S7)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from grading.engine.ngs import (
    BANDS,
    NGS_DEFAULT,
    NGSParams,
)
from grading.models import CurrentGrade
from grading.privacy import PUBLISHED_STATUSES, public_q
from members.selectors.base import count_text

Status = CurrentGrade.Status


@dataclass(frozen=True)
class BandCard:
    """A band drawn as a playing card (S4): Two .. King in spades, then the four aces."""

    name: str
    rank: str
    suit: str
    red: bool
    lower: float | None
    upper: float | None

    @property
    def label(self) -> str:
        return f"{self.rank}{self.suit}"


RANKS = {
    "Two": "2",
    "Three": "3",
    "Four": "4",
    "Five": "5",
    "Six": "6",
    "Seven": "7",
    "Eight": "8",
    "Nine": "9",
    "Ten": "10",
    "Jack": "J",
    "Queen": "Q",
    "King": "K",
}
SUITS = {"Clubs": "♣", "Diamonds": "♦", "Hearts": "♥", "Spades": "♠"}


def band_limits() -> list[tuple[str, float | None, float | None]]:
    """Every band with its lower (inclusive) and upper (exclusive) bound, lowest first."""
    ascending = sorted(BANDS)
    out: list[tuple[str, float | None, float | None]] = [("Two", None, ascending[0][0])]
    for i, (lower, name) in enumerate(ascending):
        upper = ascending[i + 1][0] if i + 1 < len(ascending) else None
        out.append((name, lower, upper))
    return out


def band_card(name: str) -> BandCard:
    limits = {n: (lo, hi) for n, lo, hi in band_limits()}
    lower, upper = limits[name]
    if name.startswith("Ace of "):
        suit = SUITS[name.removeprefix("Ace of ")]
        return BandCard(name, "A", suit, suit in "♦♥", lower, upper)
    return BandCard(name, RANKS[name], "♠", False, lower, upper)


def band_counts(*, club=None) -> tuple[dict[str, int], int]:
    """Current grades of the statuses published (``PUBLISHED_STATUSES``) counted by band, of
    everyone or of a club's members, and the private ones counted apart, never by band (S7):
    ``({band: count}, private count)``, not yet suppressed. The club pages and the public band
    page count here, so the two agree."""
    graded = CurrentGrade.objects.filter(status__in=PUBLISHED_STATUSES)
    if club is not None:
        graded = graded.filter(member__club_roles__club=club)
    by_band = graded.filter(public_q("member__")).values_list("band").annotate(n=Count("id"))
    return dict(by_band.order_by()), graded.exclude(public_q("member__")).count()


@dataclass(frozen=True)
class StatusInfo:
    code: str
    label: str
    meaning: str
    next_label: str | None
    boards_to_next: int | None


def status_info(status: str, boards_in_window: int, params: NGSParams = NGS_DEFAULT) -> StatusInfo:
    """What a status means and how many boards until the next one (S4)."""
    pad, mature = params.padding_boards, params.mature_boards
    label = Status(status).label
    if status == Status.PROVISIONAL:
        return StatusInfo(
            status,
            label,
            f"Fewer than {pad} boards so far: the grade is still "
            "settling and is shown to you alone.",
            Status.EVOLVING.label,
            max(pad - boards_in_window, 0),
        )
    if status == Status.EVOLVING:
        return StatusInfo(
            status,
            label,
            f"{count_text(pad)} to {count_text(mature - 1)} boards in the last "
            f"{params.window_years} years: the grade is published and still moves quickly.",
            Status.MATURE.label,
            max(mature - boards_in_window, 0),
        )
    if status == Status.MATURE:
        return StatusInfo(
            status,
            label,
            f"{count_text(mature)} or more boards in the last {params.window_years} years: "
            "the grade rests on a full window of results.",
            None,
            None,
        )
    return StatusInfo(
        status,
        label,
        f"Fewer than {pad} boards in the last {params.window_years} years: the grade no longer "
        "reflects recent play.",
        Status.EVOLVING.label,
        max(pad - boards_in_window, 0),
    )
