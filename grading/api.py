"""The upload API (issue 5): POST a results file, GET its state and summary (S12, S13)."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, parsers, permissions, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from clubs.models import Club
from clubs.selectors import user_can_administer
from grading.models import Upload
from grading.selectors import club_uploads, upload_progress
from grading.services import upload_create, upload_refuse_oversize


class UploadSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Upload
        fields = [
            "id", "filename", "size", "sha256", "status", "problems", "warnings", "summary",
            "created", "finished", "progress",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema(
        responses=inline_serializer(
            "UploadProgress",
            {
                "total": serializers.IntegerField(),
                "done": serializers.IntegerField(),
                "finished": serializers.BooleanField(),
                "percent": serializers.IntegerField(),
            },
        )
    )
    def get_progress(self, upload: Upload) -> dict:
        return upload_progress(upload=upload)


class UploadFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A USEBIO XML, PBN or S12.1 CSV results file.")


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


class UploadListCreate(ClubUploadMixin, generics.ListAPIView):
    """A club's uploads, newest first; POST a file to upload it."""

    serializer_class = UploadSerializer
    parser_classes = [parsers.MultiPartParser]

    def get_queryset(self):
        return club_uploads(club=self.club())

    @extend_schema(request=UploadFileSerializer, responses={201: UploadSerializer})
    def post(self, request, slug: str):
        club = self.club()
        incoming = UploadFileSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        uploaded = incoming.validated_data["file"]
        if uploaded.size > settings.UPLOAD_MAX_BYTES:
            upload = upload_refuse_oversize(
                club=club, user=request.user, filename=uploaded.name, size=uploaded.size
            )
        else:
            upload = upload_create(
                club=club, user=request.user, filename=uploaded.name, data=uploaded.read()
            )
        return Response(UploadSerializer(upload).data, status=status.HTTP_201_CREATED)


class UploadDetail(ClubUploadMixin, generics.RetrieveAPIView):
    """One upload: its state while grading, then its summary, problems and warnings."""

    serializer_class = UploadSerializer

    def get_object(self):
        return get_object_or_404(Upload, club=self.club(), pk=self.kwargs["pk"])
