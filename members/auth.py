"""Authentication that reads a user's membership in the same query as the user: every signed-in
page asks for it (the navigation, ``members.selectors.member_for_user``)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class MemberBackend(ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        try:
            user = model._default_manager.select_related("member").get(pk=user_id)
        except model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
