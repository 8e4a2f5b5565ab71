"""Serializers of the member and public grade API."""

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers


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
    grade = serializers.FloatField(
        help_text="your grade at the end of that day, from every result known now"
    )
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
    id = serializers.IntegerField(
        help_text="this row's own id: it changes when grades are recomputed or the session is "
        "corrected; address the session by session_id"
    )
    session_id = serializers.IntegerField(
        help_text="the session's id, for /api/v1/me/sessions/session/{session_id}/: it stays "
        "the same when grades are recomputed or the session is corrected"
    )
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
    sopp = serializers.FloatField(
        allow_null=True,
        help_text="null also where it is an average over fewer than 5 players that would give "
        "another member's private grade away",
    )
    par = serializers.FloatField(
        allow_null=True, help_text="null also where sopp is withheld: par would give it back"
    )
    excess = serializers.FloatField(
        allow_null=True, help_text="null also where sopp is withheld: excess would give it back"
    )
    session_grade = serializers.FloatField(allow_null=True)
    grade_before = serializers.FloatField(help_text="your grade when the session was graded")
    grade_after = serializers.FloatField(
        allow_null=True,
        help_text="your grade just after the session, when it was graded (a late upload is "
        "graded with the grades as they stood on arrival)",
    )
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
    sof = serializers.FloatField(
        allow_null=True,
        help_text="null also where it is an average over fewer than 5 players that would give "
        "another member's private grade away",
    )
    withdrawn = serializers.BooleanField()
    field = FieldSerializer(many=True)
    field_words = serializers.CharField(help_text="what the field's grades are")
    start_grades_shown = serializers.BooleanField(
        help_text="false where a grade in the field is private: the field's grades at the "
        "start are then not listed beside its average"
    )


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
    planned_session = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="an open planned session's id"
    )
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


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=100, help_text="words of the member's name")


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
