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
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from clubs.models import Club, ClubRole, ClubStrata, HostExemptionRequest, PlannedSession
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
from grading.ledger.step import versions_grade_pending
from grading.models import SessionVersion, Upload
from grading.staff.register import register_load
from grading.uploads.services import upload_create
from members.accounts.services import member_login_link, sign_up_request_create
from members.models import Member
from members.services import member_get_or_create

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
# Shown on the home page of a development server (DEBUG): username, password, what it shows.
DEMO_LOGIN_ROLES = (
    ("demo-member", "demo-member", "a member of both clubs: grade card, history, partners"),
    ("demo-admin", "demo-admin", "Riverside's administrator: uploads, grade lists, members"),
    (
        "demo-staff",
        "demo-staff",
        "staff: clubs, the member register, parameters, data quality (not a superuser)",
    ),
)


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
    # Riverside ranks two strata on its results pages (S16).
    ClubStrata.objects.get_or_create(club=clubs[0], event=None, defaults={"limits": [50.0, 46.0]})
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
    # The union's member register (S15): names, emails, home clubs. Hilltop has no
    # administrator, so a sign-up there waits on the staff page.
    register_load(data=demo_register_csv(), filename="demo-register.csv")
    waiting = members[45]
    sign_up_request_create(
        number=waiting.national_number, name=waiting.name, email=_demo_email(waiting.name)
    )
    return {"clubs": len(clubs), "members": len(members)}


def _demo_email(name: str) -> str:
    return name.lower().replace(" ", ".") + "@example.org"


def demo_register_csv() -> bytes:
    """The demo's member register (docs/examples/demo-register.csv): members 0-29 of
    Riverside, 30-39 of Riverside then Hilltop, 40-59 of Hilltop; every other member with an
    email; the last one lapsed."""
    lines = ["membership_number,first_name,surname,email,clubs,status"]
    for i, (number, name) in enumerate(demo_people()):
        first, surname = name.split(" ", 1)
        clubs = "1101" if i < 30 else "1101;1102" if i < 40 else "1102"
        email = _demo_email(name) if i % 2 == 0 else ""
        status = "lapsed" if i == MEMBER_COUNT - 1 else "active"
        lines.append(f"{number},{first},{surname},{email},{clubs},{status}")
    return ("\n".join(lines) + "\n").encode()


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


# How the demo's files arrive (issue 19 item 2): each session a few days after play, the two
# clubs interleaved, as a real year of club scoring looks. A handful arrive weeks late (the
# scorer was away: S5.2's late upload) and two are corrected after they were first graded
# (S5.3). Positions are fractions of each club's year, so a short demo has them too.
UPLOAD_DAYS = (1, 3)  # on time: one to three days after play, before the other club's next
LATE = {"riverside": ((0.35, 24),), "hilltop": ((0.55, 17), (0.8, 31))}  # (position, days)
CORRECTED = {"riverside": ((0.6, 9),), "hilltop": ((0.3, 6),)}  # (position, days after the first)


def demo_results(today: dt.date, weeks: int = WEEKS) -> list[tuple[str, str, bytes]]:
    """(club slug, file name, S12.1 CSV) for a year of each club's weekly sessions, one file a
    session, in the order they are uploaded (``demo_upload_plan``); the last session strictly
    before ``today``."""
    return [(slug, filename, data) for _, slug, filename, data in demo_upload_plan(today, weeks)]


