"""Demo data for ``make run``: two clubs, about 60 members and three documented logins, a
year of weekly sessions at each club uploaded through the real pipeline, planned sessions and
a host request waiting for the club's decision.

Idempotent: running it again changes nothing. Deterministic: the same people, strengths and
scores every time (the dates end at the most recent session day before today).
"""

import datetime as dt
import random
import statistics
from dataclasses import replace

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from clubs.models import Club, ClubRole, HostExemptionRequest, PlannedSession
from clubs.services import (
    club_get_or_create,
    club_role_set,
    exemption_request_create,
    planned_session_create,
)
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)
from grading.ingest.csvformat import write_csv
from members.models import Member
from members.services import member_get_or_create, member_login_create

FIRST_NAMES = [
    "Alice",
    "Brian",
    "Carol",
    "David",
    "Eleanor",
    "Frank",
    "Grace",
    "Henry",
    "Irene",
    "James",
    "Kathleen",
    "Leonard",
    "Margaret",
    "Nigel",
    "Olive",
    "Peter",
    "Queenie",
    "Robert",
    "Sheila",
    "Trevor",
    "Ursula",
    "Victor",
    "Wendy",
    "Xavier",
    "Yvonne",
    "Zachary",
]
SURNAMES = [
    "Archer",
    "Baxter",
    "Chandler",
    "Dawson",
    "Ellis",
    "Fletcher",
    "Gibson",
    "Harper",
    "Ingram",
    "Jarvis",
    "Kendall",
    "Lawson",
    "Marsh",
    "Norris",
    "Oakley",
    "Palmer",
    "Quinn",
    "Rowe",
    "Sutton",
    "Thorne",
    "Underwood",
    "Vaughan",
    "Walsh",
    "Yates",
]
CLUBS = [
    ("Riverside Bridge Club", "riverside", "1101"),
    ("Hilltop Bridge Club", "hilltop", "1102"),
]
MEMBER_COUNT = 60
DEMO_LOGINS = {
    "demo-member": "demo-member",
    "demo-admin": "demo-admin",
    "demo-staff": "demo-staff",
}


def demo_people(count: int = MEMBER_COUNT) -> list[tuple[str, str]]:
    """(membership number, name) for the demo population, the same on every run."""
    rng = random.Random(2026)
    names: set[str] = set()
    people = []
    while len(people) < count:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"
        if name in names:
            continue
        names.add(name)
        people.append((str(100001 + len(people)), name))
    return people


@transaction.atomic
def demo_seed() -> dict:
    clubs = [club_get_or_create(name=n, slug=s, national_number=c) for n, s, c in CLUBS]
    # Riverside also keeps Brambledown grades (S11), so the demo shows all three schemes.
    Club.objects.filter(slug="riverside", keeps_brambledown=False).update(keeps_brambledown=True)
    members = [member_get_or_create(number=num, name=name)[0] for num, name in demo_people()]
    first, second = clubs
    # Members 0-39 belong to the first club, 30-59 to the second: ten play at both.
    for member in members[:40]:
        club_role_set(club=first, member=member)
    for member in members[30:]:
        club_role_set(club=second, member=member)

    demo_member, demo_admin = members[30], members[0]
    club_role_set(club=first, member=demo_member)
    club_role_set(club=second, member=demo_member)
    club_role_set(club=first, member=demo_admin, role=ClubRole.Role.ADMIN)
    _ensure_login(demo_member, "demo-member")
    _ensure_login(demo_admin, "demo-admin")
    _ensure_staff("demo-staff")
    return {"clubs": len(clubs), "members": len(members)}


# --- results -------------------------------------------------------------------------------

WEEKS = 52
SERIES = {  # club slug -> (event id, event name, weekday (Mon=0), start, scoring, movement)
    "riverside": (
        "RIV-MON",
        "Monday Evening Pairs",
        0,
        dt.time(19, 30),
        Scoring.MP,
        Movement.TWO_WINNER,
    ),
    "hilltop": (
        "HIL-THU",
        "Thursday Afternoon Pairs",
        3,
        dt.time(14, 0),
        Scoring.MP,
        Movement.ONE_WINNER,
    ),
}
SESSION_SD = 6.3  # FR 18: a session percentage's spread around par


def demo_results(today: dt.date, weeks: int = WEEKS) -> list[tuple[str, str, bytes]]:
    """(club slug, file name, S12.1 CSV) for a year of each club's weekly sessions, one file
    a month, the last session strictly before ``today``."""
    people = demo_people()
    rng = random.Random(48)
    strength = {number: rng.gauss(48, 5.5) for number, _ in people}
    # The demo member and their two regular partners: a little above average.
    strength.update({"100031": 53.0, "100033": 51.0, "100037": 49.5})
    names = dict(people)
    rosters = {"riverside": [n for n, _ in people[:40]], "hilltop": [n for n, _ in people[30:]]}
    files = []
    for slug, roster in rosters.items():
        sessions = [
            _demo_session(slug, date, roster, strength, names, random.Random(f"{slug}{date}"))
            for date in _session_dates(SERIES[slug][2], today, weeks)
        ]
        sessions[0] = _county_event(sessions[0])
        by_month: dict[str, list[SessionResult]] = {}
        for session in sessions:
            by_month.setdefault(f"{session.date:%Y-%m}", []).append(session)
        files += [
            (slug, f"demo-{slug}-{month}.csv", write_csv(month_sessions))
            for month, month_sessions in sorted(by_month.items())
        ]
    return files


