"""Views of the member and public grade API: thin, over the selectors the pages use."""

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
)
from rest_framework import parsers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.models import Club
from clubs.services import ExemptionRefused
from grading.common.api_docs import ApiPagination, errors, path_parameter
from members.api.serializers import (
    DistributionSerializer,
    ExemptionInSerializer,
    ExemptionSerializer,
    ExplanationSerializer,
    ForecastSerializer,
    GradeCardSerializer,
    HistoryRowSerializer,
    HostExemptionsSerializer,
    NumberSerializer,
    PartnerSerializer,
    PrivacySerializer,
    PublicMemberSerializer,
    SearchQuerySerializer,
    TopQuerySerializer,
    TopSerializer,
)
from members.forms import ForecastForm, HistoryFilterForm, HostExemptionForm
from members.selectors import base, exemptions
from members.selectors import card as cards
from members.selectors import explain as explanations
from members.selectors import forecast as forecasts
from members.selectors import history as histories
from members.selectors import partners as partner_reads
from members.selectors import public as public_lists
from members.services import exemption_request_make, member_privacy_set


class MemberAPIView(APIView):
    permission_classes = [IsAuthenticated]

    def member(self, request):
        member = base.member_for_user(user=request.user)
        if member is None:
            raise NotFound("This login is not linked to a membership number.")
        return member


# A member's own data: 403 without a login, 404 for a login that is not linked to a member.
MINE = errors(403, 404)


class GradeCardAPI(MemberAPIView):
    @extend_schema(responses={200: GradeCardSerializer, **MINE}, summary="Your grade card (S4)")
    def get(self, request):
        card = cards.grade_card(member=self.member(request))
        return Response(GradeCardSerializer(card).data)


class HistoryPagination(ApiPagination):
    page_size = 25


# Ids in a query: a positive integer (issue 32 item 10: ``partner=0`` and ``club=0`` were
# allowed by the schema and answered 400). One that is not among the member's own is not found.
POSITIVE_ID = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}


def _not_yours(params, allowed: dict[str, set[int]]) -> None:
    """404 for a well-formed id (a positive integer) that is not one of the member's."""
    for name, values in allowed.items():
        raw = params.get(name, "")
        if raw.isascii() and raw.isdigit() and len(raw) < 19 and 0 < int(raw) not in values:
            raise NotFound(f"No {name} {int(raw)} among yours.")


