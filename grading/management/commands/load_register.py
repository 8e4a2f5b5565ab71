import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from grading.staff.register import register_load


class Command(BaseCommand):
    help = (
        "Load the union's member register (CSV: membership_number, first_name, surname, email, "
        "clubs, status), all or nothing: every problem is listed by line and nothing is "
        "written while there is one. Loading the same list again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        if not file.is_file():
            raise CommandError(f"{file}: no such file.")
        started = time.perf_counter()
        summary = register_load(data=file.read_bytes(), filename=file.name)
        took = time.perf_counter() - started
        if not summary.ok:
            for problem in summary.problems:
                self.stderr.write(problem)
            if summary.problem_count > len(summary.problems):
                self.stderr.write(
                    f"... and {summary.problem_count - len(summary.problems)} more problems."
                )
            raise CommandError(summary.text())
        self.stdout.write(f"{file.name}: {summary.text()} ({took:.1f} s)")
        if summary.unknown_clubs:
            shown = ", ".join(summary.unknown_clubs[:20])
            more = len(summary.unknown_clubs) - 20
            self.stdout.write(
                f"Club numbers no registered club has yet: {shown}"
                + (f" and {more} more" if more > 0 else "")
                + ". Their members join each club when it is registered."
            )
