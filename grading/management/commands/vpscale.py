from django.core.management.base import BaseCommand, CommandError

from grading.tools.figures import MAX_BOARDS, continuous_rows, discrete_bands


class Command(BaseCommand):
    help = "Print the WBF victory-point scale for a match of N boards (S2.7)."

    def add_arguments(self, parser):
        parser.add_argument("--boards", type=int, required=True, help="boards in the match, 1-100")
        parser.add_argument(
            "--discrete", action="store_true", help="the discrete (whole-VP) scale instead"
        )

    def handle(self, *args, boards: int, discrete: bool, **options):
        if not 1 <= boards <= MAX_BOARDS:
            raise CommandError(f"--boards must be between 1 and {MAX_BOARDS}, not {boards}")
        if discrete:
            self.stdout.write(f"WBF discrete VP scale, {boards} boards")
            self.stdout.write(f"{'IMPs':>9}  {'VPs':>7}")
            for band in discrete_bands(boards):
                self.stdout.write(f"{band.label:>9}  {band.winner:>3}-{band.loser:<3}")
            return
        self.stdout.write(f"WBF continuous VP scale, {boards} boards")
        self.stdout.write(f"{'IMPs':>5}  {'winner':>6}  {'loser':>6}")
        rows = continuous_rows(boards)
        for margin, winner, loser in rows:
            self.stdout.write(f"{margin:>5}  {winner:>6.2f}  {loser:>6.2f}")
        self.stdout.write(f"{'more':>5}  {20:>6.2f}  {0:>6.2f}")
