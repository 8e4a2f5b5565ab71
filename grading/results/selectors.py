"""A session's results page (S16): who may see it (S13), and what it shows: the ranking as
the file gives it (place, pair, names, score in the session's units, by section and direction
as played), every board's traveller with what each line earned, the strata the club set, and
the viewer's own scorecard. Results only: no grade of anyone appears here (S7, S14.14).

The page is addressed by the session (``Session.id``), which no correction or refold
renumbers, and optionally a version number: a version since withdrawn shows the session's
current results with a note."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from django.core.cache import cache
from django.db.models import Q

from clubs.models import ClubRole
from grading.common.compiled import CompiledQuery
from grading.engine import codec
from grading.engine.types import Scoring, SessionResult
from grading.models import PairResult, Session, SessionVersion
from grading.results.rules import group_title, places, ranking_groups
from grading.results.strata import Stratum, pair_strata, strata_limits, strata_rankings
from grading.results.travellers import Scorecard, Traveller, scorecard, travellers_scored
from members.models import Member
from members.selectors.base import member_for_user, score_text, score_unit

TRAVELLERS_KEPT = 7 * 24 * 3600  # seconds: a session's results are read most in its first week


@dataclass
class RankLine:
    pair_id: str
    place: str
    names: str
    score: str
    value: float | None
    boards: int | None
    mine: bool = False
    strata: list[float] = field(default_factory=list)


@dataclass
class SessionResults:
    session: Session
    version: SessionVersion
    asked_version: int | None  # the number asked for, when it is no longer the live one
    unit: str
    groups: list[tuple[str, list[RankLine]]]
    has_travellers: bool
    strata: list[Stratum]
    limits: list[float]
    card: Scorecard | None
    card_names: str
    my_pair: str | None

    @property
    def replaced(self) -> bool:
        return self.asked_version is not None

    @cached_property
    def travellers(self) -> list[Traveller]:
        """Read only when the page's kept travellers are not (unpickling a 40-table session's
        travellers took most of the page's time)."""
        return version_travellers(version=self.version)


def _session_query(session_id: int):
    return (
        Session.objects.select_related("event__club", "live_version")
        .defer("live_version__payload")  # the whole file: read only to build the page
        .filter(pk=session_id)
    )


def _seats_query(version_id: int):
    return (
        PairResult.objects.filter(version_id=version_id)
        .order_by("pk")
        .values_list(
            "pair_id",
            "player1_id",
            "player2_id",
            "player1__pages_version",
            "player2__pages_version",
        )
    )


# Read on every request of a results page (an evening's emails send every player there):
# compiled once per process (grading/common/compiled.py).
_session_of = CompiledQuery(_session_query, markers=[-2_100_000_003])
_seats_of = CompiledQuery(_seats_query, markers=[-2_100_000_004])


def session_for_results(*, session_id: int) -> Session | None:
    """The session, if it has a graded live version (S16: every graded session)."""
    found = _session_of(session_id)
    session = found[0] if found else None
    if session is None or session.live_version is None:
        return None
    if session.live_version.state != SessionVersion.State.GRADED:
        return None
    return session


def results_visible(*, user, session: Session, seats: Sequence[Seat] = ()) -> bool:
    """S13: anyone when the club publishes its results; else staff, the club's members and
    administrators, and those who played in the session (any version of it). ``seats``: the
    live version's (``version_seats``), when the page has read them already."""
    club = session.event.club
    if club.results_public:
        return True
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    member = member_for_user(user=user)
    if member is None:
        return False
    if member_pair(member=member, pairs=seats) is not None:
        return True
    if ClubRole.objects.filter(club=club, member=member).exists():
        return True
    return PairResult.objects.filter(
        Q(player1=member) | Q(player2=member), version__session=session
    ).exists()


class Seat(NamedTuple):
    """One pair of the live version, as little as says who sat there and whether what the page
    shows of them may have changed (their members' ``pages_version``)."""

    pair_id: str
    player1_id: int | None
    player2_id: int | None
    player1_pages: int | None
    player2_pages: int | None


def version_seats(*, version: SessionVersion) -> list[Seat]:
    return [Seat(*row) for row in _seats_of(version.pk)]


def results_variant(
    *,
    version: SessionVersion,
    seats: Sequence[Seat],
    user,
    version_number: int | None,
    pair: str | None,
) -> str:
    """What the kept results page of a version depends on beyond its club's ``pages_version``
    (a club's strata and estimates bump it, and so does every grading at the club): each
    player's ``pages_version`` (their name, privacy and grades: the strata's figures) and the
    viewpoint (``results_viewpoint``: the card shown is one of the session's pairs', so a
    version keeps at most one page per pair and viewer's pair)."""
    people = [(s.player1_id, s.player1_pages, s.player2_id, s.player2_pages) for s in seats]
    seen = results_viewpoint(
        version=version, pairs=seats, user=user, version_number=version_number, pair=pair
    )
    return repr((version.pk, seen, people))


