"""The member pages' API (/api/v1/me/...) and the public grade API (/api/v1/grades/...,
/api/v1/members/<number>/): the same selectors, so the same data and the same privacy (S7)."""

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import parsers, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.models import Club
from clubs.services import ExemptionRefused, exemption_request_create
from grading.common.api_docs import ApiPagination, errors, path_parameter
from members import selectors
from members.forms import ForecastForm, HistoryFilterForm, HostExemptionForm
from members.services import member_privacy_set

# --------------------------------------------------------------------------- serializers


@extend_schema_field(
    {
        "type": "string",
        "pattern": r"^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$",
        "description": "local time of day (the club's), no time zone",
    }
)
class LocalTimeField(serializers.TimeField):
    """A wall-clock time such as a session's start: OpenAPI's ``time`` format would promise a
    time-zone offset that the club's local times do not carry."""


class BandSerializer(serializers.Serializer):
    name = serializers.CharField()
    rank = serializers.CharField()
    suit = serializers.CharField()
    label = serializers.CharField()


class StatusSerializer(serializers.Serializer):
    code = serializers.CharField()
    label = serializers.CharField()
    meaning = serializers.CharField()
    next_label = serializers.CharField(allow_null=True)
    boards_to_next = serializers.IntegerField(allow_null=True)


class PointSerializer(serializers.Serializer):
    date = serializers.DateField()
    grade = serializers.FloatField()
    event = serializers.CharField()
    club = serializers.CharField()


class GradeCardSerializer(serializers.Serializer):
    number = serializers.CharField(source="member.national_number")
    name = serializers.CharField(source="member.name")
    has_grade = serializers.BooleanField()
    grade = serializers.FloatField(allow_null=True)
    band = BandSerializer(allow_null=True)
    status = StatusSerializer(allow_null=True)
    boards_in_window = serializers.IntegerField()
    sessions_in_window = serializers.IntegerField()
    padding_boards = serializers.IntegerField()
    last_session_date = serializers.DateField(allow_null=True)
    as_of = serializers.DateField(allow_null=True)
    private = serializers.BooleanField()
    points = PointSerializer(many=True)


class HistoryRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    date = serializers.DateField()
    club = serializers.CharField()
    event = serializers.CharField()
    scoring = serializers.CharField()
    scoring_label = serializers.CharField()
    partner = serializers.CharField()
    partner_number = serializers.CharField()
    boards = serializers.IntegerField()
    boards_reported = serializers.BooleanField()
    score = serializers.FloatField(allow_null=True)
    score_unit = serializers.CharField()
    sopp = serializers.FloatField(allow_null=True)
    par = serializers.FloatField(allow_null=True)
    excess = serializers.FloatField(allow_null=True)
    session_grade = serializers.FloatField(allow_null=True)
    grade_before = serializers.FloatField()
    grade_after = serializers.FloatField(allow_null=True)
    weight_percent = serializers.FloatField(allow_null=True)
    version = serializers.IntegerField()
    late = serializers.BooleanField()
    host = serializers.BooleanField()
    graded = serializers.BooleanField()
    reason = serializers.CharField()
    flags = serializers.ListField(child=serializers.CharField())


class StepSerializer(serializers.Serializer):
    label = serializers.CharField()
    words = serializers.CharField()
    value = serializers.CharField()


class FieldGradeSerializer(serializers.Serializer):
    def to_representation(self, instance):
        name, grade = instance
        return {"name": name, "grade": grade}


class FieldSerializer(serializers.Serializer):
    pair_id = serializers.CharField()
    direction = serializers.CharField()
    names = serializers.CharField()
    score = serializers.CharField()
    grades = FieldGradeSerializer(many=True)
    mine = serializers.BooleanField()


class ExplanationSerializer(serializers.Serializer):
    row = HistoryRowSerializer()
    steps = StepSerializer(many=True)
    movement = serializers.FloatField(allow_null=True)
    movement_words = serializers.CharField()
    faq12 = serializers.ListField(child=serializers.CharField())
    opponents_words = serializers.CharField()
    sof = serializers.FloatField(allow_null=True)
    withdrawn = serializers.BooleanField()
    field = FieldSerializer(many=True)


