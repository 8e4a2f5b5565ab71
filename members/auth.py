"""Authentication that reads, in the same query as the user, what every signed-in page asks
about them: their membership (``members.selectors.member_for_user``) and whether they administer
a club (the navigation lists those clubs only then)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db.models import Exists, OuterRef

from clubs.models import ClubRole


class MemberBackend(ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        try:
            user = (
                model._default_manager.select_related("member")
                .annotate(
                    administers_a_club=Exists(
                        ClubRole.objects.filter(
                            member__user=OuterRef("pk"), role=ClubRole.Role.ADMIN
                        )
                    )
                )
                .get(pk=user_id)
            )
        except model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
