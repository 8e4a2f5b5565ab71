"""Authentication that reads, in the same query as the user, what every signed-in page asks
about them: their membership (``members.selectors.member_for_user``) and whether they administer
a club (the navigation lists those clubs only then).

A member may log in with their username or with their email address (issue 30): an address
that belongs to exactly one active login stands for its username; one shared by several logins
names none of them, and only the username works there.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db.models import Exists, OuterRef

from clubs.models import ClubRole
from grading.common.compiled import CompiledQuery


class MemberBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None or not username or "@" not in username:
            return user
        model = get_user_model()
        owners = list(
            model._default_manager.filter(email__iexact=username.strip(), is_active=True)[:2]
        )
        if len(owners) != 1:
            model().set_password(password)  # the same work as a wrong password (timing)
            return None
        owner = owners[0]
        if owner.check_password(password) and self.user_can_authenticate(owner):
            return owner
        return None

    def get_user(self, user_id):
        try:
            pk = int(user_id)
        except (TypeError, ValueError):
            return None
        found = _user_with_member(pk)
        if not found:
            return None
        user = found[0]
        return user if self.user_can_authenticate(user) else None


def _user_with_member_query(pk: int):
    return (
        get_user_model()
        ._default_manager.select_related("member")
        .annotate(
            administers_a_club=Exists(
                ClubRole.objects.filter(member__user=OuterRef("pk"), role=ClubRole.Role.ADMIN)
            )
        )
        .filter(pk=pk)
    )


# Read on every signed-in page: compiled once per process (grading/common/compiled.py).
_user_with_member = CompiledQuery(_user_with_member_query, markers=[-2_100_000_001])
