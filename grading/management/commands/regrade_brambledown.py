"""Close a Brambledown quarter (S11): new grades and the A, B and pairs lists."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from clubs.models import Club
from grading.engine.brambledown import Quarter
from grading.schemes.after_step import schemes_catch_up
from grading.schemes.brambledown.update import brambledown_regrade_club


class Command(BaseCommand):
    help = (
        "Regrade a quarter at every club that keeps Brambledown grades (or one club): "
        "e.g. --quarter 2026Q3, once it has ended. Quarters before it still open are closed first; a quarter "
        "already closed is left as it is."
    )

    def add_arguments(self, parser):
        parser.add_argument("--quarter", required=True, help="e.g. 2026Q4")
        parser.add_argument("--club", help="one club's slug")

    def handle(self, *args, quarter: str, club: str | None = None, **options):
        try:
            wanted = Quarter.parse(quarter)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        today = timezone.localdate()
        if wanted.end >= today:  # S11: a quarter is regraded once it is over
            raise CommandError(
                f"{wanted} is not over until {wanted.end:%d %b %Y}; only a quarter that has "
                f"ended can be closed (the last one: {Quarter.of(today).previous()})."
            )
        clubs = Club.objects.filter(keeps_brambledown=True).order_by("slug")
        if club:
            found = Club.objects.filter(slug=club).first()
            if found is None:
                raise CommandError(f"No club {club!r}.")
            if not found.keeps_brambledown:
                raise CommandError(f"{found.name} does not keep Brambledown grades.")
            clubs = [found]
        schemes_catch_up()  # the steps' entries first, so the quarter closes with all of them
        for target in clubs:
            update = brambledown_regrade_club(club=target, quarter=wanted)
            closed = ", ".join(update.closed) if update.closed else f"{wanted} already closed"
            self.stdout.write(
                f"{target.slug}: {closed}; open quarter {update.open_quarter}, "
                f"{update.sessions} session{'s' if update.sessions != 1 else ''} rated"
            )
