"""The simulated bridge world's people and clubs, with hidden true strengths.

A player's true strength is the match-point percentage they would score partnering an equal
player against a field of average strength: exactly what an NGS grade estimates (S0). Clubs
differ in average strength; some players belong to two clubs; within a club most players have
a regular partner and the rest come as singles and take a pick-up partner; each club has a few
hosts who make up the numbers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["Person", "SimClub", "Population", "make_population", "FIRST_NAMES", "SURNAMES"]

FIRST_NAMES = (
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
    "Rosemary",
    "Robert",
    "Sheila",
    "Trevor",
    "Ursula",
    "Victor",
    "Wendy",
    "Yvonne",
    "Anne",
    "Colin",
    "Diana",
    "Edward",
    "Felicity",
    "Gordon",
    "Hilary",
    "Ian",
    "Janet",
    "Keith",
    "Linda",
    "Malcolm",
    "Norma",
    "Oliver",
    "Pamela",
    "Roger",
    "Susan",
    "Terence",
    "Valerie",
    "William",
)
SURNAMES = (
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
    "Bennett",
    "Carter",
    "Dixon",
    "Foster",
    "Griffiths",
    "Hughes",
    "Jenkins",
    "Knight",
    "Lloyd",
    "Mason",
    "Newman",
    "Owen",
    "Parker",
    "Reynolds",
    "Shaw",
    "Turner",
    "Webb",
    "Wood",
)

STRENGTH_MEAN = 48.0
STRENGTH_SD = 5.5
CLUB_SD = 2.5  # spread of club average strengths; players vary around their club's mean


@dataclass
class Person:
    number: str | None  # None: a visitor without a membership number
    name: str
    strength: float
    activity: float = 1.0  # relative chance of coming to a session
    clubs: list[str] = field(default_factory=list)


@dataclass
class SimClub:
    slug: str
    name: str
    national_number: str
    mean_strength: float
    partnerships: list[tuple[int, int]] = field(default_factory=list)  # person indexes
    singles: list[int] = field(default_factory=list)
    hosts: list[int] = field(default_factory=list)
    typical_tables: float = 8.0
    slots: list[tuple[int, str, str]] = field(default_factory=list)  # weekday, start, kind

    @property
    def members(self) -> list[int]:
        return [i for pair in self.partnerships for i in pair] + self.singles


@dataclass
class Population:
    people: list[Person]
    clubs: list[SimClub]

    def truth(self) -> dict[str, float]:
        """Membership number -> true strength (the simulator's hidden truth)."""
        return {p.number: p.strength for p in self.people if p.number is not None}


def _name(rng: random.Random, taken: set[str]) -> str:
    for _ in range(1000):
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"
        if name not in taken:
            taken.add(name)
            return name
    name = f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}-{len(taken)}"
    taken.add(name)
    return name


def make_population(
    rng: random.Random,
    players: int,
    clubs: int,
    *,
    members: list[tuple[str, str]] | None = None,
    club_slugs: list[str] | None = None,
    first_number: int = 700001,
    second_club_share: float = 0.2,
    regular_share: float = 0.7,
) -> Population:
    """People with true strengths ~ Normal(48, 5.5) and their clubs.

    ``members`` gives (number, name) for every player (the demo's members); otherwise numbers
    count up from ``first_number``. ``club_slugs`` names the clubs (otherwise club-1, ...).
    """
    if members is not None:
        players = len(members)
    if clubs < 1 or players < 4 * clubs:
        raise ValueError("need at least one club and four players per club")
    slugs = club_slugs or [f"sim-club-{k + 1}" for k in range(clubs)]
    club_means = [rng.gauss(STRENGTH_MEAN, CLUB_SD) for _ in range(clubs)]
    shift = STRENGTH_MEAN - sum(club_means) / clubs
    club_means = [m + shift for m in club_means]
    within_sd = (STRENGTH_SD**2 - CLUB_SD**2) ** 0.5
    sim_clubs = [
        SimClub(
            slug=slugs[k],
            name=" ".join(w.capitalize() for w in slugs[k].replace("-", " ").split()),
            national_number=str(3101 + k),
            mean_strength=club_means[k],
        )
        for k in range(clubs)
    ]
    taken: set[str] = set()
    people: list[Person] = []
    # Clubs of different sizes: weights 1 to 2.5.
    sizes = [1 + 1.5 * rng.random() for _ in range(clubs)]
    for i in range(players):
        home = rng.choices(range(clubs), weights=sizes)[0] if i >= clubs * 4 else i % clubs
        if members is not None:
            number, name = members[i]
            taken.add(name)
        else:
            number, name = str(first_number + i), _name(rng, taken)
        strength = club_means[home] + rng.gauss(0, within_sd)
        activity = rng.choice((0.5, 1.0, 1.0, 1.5, 2.0))
        person = Person(number, name, strength, activity, [sim_clubs[home].slug])
        if clubs > 1 and rng.random() < second_club_share:
            other = rng.choice([k for k in range(clubs) if k != home])
            person.clubs.append(sim_clubs[other].slug)
        people.append(person)
    by_slug = {club.slug: club for club in sim_clubs}
    for club in sim_clubs:
        roster = [i for i, p in enumerate(people) if club.slug in p.clubs]
        rng.shuffle(roster)
        regulars = int(len(roster) * regular_share) // 2 * 2
        club.partnerships = [(roster[j], roster[j + 1]) for j in range(0, regulars, 2)]
        club.singles = roster[regulars:]
        pool = club.singles or roster
        club.hosts = rng.sample(pool, min(2, len(pool)))
        club.typical_tables = min(16.0, max(5.5, len(roster) / 9))
    assert set(by_slug) == set(slugs)
    return Population(people, sim_clubs)
