from django.core.management.base import BaseCommand
from django.utils import timezone

from grading.site.demo import demo_plans_create, demo_results_import, demo_seed


class Command(BaseCommand):
    help = (
        "Create the demo clubs, members, logins, a year of results (each session uploaded a "
        "few days after play, the clubs interleaved, a few late or corrected) and planned "
        "sessions."
    )

    def add_arguments(self, parser):
        parser.add_argument("--no-results", action="store_true", help="people and logins only")

    def handle(self, *args, no_results: bool = False, **options):
        counts = demo_seed()
        today = timezone.localdate()
        uploaded = 0 if no_results else demo_results_import(today=today)
        if not no_results:
            demo_plans_create(today=today)
        self.stdout.write(
            f"Demo data ready: {counts['clubs']} clubs, {counts['members']} members, "
            f"{uploaded} result files uploaded now. "
            "Logins: demo-member, demo-admin, demo-staff (password = username; demo-staff is "
            "staff, not a superuser). Without EMAIL_HOST, emails (invitations, password "
            "resets) are printed in the server's output: copy the link from there."
        )
