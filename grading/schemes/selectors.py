"""Reads of PPI and Brambledown for the member and club pages and the API (issue 8).

Privacy (S7) is applied here, once, exactly as for the NGS grade: a private member's PPI and
Brambledown grades are shown to the member only ("Private" to everyone else, club
administrators and staff included) and appear in no list; a PPI under 50 boards is not shown
to anyone but the member, marked as not yet shown (like a provisional grade); a Brambledown
player still new (fewer than three performances) has no grade yet.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Count, Q
from django.utils import timezone

from clubs.models import Club, ClubRole
from clubs.selectors import user_can_administer
from grading.engine.brambledown import NEW_PERFORMANCES, Quarter
from grading.engine.ppi import SHOWN_AFTER, PPIPlayer, PPIState, Suit, ppi_standing
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownPoint,
    BrambledownRating,
    PPIPoint,
    PPIRating,
)
from grading.privacy import PRIVATE, hidden_from, holds_private, is_own, public_q
from members.models import Member

NOT_YET_SHOWN = "Not yet shown"
NO_PPI = "No PPI yet"
NEW = "New"

SUITS = {
    Suit.SPADES: ("\u2660", "Spades", False),
    Suit.HEARTS: ("\u2665", "Hearts", True),
    Suit.DIAMONDS: ("\u2666", "Diamonds", True),
    Suit.CLUBS: ("\u2663", "Clubs", False),
}
FONT = {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12}


def _today() -> dt.date:
    return timezone.localdate()


# --------------------------------------------------------------------------------------------
# PPI


@dataclass(frozen=True)
class SuitView:
    symbol: str
    name: str
    red: bool


@dataclass
class PPIView:
    """A member's PPI as ``viewer`` may see it: ``ppi`` is None when withheld (``withheld``
    says why: "Private", "Not yet shown", "No PPI yet"). ``provisional``: shown to its owner
    before 50 boards."""

    ppi: float | None
    withheld: str
    boards: int = 0
    boards_to_show: int = 0
    recent_boards: int = 0
    active: bool = False
    suit: SuitView | None = None
    provisional: bool = False
    as_of: dt.date | None = None
    chart: dict | None = None

    @property
    def text(self) -> str:
        return f"{self.ppi:.2f}" if self.ppi is not None else self.withheld


def _ppi_player(row: PPIRating) -> PPIPlayer:
    months = tuple((int(m), int(n)) for m, n in row.months)
    return PPIPlayer(row.member.national_number, row.ppi, row.boards, months)


def ppi_chart_points(*, member: Member):
    """The member's PPI points as (date, PPI), drawn by date of play (a late upload's point
    takes its place in time), not fold order; as tuples, not model instances (the cold card's
    cost). Answered from the ``ppi_chart`` index alone on PostgreSQL."""
    return PPIPoint.objects.filter(member=member).order_by("date", "seq").values_list("date", "ppi")


def ppi_view(*, member: Member, viewer=None, today: dt.date | None = None) -> PPIView:
    """A member's PPI card (S10) as ``viewer`` may see it (S7)."""
    own = is_own(member, viewer)
    if hidden_from(member, viewer):
        return PPIView(None, PRIVATE)
    row = PPIRating.objects.filter(member=member).first()
    if row is None:
        return PPIView(None, NO_PPI)
    if not own and not row.shown:
        return PPIView(None, NOT_YET_SHOWN)
    as_of = max(today or _today(), row.as_of)
    row.member = member  # the member asked for: not read again
    number = member.national_number
    standing = ppi_standing(PPIState({number: _ppi_player(row)}), number, as_of)
    points = list(ppi_chart_points(member=member))
    symbol, name, red = SUITS[standing.suit]
    return PPIView(
        ppi=round(standing.ppi, 2),
        withheld="",
        boards=standing.boards,
        boards_to_show=max(0, SHOWN_AFTER - standing.boards),
        recent_boards=standing.recent_boards,
        active=standing.active,
        suit=SuitView(symbol, name, red),
        provisional=not standing.shown,
        as_of=as_of,
        chart=ppi_chart(points) if points else None,
    )