def _session_dates(weekday: int, today: dt.date, weeks: int) -> list[dt.date]:
    last = today - dt.timedelta(days=1)
    last -= dt.timedelta(days=(last.weekday() - weekday) % 7)
    return [last - dt.timedelta(weeks=w) for w in reversed(range(weeks))]


def _demo_session(slug, date, roster, strength, names, rng) -> SessionResult:
    event_id, event_name, _, start, scoring, movement = SERIES[slug]
    regulars = [tuple(roster[i : i + 2]) for i in range(0, len(roster) - 1, 2)]
    tables = rng.randint(5, 9)
    chosen = rng.sample(regulars, k=min(len(regulars), 2 * tables))
    if rng.random() < 0.3:  # some weeks partnerships mix: pick-up partners
        a, b = rng.sample(range(len(chosen)), 2)
        (p, q), (r, t) = chosen[a], chosen[b]
        chosen[a], chosen[b] = (p, r), (q, t)
    demo_member = "100031"
    if not any(demo_member in pair for pair in chosen) and rng.random() < 0.8:
        partner = "100033" if slug == "riverside" else "100037"
        chosen = [pair for pair in chosen if demo_member not in pair and partner not in pair]
        chosen[0] = (demo_member, partner)
    pairs = [
        _pair_entry(i, pair, chosen, strength, names, movement, rng)
        for i, pair in enumerate(chosen)
    ]
    if rng.random() < 0.15:  # a visiting pair without membership numbers
        pairs[-1] = PairEntry(
            pairs[-1].pair_id,
            (Player(None, "Visitor One"), Player(None, "Visitor Two")),
            pairs[-1].score,
            pairs[-1].direction,
            boards=24,
        )
    return SessionResult(
        key=SessionKey(slug, event_id, 1, date),
        event_name=event_name,
        scoring=scoring,
        movement=movement,
        pairs=_centred(pairs),
        start=start,
        boards=24,
        source="demo",
    )


def _county_event(session: SessionResult) -> SessionResult:
    """The first demo session is a green-pointed county event (weighting 3): the experienced
    players graded in it start at 55 (S5.1), as real members often did."""
    return replace(
        session,
        key=replace(session.key, event_id="COUNTY"),
        event_name="County Green-Pointed Pairs",
        weighting=3,
    )


def _pair_entry(i, pair, chosen, strength, names, movement, rng) -> PairEntry:
    a, b = pair
    direction = None
    if movement is Movement.TWO_WINNER:
        direction = Direction.NS if i % 2 == 0 else Direction.EW
    field = statistics.fmean(strength[x] for p in chosen for x in p)
    expected = 50 + (strength[a] + strength[b]) / 2 - field
    players = (Player(a, names[a]), Player(b, names[b]))
    return PairEntry(str(i + 1), players, expected + rng.gauss(0, SESSION_SD), direction, 24)


def _centred(pairs: list[PairEntry]) -> tuple[PairEntry, ...]:
    """Percentages of each comparison group average exactly 50, as match points do."""
    out = []
    for direction in {p.direction for p in pairs}:
        group = [p for p in pairs if p.direction == direction]
        shift = 50 - statistics.fmean(p.score for p in group)
        out += [
            PairEntry(
                p.pair_id,
                p.players,
                round(min(max(p.score + shift, 20), 80), 2),
                p.direction,
                p.boards,
            )
            for p in group
        ]
    return tuple(sorted(out, key=lambda p: int(p.pair_id)))


def demo_results_import(*, today: dt.date, weeks: int = WEEKS) -> int:
    """Upload the demo results that are not in yet, and grade them. Returns files uploaded."""
    from grading.ledger.fold import versions_grade_pending
    from grading.models import Upload
    from grading.uploads.services import upload_create

    uploaded = 0
    for slug, filename, data in demo_results(today, weeks):
        club = Club.objects.get(slug=slug)
        if Upload.objects.filter(club=club, filename=filename).exists():
            continue
        upload_create(club=club, filename=filename, data=data)
        uploaded += 1
    versions_grade_pending()
    return uploaded


def demo_plans_create(*, today: dt.date) -> None:
    """Next fortnight's sessions at both clubs and one host request waiting for Riverside."""
    for slug, (_, name, weekday, start, scoring, _) in SERIES.items():
        club = Club.objects.get(slug=slug)
        first = today + dt.timedelta(days=(weekday - today.weekday()) % 7)
        for date in (first, first + dt.timedelta(weeks=1)):
            if not PlannedSession.objects.filter(club=club, date=date, start=start).exists():
                planned_session_create(
                    club=club, event_name=name, date=date, start=start, scoring=scoring.value
                )
    riverside = Club.objects.get(slug="riverside")
    later = PlannedSession.objects.filter(club=riverside, date__gte=today).order_by("date").last()
    if later and not HostExemptionRequest.objects.filter(planned_session=later).exists():
        exemption_request_create(
            member=Member.objects.get(national_number="100005"),
            partner=Member.objects.get(national_number="100006"),
            planned_session=later,
            now=timezone.now(),
        )


def _ensure_login(member, username: str) -> None:
    user = get_user_model().objects.filter(username=username).first()
    if user is None or member.user_id != user.pk:
        member_login_create(member=member, username=username, password=DEMO_LOGINS[username])


def _ensure_staff(username: str) -> None:
    user_model = get_user_model()
    if not user_model.objects.filter(username=username, is_staff=True).exists():
        user, _ = user_model.objects.get_or_create(username=username)
        user.set_password(DEMO_LOGINS[username])
        user.is_staff = True
        user.is_superuser = True
        user.save()
