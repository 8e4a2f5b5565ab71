import sys
import time

from django.core.management.base import BaseCommand, CommandError

from grading.ledger.replay.check import check_engine, ledger_check, ledger_refold
from grading.ledger.replay.run import refold_engine
from grading.params import active_params


class ProgressBar:
    """A progress bar on the terminal (stderr): entries folded of the ledger's, and the rate."""

    def __init__(self, stream, label: str, width: int = 30) -> None:
        self.stream, self.label, self.width = stream, label, width
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        share = done / total if total else 1.0
        filled = int(self.width * share)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
            f"{share:4.0%} {done}/{total} entries, {rate:,.0f}/s"
        )
        self.stream.flush()
        self.shown = True

    def end(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


class Command(BaseCommand):
    help = (
        "Fold the whole grading ledger from empty (S5.4). --check compares the result with "
        "every stored grade and exits non-zero on any difference; without it, stored grades "
        "are recomputed. Shows progress; interrupting (Ctrl-C) writes nothing: a refold is one "
        "transaction, rolled back whole."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, check=False, no_progress=False, **options):
        bar = (
            None
            if no_progress
            else ProgressBar(sys.stderr, "replay --check" if check else "replay")
        )
        try:
            if not check:
                self.stdout.write(f"Refolding with {refold_engine(active_params())}.")
                entries = ledger_refold(progress=bar)
                if bar:
                    bar.end()
                self.stdout.write(f"Refolded {entries} ledger entries.")
                return
            self.stdout.write(f"Folding with {check_engine()}.")
            problems = ledger_check(progress=bar)
            if bar:
                bar.end()
        except KeyboardInterrupt:
            if bar:
                bar.end()
            raise CommandError(
                "Interrupted: nothing was written (a refold is rolled back whole)."
            ) from None
        for problem in problems[:200]:
            self.stdout.write(problem)
        if problems:
            raise CommandError(f"replay --check: {len(problems)} difference(s).")
        self.stdout.write("replay --check: every stored grade is reproduced.")
