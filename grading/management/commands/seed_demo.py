from django.core.management.base import BaseCommand

from grading.demo import demo_seed


class Command(BaseCommand):
    help = "Create the demo clubs, members and logins (idempotent)."

    def handle(self, *args, **options):
        counts = demo_seed()
        self.stdout.write(
            f"Demo data ready: {counts['clubs']} clubs, {counts['members']} members. "
            "Logins: demo-member, demo-admin, demo-staff (password = username)."
        )
