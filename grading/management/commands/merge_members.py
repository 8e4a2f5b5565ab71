from django.core.management.base import BaseCommand, CommandError

from grading.staff.merge import MergeRefused, members_merge


class Command(BaseCommand):
    help = (
        "Merge a membership number into another (two numbers of one person): every result of "
        "MERGED becomes SURVIVOR's, the ledger is refolded, and both numbers find the member. "
        "Refused for two numbers that played in the same session."
    )

    def add_arguments(self, parser):
        parser.add_argument("merged")
        parser.add_argument("survivor")
        parser.add_argument("--reason", required=True, help="kept in the audit log")

    def handle(self, *args, merged: str, survivor: str, reason: str, **options):
        try:
            result = members_merge(merged=merged, survivor=survivor, reason=reason)
        except MergeRefused as refused:
            raise CommandError(str(refused)) from refused
        self.stdout.write(result.text())
