"""A club's Members page at a large club (issue 27: "a club list page at a 16,000-member club as
fast as today's grade list"). Not product code; run it against a database of its own:

``DATABASE_URL=postgres://.../db python -m grading.lab.memberspage build [MEMBERS]`` adds a club
(slug ``members-bench``) with MEMBERS members (default 16,000): a tenth with a login, an eighth
with an open invitation from the club, a fiftieth with one from another club, a fiftieth with an
expired one, three in four on the register (a fifth of those home there); each has a current
grade, so the club's grade list can be timed beside the Members page.

``DATABASE_URL=... python -m grading.lab.memberspage time [REPEATS]`` times
``club_login_rows``, the whole page (the test client, signed in as staff, every middleware) and
the club's grade list rendered cold (the page cache emptied first), and prints one JSON object:
best and median seconds, and the Members page's queries.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import sys
import time

SLUG = "members-bench"
FIRST_NUMBER = 40_000_000


def build(members: int = 16_000) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from clubs.models import Club, ClubRole
    from grading.engine.ngs.decay import band
    from grading.models import CurrentGrade
    from members.models import Invitation, Member

    User = get_user_model()
    now = timezone.now()
    with transaction.atomic():
        club = Club.objects.create(name="Members bench club", slug=SLUG, national_number="777777")
        other = Club.objects.create(name="Other bench club", slug=f"{SLUG}-other")
        users = User.objects.bulk_create(
            User(username=f"mb{FIRST_NUMBER + i}", password="!") for i in range(0, members, 10)
        )
        by_index = {i: user for i, user in zip(range(0, members, 10), users, strict=True)}
        people = Member.objects.bulk_create(
            Member(
                national_number=str(FIRST_NUMBER + i),
                name=f"Surname{i % 997} First{i}",
                user=by_index.get(i),
            )
            for i in range(members)
        )
        ClubRole.objects.bulk_create(
            ClubRole(
                club=club,
                member=member,
                role=ClubRole.Role.ADMIN if i == 1 else ClubRole.Role.MEMBER,
                registered=i % 4 != 0,
                home=i % 4 != 0 and i % 5 == 0,
            )
            for i, member in enumerate(people)
        )
        CurrentGrade.objects.bulk_create(
            CurrentGrade(
                member=member,
                grade=(grade := 35.0 + (i * 7919 % 4000) / 100),
                status=CurrentGrade.Status.MATURE if i % 6 else CurrentGrade.Status.EVOLVING,
                band=band(grade),
                sessions_in_window=20 + i % 40,
                boards_in_window=500 + i % 900,
                initial_grade=50.0,
                last_session_date=now.date(),
                as_of=now.date(),
            )
            for i, member in enumerate(people)
        )
        invitations = []
        for i, member in enumerate(people):
            if member.user_id:
                continue
            if i % 8 == 1:
                invitations.append((member, club, now + dt.timedelta(days=7)))
            elif i % 50 == 3:
                invitations.append((member, other, now + dt.timedelta(days=7)))
            elif i % 50 == 7:
                invitations.append((member, club, now - dt.timedelta(days=1)))
        Invitation.objects.bulk_create(
            Invitation(
                member=member,
                email=f"m{member.national_number}@example.org",
                token_digest=f"{FIRST_NUMBER:x}{k:056x}"[:64],
                club=invited_by,
                expires=expires,
            )
            for k, (member, invited_by, expires) in enumerate(invitations)
        )
    return {"club": SLUG, "members": members, "logins": len(users), "invitations": len(invitations)}


def measure(repeats: int = 5) -> dict:
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from clubs.models import Club
    from members.accounts.selectors import club_login_rows

    club = Club.objects.get(slug=SLUG)
    staff, _ = get_user_model().objects.get_or_create(
        username="members-bench-staff", defaults={"is_staff": True, "password": "!"}
    )
    client = Client()
    client.force_login(staff)
    path = f"/clubs/{SLUG}/members/"
    rows_s, page_s, grades_s = [], [], []
    for _ in range(repeats):
        cache.clear()
        t0 = time.perf_counter()
        response = client.get(f"/clubs/{SLUG}/grades/")
        grades_s.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.status_code
        t0 = time.perf_counter()
        rows = club_login_rows(club=club)
        rows_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        response = client.get(path)
        page_s.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.status_code
    with CaptureQueriesContext(connection) as queries:
        client.get(path)
    return {
        "rows": len(rows),
        "club_login_rows_best_s": round(min(rows_s), 3),
        "club_login_rows_median_s": round(statistics.median(rows_s), 3),
        "page_best_s": round(min(page_s), 3),
        "page_median_s": round(statistics.median(page_s), 3),
        "page_queries": len(queries),
        "grade_list_cold_best_s": round(min(grades_s), 3),
        "grade_list_cold_median_s": round(statistics.median(grades_s), 3),
        "page_bytes": len(response.content),
    }


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grading.settings")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    if argv[:1] == ["build"]:
        print(json.dumps(build(int(argv[1]) if len(argv) > 1 else 16_000)))
    elif argv[:1] == ["time"]:
        print(json.dumps(measure(int(argv[1]) if len(argv) > 1 else 5)))
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    main(sys.argv[1:])
