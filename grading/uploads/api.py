"""The upload API (issue 5): POST a results file, GET its state and summary (S12, S13)."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_field,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import generics, parsers, permissions, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response

from clubs.models import Club
from clubs.selectors import user_can_administer
from grading.common.api_docs import CLUB_SLUG, ApiPagination, errors, path_parameter
from grading.common.uploadhandlers import too_many_files
from grading.models import Upload
from grading.uploads import wording
from grading.uploads.selectors import club_uploads, upload_progress
from grading.uploads.services import upload_receive, upload_refuse_oversize


class UploadSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Upload
        fields = [
            "id",
            "filename",
            "size",
            "sha256",
            "status",
            "problems",
            "warnings",
            "summary",
            "created",
            "finished",
            "progress",
        ]
        read_only_fields = fields

    @extend_schema(
        responses=inline_serializer(
            "UploadProgress",
            {
                "total": serializers.IntegerField(),
                "done": serializers.IntegerField(),
                "finished": serializers.BooleanField(),
                "percent": serializers.IntegerField(),
                "graded": serializers.IntegerField(help_text="new versions graded"),
                "not_graded": serializers.IntegerField(
                    help_text="new versions stored but not graded (the reasons are in summary)"
                ),
                "reasons": serializers.ListField(
                    child=serializers.ListField(child=serializers.CharField()),
                    help_text="[session, reason] of each version not graded",
                ),
            },
        )
    )
    def get_progress(self, upload: Upload) -> dict:
        return upload_progress(upload=upload)


@extend_schema_field({**build_basic_type(OpenApiTypes.BINARY), "minLength": 1})
class UploadedFileField(serializers.FileField):
    """A file part of the multipart body, not empty (drf-spectacular would call a FileField a
    URI, as it reads in a response)."""


class UploadFileSerializer(serializers.Serializer):
    file = UploadedFileField(help_text="A USEBIO XML, PBN or the product's CSV results file.")


class ClubAdministratorsOnly(permissions.BasePermission):
    """The club's administrators and staff (S13)."""

    message = "Only the club's administrators may upload or read its uploads."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated)


class ClubUploadMixin:
    permission_classes = [ClubAdministratorsOnly]

    def club(self) -> Club:
        club = get_object_or_404(Club, slug=self.kwargs["slug"])
        if not user_can_administer(user=self.request.user, club=club):
            raise PermissionDenied(ClubAdministratorsOnly.message)
        return club


@extend_schema_view(
    get=extend_schema(
        parameters=[CLUB_SLUG], responses={200: UploadSerializer(many=True), **errors(403, 404)}
    )
)
class UploadListCreate(ClubUploadMixin, generics.ListAPIView):
    """A club's uploads, newest first; POST a file to upload it: the answer comes at once with
    status ``received``; poll the upload until it is ``refused``, ``duplicate``, ``graded`` or
    ``failed`` (the file is checked and graded in the background)."""

    serializer_class = UploadSerializer
    parser_classes = [parsers.MultiPartParser]
    pagination_class = ApiPagination

    def get_queryset(self):
        return club_uploads(club=self.club())

    @extend_schema(
        request=UploadFileSerializer,
        parameters=[CLUB_SLUG],
        responses={201: UploadSerializer, **errors(400, 403, 404, 415)},
    )
    def post(self, request, slug: str):
        club = self.club()
        incoming = UploadFileSerializer(data=request.data)
        if too_many_files(request):  # refused before any file is read (issue 32 item 9)
            raise ValidationError(
                {"file": [wording.too_many_files(settings.UPLOAD_MAX_FILES_PER_REQUEST)]}
            )
        incoming.is_valid(raise_exception=True)
        uploaded = incoming.validated_data["file"]
        if uploaded.size > settings.UPLOAD_MAX_BYTES:
            upload = upload_refuse_oversize(
                club=club, user=request.user, filename=uploaded.name, size=uploaded.size
            )
        else:
            upload = upload_receive(
                club=club, user=request.user, filename=uploaded.name, data=uploaded.read()
            )
        return Response(UploadSerializer(upload).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(
        parameters=[CLUB_SLUG, path_parameter("id", "int", "the upload's id")],
        responses={200: UploadSerializer, **errors(403, 404)},
    )
)
class UploadDetail(ClubUploadMixin, generics.RetrieveAPIView):
    """One upload: its state while grading, then its summary, problems and warnings."""

    serializer_class = UploadSerializer

    def get_object(self):
        return get_object_or_404(Upload, club=self.club(), pk=self.kwargs["pk"])
