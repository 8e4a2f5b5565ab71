"""Storing a checked file's sessions (S12, S14.1-S14.2, S14.9): events, sessions, versions,
pairs and the members they name. Called inside the upload's transaction, after every check
passed, so a refused file never reaches here."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import F, Q

from clubs.models import Club, ClubRole
from grading.common.stale import club_pages_invalidate, member_pages_invalidate
from grading.engine import codec
from grading.engine.types import PairEntry, SessionResult
from grading.ingest.problems import FileMeta
from grading.models import (
    Event,
    Match,
    PairResult,
    Session,
    SessionGrade,
    SessionVersion,
    TravellerLine,
    Upload,
)
from grading.uploads.wording import readable_event_name, reason, session_label
from members.models import Member
from members.services import member_get_or_create


@dataclass
class StoredSessions:
    summaries: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    new_versions: list[SessionVersion] = field(default_factory=list)


def sessions_store(
    upload: Upload, sessions: tuple[SessionResult, ...], meta: FileMeta
) -> StoredSessions:
    stored = StoredSessions()
    for result in sessions:
        name = readable_event_name(result, meta)
        session = _session_for(upload.club, result, name)
        content_hash = codec.fingerprint(result)
        summary = {
            "event": session.event.name,
            "date": result.date.isoformat(),
            "session": result.key.session,
            "pairs": len(result.pairs),
            "known_players": sum(p.known for pair in result.pairs for p in pair.players),
            "unknown_players": sorted(
                p.name or "(no name)" for pair in result.pairs for p in pair.players if not p.known
            ),
        }
        latest = session.versions.order_by("-number").first()
        # The same content as the live (or still waiting) version changes nothing; as one
        # withdrawn, or set aside because its grading failed, it is stored again (S14.9).
        in_force = latest is not None and (
            latest.pk == session.live_version_id or latest.state == SessionVersion.State.STORED
        )
        if in_force and latest.content_hash == content_hash:
            summary.update(outcome="unchanged", version=latest.number)
            stored.summaries.append(summary)
            continue
        version = _version_create(upload, session, result, content_hash, latest)
        stored.warnings += _pairs_create(version, result, upload.club, session.event.name)
        summary.update(
            outcome=_outcome(session, latest, in_force, content_hash),
            version=version.number,
            version_id=version.pk,
        )
        stored.summaries.append(summary)
        stored.new_versions.append(version)
    if stored.new_versions:
        # Players new to the club joined its grade list (_club_memberships_add). Bumped last,
        # after every session row this transaction locks, as grading bumps it after its own.
        club_pages_invalidate(club_ids=[upload.club_id])
    return stored


def _outcome(session: Session, latest: SessionVersion | None, in_force: bool, content: str):
    """new, correction (replaces the version in force, or a withdrawn session's new content)
    or restored (a withdrawn session's same content back, S14.9 as amended)."""
    if latest is None:
        return "new"
    if in_force or session.live_version_id is not None:
        return "correction"
    withdrawn = session.versions.filter(state=SessionVersion.State.WITHDRAWN)
    if withdrawn.filter(content_hash=content).exists():
        return "restored"
    return "correction"


def session_in_force_q() -> Q:
    """Versions whose session is in force: a live version, or one waiting to be graded."""
    return Q(session__live_version__isnull=False) | Q(state=SessionVersion.State.STORED)


def _session_for(club: Club, result: SessionResult, name: str) -> Session:
    event, created = Event.objects.get_or_create(
        club=club, event_id=result.key.event_id[:200], defaults={"name": name[:255]}
    )
    if not created and result.event_name and event.name != name:
        event.name = name[:255]
        event.save(update_fields=["name"])
        _pages_of_event_invalidate(event)  # every session of it shows the name
    session, _ = Session.objects.select_for_update().get_or_create(
        event=event,
        number=result.key.session,
        date=result.date,
        defaults={"start": result.start},
    )
    if result.start and session.start != result.start:
        session.start = result.start
        session.save(update_fields=["start"])
        _pages_of_event_invalidate(event)  # the histories' order of that day
    return session


def _pages_of_event_invalidate(event: Event) -> None:
    member_pages_invalidate(
        member_ids=SessionGrade.objects.filter(version__session__event=event).values_list(
            "member_id", flat=True
        )
    )


def _version_create(
    upload: Upload,
    session: Session,
    result: SessionResult,
    content_hash: str,
    latest: SessionVersion | None,
) -> SessionVersion:
    version = SessionVersion.objects.create(
        session=session,
        number=(latest.number + 1) if latest else 1,
        upload=upload,
        scoring=result.scoring.value,
        movement=result.movement.value,
        weighting=result.weighting,
        boards=result.boards,
        content_hash=content_hash,
        payload=codec.dump(result),
        not_graded_reason=reason(result.not_graded_reason)[:255],
    )
    Match.objects.bulk_create(
        Match(
            version=version,
            pair_id=m.pair_id,
            round=m.round,
            opponents=list(m.opponents),
            boards=m.boards,
            score=m.score,
        )
        for m in result.matches
    )
    TravellerLine.objects.bulk_create(
        TravellerLine(
            version=version,
            board=t.board,
            ns_pair=t.ns_pair,
            ew_pair=t.ew_pair,
            contract=t.contract[:20],
            declarer=t.declarer[:2],
            lead=t.lead[:4],
            tricks=t.tricks,
            ns_score=t.ns_score,
            ew_score=t.ew_score,
            ns_adjusted=t.ns_adjusted or "",
            ew_adjusted=t.ew_adjusted or "",
        )
        for t in result.travellers
    )
    return version


def _pairs_create(
    version: SessionVersion, result: SessionResult, club: Club, event_name: str
) -> list[dict]:
    """Pair rows, with members created or matched by number (S14.2); name mismatches warn."""
    warnings: list[dict] = []
    rows = []
    players: set[int] = set()
    session = session_label(result, event_name)
    for pair in result.pairs:
        where = f"{session}, pair {pair.pair_id}"
        members = [
            _member_for(player.number, player.name, warnings, where) for player in pair.players
        ]
        players |= {member.pk for member in members if member is not None}
        rows.append(_pair_row(version, pair, members))
    PairResult.objects.bulk_create(rows)
    _club_memberships_add(club, players)
    return warnings


def _member_for(number, name, warnings, where: str) -> Member | None:
    if number is None:
        return None
    member, name_warnings = member_get_or_create(number=number, name=name)
    warnings += [{"location": where, "message": text, "line": None} for text in name_warnings]
    return member


def _club_memberships_add(club: Club, member_ids: set[int]) -> None:
    """Someone who plays in a club's session is listed on its pages as a player there
    (docs/decisions.md): one query and one insert for the whole session, never touching an
    existing role. Such a row makes no one a member (S14.25): only the register does
    (``ClubRole.registered``), and a login is tied only through the home club
    (``clubs.selectors.home``). ``played_roles_prune`` takes it away when the sessions that
    brought it are withdrawn."""
    known = set(
        ClubRole.objects.filter(club=club, member_id__in=member_ids).values_list(
            "member_id", flat=True
        )
    )
    ClubRole.objects.bulk_create(
        [ClubRole(club=club, member_id=pk) for pk in sorted(member_ids - known)],
        ignore_conflicts=True,
    )


def _pair_row(version: SessionVersion, pair: PairEntry, members: list) -> PairResult:
    first, second = pair.players
    return PairResult(
        version=version,
        pair_id=pair.pair_id[:20],
        direction=pair.direction.value if pair.direction else "",
        section=pair.section[:20],
        team=pair.team[:100],
        player1=members[0],
        player1_name=first.name[:200],
        player2=members[1],
        player2_name=second.name[:200],
        score=pair.score,
        boards=pair.boards,
        direction_mean=pair.direction_mean,
        host=not pair.rateable,
        known=pair.known,
    )


def played_roles_prune(*, club_id: int, member_ids: set[int]) -> int:
    """The club rows that only play brought (not on the register, not administrators) of
    those of ``member_ids`` who no longer play in any of the club's sessions in force: a
    withdrawn upload leaves no one on the club's list (S15). Returns the rows removed."""
    if not member_ids:
        return 0
    in_force = PairResult.objects.filter(version__session__event__club_id=club_id).filter(
        Q(version__session__live_version_id=F("version_id"))
        | Q(version__state=SessionVersion.State.STORED)
    )
    still = set(
        in_force.filter(player1_id__in=member_ids).values_list("player1_id", flat=True)
    ) | set(in_force.filter(player2_id__in=member_ids).values_list("player2_id", flat=True))
    gone = member_ids - still
    if not gone:
        return 0
    removed, _ = ClubRole.objects.filter(
        club_id=club_id,
        member_id__in=gone,
        role=ClubRole.Role.MEMBER,
        registered=False,
    ).delete()
    return removed