class PartnerSerializer(serializers.Serializer):
    number = serializers.CharField(source="partner.national_number")
    name = serializers.CharField(source="partner.name")
    sessions = serializers.IntegerField()
    boards = serializers.IntegerField()
    last_played = serializers.DateField(allow_null=True)
    partner_grade = serializers.FloatField(source="partner_grade.value", allow_null=True)
    partner_grade_text = serializers.CharField(source="partner_grade.text")
    partnership_grade = serializers.FloatField(allow_null=True)
    partnership_boards = serializers.IntegerField()
    partnership_shown = serializers.BooleanField()
    average = serializers.FloatField(allow_null=True)
    gel = serializers.FloatField(allow_null=True)


class ChanceSerializer(serializers.Serializer):
    threshold = serializers.FloatField(help_text="a session percentage")
    chance = serializers.FloatField(help_text="probability (0-1) of scoring more than it")

    def to_representation(self, instance):
        threshold, chance = instance
        return {"threshold": threshold, "chance": chance}


class ForecastSerializer(serializers.Serializer):
    own_grade = serializers.FloatField()
    partner_grade = serializers.FloatField()
    partner_label = serializers.CharField()
    field = serializers.FloatField()
    field_label = serializers.CharField()
    par_percent = serializers.FloatField()
    chances = ChanceSerializer(many=True)
    asked = ChanceSerializer(allow_null=True, help_text="the threshold asked, if any (S3.5)")
    boards = serializers.IntegerField()
    par_butler = serializers.FloatField()
    par_cross = serializers.FloatField()
    sd = serializers.FloatField()


