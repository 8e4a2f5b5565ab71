"""``manage.py simulate``: a simulated bridge world's upload files, written out or imported.

--out DIR writes one file per club per session (named so that sorting the names gives the
upload order), ``truth.json`` (membership number -> true strength) and ``clubs.json``;
--load imports the same files through the product's upload service, in upload order, and
grades them. Deterministic for a seed.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from grading.lab.simulate import SimConfig, simulate


class Command(BaseCommand):
    help = "Simulate players, clubs and sessions, and write or import their results files."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=300)
        parser.add_argument("--clubs", type=int, default=4)
        parser.add_argument("--months", type=int, default=6)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--start", default="2025-01-06", help="first day, YYYY-MM-DD")
        parser.add_argument("--format", choices=("usebio", "csv"), default="usebio")
        parser.add_argument("--no-county", action="store_true", help="no county events")
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--out", help="directory to write the upload files into")
        target.add_argument("--load", action="store_true", help="import and grade the files")
        parser.add_argument("--truth", help="with --load: also write the truth file here")

    def handle(self, *args, **options):
        try:
            start = dt.date.fromisoformat(options["start"])
        except ValueError as exc:
            raise CommandError(f"--start: {exc}") from None
        if options["clubs"] < 1 or options["months"] < 1:
            raise CommandError("--clubs and --months must be at least 1")
        if options["players"] < 4 * options["clubs"]:
            raise CommandError("--players must be at least four per club")
        config = SimConfig(
            players=options["players"],
            clubs=options["clubs"],
            months=options["months"],
            seed=options["seed"],
            start=start,
            fmt=options["format"],
            county=not options["no_county"],
        )
        began = time.perf_counter()
        try:
            world = simulate(config)
        except (ValueError, IndexError) as exc:  # a world too small for its county events
            raise CommandError(
                f"This world is too small to simulate ({exc}): give more players per club, or "
                "--no-county."
            ) from None
        took = time.perf_counter() - began
        self.stdout.write(
            f"Simulated {len(world.population.people)} players, {len(world.clubs())} clubs, "
            f"{len(world.sessions)} sessions, {len(world.uploads)} uploads in {took:.1f} s."
        )
        if options["out"]:
            self._write(world, Path(options["out"]))
        else:
            self._load(world)
            if options["truth"]:
                Path(options["truth"]).write_text(json.dumps(world.truth(), indent=1))

    def _write(self, world, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        for upload in world.uploads:
            (out / upload.filename).write_bytes(upload.data)
        (out / "truth.json").write_text(json.dumps(world.truth(), indent=1))
        clubs = [
            {"slug": c.slug, "name": c.name, "national_number": c.national_number}
            for c in world.clubs()
        ]
        (out / "clubs.json").write_text(json.dumps(clubs, indent=1))
        self.stdout.write(f"Wrote {len(world.uploads)} files, truth.json and clubs.json to {out}.")

    def _load(self, world) -> None:
        from clubs.services import club_get_or_create
        from grading.ledger.step import versions_grade_pending
        from grading.models import Upload
        from grading.uploads.services import upload_create

        clubs = {
            c.slug: club_get_or_create(name=c.name, slug=c.slug, national_number=c.national_number)
            for c in world.clubs()
        }
        refused = 0
        began = time.perf_counter()
        for upload in world.uploads:
            result = upload_create(
                club=clubs[upload.club],
                filename=upload.filename,
                data=upload.data,
                future_dates=True,
            )
            versions_grade_pending()
            if result.status == Upload.Status.REFUSED:
                refused += 1
                self.stderr.write(f"{upload.filename} refused: {result.problems[:2]}")
        took = time.perf_counter() - began
        self.stdout.write(
            f"Imported {len(world.uploads)} uploads ({refused} refused) and graded them "
            f"in {took:.1f} s."
        )
