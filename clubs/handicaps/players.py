"""The club's players for the scoring programs' handicap files (issue 20): every member of the
club with a published grade (S7), and how many are left out. A private or provisional grade is
never exported (S7, FAQ 36: the club enters an estimate in the scoring program instead)."""

from __future__ import annotations

from dataclasses import dataclass

from clubs.models import Club, ClubRole
from grading.engine.ngs.decay import shown
from grading.privacy import NO_GRADE, PRIVATE, PROVISIONAL, grade_withheld_reason


@dataclass(frozen=True)
class PlayerGrade:
    number: str
    first_name: str
    surname: str
    grade: float  # the published grade as shown (S14.11)


@dataclass(frozen=True)
class ClubPlayers:
    players: list[PlayerGrade]
    private: int
    provisional: int
    no_grade: int

    @property
    def left_out(self) -> int:
        return self.private + self.provisional + self.no_grade


def split_name(name: str) -> tuple[str, str]:
    """(first name, surname) of a name as stored: "Archer, Alice" or "Alice Archer"; a single
    word is a surname."""
    name = " ".join(name.split())
    if "," in name:
        surname, _, first = name.partition(",")
        return first.strip(), surname.strip()
    first, _, surname = name.rpartition(" ")
    return first, surname


def club_players(*, club: Club) -> ClubPlayers:
    """The club's members with a published grade, by surname, and the count of the others."""
    counts = {PRIVATE: 0, PROVISIONAL: 0, NO_GRADE: 0}
    players = []
    for role in ClubRole.objects.filter(club=club).select_related(
        "member", "member__current_grade"
    ):
        member = role.member
        withheld = grade_withheld_reason(member)
        if withheld:
            counts[withheld] = counts.get(withheld, 0) + 1
            continue
        first, surname = split_name(member.name)
        players.append(
            PlayerGrade(member.national_number, first, surname, shown(member.current_grade.grade))
        )
    players.sort(key=lambda p: (p.surname.lower(), p.first_name.lower(), p.number))
    return ClubPlayers(players, counts[PRIVATE], counts[PROVISIONAL], counts[NO_GRADE])
