"""Rebuild PPI and Brambledown from the stored ledger in bulk (S10, S11, S14.17): a database
built by COPY (the national builder), or a check that the step-by-step tables are right."""

import json as jsonlib

from django.core.management.base import BaseCommand

from grading.schemes.rebuild.folder import PROCESSES
from grading.schemes.rebuild.run import schemes_rebuild


class Command(BaseCommand):
    help = (
        "Rebuild every PPI and Brambledown table (and the schemes' log, if missing) from the "
        "stored sessions, in one transaction."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--processes",
            type=int,
            default=PROCESSES,
            help="2: the clubs' Brambledown folded in a second process beside PPI (default "
            "when the machine has more than one core)",
        )

    def handle(self, *args, **options):
        report = schemes_rebuild(
            progress=lambda line: self.stderr.write(line), processes=options["processes"]
        )
        if options["json"]:
            self.stdout.write(_dumps(report))
            return
        rows = report["rows"]
        self.stdout.write(
            f"{report['live']} live sessions; PPI for {rows['ppi_ratings']} members, "
            f"Brambledown at {rows['bd_clubs']} clubs; "
            f"{sum(report['seconds'].values()):.1f} s"
        )


def _dumps(report: dict) -> str:
    return jsonlib.dumps(report)
