"""The files of the bench's evening pass (``grading/lab/evening.py``): the evening's 12-table
Mitchells at each club in turn, and the 40-table session whose results page is timed, written
as USEBIO by the simulator.

Lab code: never imported by the product.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from grading.engine.ngs.params import NGS_DEFAULT
from grading.engine.ngs.session import why_not_graded
from grading.engine.types import Movement, Scoring, SessionKey
from grading.ingest import parse_file
from grading.lab.simulate.population import Person
from grading.lab.simulate.sessions import Entrant, pairs_session
from grading.lab.simulate.writers import usebio_bytes

TABLES = 12  # as the upload benchmark's files
RESULTS_TABLES = 40
SEED = 28


@dataclass(frozen=True)
class EveningFile:
    slug: str
    name: str
    data: bytes
    event: str  # the event's name, as the email's subject gives it
    numbers: tuple[str, ...]  # its players with a membership number (each gets an email)


def _session_file(
    rng: random.Random,
    club: dict,
    people: list[Person],
    code: str,
    event: str,
    day: dt.date,
    tables: int,
) -> EveningFile:
    chosen = list(people[: 4 * tables])
    while len(chosen) < 4 * tables:  # a small club: the rest are visitors
        chosen.append(Person(None, f"Visitor {len(chosen)}", 46.0))
    entrants = [Entrant((chosen[2 * j], chosen[2 * j + 1])) for j in range(2 * tables)]
    sim = pairs_session(
        rng,
        SessionKey(club["slug"], code, 1, day),
        event,
        Scoring.MP,
        Movement.TWO_WINNER,
        entrants,
        start=dt.time(19, 30),
    )
    data = usebio_bytes(sim, club["name"], "")
    numbers = tuple(sorted(p.number for p in chosen if p.number is not None))
    return EveningFile(club["slug"], f"{code.lower()}-{day:%Y%m%d}.xml", data, event, numbers)


def _people(club: dict, rng: random.Random) -> list[Person]:
    return [Person(n, f"Member {n}", rng.gauss(48.0, 5.5)) for n in club["numbers"]]


def evening_files(clubs: list[dict], sessions: int, day: dt.date) -> list[EveningFile]:
    """``sessions`` + 1 twelve-table Mitchells on ``day`` (the first: the workers' warm-up),
    the clubs in turn, each among its members (``setup``'s numbers)."""
    rng = random.Random(SEED)
    pools = [_people(club, rng) for club in clubs]
    files = []
    for k in range(sessions + 1):
        club, people = clubs[k % len(clubs)], pools[k % len(clubs)]
        chosen = rng.sample(people, min(len(people), 4 * TABLES))
        code = "EVENINGWARM" if k == 0 else f"EVENING{k:03d}"
        event = "Evening warm-up" if k == 0 else f"Evening Pairs {k:03d}"
        files.append(_session_file(rng, club, chosen, code, event, day, TABLES))
    return files


def results_file(clubs: list[dict], day: dt.date) -> EveningFile:
    """The 40-table Mitchell whose results page is timed, at the first club: its members
    first (the first of them is the member ``setup`` signed in), then the other evening
    clubs' members, visitors for the rest."""
    rng = random.Random(SEED + 1)
    people, seen = [], set()
    for club in clubs:
        for person in _people(club, rng):
            if person.number not in seen and len(people) < 4 * RESULTS_TABLES:
                seen.add(person.number)
                people.append(person)
    return _session_file(
        rng, clubs[0], people, "EVENINGBIG", "Evening Forty Tables", day, RESULTS_TABLES
    )


def why_results_not_graded(f: EveningFile) -> str:
    """Why the 40-table session would not be graded, the engine's reason (S3.8: a small bench
    database has too few members for it), or ""."""
    (session,) = parse_file(f.name, f.data, club=f.slug).sessions
    reason = why_not_graded(session, NGS_DEFAULT)
    if not reason:
        return ""
    return (
        f"the {RESULTS_TABLES}-table session was not uploaded ({reason}): the evening's clubs "
        f"have {len(f.numbers)} graded members for its {4 * RESULTS_TABLES} seats"
    )