class StrictBooleanField(serializers.BooleanField):
    """JSON ``true`` or ``false`` only: DRF's BooleanField would also take 0, 1, "yes", "off"
    and the like, which the schema does not promise."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class PrivacySerializer(serializers.Serializer):
    private = StrictBooleanField()


class ExemptionInSerializer(serializers.Serializer):
    planned_session = serializers.IntegerField(help_text="an open planned session's id")
    partner_number = serializers.CharField(
        max_length=20, help_text="your partner's membership number"
    )


class ExemptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.CharField(source="planned_session.club.name")
    event = serializers.CharField(source="planned_session.event_name")
    date = serializers.DateField(source="planned_session.date")
    start = LocalTimeField(source="planned_session.start")
    member = serializers.CharField(source="member.name")
    partner = serializers.CharField(source="partner.name")
    status = serializers.CharField()
    status_label = serializers.CharField(source="get_status_display")


class PlannedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.CharField(source="club.name")
    event = serializers.CharField(source="event_name")
    date = serializers.DateField()
    start = LocalTimeField()


class HostExemptionsSerializer(serializers.Serializer):
    requests = ExemptionSerializer(many=True)
    open_sessions = PlannedSerializer(many=True)


class TopQuerySerializer(serializers.Serializer):
    club = serializers.SlugField(
        required=False, allow_blank=True, help_text="a club's slug: its members only"
    )


class NumberSerializer(serializers.Serializer):
    number = serializers.CharField(max_length=20)


class TopSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    number = serializers.CharField()
    name = serializers.CharField()
    grade = serializers.FloatField()
    band = BandSerializer()
    status = serializers.CharField()


class BandCountSerializer(serializers.Serializer):
    band = serializers.CharField(source="band.name")
    count = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()


class DistributionSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    suppressed = serializers.BooleanField()
    total = serializers.IntegerField(allow_null=True, help_text="published grades counted")
    private = serializers.IntegerField(
        allow_null=True,
        help_text="private grades, counted apart and never by band (S7); null: fewer than 5",
    )
    private_text = serializers.CharField()
    bands = BandCountSerializer(many=True)


class PublicMemberSerializer(serializers.Serializer):
    number = serializers.CharField(source="member.national_number")
    name = serializers.CharField(source="member.name")
    grade = serializers.FloatField(source="grade.value", allow_null=True)
    grade_text = serializers.CharField(source="grade.text")
    band = BandSerializer(source="card", allow_null=True)
    status = serializers.CharField(allow_null=True)


# --------------------------------------------------------------------------- views


class MemberAPIView(APIView):
    permission_classes = [IsAuthenticated]

    def member(self, request):
        member = selectors.member_for_user(user=request.user)
        if member is None:
            raise NotFound("This login is not linked to a membership number.")
        return member


# A member's own data: 403 without a login, 404 for a login that is not linked to a member.
MINE = errors(403, 404)


class GradeCardAPI(MemberAPIView):
    @extend_schema(responses={200: GradeCardSerializer, **MINE}, summary="Your grade card (S4)")
    def get(self, request):
        card = selectors.grade_card(member=self.member(request))
        return Response(GradeCardSerializer(card).data)


class HistoryPagination(ApiPagination):
    page_size = 25


class HistoryAPI(MemberAPIView):
    pagination_class = HistoryPagination

    @extend_schema(
        responses={200: HistoryRowSerializer(many=True), **errors(400, 403, 404)},
        summary="Your session history, newest first",
        parameters=[OpenApiParameter(n, int, required=False) for n in ("club", "partner", "year")],
    )
    def get(self, request):
        member = self.member(request)
        form = HistoryFilterForm(
            request.query_params or None, choices=selectors.history_choices(member=member)
        )
        if form.is_bound and not form.is_valid():
            raise ValidationError(form.errors)
        data = form.cleaned_data if form.is_bound else {}
        rows = selectors.history_filtered(
            member=member,
            filters=selectors.HistoryFilters(
                data.get("club"), data.get("partner"), data.get("year")
            ),
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(rows, request, view=self)
        out = selectors.history_decorate(member=member, rows=page)
        return paginator.get_paginated_response(HistoryRowSerializer(out, many=True).data)


class ExplainAPI(MemberAPIView):
    @extend_schema(
        responses={200: ExplanationSerializer, **MINE},
        parameters=[path_parameter("grade_id", "int", "a session grade's id")],
        summary="Explain one session (S3.2-S3.5)",
    )
    def get(self, request, grade_id: int):
        explanation = selectors.session_explain(member=self.member(request), grade_id=grade_id)
        if explanation is None:
            raise NotFound("No such session in your history.")
        return Response(ExplanationSerializer(explanation).data)


class PartnersAPI(MemberAPIView):
    @extend_schema(
        responses={200: PartnerSerializer(many=True), **MINE}, summary="Your partnerships (S6)"
    )
    def get(self, request):
        rows = selectors.partnerships(member=self.member(request))
        return Response(PartnerSerializer(rows, many=True).data)


GRADE = {"type": "number", "minimum": 20, "maximum": 90}
THRESHOLD = {"type": "number", "minimum": 0, "maximum": 100}


class ForecastAPI(MemberAPIView):
    @extend_schema(
        responses={200: ForecastSerializer, **errors(400, 403, 404)},
        summary="What do I need tonight? (FR 5)",
        parameters=[
            OpenApiParameter("partner", int, description="one of your partners' ids"),
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
        card = selectors.grade_card(member=member)
        if not card.has_grade:
            raise ValidationError(
                {"detail": "You have no grade yet, so there is nothing to forecast."}
            )
        form = ForecastForm(
            request.query_params,
            partners=selectors.forecast_partners(member=member),
            series=selectors.club_series(member=member),
        )
        if not form.is_valid():
            raise ValidationError(form.errors)
        result = selectors.forecast_build(own_grade=card.grade, **form.resolved())
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
                    "requests": selectors.exemption_requests(member=member),
                    "open_sessions": selectors.planned_sessions_open(
                        member=member, today=timezone.localdate()
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
        form = HostExemptionForm(
            incoming.validated_data,
            sessions=selectors.planned_sessions_open(member=member, today=timezone.localdate()),
            partners=[],
        )
        if not form.is_valid():
            raise ValidationError(form.errors)
        try:
            made = exemption_request_create(
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
        return Response(TopSerializer(selectors.top_grades(club=club), many=True).data)


class BandsAPI(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses=DistributionSerializer(many=True),
        summary="Members by band, national then per club (counts only, S7)",
    )
    def get(self, request):
        national, clubs = selectors.band_distributions()
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
        view = selectors.public_member(number=number) if valid else None
        if view is None:
            raise NotFound("No member has that number.")
        return Response(PublicMemberSerializer(view).data)
