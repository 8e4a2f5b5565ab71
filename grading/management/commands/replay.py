from django.core.management.base import BaseCommand, CommandError

from grading.ledger.check import ledger_check, ledger_refold


class Command(BaseCommand):
    help = (
        "Fold the whole grading ledger from empty (S5.4). --check compares the result with "
        "every stored grade and exits non-zero on any difference; without it, stored grades "
        "are recomputed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true")

    def handle(self, *args, check=False, **options):
        if not check:
            self.stdout.write(f"Refolded {ledger_refold()} ledger entries.")
            return
        problems = ledger_check()
        for problem in problems[:200]:
            self.stdout.write(problem)
        if problems:
            raise CommandError(f"replay --check: {len(problems)} difference(s).")
        self.stdout.write("replay --check: every stored grade is reproduced.")