def demo_upload_plan(
    today: dt.date, weeks: int = WEEKS
) -> list[tuple[dt.datetime, str, str, bytes]]:
    """(when uploaded, club slug, file name, CSV), earliest first. Nothing is dated after the
    evening before ``today``: a session played yesterday is uploaded 'yesterday evening'."""
    people = demo_people()
    rng = random.Random(48)
    strength = {number: rng.gauss(48, 5.5) for number, _ in people}
    # The demo member and their two regular partners: a little above average.
    strength.update({"100031": 53.0, "100033": 51.0, "100037": 49.5})
    names = dict(people)
    rosters = {"riverside": [n for n, _ in people[:40]], "hilltop": [n for n, _ in people[30:]]}
    latest = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(21, 0))
    plan = []
    for slug, roster in rosters.items():
        sessions = [
            _demo_session(slug, date, roster, strength, names, random.Random(f"{slug}{date}"))
            for date in _session_dates(SERIES[slug][2], today, weeks)
        ]
        sessions[0] = _county_event(sessions[0])
        late = {int(len(sessions) * at): days for at, days in LATE[slug]}
        corrected = {int(len(sessions) * at): days for at, days in CORRECTED[slug]}
        for i, session in enumerate(sessions):
            timing = random.Random(f"upload{slug}{session.date}")
            delay = late.get(i) or timing.randint(*UPLOAD_DAYS)
            at = dt.datetime.combine(session.date + dt.timedelta(days=delay), dt.time(9, 0))
            at += dt.timedelta(minutes=timing.randint(0, 12 * 60))
            name = f"demo-{slug}-{session.date:%Y-%m-%d}.csv"
            plan.append((min(at, latest), slug, name, write_csv([session])))
            if i in corrected:
                fixed = _corrected(session, timing)
                again = min(at + dt.timedelta(days=corrected[i]), latest)
                plan.append(
                    (again, slug, name.replace(".csv", "-corrected.csv"), write_csv([fixed]))
                )
    plan.sort(key=lambda row: (row[0], row[1], row[2]))
    return plan


def _corrected(session: SessionResult, rng: random.Random) -> SessionResult:
    """The same session with one scoring slip put right: two pairs' results had been entered
    the wrong way round (a correction, S5.3)."""
    pairs = list(session.pairs)
    a = rng.randrange(len(pairs))
    # Within one comparison group, so that each group still averages 50, and two different
    # results, so that the file really changes.
    group = [
        i
        for i, p in enumerate(pairs)
        if p.direction == pairs[a].direction and p.score != pairs[a].score
    ]
    b = rng.choice(group)
    pairs[a], pairs[b] = (
        replace(pairs[a], score=pairs[b].score),
        replace(pairs[b], score=pairs[a].score),
    )
    return replace(session, pairs=tuple(pairs))


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
    """Upload the demo results that are not in yet, in the order a real year would have brought
    them, and grade them. Each upload (and its versions) is dated when it would have arrived, so
    the uploads list reads like a year. Returns files uploaded."""
    uploaded = 0
    clubs = {club.slug: club for club in Club.objects.filter(slug__in=SERIES)}
    zone = timezone.get_current_timezone()
    for when, slug, filename, data in demo_upload_plan(today, weeks):
        club = clubs[slug]
        if Upload.objects.filter(club=club, filename=filename).exists():
            continue
        upload = upload_create(club=club, filename=filename, data=data)
        versions_grade_pending()  # graded in the order received, as the worker would
        stamp = timezone.make_aware(when, zone)
        Upload.objects.filter(pk=upload.pk).update(created=stamp, finished=stamp)
        SessionVersion.objects.filter(upload=upload).update(created=stamp)
        uploaded += 1
    versions_grade_pending()
    return uploaded


def demo_plans_create(*, today: dt.date, now: dt.datetime | None = None) -> None:
    """Next fortnight's sessions at both clubs and one host request waiting for Riverside,
    made at ``now`` (default: the clock's; a test with a fixed ``today`` gives its own, or the
    request comes too late for a session that is past by the real clock)."""
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
            now=now or timezone.now(),
        )


def _ensure_login(member, username: str) -> None:
    """The demo's logins are linked through the accounts service, so the link is in the audit
    log like any other."""
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        user = user_model.objects.create_user(
            username=username, email=f"{username}@example.org", password=DEMO_LOGINS[username]
        )
    member_login_link(member=member, user=user, how="demo data")


STAFF_APPS = ("grading", "clubs", "members", "authtoken")


def _ensure_staff(username: str) -> None:
    """Staff, not a superuser (issue 21 item 5): the staff pages, and the admin's records to
    read (plus API tokens to issue), without the power to edit users or grant rights."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=username)
    if created:
        user.set_password(DEMO_LOGINS[username])
        user.email = f"{username}@example.org"
    user.is_staff = True
    user.is_superuser = False
    user.save()
    group, _ = Group.objects.get_or_create(name="Staff")
    group.permissions.set(
        Permission.objects.filter(content_type__app_label__in=STAFF_APPS).filter(
            Q(codename__startswith="view_")
            | Q(codename__in=["add_tokenproxy", "delete_tokenproxy"])
        )
    )
    user.groups.add(group)
