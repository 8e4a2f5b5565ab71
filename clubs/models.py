from django.db import models


class Club(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    national_number = models.CharField(
        max_length=20, blank=True, help_text="The club's national (EBU) club number, if any."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ClubRole(models.Model):
    """A member's place in a club. An administrator is a member of the club as well."""

    class Role(models.TextChoices):
        MEMBER = "member", "Member"
        ADMIN = "admin", "Administrator"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="roles")
    member = models.ForeignKey(
        "members.Member", on_delete=models.CASCADE, related_name="club_roles"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "member"], name="one_role_per_member_per_club")
        ]
        indexes = [models.Index(fields=["member", "role"])]

    def __str__(self) -> str:
        return f"{self.member} — {self.get_role_display()} of {self.club}"
