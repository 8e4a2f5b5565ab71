"""A simulated bridge world over time: clubs' weekly sessions, county events, uploads.

``simulate(SimConfig(...))`` is deterministic for a seed. It returns every session played and
the upload files the clubs sent (one per club per session, plus occasional corrections), in
upload order, with the hidden truth (each member's true strength).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field, replace

from grading.engine.types import Movement, Scoring, SessionKey, SessionResult
from grading.lab.simulate.bridge import make_board
from grading.lab.simulate.population import (
    FIRST_NAMES,
    SURNAMES,
    Person,
    Population,
    SimClub,
    make_population,
)
from grading.lab.simulate.sessions import (
    _PAIR_METHOD,
    Entrant,
    SimSession,
    pairs_session,
    session_totals,
    swiss_pairs_session,
    teams_session,
)
from grading.lab.simulate.writers import CSV_SCORINGS, csv_bytes, usebio_bytes

__all__ = ["SimConfig", "SimUpload", "World", "simulate", "add_months"]

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
COUNTY = SimClub("sim-county", "Sim County Bridge Association", "3100", 48.0)


@dataclass(frozen=True)
class SimConfig:
    players: int = 300
    clubs: int = 4
    months: int = 6
    seed: int = 1
    start: dt.date = dt.date(2025, 1, 6)
    fmt: str = "usebio"  # or "csv" (Swiss pairs and teams are always USEBIO: S12.1 has none)
    county: bool = True  # green-pointed county events mixing the clubs' players
    members: tuple[tuple[str, str], ...] | None = None  # (number, name): the demo's members
    club_slugs: tuple[str, ...] | None = None
    club_formats: tuple[str, ...] | None = None  # per club, overriding fmt
    club_numbers: tuple[str, ...] | None = None  # per club ("" writes no CLUB_ID_NUMBER)
    late_share: float = 0.05  # uploads sent 5 to 45 days after play
    correction_share: float = 0.03  # sessions sent again with one traveller line corrected
    visitor_share: float = 0.12  # sessions with a visiting pair without membership numbers


@dataclass(frozen=True)
class SimUpload:
    club: str
    upload_at: dt.datetime
    filename: str
    data: bytes
    session: SimSession
    correction: bool = False


@dataclass
class World:
    config: SimConfig
    population: Population
    sessions: list[SimSession] = field(default_factory=list)
    uploads: list[SimUpload] = field(default_factory=list)

    def truth(self) -> dict[str, float]:
        return self.population.truth()

    def clubs(self) -> list[SimClub]:
        extra = [COUNTY] if self.config.county else []
        return list(self.population.clubs) + extra


def add_months(day: dt.date, months: int) -> dt.date:
    month = day.month - 1 + months
    year = day.year + month // 12
    month = month % 12 + 1
    return dt.date(year, month, min(day.day, 28))


class _Builder:
    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        members = list(config.members) if config.members else None
        self.population = make_population(
            self.rng,
            config.players,
            config.clubs,
            members=members,
            club_slugs=list(config.club_slugs) if config.club_slugs else None,
        )
        for club, number in zip(self.population.clubs, config.club_numbers or (), strict=False):
            club.national_number = number
        self.world = World(config, self.population)
        self.visitor_count = 0
        self.upload_seq = 0
        self.playing: dict[dt.date, set[int]] = {}
        self.index_of = {id(p): i for i, p in enumerate(self.population.people)}
        self._slots()

    # ---- the clubs' programmes -------------------------------------------------------------

    def _slots(self) -> None:
        rng = self.rng
        for club in self.population.clubs:
            count = max(1, min(4, round(len(club.members) / 45 + rng.random())))
            days = sorted(rng.sample(range(5), count))
            for i, day in enumerate(days):
                start = rng.choice(("13:30", "19:15", "19:30")) if day < 5 else "14:00"
                kind = (
                    "MP"
                    if i == 0
                    else rng.choices(
                        ("MP", "BUTLER", "CROSS_IMP", "AGGREGATE"), weights=(70, 12, 12, 6)
                    )[0]
                )
                club.slots.append((day, start, kind))

    # ---- entrants ------------------------------------------------------------------------------

    def _visitor(self) -> Person:
        self.visitor_count += 1
        name = f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(SURNAMES)} (visitor)"
        return Person(None, name, self.rng.gauss(46.0, 6.0))

    def _weighted_sample(self, items: list, weights: list[float], k: int) -> list:
        keyed = sorted(
            ((self.rng.random() ** (1.0 / w), i) for i, w in enumerate(weights) if w > 0),
            reverse=True,
        )
        return [items[i] for _, i in keyed[:k]]

    def _club_entrants(self, club: SimClub, pairs: int, day: dt.date) -> list[Entrant]:
        rng, people = self.rng, self.population.people
        busy = self.playing.setdefault(day, set())
        free_partnerships = [p for p in club.partnerships if not busy & set(p)]
        weights = [(people[a].activity + people[b].activity) / 2 for a, b in free_partnerships]
        wanted = round(pairs * (0.65 + 0.25 * rng.random()))
        chosen = self._weighted_sample(free_partnerships, weights, wanted)
        entrants = [Entrant((people[a], people[b])) for a, b in chosen]
        used = {i for pair in chosen for i in pair} | busy
        singles = [i for i in club.members if i not in used and i not in club.hosts]
        needed = 2 * (pairs - len(entrants)) - (1 if rng.random() < 0.35 else 0)
        picked = self._weighted_sample(singles, [people[i].activity for i in singles], needed)
        used |= set(picked)
        if len(picked) % 2:
            free_hosts = [h for h in club.hosts if h not in used]
            if free_hosts:
                host = free_hosts[0]
                used.add(host)
                entrants.append(
                    Entrant((people[picked.pop()], people[host]), host=rng.random() < 0.4)
                )
            else:
                picked.append(-1)
        rng.shuffle(picked)
        for j in range(0, len(picked) - 1, 2):
            a, b = picked[j], picked[j + 1]
            pa = people[a] if a >= 0 else self._visitor()
            pb = people[b] if b >= 0 else self._visitor()
            entrants.append(Entrant((pa, pb)))
        while len(entrants) < pairs:  # the club is short: visitors make up the numbers
            entrants.append(Entrant((self._visitor(), self._visitor())))
        if rng.random() < self.config.visitor_share and len(entrants) > 6:
            entrants[rng.randrange(len(entrants))] = Entrant((self._visitor(), self._visitor()))
        busy |= {
            self.index_of[id(p)] for e in entrants for p in e.players if id(p) in self.index_of
        }
        return entrants[:pairs]

    def _tables(self, club: SimClub) -> int:
        return max(5, min(20, round(self.rng.gauss(club.typical_tables, 1.5))))

    # ---- sessions ------------------------------------------------------------------------------

    def _club_session(self, club: SimClub, day: dt.date, slot: tuple[int, str, str]) -> SimSession:
        rng = self.rng
        weekday, start_text, kind = slot
        start = dt.time.fromisoformat(start_text)
        part = "Afternoon" if start.hour < 17 else "Evening"
        event_id = f"{WEEKDAYS[weekday][:3].upper()}{start_text.replace(':', '')}"
        tables = self._tables(club)
        special = day.day <= 7 and slot is club.slots[-1] and rng.random() < 0.5
        if special:
            if rng.random() < 0.5 or tables < 4:
                entrants = self._club_entrants(club, 2 * tables, day)
                key = SessionKey(club.slug, f"{event_id}-SWISS", 1, day)
                return swiss_pairs_session(
                    rng,
                    key,
                    f"{WEEKDAYS[weekday]} Swiss Pairs",
                    entrants,
                    imps_scoring=rng.random() < 0.6,
                )
            count = max(4, tables // 2 * 2)
            entrants = self._club_entrants(club, 2 * count, day)
            teams = [
                (f"{e1.players[0].name.split()[-1]} {k + 1}", e1, e2)
                for k, (e1, e2) in enumerate(zip(entrants[0::2], entrants[1::2], strict=True))
            ]
            key = SessionKey(club.slug, f"{event_id}-TEAMS", 1, day)
            return teams_session(rng, key, f"{WEEKDAYS[weekday]} Multiple Teams", teams)
        scoring = Scoring(kind)
        howell = kind != "AGGREGATE" and tables <= 8 and rng.random() < 0.5
        movement = Movement.ONE_WINNER if howell else Movement.TWO_WINNER
        pairs = 2 * tables - (1 if howell and rng.random() < 0.3 else 0)
        entrants = self._club_entrants(club, pairs, day)
        names = {
            "MP": "Pairs",
            "BUTLER": "Butler Pairs",
            "CROSS_IMP": "Cross-IMP Pairs",
            "AGGREGATE": "Aggregate Pairs",
        }
        key = SessionKey(club.slug, event_id, 1, day)
        name = f"{WEEKDAYS[weekday]} {part} {names[kind]}"
        return pairs_session(rng, key, name, scoring, movement, entrants, start=start)

    def _county_session(self, day: dt.date, number: int) -> SimSession:
        rng, people = self.rng, self.population.people
        busy = self.playing.setdefault(day, set())
        kind = rng.choices(("MP", "SWISS", "TEAMS"), weights=(50, 25, 25))[0]
        tables = rng.randint(10, 20)
        # Stronger and keener players go to county events.
        candidates = [i for i, p in enumerate(people) if p.number is not None and i not in busy]
        weights = [people[i].activity * 1.35 ** ((people[i].strength - 48) / 3) for i in candidates]
        pairs = 2 * tables if kind != "TEAMS" else 4 * max(2, tables // 4)
        chosen = self._weighted_sample(candidates, weights, 2 * pairs)
        busy |= set(chosen)
        entrants = [
            Entrant((people[chosen[j]], people[chosen[j + 1]]))
            for j in range(0, len(chosen) - 1, 2)
        ]
        if len(entrants) % 2:
            entrants.pop()
        key_id = {"MP": "CTY-PAIRS", "SWISS": "CTY-SWISS", "TEAMS": "CTY-TEAMS"}[kind]
        key = SessionKey(COUNTY.slug, f"{key_id}-{number}", 1, day)
        if kind == "MP":
            return pairs_session(
                rng,
                key,
                "County Green-Pointed Pairs",
                Scoring.MP,
                Movement.TWO_WINNER,
                entrants,
                weighting=3,
                start=dt.time(14, 0),
                charge="60",
            )
        if kind == "SWISS":
            return swiss_pairs_session(
                rng,
                key,
                "County Swiss Pairs",
                entrants,
                imps_scoring=True,
                weighting=3,
                charge="60",
            )
        count = len(entrants) // 2 // 2 * 2
        teams = [
            (f"County team {k + 1}", entrants[2 * k], entrants[2 * k + 1]) for k in range(count)
        ]
        return teams_session(rng, key, "County Multiple Teams", teams, weighting=3, charge="60")

    # ---- uploads --------------------------------------------------------------------------

    def _club_of(self, slug: str) -> SimClub:
        return next(c for c in self.world.clubs() if c.slug == slug)

    def _format(self, slug: str) -> str:
        formats = self.config.club_formats
        if formats:
            slugs = [c.slug for c in self.population.clubs]
            if slug in slugs and slugs.index(slug) < len(formats):
                return formats[slugs.index(slug)]
        return self.config.fmt

    def _file(self, sim: SimSession, at: dt.datetime, correction: bool) -> SimUpload:
        slug = sim.result.key.club
        club = self._club_of(slug)
        csv_ok = self._format(slug) == "csv" and sim.result.scoring in CSV_SCORINGS
        data = (
            csv_bytes([sim.result])
            if csv_ok
            else usebio_bytes(sim, club.name, club.national_number)
        )
        self.upload_seq += 1
        key = sim.result.key
        name = (
            f"{at:%Y%m%d-%H%M%S}-{self.upload_seq:06d}-{slug}-{key.event_id}-{key.date:%Y%m%d}"
            f"{'-correction' if correction else ''}.{'csv' if csv_ok else 'xml'}"
        )
        return SimUpload(slug, at, name, data, sim, correction)

    def _upload_time(self, sim: SimSession) -> dt.datetime:
        start = sim.result.start or dt.time(14, 0)
        played = dt.datetime.combine(sim.result.date, start)
        if self.rng.random() < self.config.late_share:
            return played + dt.timedelta(
                days=self.rng.randint(5, 45), hours=self.rng.randint(0, 12)
            )
        return played + dt.timedelta(hours=3 + 30 * self.rng.random())

    def _corrected(self, sim: SimSession) -> SimSession | None:
        """The session with one traveller line changed to another result, rescored."""
        result = sim.result
        if result.scoring not in CSV_SCORINGS or not result.travellers:
            return None
        index = self.rng.randrange(len(result.travellers))
        line = result.travellers[index]
        board = make_board(self.rng, line.board)
        outcome = board.play(0.0, self.rng.gauss(0, 1))
        if outcome.ns_score == line.ns_score:
            return None
        fixed = replace(
            line,
            ns_score=outcome.ns_score,
            contract=outcome.contract,
            declarer=outcome.declarer,
            tricks=outcome.tricks,
        )
        travellers = result.travellers[:index] + (fixed,) + result.travellers[index + 1 :]
        corrected, values = rescore(replace(result, travellers=travellers))
        return replace(sim, result=corrected, line_values=values)

    def build(self) -> World:
        config = self.config
        end = add_months(config.start, config.months)
        day = config.start - dt.timedelta(days=config.start.weekday())
        county_number = 0
        uploads: list[SimUpload] = []
        while day < end:
            for offset in range(7):
                date = day + dt.timedelta(days=offset)
                if not config.start <= date < end:
                    continue
                sims = []
                if config.county and offset == 5 and date.isocalendar()[1] % 6 == 3:
                    county_number += 1
                    sims.append(self._county_session(date, county_number))
                for club in self.population.clubs:
                    for slot in club.slots:
                        if slot[0] == offset:
                            sims.append(self._club_session(club, date, slot))
                for sim in sims:
                    self.world.sessions.append(sim)
                    at = self._upload_time(sim)
                    uploads.append(self._file(sim, at, False))
                    if self.rng.random() < config.correction_share:
                        fixed = self._corrected(sim)
                        if fixed is not None:
                            later = at + dt.timedelta(days=self.rng.randint(1, 7))
                            uploads.append(self._file(fixed, later, True))
            day += dt.timedelta(days=7)
        uploads.sort(key=lambda u: u.filename)
        self.world.uploads = uploads
        return self.world


def rescore(result: SessionResult) -> tuple[SessionResult, dict]:
    """A pairs session's totals recomputed from its travellers by the scoring engine, and each
    line's values."""
    scored, values = session_totals(list(result.travellers), _PAIR_METHOD[result.scoring])
    pairs = []
    for pair in result.pairs:
        r = scored[pair.pair_id]
        if result.scoring is Scoring.MP:
            score = round(float(r.percentage or 0.0), 2)
        elif result.scoring is Scoring.CROSS_IMP:
            score = round(float(r.total), 2)
        else:
            score = float(r.total)
        mean = pair.direction_mean
        if result.scoring is Scoring.AGGREGATE and r.direction_mean is not None:
            mean = round(float(r.direction_mean), 2)
        pairs.append(replace(pair, score=score, direction_mean=mean))
    return replace(result, pairs=tuple(pairs)), values


def simulate(config: SimConfig) -> World:
    """The whole simulated world for ``config`` (deterministic for its seed)."""
    return _Builder(config).build()