def ppi_chart(points: list[tuple[dt.date, float]]) -> dict:
    """A small line of the PPI after each event, from its (date, PPI) points."""
    trace = {
        "type": "scatter",
        "x": [date.isoformat() for date, _ in points],
        "y": [round(ppi, 2) for _, ppi in points],
        "mode": "lines+markers",
        "line": {"color": "#1f5f8b", "width": 2},
        "marker": {"size": 4},
        "hovertemplate": "%{x|%d %b %Y}<br>PPI %{y:.2f}<extra></extra>",
    }
    return _small_figure(trace, "PPI (%)", level=50)


def _small_figure(trace: dict, title: str, *, level: float) -> dict:
    """A plain figure dict, as members.charts.grade_chart: building it through plotly.py's
    validating objects cost a third of the grade card's time (profiled on the demo database)."""
    line = {
        "type": "line",
        "xref": "x domain",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": level,
        "y1": level,
        "line": {"width": 1, "dash": "dot", "color": "#9aa5b1"},
    }
    layout = {
        "margin": {"l": 40, "r": 8, "t": 8, "b": 30},
        "height": 180,
        "showlegend": False,
        "font": FONT,
        "yaxis": {"title": {"text": title}, "fixedrange": True},
        "xaxis": {"fixedrange": True, "type": "date"},
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
        "shapes": [line],
    }
    return {"data": [trace], "layout": layout}


# --------------------------------------------------------------------------------------------
# Brambledown


@dataclass
class BrambledownView:
    """A member's Brambledown grade at one club as ``viewer`` may see it."""

    club_name: str
    club_slug: str
    grade: int | None
    withheld: str  # "Private", "New" or ""
    performances: int = 0
    performances_needed: int = 0
    tournaments: int = 0  # graded tournaments to the end of ``quarter`` (all, if none)
    quarter: str = ""
    on_a_list: bool = False
    on_b_list: bool = False
    chart: dict | None = None
    tournaments_since: int = 0  # graded tournaments played after ``quarter``

    @property
    def text(self) -> str:
        return str(self.grade) if self.grade is not None else self.withheld

    @property
    def list_name(self) -> str:
        return "A list" if self.on_a_list else "B list" if self.on_b_list else ""


