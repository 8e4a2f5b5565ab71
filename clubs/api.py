"""The clubs' API: the member autocomplete of the handicap form (names and numbers only)."""

from django.shortcuts import get_object_or_404
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.models import Club
from clubs.selectors import member_search, user_can_administer


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


class MemberSearchView(APIView):
    """``GET ?q=ali``: up to 20 of the club's members whose name contains it or whose number
    starts with it (and a visitor by exact number). No grades: the form looks those up."""

    permission_classes = [permissions.IsAuthenticated, ClubAdministrator]
    serializer_class = MemberSuggestionSerializer

    def get(self, request, slug: str):
        members = member_search(club=self.club, query=request.query_params.get("q", ""))
        return Response({"results": MemberSuggestionSerializer(members, many=True).data})
