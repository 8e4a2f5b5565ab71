"""Simulated results for the demo clubs, for ``seed_demo`` (issue 9).

``demo_sessions`` plays ``months`` of weekly sessions at the given clubs among the given
members (plus visitors without numbers), ending on ``today``, and returns the upload files in
upload order: the first club's in USEBIO (with travellers), the others' in the product's CSV.
"""

from __future__ import annotations

import datetime as dt

from grading.simulate.world import SimConfig, add_months, simulate

__all__ = ["demo_sessions"]


def demo_sessions(
    members: list[tuple[str, str]], clubs: list[str], months: int, seed: int, today: dt.date
) -> list[tuple[str, str, bytes]]:
    """(club slug, file name, file bytes) for every upload, oldest first, none after ``today``.

    ``members`` are (membership number, name); ``clubs`` the demo clubs' slugs (the files carry
    no club number, so they upload to a club of any number). Deterministic for ``seed``.
    """
    start = add_months(today, -months)
    config = SimConfig(
        clubs=len(clubs),
        months=months,
        seed=seed,
        start=start,
        county=False,
        members=tuple(members),
        club_slugs=tuple(clubs),
        club_formats=("usebio",) + ("csv",) * (len(clubs) - 1),
        club_numbers=("",) * len(clubs),
    )
    world = simulate(config)
    out = []
    for upload in world.uploads:
        if upload.session.result.date > today or upload.upload_at.date() > today:
            continue
        out.append((upload.club, upload.filename, upload.data))
    return out