class HistoryAPI(MemberAPIView):
    pagination_class = HistoryPagination

    @extend_schema(
        responses={200: HistoryRowSerializer(many=True), **errors(400, 403, 404)},
        summary="Your session history, newest first",
        parameters=[
            OpenApiParameter(n, POSITIVE_ID, required=False, description=f"one of your {what}")
            for n, what in (("club", "clubs' ids"), ("partner", "partners' ids"), ("year", "years"))
        ],
    )
    def get(self, request):
        member = self.member(request)
        choices = histories.history_choices(member=member)
        _not_yours(
            request.query_params,
            {
                "club": {k for k, _ in choices.clubs},
                "partner": {k for k, _ in choices.partners},
                "year": set(choices.years),
            },
        )
        form = HistoryFilterForm(request.query_params or None, choices=choices)
        if form.is_bound and not form.is_valid():
            raise ValidationError(form.errors)
        data = form.cleaned_data if form.is_bound else {}
        rows = histories.history_filtered(
            member=member,
            filters=histories.HistoryFilters(
                data.get("club"), data.get("partner"), data.get("year")
            ),
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(rows, request, view=self)
        out = histories.history_decorate(member=member, rows=page)
        return paginator.get_paginated_response(HistoryRowSerializer(out, many=True).data)


class ExplainAPI(MemberAPIView):
    @extend_schema(
        responses={200: ExplanationSerializer, **MINE},
        parameters=[
            path_parameter(
                "session_id",
                "int",
                "the session's id (a history row's session_id): it stays the same when grades "
                "are recomputed or the session is corrected",
            )
        ],
        summary="Explain one session (S3.2-S3.5)",
    )
    def get(self, request, session_id: int):
        member = self.member(request)
        grade_id = explanations.session_grade_id(member=member, session_id=session_id)
        explanation = (
            None
            if grade_id is None
            else explanations.session_explain(member=member, grade_id=grade_id)
        )
        if explanation is None:
            raise NotFound("No such session in your history.")
        return Response(ExplanationSerializer(explanation).data)


class ExplainByGradeAPI(MemberAPIView):
    @extend_schema(
        responses={200: ExplanationSerializer, **MINE},
        parameters=[
            path_parameter(
                "grade_id",
                "int",
                "a history row's id: it changes when grades are recomputed or the session is "
                "corrected; use /api/v1/me/sessions/session/{session_id}/",
            )
        ],
        summary="Explain one session, by a history row's id (deprecated)",
        deprecated=True,
    )
    def get(self, request, grade_id: int):
        explanation = explanations.session_explain(member=self.member(request), grade_id=grade_id)
        if explanation is None:
            raise NotFound("No such session in your history.")
        return Response(ExplanationSerializer(explanation).data)


class PartnersAPI(MemberAPIView):
    @extend_schema(
        responses={200: PartnerSerializer(many=True), **MINE}, summary="Your partnerships (S6)"
    )
    def get(self, request):
        rows = partner_reads.partnerships(member=self.member(request))
        return Response(PartnerSerializer(rows, many=True).data)


GRADE = {"type": "number", "minimum": 20, "maximum": 90}
THRESHOLD = {"type": "number", "minimum": 0, "maximum": 100}


class ForecastAPI(MemberAPIView):
    @extend_schema(
        responses={200: ForecastSerializer, **errors(400, 403, 404)},
        summary="What do I need tonight? (FR 5)",
        parameters=[
            OpenApiParameter("partner", POSITIVE_ID, description="one of your partners' ids"),
            OpenApiParameter(
                "partner_grade",
                GRADE,
                description="…or their grade",
                examples=[OpenApiExample("typed", value=52.5)],
            ),
            OpenApiParameter("series", str, description="club id:event name"),
            OpenApiParameter(
                "field_strength",
                GRADE,
                description="…or the field's",
                examples=[OpenApiExample("typed", value=48)],
            ),
            OpenApiParameter(
                "boards",
                {"type": "integer", "minimum": 1, "maximum": 100},
                description="default 24",
            ),
            OpenApiParameter(
                "threshold",
                THRESHOLD,
                description="your own threshold: the chance of scoring "
                "more than it is given as `asked` (S3.5)",
                examples=[OpenApiExample("typed", value=58)],
            ),
        ],
    )
    def get(self, request):
        member = self.member(request)
        card = cards.grade_card(member=member)
        if not card.has_grade:
            raise ValidationError(
                {"detail": "You have no grade yet, so there is nothing to forecast."}
            )
        # Not one of the member's partners: 404; a partner whose grade is private: 400 (below).
        rows = partner_reads.partnerships(member=member)
        _not_yours(request.query_params, {"partner": {r.partner.pk for r in rows}})
        partners = forecasts.forecast_partners(member=member, rows=rows)
        form = ForecastForm(
            request.query_params,
            partners=partners,
            series=forecasts.club_series(member=member),
        )
        if not form.is_valid():
            raise ValidationError(form.errors)
        result = forecasts.forecast_build(own_grade=card.grade, **form.resolved())
        return Response(ForecastSerializer(result).data)


class PrivacyAPI(MemberAPIView):
    # JSON only: a form body without ``private`` would read as false and publish the grade.
    parser_classes = [parsers.JSONParser]

    @extend_schema(
        responses={200: PrivacySerializer, **MINE}, summary="Whether your grade is private (S7)"
    )
    def get(self, request):
        return Response({"private": self.member(request).grade_private})

    @extend_schema(
        request=PrivacySerializer,
        responses={200: PrivacySerializer, **errors(400, 403, 404, 415)},
        summary="Make your grade private or public (S7)",
    )
    def put(self, request):
        serializer = PrivacySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        member = member_privacy_set(
            member=self.member(request), private=serializer.validated_data["private"]
        )
        return Response({"private": member.grade_private})


class HostExemptionAPI(MemberAPIView):
    parser_classes = [parsers.JSONParser]

    @extend_schema(
        responses={200: HostExemptionsSerializer, **MINE},
        summary="Your host-exemption requests, and the sessions open to one (S3.9)",
    )
    def get(self, request):
        member = self.member(request)
        return Response(
            HostExemptionsSerializer(
                {
                    "requests": exemptions.exemption_requests(member=member),
                    "open_sessions": exemptions.planned_sessions_open(
                        member=member, now=timezone.now()
                    ),
                }
            ).data
        )

    @extend_schema(
        request=ExemptionInSerializer,
        responses={201: ExemptionSerializer, **errors(400, 403, 404, 415)},
        summary="Ask to host a planned session with your partner (S3.9)",
    )
    def post(self, request):
        member = self.member(request)
        incoming = ExemptionInSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        sessions = exemptions.planned_sessions_open(member=member, now=timezone.now())
        if not sessions.filter(pk=incoming.validated_data["planned_session"]).exists():
            raise NotFound("No planned session open to your requests has that id.")
        form = HostExemptionForm(incoming.validated_data, sessions=sessions, partners=[])
        if not form.is_valid():
            raise ValidationError(form.errors)
        try:
            made = exemption_request_make(
                member=member,
                partner=form.cleaned_data["partner_member"],
                planned_session=form.cleaned_data["planned_session"],
                now=timezone.now(),
            )
        except ExemptionRefused as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(ExemptionSerializer(made).data, status=status.HTTP_201_CREATED)


class TopGradesAPI(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: TopSerializer(many=True), **errors(400, 404)},
        summary="Top published grades (S7)",
        parameters=[TopQuerySerializer],
    )
    def get(self, request):
        query = TopQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        slug = query.validated_data.get("club")
        club = get_object_or_404(Club, slug=slug) if slug else None
        return Response(TopSerializer(public_lists.top_grades(club=club), many=True).data)


class BandsAPI(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses=DistributionSerializer(many=True),
        summary="Members by band, national then per club (counts only, S7)",
    )
    def get(self, request):
        national, clubs = public_lists.band_distributions()
        return Response(DistributionSerializer([national, *clubs], many=True).data)


class PublicMemberAPI(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: PublicMemberSerializer, **errors(404)},
        parameters=[
            path_parameter(
                "number",
                "str",
                "the membership number; spaces and leading zeros are ignored (S14.2)",
            )
        ],
        summary="A member's published grade (S7)",
    )
    def get(self, request, number: str):
        # A value no membership number can be (a NUL, say) is simply not found.
        valid = NumberSerializer(data={"number": number}).is_valid()
        view = public_lists.public_member(number=number, viewer=request.user) if valid else None
        if view is None:
            raise NotFound("No member has that number.")
        return Response(PublicMemberSerializer(view).data)


class MemberSearchAPI(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: TopSerializer(many=True), **errors(400)},
        summary="Find members by name, among published grades (S7)",
        parameters=[SearchQuerySerializer],
    )
    def get(self, request):
        query = SearchQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = public_lists.member_search(query=query.validated_data["q"])
        return Response(TopSerializer(rows, many=True).data)
