"""The member register's load at the union's size (issue 27: 50,000 members in at most 30 s the
first time and 10 s unchanged, on PostgreSQL). A deterministic list over the database's clubs
(or 600 made for it), loaded three times: new, unchanged, a tenth renamed. Everything is rolled
back at the end unless ``keep``."""

from __future__ import annotations

import random
import time

from django.db import transaction

from clubs.models import Club
from grading.staff.register import register_load


class _Rollback(Exception):
    pass


def register_csv(members: int, clubs: list[str], *, renamed_every: int = 0, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    lines = ["membership_number,first_name,surname,email,clubs,status"]
    for i in range(members):
        number = 30_000_000 + i
        first = f"Changed{i}" if renamed_every and i % renamed_every == 0 else f"First{i}"
        chosen = rng.sample(clubs, min(len(clubs), rng.choice((1, 1, 1, 2, 3))))
        email = f"m{number}@example.org" if rng.random() < 0.8 else ""
        status = "lapsed" if rng.random() < 0.05 else "active"
        lines.append(f"{number},{first},Surname{i % 997},{email},{';'.join(chosen)},{status}")
    return ("\n".join(lines) + "\n").encode()


def register_bench(*, members: int = 50_000, keep: bool = False) -> dict:
    figures: dict = {"members": members}
    try:
        with transaction.atomic():
            numbers = [c for c in Club.objects.values_list("national_number", flat=True) if c]
            if not numbers:
                Club.objects.bulk_create(
                    Club(name=f"Bench club {n}", slug=f"bench-club-{n}", national_number=str(n))
                    for n in range(900_000, 900_600)
                )
                numbers = [str(n) for n in range(900_000, 900_600)]
            first = register_csv(members, numbers)
            for label, data in (
                ("first_s", first),
                ("unchanged_s", first),
                ("tenth_renamed_s", register_csv(members, numbers, renamed_every=10)),
            ):
                started = time.perf_counter()
                summary = register_load(data=data, filename="bench.csv")
                figures[label] = round(time.perf_counter() - started, 2)
                figures[label.replace("_s", "")] = summary.text()
            if not keep:
                raise _Rollback
    except _Rollback:
        pass
    return figures
