"""Handicap tables for a club's planned or ad-hoc event (S8, FR 7, FAQ 36): who is in the
table and which grade (or estimate) stands for each player. No arithmetic here: the figures
are ``clubs.handicaps.figures``'s, from ``grading.engine.ngs.handicap``.

A table is built from what the administrator typed (players by membership number or name, and
estimates) and the members' published grades; nothing is stored. A private or provisional
player, a member without a grade and a visitor who is not a member all need an estimate, which
the administrator types for this table only (FAQ 36): a private grade is never read into it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db.models import Q

from clubs.models import Club
from grading.engine.ngs.decay import shown
from grading.engine.types import normalise_number
from grading.privacy import grade_withheld_reason, published_grade
from members.models import Member

PAIRS = "pairs"
TEAMS = "teams"
SLOTS = {PAIRS: 2, TEAMS: 6}
SMALLEST = {PAIRS: 2, TEAMS: 4}
NUMBER_IN_TEXT = re.compile(r"\(\s*([\d ]+)\s*\)\s*$")
ESTIMATE_NEEDED = "estimate needed"


@dataclass(frozen=True)
class RawEntry:
    """One row of the form: a pair or a team as typed."""

    index: int
    name: str
    players: tuple[str, ...]
    estimates: tuple[float | None, ...]


@dataclass
class TablePlayer:
    slot: int
    text: str
    member: Member | None
    name: str
    number: str
    published: float | None  # the published grade as shown (S14.11), else None
    withheld: str  # "Private", "Provisional", "No grade", "Not a member" or ""
    estimate: float | None

    @property
    def needs_estimate(self) -> bool:
        return self.published is None

    @property
    def grade(self) -> float | None:
        return self.published if self.published is not None else self.estimate

    @property
    def source(self) -> str:
        if self.published is not None:
            return "grade"
        return "estimate" if self.estimate is not None else ""


@dataclass
class TableEntry:
    index: int
    name: str
    players: list[TablePlayer]
    kind: str
    boards: int

    @property
    def label(self) -> str:
        return self.name or f"{'Pair' if self.kind == PAIRS else 'Team'} {self.index}"

    @property
    def complete(self) -> bool:
        return all(p.grade is not None for p in self.players)

    @property
    def grades(self) -> list[float] | None:
        """The grades (or estimates) as shown of every player, or None while one is missing."""
        return [p.grade for p in self.players] if self.players and self.complete else None


@dataclass
class HandicapTable:
    kind: str
    boards: int
    title: str
    entries: list[TableEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def players(self) -> list[TablePlayer]:
        return [p for entry in self.entries for p in entry.players]

    @property
    def missing_estimates(self) -> list[TablePlayer]:
        return [p for p in self.players if p.grade is None]


def reference_number(text: str) -> str | None:
    """The membership number in "Alice Archer (100001)" or "100001", normalised (S14.2)."""
    text = text.strip()
    found = NUMBER_IN_TEXT.search(text)
    candidate = found.group(1) if found else text
    if candidate.replace(" ", "").isdigit():
        return normalise_number(candidate)
    return None


def reference_name(text: str) -> str:
    return NUMBER_IN_TEXT.sub("", text).strip()


def handicap_table_build(
    *, club: Club, kind: str, boards: int, entries: list[RawEntry], title: str = ""
) -> HandicapTable:
    """The handicap table for the typed entries: two queries whatever their number."""
    table = HandicapTable(kind=kind, boards=boards, title=title)
    texts = [t for e in entries for t in e.players if t.strip()]
    numbers = {n for n in map(reference_number, texts) if n}
    by_number = {
        m.national_number: m
        for m in Member.objects.filter(national_number__in=numbers).select_related("current_grade")
    }
    names = {reference_name(t).lower() for t in texts if not reference_number(t)}
    by_name: dict[str, list[Member]] = {}
    if names:
        match = Q()
        for name in names:
            match |= Q(name__iexact=name)
        for member in (
            Member.objects.filter(match, club_roles__club=club)
            .select_related("current_grade")
            .distinct()
        ):
            by_name.setdefault(member.name.lower(), []).append(member)
    seen: dict[int, str] = {}
    for raw in entries:
        players = []
        for slot, (text, estimate) in enumerate(zip(raw.players, raw.estimates, strict=True), 1):
            if not text.strip():
                continue
            player = _table_player(slot, text, estimate, by_number, by_name, table)
            if player.member is not None:
                if player.member.pk in seen:
                    table.problems.append(
                        f"{player.name} is entered twice ({seen[player.member.pk]} and "
                        f"{_label(kind, raw)})."
                    )
                seen[player.member.pk] = _label(kind, raw)
            players.append(player)
        if not players:
            continue
        if len(players) < SMALLEST[kind]:
            table.problems.append(
                f"{_label(kind, raw)} has {len(players)} player"
                f"{'' if len(players) == 1 else 's'}: a {kind[:-1]} needs "
                f"{'two' if kind == PAIRS else 'at least four'}."
            )
            continue
        table.entries.append(TableEntry(raw.index, raw.name.strip(), players, kind, boards))
    return table


def _label(kind: str, raw: RawEntry) -> str:
    return raw.name.strip() or f"{'Pair' if kind == PAIRS else 'Team'} {raw.index}"


def _table_player(slot, text, estimate, by_number, by_name, table) -> TablePlayer:
    number = reference_number(text)
    member = None
    if number:
        member = by_number.get(number)
        if member is None:
            table.problems.append(
                f"No member has number {number}: check it, or type the player's name for a "
                "visitor and give an estimate."
            )
    else:
        found = by_name.get(reference_name(text).lower(), [])
        if len(found) == 1:
            member = found[0]
        elif len(found) > 1:
            table.problems.append(
                f"{len(found)} members are called {reference_name(text)}: type the number."
            )
    withheld = grade_withheld_reason(member)
    return TablePlayer(
        slot=slot,
        text=text.strip(),
        member=member,
        name=member.name if member else reference_name(text),
        number=member.national_number if member else (number or ""),
        published=published_grade(member),
        withheld=withheld,
        estimate=None if estimate is None or not withheld else shown(estimate),
    )