def _tournaments_since(member: Member, rows: list[BrambledownGrade]) -> dict[int, int]:
    """Per club, the member's graded tournaments (one rating each) played after the club's
    last quarter regraded: the open quarter's, not yet on the club's lists."""
    regraded = [row for row in rows if row.quarter]
    if not regraded:
        return {}
    wanted = Q()
    for row in regraded:
        wanted |= Q(club_id=row.club_id, date__gt=Quarter.parse(row.quarter).end)
    counts = dict(
        BrambledownRating.objects.filter(wanted, member=member)
        .values("club_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("club_id", "n")
    )  # one query for every club, not one per club
    return {row.club_id: counts.get(row.club_id, 0) for row in regraded}


def _points_by_club(member: Member, rows: list[BrambledownGrade]) -> dict[int, list]:
    """The member's grade points at each graded club, in one query: (date, grade, quarter,
    reason) in date order."""
    graded = [row.club_id for row in rows if row.grade is not None]
    points: dict[int, list] = {}
    if graded:
        for club_id, *point in BrambledownPoint.objects.filter(
            member=member, club_id__in=graded
        ).values_list("club_id", "date", "grade", "quarter", "reason"):
            points.setdefault(club_id, []).append(tuple(point))
    return points


def brambledown_views(*, member: Member, viewer=None) -> list[BrambledownView]:
    """The member's Brambledown grade at each club that keeps one (S11, S7).

    ``tournaments`` counts graded tournaments to the end of the last quarter regraded, the
    figure of the club's A, B and pairs lists (S11: "at least twenty graded tournaments
    altogether", as the lists are drawn up), so the card and the lists agree; those played
    since are ``tournaments_since``. Before any quarter is regraded, every tournament so far."""
    rows = list(
        BrambledownGrade.objects.filter(member=member, club__keeps_brambledown=True)
        .select_related("club")
        .order_by("club__name")
    )
    hidden = hidden_from(member, viewer)
    since = {} if hidden else _tournaments_since(member, rows)
    points_at = {} if hidden else _points_by_club(member, rows)
    views = []
    for row in rows:
        club = row.club
        later = since.get(row.club_id, 0)
        if hidden:
            views.append(BrambledownView(club.name, club.slug, None, PRIVATE))
            continue
        if row.grade is None:
            views.append(
                BrambledownView(
                    club.name,
                    club.slug,
                    None,
                    NEW,
                    row.performances,
                    NEW_PERFORMANCES - row.performances,
                    row.tournaments - later,
                    row.quarter,
                    tournaments_since=later,
                )
            )
            continue
        points = points_at.get(row.club_id, [])
        views.append(
            BrambledownView(
                club.name,
                club.slug,
                row.grade,
                "",
                row.performances,
                0,
                row.tournaments - later,
                row.quarter,
                row.on_a_list,
                row.on_b_list,
                chart=brambledown_chart(points) if points else None,
                tournaments_since=later,
            )
        )
    return views


def brambledown_chart(points: list[tuple[dt.date, int, str, str]]) -> dict:
    """A small step line of the grade: set after three performances, then each quarter; from
    its (date, grade, quarter, reason) points."""
    trace = {
        "type": "scatter",
        "x": [date.isoformat() for date, *_ in points],
        "y": [grade for _, grade, *_ in points],
        "mode": "lines+markers",
        "line": {"color": "#7a3e9d", "width": 2, "shape": "hv"},
        "marker": {"size": 5},
        "customdata": [[quarter, reason] for *_, quarter, reason in points],
        "hovertemplate": "%{x|%d %b %Y}<br>%{y} (%{customdata[1]}, %{customdata[0]})"
        "<extra></extra>",
    }
    return _small_figure(trace, "Grade", level=135)


# --------------------------------------------------------------------------------------------
# The member's card and the club's lists


@dataclass
class MemberSchemes:
    """Context of templates/schemes/ppi_card.html and brambledown_card.html."""

    member: Member
    own: bool
    ppi: PPIView
    brambledown: list[BrambledownView]


def member_schemes(*, member: Member, viewer=None, today: dt.date | None = None) -> MemberSchemes:
    """A member's PPI and Brambledown grades as ``viewer`` (a Member, a User or None) may see
    them (S7)."""
    return MemberSchemes(
        member=member,
        own=is_own(member, viewer),
        ppi=ppi_view(member=member, viewer=viewer, today=today),
        brambledown=brambledown_views(member=member, viewer=viewer),
    )


@dataclass(frozen=True)
class PPITopRow:
    rank: int
    number: str
    name: str
    ppi: float
    boards: int
    active: bool
    suit: SuitView


@dataclass(frozen=True)
class ListRow:
    rank: int
    number: str
    name: str
    grade: int
    tournaments: int
    in_quarter: int
    partners: int | None


@dataclass(frozen=True)
class PairListRow:
    rank: int
    names: tuple[str, str]
    numbers: tuple[str, str]
    grades: tuple[int, int]
    grade: float
    tournaments: int
    in_quarter: int


@dataclass
class ClubSchemes:
    """Context of templates/schemes/club_ppi_top.html and club_brambledown_lists.html.

    Published lists only (S7): public members, PPI shown (50 boards), Brambledown graded;
    the same for every viewer. ``withheld`` counts the list entries left out as private."""

    club: Club
    can_administer: bool
    ppi_top: list[PPITopRow]
    keeps_brambledown: bool
    quarter: str = ""
    open_quarter: str = ""
    a_list: list[ListRow] = field(default_factory=list)
    b_list: list[ListRow] = field(default_factory=list)
    pairs_list: list[PairListRow] = field(default_factory=list)
    withheld: int = 0


def club_ppi_top(
    *, club: Club, limit: int = 20, active_only: bool = False, today: dt.date | None = None
) -> list[PPITopRow]:
    """The club's members with a published PPI, best first (S10, S7)."""
    as_of = today or _today()
    members = ClubRole.objects.filter(club=club).values_list("member_id", flat=True)
    rows = (
        PPIRating.objects.filter(public_q("member__"), member__in=members, shown=True)
        .select_related("member")
        .order_by("-ppi", "member__national_number")
    )
    out = []
    for row in rows:
        player = _ppi_player(row)
        standing = ppi_standing(
            PPIState({player.number: player}), player.number, max(as_of, row.as_of)
        )
        if active_only and not standing.active:
            continue
        symbol, name, red = SUITS[standing.suit]
        out.append(
            PPITopRow(
                len(out) + 1,
                player.number,
                row.member.name,
                round(row.ppi, 2),
                row.boards,
                standing.active,
                SuitView(symbol, name, red),
            )
        )
        if len(out) >= limit:
            break
    return out


def club_schemes(*, club: Club, viewer=None, today: dt.date | None = None) -> ClubSchemes:
    """The club's PPI top list and, if it keeps them, its Brambledown lists of the last
    quarter regraded (S11), with private members left out (S7)."""
    user = viewer if viewer is not None and not isinstance(viewer, Member) else None
    if isinstance(viewer, Member):
        user = viewer.user
    can_administer = bool(user is not None and user_can_administer(user=user, club=club))
    result = ClubSchemes(
        club=club,
        can_administer=can_administer,
        ppi_top=club_ppi_top(club=club, today=today),
        keeps_brambledown=club.keeps_brambledown,
    )
    if not club.keeps_brambledown:
        return result
    state = BrambledownClubState.objects.filter(club=club).first()
    if state is None:
        return result
    result.quarter, result.open_quarter = state.regraded, state.open_quarter
    entries = BrambledownListEntry.objects.filter(club=club, quarter=state.regraded)
    for entry in entries.select_related("member", "partner").order_by("kind", "rank"):
        if holds_private((entry.member, entry.partner)):
            result.withheld += 1
            continue
        if entry.kind == BrambledownListEntry.Kind.PAIRS:
            result.pairs_list.append(
                PairListRow(
                    len(result.pairs_list) + 1,
                    (entry.member.name, entry.partner.name),
                    (entry.member.national_number, entry.partner.national_number),
                    (entry.member_grade, entry.partner_grade),
                    entry.grade,
                    entry.tournaments,
                    entry.in_quarter,
                )
            )
            continue
        target = result.a_list if entry.kind == BrambledownListEntry.Kind.A else result.b_list
        target.append(
            ListRow(
                len(target) + 1,
                entry.member.national_number,
                entry.member.name,
                entry.member_grade,
                entry.tournaments,
                entry.in_quarter,
                entry.partners,
            )
        )
    return result


# --------------------------------------------------------------------------------------------
# The operator's listing (``grades --scheme ppi|brambledown``): private figures included, as
# for the NGS (an operator's command, not a published list).


def scheme_rows(*, scheme: str, as_of: dt.date | None = None) -> list[dict]:
    """Every stored PPI (active and recent boards as of ``as_of``, default each member's last
    event) or every Brambledown grade at the clubs that keep them, by member number."""
    if scheme == "ppi":
        rows = []
        ratings = PPIRating.objects.select_related("member")
        for row in sorted(
            ratings, key=lambda r: (len(r.member.national_number), r.member.national_number)
        ):
            player = _ppi_player(row)
            standing = ppi_standing(
                PPIState({player.number: player}), player.number, as_of or row.as_of
            )
            rows.append(
                {
                    "number": player.number,
                    "name": row.member.name,
                    "ppi": round(row.ppi, 2),
                    "boards": row.boards,
                    "recent_boards": standing.recent_boards,
                    "shown": standing.shown,
                    "active": standing.active,
                    "suit": standing.suit.value,
                }
            )
        return rows
    if scheme == "brambledown":
        grades = BrambledownGrade.objects.filter(club__keeps_brambledown=True).select_related(
            "club", "member"
        )
        return [
            {
                "club": g.club.slug,
                "number": g.member.national_number,
                "name": g.member.name,
                "grade": g.grade,
                "tournaments": g.tournaments,
                "a_list": g.on_a_list,
                "b_list": g.on_b_list,
            }
            for g in sorted(
                grades,
                key=lambda g: (
                    g.club.slug,
                    len(g.member.national_number),
                    g.member.national_number,
                ),
            )
        ]
    raise ValueError(f"unknown scheme {scheme!r}")
