"""What the service benchmarks (grading/lab/load.py) upload and who they log in as: the USEBIO
files timed, and the setup step run in a child process against the benchmark database
(``python -m grading.lab.bench_setup OUT.json PAGE_MEMBERS``)."""

from __future__ import annotations

import datetime as dt
import json
import random
import secrets
import sys
import uuid
from pathlib import Path

from grading.engine.types import Movement, Scoring, SessionKey
from grading.lab.bench import Scale
from grading.lab.simulate import SimConfig, simulate
from grading.lab.simulate.population import Person
from grading.lab.simulate.sessions import Entrant, pairs_session
from grading.lab.simulate.writers import usebio_bytes

SIM_SEED = 7
UPLOAD_TABLES = 12


def sim_start(months: int, today: dt.date | None = None) -> dt.date:
    """The simulated world's first day: it ends about 60 days before ``today``, leaving room
    for one benchmark upload a day after it."""
    today = today or dt.date.today()
    end = today - dt.timedelta(days=60)
    year, month = end.year, end.month - months
    while month < 1:
        month += 12
        year -= 1
    return dt.date(year, month, 1)


def upload_files(scale: Scale, count: int, today: dt.date | None = None) -> tuple[str, list]:
    """``count`` 12-table Mitchell match-pointed USEBIO files of the loaded world's busiest
    club, one a day over the days before ``today`` (after the world's last session), among
    that club's members. Returns (club slug, [(file name, bytes)])."""
    today = today or dt.date.today()
    config = SimConfig(
        players=scale.sim_players,
        clubs=scale.sim_clubs,
        months=scale.sim_months,
        seed=SIM_SEED,
        start=sim_start(scale.sim_months, today),
    )
    world = simulate(config)
    people = world.population.people
    club = max(world.population.clubs, key=lambda c: len(c.members))
    numbered = [people[i] for i in club.members if people[i].number is not None]
    rng = random.Random(SIM_SEED)
    files = []
    for k in range(count):
        day = today - dt.timedelta(days=count - k)
        chosen = rng.sample(numbered, min(len(numbered), 4 * UPLOAD_TABLES))
        while len(chosen) < 4 * UPLOAD_TABLES:  # a small club: the rest are visitors
            chosen.append(type(chosen[0])(None, f"Visitor {len(chosen)}", 46.0))
        entrants = [Entrant((chosen[2 * j], chosen[2 * j + 1])) for j in range(2 * UPLOAD_TABLES)]
        key = SessionKey(club.slug, f"BENCH{k:03d}", 1, day)
        sim = pairs_session(
            rng,
            key,
            "Benchmark Pairs",
            Scoring.MP,
            Movement.TWO_WINNER,
            entrants,
            start=dt.time(19, 30),
        )
        data = usebio_bytes(sim, club.name, club.national_number)
        files.append((f"bench-{k:03d}-{day:%Y%m%d}.xml", data))
    return club.slug, files


def club_upload_files(
    slug: str, numbers: list[str], count: int, today: dt.date | None = None
) -> tuple[str, list]:
    """``count`` 12-table files like ``upload_files``, for a built database's club (the national
    builder's): its members by national number, one session a day before ``today``."""
    today = today or dt.date.today()
    rng = random.Random(SIM_SEED)
    people = [Person(n, f"Member {n}", rng.gauss(48.0, 5.5)) for n in numbers]
    files = []
    for k in range(count):
        day = today - dt.timedelta(days=count - k)
        chosen = rng.sample(people, min(len(people), 4 * UPLOAD_TABLES))
        while len(chosen) < 4 * UPLOAD_TABLES:
            chosen.append(Person(None, f"Visitor {len(chosen)}", 46.0))
        entrants = [Entrant((chosen[2 * j], chosen[2 * j + 1])) for j in range(2 * UPLOAD_TABLES)]
        key = SessionKey(slug, f"BENCH{k:03d}", 1, day)
        sim = pairs_session(
            rng,
            key,
            "Benchmark Pairs",
            Scoring.MP,
            Movement.TWO_WINNER,
            entrants,
            start=dt.time(19, 30),
        )
        files.append((f"bench-{k:03d}-{day:%Y%m%d}.xml", usebio_bytes(sim, slug, "")))
    return slug, files


def multipart(field_name: str, filename: str, data: bytes) -> tuple[bytes, str]:
    """A file as a multipart form's one field: the body and its content type."""
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field_name}"; '
        f'filename="{filename}"\r\nContent-Type: application/xml\r\n\r\n'
    ).encode()
    return (
        head + data + f"\r\n--{boundary}--\r\n".encode(),
        f"multipart/form-data; boundary={boundary}",
    )


