import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


def new_pages_version() -> int:
    return secrets.randbits(63)


class Member(models.Model):
    """A person known by their national membership number (S1, S14.2).

    The number is stored normalised (no spaces, no leading zeros); the constraint makes the
    database refuse any other spelling, so one person can never become two members.
    """

    national_number = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="member",
    )
    grade_private = models.BooleanField(
        default=False, help_text="Hide the grade from everyone but the member (S7)."
    )
    created = models.DateTimeField(auto_now_add=True)
    # Part of the cache key of the member's own pages (members/pagecache.py): a new random
    # value in the same transaction as every write that changes what those pages show. Random,
    # not counted: after a restore or a reset that reuses ids, no page kept before can match.
    pages_version = models.PositiveBigIntegerField(default=new_pages_version, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(national_number__startswith="0")
                & ~Q(national_number__contains=" ")
                & ~Q(national_number=""),
                name="member_number_normalised",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.national_number})"
