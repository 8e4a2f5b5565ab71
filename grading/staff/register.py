"""The union's member register (S15): staff load the membership list as CSV.

A load is all-or-nothing: every problem is given by line and nothing is written while there is
one. Loading the same list again writes nothing; a later list updates names, emails, clubs and
status; a member missing from it is kept with their history. Set-based: one read of the members
the list names and of their club rows, then inserts and updates in batches (``bulk_create``,
``rows_update``: one statement per batch, never one per member), so 50,000 members load in
seconds (measured in docs/decisions.md).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from clubs.models import Club, ClubRole
from clubs.services import club_number_normalise
from grading.common.audit import audit_record
from grading.common.bulk import rows_update
from grading.common.stale import club_pages_invalidate
from grading.engine.types import normalise_number
from grading.models import AuditEvent
from members.models import Member, RegisterStatus, new_pages_version

REGISTER_COLUMNS = ("membership_number", "first_name", "surname", "email", "clubs", "status")
REQUIRED_COLUMNS = ("membership_number", "first_name", "surname", "clubs", "status")
PROBLEMS_SHOWN = 200
BATCH = 2000


@dataclass(frozen=True)
class RegisterRow:
    line: int
    number: str
    name: str
    email: str
    clubs: str  # normalised national club numbers, ";"-separated, the home club first
    status: str


@dataclass
class RegisterSummary:
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    lapsed: int = 0  # members this list marks lapsed who were not before
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0
    unknown_clubs: list[str] = field(default_factory=list)  # numbers no registered club has

    @property
    def ok(self) -> bool:
        return not self.problem_count

    def text(self) -> str:
        if not self.ok:
            return (
                f"Nothing was loaded: the list has {self.problem_count} problem"
                f"{'s' if self.problem_count != 1 else ''}."
            )
        if not (self.added or self.changed):
            return f"Nothing changed: the {self.unchanged} members on the list are as recorded."
        return (
            f"{self.added} added, {self.changed} changed, {self.unchanged} unchanged, "
            f"{self.lapsed} newly lapsed."
        )


def register_parse(data: bytes) -> tuple[list[RegisterRow], list[str]]:
    """The rows of a register file and every problem, each with its line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        return [], [f"The file is not UTF-8 text (byte {bad.start + 1}): save it as CSV UTF-8."]
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        return [], ["The file is empty: it needs a header row and one row per member."]
    except csv.Error as bad:
        return [], [f"Line 1: {bad}."]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        return [], [
            "Line 1: the header row has no column "
            + ", ".join(missing)
            + ". The columns are "
            + ", ".join(REGISTER_COLUMNS)
            + " (email may be left out)."
        ]
    at = {name: header.index(name) for name in REGISTER_COLUMNS if name in header}
    rows: list[RegisterRow] = []
    problems: list[str] = []
    first_line: dict[str, int] = {}
    try:
        for values in reader:
            line = reader.line_num
            if not any(v.strip() for v in values):
                continue
            row, row_problems = _row(line, values, at, first_line)
            problems += row_problems
            if row is not None:
                rows.append(row)
    except csv.Error as bad:
        problems.append(f"Line {reader.line_num}: {bad}.")
    if not rows and not problems:
        problems.append("The file has a header row but no members.")
    return rows, problems


def _row(line: int, values: list[str], at: dict, first_line: dict) -> tuple:
    def get(name: str) -> str:
        i = at.get(name)
        return values[i].strip() if i is not None and i < len(values) else ""

    problems = []
    raw = get("membership_number")
    number = normalise_number(raw)
    if number is None or len(number) > 20 or not number.isalnum():
        problems.append(f"Line {line}: {raw[:30]!r} is not a membership number.")
    elif number in first_line:
        problems.append(
            f"Line {line}: membership number {number} is also on line {first_line[number]}."
        )
    else:
        first_line[number] = line
    name = " ".join(f"{get('first_name')} {get('surname')}".split())
    if not name:
        problems.append(f"Line {line}: give the member's first name or surname.")
    elif len(name) > 200:
        problems.append(f"Line {line}: the name is longer than 200 characters.")
    email = get("email")
    if email:
        try:
            validate_email(email)
        except ValidationError:
            problems.append(f"Line {line}: {email[:60]!r} is not an email address.")
    clubs: list[str] = []
    for raw_club in get("clubs").split(";"):
        if not raw_club.strip():
            continue
        club = club_number_normalise(raw_club)
        if not club.isdigit():
            problems.append(f"Line {line}: {raw_club.strip()[:30]!r} is not a club number.")
        elif club not in clubs:
            clubs.append(club)
    joined = ";".join(clubs)
    if len(joined) > 200:
        problems.append(f"Line {line}: too many clubs (at most 200 characters of numbers).")
    status = get("status").lower()
    if status not in (RegisterStatus.ACTIVE, RegisterStatus.LAPSED):
        problems.append(f"Line {line}: status {get('status')[:20]!r} is neither active nor lapsed.")
    if problems:
        return None, problems
    return RegisterRow(line, number, name, email, joined, status), []


