"""Who may administer or belongs to a club (S13)."""

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from clubs.models import Club, ClubRole
from grading.common.compiled import CompiledQuery
from members.models import SignUpRequest
from members.selectors.base import member_for_user


def _sign_ups_waiting():
    """The count of sign-ups waiting for a club's answer (S15), read with the clubs the
    navigation lists, so the club pages' header costs no query of its own."""
    waiting = (
        SignUpRequest.objects.filter(
            club=OuterRef("pk"),
            status=SignUpRequest.Status.WAITING,
            member__user__isnull=True,
        )
        .order_by()
        .values("club")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(waiting, output_field=IntegerField()), 0)


def clubs_administered_by(*, user) -> QuerySet[Club]:
    if not user.is_authenticated:
        return Club.objects.none()
    if user.is_staff:
        return Club.objects.all()
    return Club.objects.filter(roles__member__user=user, roles__role=ClubRole.Role.ADMIN).distinct()


def clubs_with_admin_role(*, user) -> QuerySet[Club]:
    """Clubs where the user holds the administrator role (staff status aside)."""
    if not user.is_authenticated:
        return Club.objects.none()
    return Club.objects.filter(roles__member__user=user, roles__role=ClubRole.Role.ADMIN)


def admin_clubs(*, user) -> list[Club]:
    """The clubs where the user holds the administrator role, read once per request: kept on
    the user object, which lives as long as the request, for the navigation and the club pages
    alike. Signed in through members.auth.MemberBackend, the user already says whether there
    is any (no query then)."""
    if not user.is_authenticated or not getattr(user, "administers_a_club", True):
        return []
    clubs = getattr(user, "_admin_clubs", None)
    if clubs is None:
        member = member_for_user(user=user)  # read with the user (members.auth)
        clubs = user._admin_clubs = _admin_clubs_of(member.pk) if member is not None else []
    return clubs


def _admin_clubs_query(member_id: int) -> QuerySet[Club]:
    return Club.objects.filter(
        roles__member_id=member_id, roles__role=ClubRole.Role.ADMIN
    ).annotate(sign_ups_waiting=_sign_ups_waiting())


# Read on every club page: compiled once per process (grading/common/compiled.py).
_admin_clubs_of = CompiledQuery(_admin_clubs_query, markers=[-2_100_000_002])


def clubs_of_user(*, user) -> QuerySet[Club]:
    if not user.is_authenticated:
        return Club.objects.none()
    return Club.objects.filter(roles__member__user=user).distinct()


def user_can_administer(*, user, club: Club) -> bool:
    """Club administrators of this club and staff (S13)."""
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return ClubRole.objects.filter(club=club, member__user=user, role=ClubRole.Role.ADMIN).exists()


def club_members(*, club: Club) -> QuerySet[ClubRole]:
    return club.roles.select_related("member").order_by("member__name")
