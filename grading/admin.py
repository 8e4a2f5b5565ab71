"""Staff views of results, the ledger, grades and the audit log. Grades and the ledger are the
fold's output (S5.4) and the audit log is append-only, so they are read-only here: changes go
through uploads, withdrawals and `replay`."""

from django.contrib import admin

from grading.common.admin import ReadOnlyAdmin
from grading.models import (
    AuditEvent,
    CurrentGrade,
    LedgerEntry,
    PartnershipGrade,
    SessionGrade,
    SessionVersion,
    Upload,
)


class HidesPrivateGradesAdmin(ReadOnlyAdmin):
    """S13: another member's private grade is seen by no one, staff included (S7). Rows of a
    member who keeps their grade private are not listed, nor reachable by their id."""

    member_fields: tuple[str, ...] = ("member",)

    def get_queryset(self, request):
        rows = super().get_queryset(request)
        for field in self.member_fields:
            rows = rows.exclude(**{f"{field}__grade_private": True})
        return rows


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created", "action", "actor", "club", "subject"]
    list_filter = ["action", "club"]
    search_fields = ["subject", "actor", "club"]
    date_hierarchy = "created"


@admin.register(Upload)
class UploadAdmin(ReadOnlyAdmin):
    list_display = ["created", "club", "filename", "status", "uploaded_by"]
    list_filter = ["status", "club"]
    search_fields = ["filename", "sha256"]
    exclude = ["content"]


@admin.register(SessionVersion)
class SessionVersionAdmin(ReadOnlyAdmin):
    list_display = ["session", "number", "state", "scoring", "sof", "known_pairs", "total_pairs"]
    list_filter = ["state", "scoring"]
    list_select_related = ["session__event"]
    exclude = ["payload"]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["seq", "operation", "version", "params_name", "created"]
    list_filter = ["operation"]
    list_select_related = ["version__session__event"]


@admin.register(SessionGrade)
class SessionGradeAdmin(HidesPrivateGradesAdmin):
    # A row's par, SOpp and grade before give its partner's grade: a private partner's too.
    member_fields = ("member", "partner")
    list_display = ["date", "member", "session_grade", "grade_after", "reason", "live"]
    list_filter = ["live"]
    search_fields = ["member__national_number", "member__name"]
    list_select_related = ["member"]
    raw_id_fields = ["member", "partner", "version", "entry"]


@admin.register(CurrentGrade)
class CurrentGradeAdmin(HidesPrivateGradesAdmin):
    list_display = ["member", "grade", "status", "band", "boards_in_window", "as_of"]
    list_filter = ["status", "band"]
    search_fields = ["member__national_number", "member__name"]
    list_select_related = ["member"]


@admin.register(PartnershipGrade)
class PartnershipGradeAdmin(HidesPrivateGradesAdmin):
    member_fields = ("member_a", "member_b")
    list_display = ["member_a", "member_b", "grade", "boards_together", "shown"]
    list_select_related = ["member_a", "member_b"]