def register_load(*, data: bytes, user=None, filename: str = "") -> RegisterSummary:
    """Load the register (S15), all or nothing. Returns the summary; with problems nothing is
    written. An unchanged list writes nothing at all."""
    rows, problems = register_parse(data)
    summary = RegisterSummary()
    if problems:
        summary.problem_count = len(problems)
        summary.problems = problems[:PROBLEMS_SHOWN]
        return summary
    clubs = {
        club_number_normalise(number): pk
        for pk, number in Club.objects.exclude(national_number="").values_list(
            "pk", "national_number"
        )
    }
    summary.unknown_clubs = sorted(
        {c for row in rows for c in row.clubs.split(";") if c and c not in clubs}, key=int
    )
    with transaction.atomic():
        _load(rows, clubs, summary)
        if summary.added or summary.changed:
            audit_record(
                action=AuditEvent.Action.REGISTER,
                subject=f"Member register {filename or 'loaded'}"[:255],
                actor=user,
                added=summary.added,
                changed=summary.changed,
                unchanged=summary.unchanged,
                lapsed=summary.lapsed,
                unknown_clubs=summary.unknown_clubs[:100],
            )
    return summary


def _load(rows: list[RegisterRow], clubs: dict[str, int], summary: RegisterSummary) -> None:
    numbers = [row.number for row in rows]
    stored: dict[str, tuple] = {}
    for i in range(0, len(numbers), 5000):
        for values in Member.objects.filter(national_number__in=numbers[i : i + 5000]).values_list(
            "national_number", "pk", "name", "register_email", "register_status", "register_clubs"
        ):
            stored[values[0]] = values[1:]
    new: list[Member] = []
    changed: list[Member] = []
    for row in rows:
        wanted = (row.name, row.email, row.status, row.clubs)
        have = stored.get(row.number)
        if have is None:
            new.append(
                Member(
                    national_number=row.number,
                    name=row.name,
                    register_email=row.email,
                    register_status=row.status,
                    register_clubs=row.clubs,
                )
            )
            summary.lapsed += row.status == RegisterStatus.LAPSED
        elif have[1:] != wanted:
            changed.append(
                Member(
                    pk=have[0],
                    national_number=row.number,
                    name=row.name,
                    register_email=row.email,
                    register_status=row.status,
                    register_clubs=row.clubs,
                    pages_version=new_pages_version(),
                )
            )
            summary.lapsed += row.status == RegisterStatus.LAPSED and have[3] != row.status
        else:
            summary.unchanged += 1
    summary.added, summary.changed = len(new), len(changed)
    Member.objects.bulk_create(new, batch_size=BATCH)
    for i in range(0, len(changed), BATCH):
        rows_update(
            Member,
            changed[i : i + BATCH],
            ["name", "register_email", "register_status", "register_clubs", "pages_version"],
        )
    touched = {m.national_number: m for m in changed}
    if new:
        ids = dict(
            Member.objects.filter(national_number__in=[m.national_number for m in new]).values_list(
                "national_number", "pk"
            )
        )
        for member in new:
            member.pk = ids[member.national_number]
            touched[member.national_number] = member
    if touched:
        _roles_sync(list(touched.values()), clubs)


def _roles_sync(members: list[Member], clubs: dict[str, int]) -> None:
    """The club rows of the members whose register entry was added or changed: registered
    (and home) at the clubs the list gives, not at any other. Three updates by set and one
    insert, whatever the count."""
    wanted: dict[tuple[int, int], bool] = {}  # (club, member) -> home
    for member in members:
        for i, number in enumerate(
            member.register_clubs.split(";") if member.register_clubs else ()
        ):
            if number in clubs:
                wanted[(clubs[number], member.pk)] = i == 0
    ids = [m.pk for m in members]
    existing: dict[tuple[int, int], tuple] = {}
    for i in range(0, len(ids), 5000):
        for pk, club, member, registered, home in ClubRole.objects.filter(
            member_id__in=ids[i : i + 5000]
        ).values_list("pk", "club_id", "member_id", "registered", "home"):
            existing[(club, member)] = (pk, registered, home)
    to_home, to_other, to_none = [], [], []
    for key, (pk, registered, home) in existing.items():
        want = (key in wanted, wanted.get(key, False))
        if (registered, home) == want:
            continue
        (to_home if want[1] else to_other if want[0] else to_none).append(pk)
    for pks, registered, home in (
        (to_home, True, True),
        (to_other, True, False),
        (to_none, False, False),
    ):
        for i in range(0, len(pks), 5000):
            ClubRole.objects.filter(pk__in=pks[i : i + 5000]).update(
                registered=registered, home=home
            )
    ClubRole.objects.bulk_create(
        [
            ClubRole(club_id=club, member_id=member, registered=True, home=home)
            for (club, member), home in wanted.items()
            if (club, member) not in existing
        ],
        batch_size=BATCH,
    )
    # every club that lists one of these members shows their name, email or role
    affected = {club for club, _ in wanted} | {club for club, _ in existing}
    if affected:
        club_pages_invalidate(club_ids=list(affected))