def _login(user) -> str:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def setup(out: str, page_members: int) -> None:
    """A staff user with an API token (for the uploads); ``page_members`` random graded
    members with users and logged-in sessions (for the pages); the club with the most graded
    members, its members' numbers and a logged-in administrator (its grade list); written to
    ``out`` as JSON. Run in a child process: Django is set up here, on the bench database."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db.models import Count

    from clubs.models import Club, ClubRole
    from grading.models import CurrentGrade, SessionGrade
    from members.accounts.tokens import api_token_create
    from members.models import Member

    User = get_user_model()
    staff = User.objects.create_user(
        "bench-uploader", password=secrets.token_urlsafe(16), is_staff=True
    )
    token_key = api_token_create(user=staff)
    graded = list(CurrentGrade.objects.order_by("member_id").values_list("member_id", flat=True))
    rng = random.Random(SIM_SEED)
    chosen = rng.sample(graded, min(page_members, len(graded)))
    sessions = []
    for member in Member.objects.filter(pk__in=chosen):
        user = User.objects.create_user(
            f"bench-{member.national_number}", password=secrets.token_urlsafe(16)
        )
        member.user = user
        member.save(update_fields=["user"])
        sessions.append(_login(user))
    club = Club.objects.annotate(n=Count("roles")).order_by("-n", "pk").first()
    numbers = list(
        Member.objects.filter(club_roles__club=club, current_grade__isnull=False)
        .order_by("pk")
        .values_list("national_number", flat=True)[:400]
    )
    admin_user = User.objects.create_user("bench-admin", password=secrets.token_urlsafe(16))
    admin_member = Member.objects.filter(club_roles__club=club, user__isnull=True).first()
    admin_member.user = admin_user
    admin_member.save(update_fields=["user"])
    ClubRole.objects.filter(club=club, member=admin_member).update(role=ClubRole.Role.ADMIN)
    counts = {
        "members": Member.objects.count(),
        "session_grades": SessionGrade.objects.count(),
        "current_grades": CurrentGrade.objects.count(),
    }
    Path(out).write_text(
        json.dumps(
            {
                "token": token_key,
                "sessions": sessions,
                "counts": counts,
                "club": club.slug,
                "numbers": numbers,
                "admin_session": _login(admin_user),
            }
        )
    )


def logins(out: str, numbers: list[str]) -> None:
    """Logins and signed-in sessions for the members with these numbers who have none (the
    players of the timed uploads: the email burst's members), written to ``out`` as JSON
    ``{number: session key}``. Made before the uploads, so the grading step warms their pages
    as it would for any member with a login."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from members.models import Member

    User = get_user_model()
    sessions = {}
    for member in Member.objects.filter(national_number__in=numbers).select_related("user"):
        if member.user is None:
            member.user = User.objects.create_user(
                f"burst-{member.national_number}", password=secrets.token_urlsafe(16)
            )
            Member.objects.filter(pk=member.pk).update(user=member.user)
        sessions[member.national_number] = _login(member.user)
    Path(out).write_text(json.dumps(sessions))


def pages_kept_count(numbers: list[str]) -> dict[str, int]:
    """How many of these members' grade cards and first history pages the page cache holds
    under their current keys (``members.pagecache.member_page_kept``): what the burst pass will
    find warm. Django must be set up."""
    from members.models import Member
    from members.pagecache import member_page_kept

    counts = {"members": 0, "card": 0, "sessions": 0}
    for member in Member.objects.filter(national_number__in=numbers).order_by("pk"):
        counts["members"] += 1
        for page in ("card", "sessions"):
            counts[page] += member_page_kept(member=member, page=page)
    return counts


def pages_kept(out: str, numbers: list[str]) -> None:
    """``pages_kept_count`` in a child process, written to ``out`` as JSON."""
    import django

    django.setup()
    Path(out).write_text(json.dumps(pages_kept_count(numbers)))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--logins":
        logins(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "--kept":
        pages_kept(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3:
        setup(sys.argv[1], int(sys.argv[2]))
    else:
        sys.exit(
            "usage: python -m grading.lab.bench_setup OUT.json PAGE_MEMBERS\n"
            "       python -m grading.lab.bench_setup --logins OUT.json NUMBER...\n"
            "       python -m grading.lab.bench_setup --kept OUT.json NUMBER..."
        )
