import csv
import datetime as dt
import json

from django.core.management.base import BaseCommand, CommandError

from grading.common.spreadsheet import cell_text
from grading.ledger.refresh import grades_as_of
from grading.models import CurrentGrade
from grading.schemes.selectors import scheme_rows
from members.models import Member

COLUMNS = ["number", "name", "grade", "status", "band", "boards_in_window"]
SCHEME_COLUMNS = {
    "ngs": COLUMNS,
    "ppi": ["number", "name", "ppi", "boards", "recent_boards", "shown", "active", "suit"],
    "brambledown": ["club", "number", "name", "grade", "tournaments", "a_list", "b_list"],
}


class Command(BaseCommand):
    help = (
        "Current grades: number, name, grade, status, band, boards in window. An operator's "
        "command: private grades are included."
    )

    def add_arguments(self, parser):
        parser.add_argument("--member", help="one membership number")
        parser.add_argument("--format", choices=["json", "csv"], default="csv")
        parser.add_argument("--as-of", type=dt.date.fromisoformat, help="YYYY-MM-DD")
        parser.add_argument(
            "--scheme",
            choices=list(SCHEME_COLUMNS),
            default="ngs",
            help="ngs (default), ppi (S10) or brambledown (S11, per club)",
        )

    def handle(self, *args, member=None, format="csv", as_of=None, scheme="ngs", **options):
        if scheme != "ngs":
            rows = scheme_rows(scheme=scheme, as_of=as_of)
        else:
            rows = self.rows_as_of(as_of) if as_of else self.stored_rows()
        if member:
            rows = [r for r in rows if r["number"] == member.lstrip("0")]
            if not rows:
                raise CommandError(f"No grade for member {member}.")
        if format == "json":
            self.stdout.write(json.dumps(rows, indent=2))
            return
        columns = SCHEME_COLUMNS[scheme]
        writer = csv.DictWriter(self.stdout, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(
            {k: cell_text(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows
        )

    def stored_rows(self) -> list[dict]:
        grades = CurrentGrade.objects.select_related("member").order_by("member__national_number")
        return [
            {
                "number": g.member.national_number,
                "name": g.member.name,
                "grade": round(g.grade, 2),
                "status": g.status,
                "band": g.band,
                "boards_in_window": g.boards_in_window,
            }
            for g in grades
        ]

    def rows_as_of(self, as_of: dt.date) -> list[dict]:
        grades = grades_as_of(as_of=as_of)
        names = dict(
            Member.objects.filter(national_number__in=grades).values_list("national_number", "name")
        )
        return [
            {
                "number": n,
                "name": names.get(n, ""),
                "grade": round(g.grade, 2),
                "status": g.status.value,
                "band": g.band,
                "boards_in_window": g.boards_in_window,
            }
            for n, g in sorted(grades.items())
        ]
