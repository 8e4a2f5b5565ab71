"""PPI and Brambledown in the API (issue 8): the same selectors as the pages, so the same
privacy (S7). GET /api/v1/me/schemes/ (own figures) and GET /api/v1/clubs/<slug>/schemes/
(the club's published lists; club administrators and staff, S13)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.models import Club
from grading.common.api_docs import CLUB_SLUG, errors
from grading.models import BrambledownPoint, PPIPoint
from grading.privacy import viewer_member
from grading.schemes.selectors import club_schemes, member_schemes


class SuitSerializer(serializers.Serializer):
    symbol = serializers.CharField()
    name = serializers.CharField()


class PPIPointSerializer(serializers.Serializer):
    date = serializers.DateField()
    ppi = serializers.FloatField()
    boards = serializers.IntegerField()


class PPISerializer(serializers.Serializer):
    ppi = serializers.FloatField(allow_null=True)
    withheld = serializers.CharField()
    boards = serializers.IntegerField()
    boards_to_show = serializers.IntegerField()
    recent_boards = serializers.IntegerField()
    active = serializers.BooleanField()
    provisional = serializers.BooleanField()
    suit = SuitSerializer(allow_null=True)
    history = PPIPointSerializer(many=True)


class GradePointSerializer(serializers.Serializer):
    date = serializers.DateField()
    quarter = serializers.CharField()
    grade = serializers.IntegerField()
    reason = serializers.CharField()


class BrambledownSerializer(serializers.Serializer):
    club = serializers.CharField(source="club_slug")
    club_name = serializers.CharField()
    grade = serializers.IntegerField(allow_null=True)
    withheld = serializers.CharField()
    performances = serializers.IntegerField()
    tournaments = serializers.IntegerField(
        help_text="Graded tournaments to the end of the last quarter regraded, as on the "
        "club's lists (all so far before the first regrade)."
    )
    tournaments_since = serializers.IntegerField(
        help_text="Graded tournaments played after the last quarter regraded."
    )
    quarter = serializers.CharField()
    on_a_list = serializers.BooleanField()
    on_b_list = serializers.BooleanField()
    history = GradePointSerializer(many=True)


class MySchemesSerializer(serializers.Serializer):
    number = serializers.CharField()
    name = serializers.CharField()
    private = serializers.BooleanField()
    ppi = PPISerializer()
    brambledown = BrambledownSerializer(many=True)


class MySchemes(APIView):
    """The caller's own PPI and Brambledown grades, with their histories."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: MySchemesSerializer, **errors(403, 404)})
    def get(self, request):
        member = viewer_member(request.user)
        if member is None:
            raise NotFound("Your login is not linked to a member.")
        schemes = member_schemes(member=member, viewer=member)
        ppi = schemes.ppi
        ppi_history = PPIPoint.objects.filter(member=member).order_by("seq")
        data = {
            "number": member.national_number,
            "name": member.name,
            "private": member.grade_private,
            "ppi": {
                "ppi": ppi.ppi,
                "withheld": ppi.withheld,
                "boards": ppi.boards,
                "boards_to_show": ppi.boards_to_show,
                "recent_boards": ppi.recent_boards,
                "active": ppi.active,
                "provisional": ppi.provisional,
                "suit": {"symbol": ppi.suit.symbol, "name": ppi.suit.name} if ppi.suit else None,
                "history": [
                    {"date": p.date, "ppi": round(p.ppi, 2), "boards": p.boards}
                    for p in ppi_history
                ],
            },
            "brambledown": [
                {
                    **bd.__dict__,
                    "history": list(
                        BrambledownPoint.objects.filter(
                            member=member, club__slug=bd.club_slug
                        ).values("date", "quarter", "grade", "reason")
                    ),
                }
                for bd in schemes.brambledown
            ],
        }
        return Response(MySchemesSerializer(data).data)


class PPITopSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    number = serializers.CharField()
    name = serializers.CharField()
    ppi = serializers.FloatField()
    boards = serializers.IntegerField()
    active = serializers.BooleanField()
    suit = SuitSerializer()


class ListRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    number = serializers.CharField()
    name = serializers.CharField()
    grade = serializers.IntegerField()
    tournaments = serializers.IntegerField()
    in_quarter = serializers.IntegerField()
    partners = serializers.IntegerField(allow_null=True)


class PairRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    numbers = serializers.ListField(child=serializers.CharField())
    names = serializers.ListField(child=serializers.CharField())
    grades = serializers.ListField(child=serializers.IntegerField())
    grade = serializers.FloatField()
    tournaments = serializers.IntegerField()
    in_quarter = serializers.IntegerField()


class ClubSchemesSerializer(serializers.Serializer):
    club = serializers.CharField(source="club.slug")
    ppi_top = PPITopSerializer(many=True)
    keeps_brambledown = serializers.BooleanField()
    quarter = serializers.CharField()
    open_quarter = serializers.CharField()
    a_list = ListRowSerializer(many=True)
    b_list = ListRowSerializer(many=True)
    pairs_list = PairRowSerializer(many=True)
    withheld = serializers.IntegerField()


class ClubSchemesView(APIView):
    """A club's PPI top list and Brambledown lists (published figures only, S7); for the
    club's administrators and staff (S13)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CLUB_SLUG], responses={200: ClubSchemesSerializer, **errors(403, 404)}
    )
    def get(self, request, slug: str):
        club = get_object_or_404(Club, slug=slug)
        schemes = club_schemes(club=club, viewer=request.user)
        if not schemes.can_administer:
            raise PermissionDenied("Only the club's administrators may read its lists here.")
        return Response(ClubSchemesSerializer(schemes).data)
