from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from clubs.models import Club
from grading.ledger.step import versions_grade_pending
from grading.models import Upload
from grading.uploads.services import upload_import


class Command(BaseCommand):
    help = (
        "Import results files (USEBIO, PBN, CSV) through the upload service. With --club the "
        "file must belong to that club; without, the club is found from the file (its national "
        "club number, else its name) or created for a file that is accepted; a file naming no "
        "club is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--club", help="the club's slug")
        parser.add_argument("--sync", action="store_true", help="grade before returning")

    def handle(self, *args, files, club=None, sync=False, **options):
        target = None
        if club:
            target = Club.objects.filter(slug=club).first()
            if target is None:
                raise CommandError(f"No club with slug {club!r}.")
        refused = 0
        for path in files:
            if not path.is_file():
                raise CommandError(f"{path}: no such file.")
            upload = upload_import(filename=path.name, data=path.read_bytes(), club=target)
            refused += self.report(path, upload)
        if sync:
            self.stdout.write(f"Graded {versions_grade_pending()} pending session version(s).")
        if refused:
            raise CommandError(f"{refused} file(s) refused.")

    def report(self, path: Path, upload: Upload) -> int:
        club = upload.club.name if upload.club else "no club"
        self.stdout.write(f"{path}: {upload.get_status_display()} ({club})")
        for problem in upload.problems:
            self.stdout.write(f"  problem: {problem['location']}: {problem['message']}")
        for warning in upload.warnings[:20]:
            self.stdout.write(f"  warning: {warning['location']}: {warning['message']}")
        for session in upload.summary.get("sessions", []):
            self.stdout.write(
                f"  {session['event']} {session['date']}: {session['outcome']}, "
                f"{session['pairs']} pairs"
            )
        return upload.status == Upload.Status.REFUSED
