"""``manage.py national``: build a national union's decade in an empty, migrated database
(issue 17; grading/lab/national.py). Defaults: 50,000 members, 400 clubs, 400,000 sessions."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from grading.lab.national import NATIONAL, national_build


class Command(BaseCommand):
    help = "Build a graded national-size database with COPY (an empty, migrated database)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=NATIONAL["players"])
        parser.add_argument("--clubs", type=int, default=NATIONAL["clubs"])
        parser.add_argument("--sessions", type=int, default=NATIONAL["sessions"])
        parser.add_argument("--years", type=int, default=NATIONAL["years"])
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--inputs-only",
            action="store_true",
            help="stop after the inputs, to time them (then: manage.py replay; manage.py "
            "schemes_rebuild)",
        )

    def handle(self, *args, **options):
        try:
            report = national_build(
                players=options["players"],
                sessions=options["sessions"],
                clubs=options["clubs"],
                seed=options["seed"],
                years=options["years"],
                grade=not options["inputs_only"],
                log=self.stderr.write,
            )
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(report) if options["json"] else str(report))
