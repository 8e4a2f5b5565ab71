import json

from django.core.management.base import BaseCommand

from grading.lab.registerbench import register_bench


class Command(BaseCommand):
    help = (
        "Time the member register's load (issue 27): a list of --members members loaded new, "
        "again unchanged, then with a tenth renamed; rolled back unless --keep."
    )

    def add_arguments(self, parser):
        parser.add_argument("--members", type=int, default=50_000)
        parser.add_argument("--keep", action="store_true")

    def handle(self, *args, members: int, keep: bool, **options):
        self.stdout.write(json.dumps(register_bench(members=members, keep=keep), indent=2))
