from django.core.management import call_command
from django.core.management.base import BaseCommand

from members.models import Member


class Command(BaseCommand):
    help = "Run seed_demo only when the database holds no members (used by make run)."

    def handle(self, *args, **options):
        if Member.objects.exists():
            self.stdout.write("Database already has members: demo data not loaded.")
            return
        call_command("seed_demo", stdout=self.stdout)