class Viewpoint(NamedTuple):
    mine: str | None  # the viewer's pair, marked
    shown: str | None  # the pair whose scorecard is shown
    asked: int | None  # the version number followed, when it is no longer the live one


def results_viewpoint(
    *,
    version: SessionVersion,
    pairs: Sequence[Seat | PairResult],
    user,
    version_number: int | None,
    pair: str | None,
) -> Viewpoint:
    """What of the page depends on who asks and what they asked for: their own pair, the pair
    whose card is shown (``pair`` when it is one of the session's, else their own) and the
    version they followed."""
    mine = member_pair(member=member_for_user(user=user), pairs=pairs)
    shown = pair if any(p.pair_id == pair for p in pairs) else mine
    asked = version_number if version_number not in (None, version.number) else None
    return Viewpoint(mine, shown, asked)


def _names(pair: PairResult) -> str:
    one = pair.player1.name if pair.player1 else pair.player1_name or "Unknown player"
    two = pair.player2.name if pair.player2 else pair.player2_name or "Unknown player"
    return f"{one} & {two}"


def member_pair(*, member: Member | None, pairs: Sequence[Seat | PairResult]) -> str | None:
    if member is None:
        return None
    for pair in pairs:
        if member.pk in (pair.player1_id, pair.player2_id):
            return pair.pair_id
    return None


def version_travellers(*, version: SessionVersion) -> list[Traveller]:
    """The version's travellers scored, kept in the cache under the version: a version's file
    never changes once stored (a correction is a new version), so neither do they."""
    return cache.get_or_set(
        f"results:travellers:2:{version.pk}",
        lambda: travellers_scored(codec.load(SessionResult, version.payload)),
        timeout=TRAVELLERS_KEPT,
    )


def session_results(
    *, session: Session, user, version_number: int | None = None, pair: str | None = None
) -> SessionResults:
    """The page's figures for the session's live version. ``pair``: whose scorecard to show
    (the viewer's own pair by default; any pair's card is only its results, S16)."""
    version = session.live_version
    limits = strata_limits(club=session.event.club, event_id=session.event_id)
    # The players' grades are read only to place the pairs in the club's strata, if any.
    joined = ("player1__current_grade", "player2__current_grade") if limits else ()
    pairs = list(
        PairResult.objects.filter(version=version)
        .select_related("player1", "player2", *joined)
        .order_by("pk")
    )
    mine, shown_pair, asked = results_viewpoint(
        version=version, pairs=pairs, user=user, version_number=version_number, pair=pair
    )
    names = {p.pair_id: _names(p) for p in pairs}
    placed = pair_strata(version=version, pairs=pairs, limits=limits)
    grouped = ranking_groups(pairs, version.movement)
    groups = []
    for key in sorted(grouped):
        members = grouped[key]
        ranked = places([(p.pair_id, p.score) for p in members])
        by_id = {p.pair_id: p for p in members}
        lines = [
            RankLine(
                pair_id=r.key,
                place=r.place,
                names=names[r.key],
                score=score_text(by_id[r.key].score, version.scoring),
                value=by_id[r.key].score,
                boards=by_id[r.key].boards,
                mine=r.key == mine,
                strata=placed.get(r.key, []),
            )
            for r in ranked
        ]
        groups.append((group_title(*key), lines))
    has_travellers = cache.get_or_set(
        f"results:has-travellers:1:{version.pk}",
        lambda: bool(version_travellers(version=version)),
        timeout=TRAVELLERS_KEPT,
    )
    card = None
    if shown_pair is not None and has_travellers:
        card = _scorecard_kept(version, shown_pair, names)
    return SessionResults(
        session=session,
        version=version,
        asked_version=asked,
        unit=score_unit(version.scoring),
        groups=groups,
        has_travellers=has_travellers,
        strata=strata_rankings(limits=limits, placed=placed, groups=groups),
        limits=limits,
        card=card,
        card_names=names.get(shown_pair, "") if shown_pair else "",
        my_pair=mine,
    )


def _scorecard_kept(version: SessionVersion, pair_id: str, names: dict[str, str]) -> Scorecard:
    """A pair's scorecard, kept per version, pair and names (a name edited since is a new key):
    the same for every viewer."""
    digest = hashlib.blake2b(repr((pair_id, sorted(names.items()))).encode(), digest_size=12)
    return cache.get_or_set(
        f"results:card:1:{version.pk}:{digest.hexdigest()}",
        lambda: scorecard(
            Scoring(version.scoring), version_travellers(version=version), pair_id, names
        ),
        timeout=TRAVELLERS_KEPT,
    )
