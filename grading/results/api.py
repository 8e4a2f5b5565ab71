"""The member's choice of result emails through the API (S16): GET and PUT
``/api/v1/me/emails/`` with ``{"choice": "each" | "weekly" | "none"}``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import parsers, serializers
from rest_framework.response import Response

from grading.common.api_docs import errors
from grading.results.services import member_results_emails_set
from members.api.views import MemberAPIView
from members.models import Member


class EmailChoiceSerializer(serializers.Serializer):
    choice = serializers.ChoiceField(
        choices=Member.ResultsEmails.choices,
        help_text="each: an email after each session; weekly: a weekly summary; none: no emails",
    )


class EmailChoiceAPI(MemberAPIView):
    parser_classes = [parsers.JSONParser]

    @extend_schema(
        responses={200: EmailChoiceSerializer, **errors(403, 404)},
        summary="Which result emails you get (S16)",
    )
    def get(self, request):
        return Response({"choice": self.member(request).results_emails})

    @extend_schema(
        request=EmailChoiceSerializer,
        responses={200: EmailChoiceSerializer, **errors(400, 403, 404, 415)},
        summary="Choose the result emails you get: after each session, weekly, or none (S16)",
    )
    def put(self, request):
        serializer = EmailChoiceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        member = member_results_emails_set(
            member=self.member(request), choice=serializer.validated_data["choice"]
        )
        return Response({"choice": member.results_emails})
