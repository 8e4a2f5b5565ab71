"""The clubs' API: the member autocomplete of the handicap form (names and numbers only)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.models import Club
from clubs.selectors.access import user_can_administer
from clubs.selectors.search import member_search
from grading.common.api_docs import CLUB_SLUG, TextField, errors


class ClubAdministrator(permissions.BasePermission):
    """The club's administrators and staff (S13)."""

    message = "Only the club's administrators may search its members."

    def has_permission(self, request, view) -> bool:
        club = get_object_or_404(Club, slug=view.kwargs["slug"])
        view.club = club
        return user_can_administer(user=request.user, club=club)


class MemberSuggestionSerializer(serializers.Serializer):
    national_number = serializers.CharField()
    name = serializers.CharField()
    label = serializers.SerializerMethodField()

    def get_label(self, member) -> str:
        return f"{member.name} ({member.national_number})"


class MemberSearchQuerySerializer(serializers.Serializer):
    q = TextField(
        allow_blank=True,
        default="",
        help_text="part of a name, or the start of a membership number "
        "(fewer than 2 characters find nobody)",
    )


class MemberSearchResultsSerializer(serializers.Serializer):
    results = MemberSuggestionSerializer(many=True)


class MemberSearchView(APIView):
    """``GET ?q=ali``: up to 20 of the club's members whose name contains it or whose number
    starts with it (and a visitor by exact number). No grades: the form looks those up."""

    permission_classes = [permissions.IsAuthenticated, ClubAdministrator]

    @extend_schema(
        parameters=[CLUB_SLUG, MemberSearchQuerySerializer],
        responses={200: MemberSearchResultsSerializer, **errors(400, 403, 404)},
    )
    def get(self, request, slug: str):
        query = MemberSearchQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        members = member_search(club=self.club, query=query.validated_data["q"])
        return Response(MemberSearchResultsSerializer({"results": members}).data)
