"""The staff admin of members, their logins and API tokens (issue 21 item 5).

The link between a login and a member is shown, never edited: it is made only by the product's
own flows (members/accounts/: invitations and approved sign-ups), each in the audit log, so no
one (staff included) can link their own login to a member and read a private grade. Tokens are
made by their owner only, on their own page (``members/accounts/tokens.py``, S14.25; issue 32
item 1: staff made a token for any login here and read that member's private grade): the admin
lists who has one and revokes it, never adds one, and never prints a key (only its digest is
stored)."""

from django.contrib import admin
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from grading.common.admin import ReadOnlyAdmin
from grading.common.stale import member_pages_invalidate
from members.accounts.tokens import api_token_revoke
from members.models import Invitation, Member, ResultsEmail, SignUpRequest


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["national_number", "name", "user", "grade_private"]
    search_fields = ["national_number", "name"]
    list_filter = ["grade_private"]
    # S13: each member sets their own privacy (on their privacy page); staff do not set it.
    # The login is linked only through an invitation or an approved sign-up (audited); the
    # emails after grading are the member's own choice (S16), as their privacy is.
    readonly_fields = ["grade_private", "user", "results_emails"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        # A name or number changed here shows at once on the member's own pages and in the
        # grade lists of their clubs (members/pagecache.py).
        member_pages_invalidate(member_ids=[obj.pk])


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Read-only: invitations are sent from a club's Members page."""

    list_display = ["member", "email", "club", "invited_by", "created", "expires", "accepted"]
    search_fields = ["member__national_number", "member__name", "email"]
    exclude = ["token_digest"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SignUpRequest)
class SignUpRequestAdmin(admin.ModelAdmin):
    """Read-only: a club's administrators answer sign-ups on the club's Members page."""

    list_display = ["member", "name", "email", "status", "created", "decided_by", "decided_at"]
    list_filter = ["status"]
    search_fields = ["member__national_number", "member__name", "email"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ResultsEmail)
class ResultsEmailAdmin(ReadOnlyAdmin):
    """Read-only: the record of each email after grading (S16), written by the sender
    (``grading/results/sending.py``), whose unique row is what keeps a member from getting the
    same session twice: never added, changed or deleted here. The figures the email carried
    (the member's session grade and grade after, private ones too) are not shown (S7, S13);
    the status, attempts and next attempt are what support needs."""

    list_display = ["created", "member", "version", "status", "correction", "attempts", "sent"]
    list_filter = ["status", "correction"]
    search_fields = ["member__national_number", "member__name"]
    list_select_related = ["member", "version__session__event"]
    exclude = ["figures", "claim"]
    date_hierarchy = "created"


def _token_label(token) -> str:
    return f"API token of {token.user}"


class _TokenShown:
    """What the delete page prints for a token: its owner, not its key."""

    def __init__(self, token):
        self.pk = token.user_id
        self.label = _token_label(token)

    def __str__(self) -> str:
        return self.label


admin.site.unregister(TokenProxy)


@admin.register(TokenProxy)
class HiddenTokenAdmin(TokenAdmin):
    """DRF's token admin without the key (its ``str`` is the key, so every place the admin
    would print the object is given a label instead)."""

    list_display = ["user", "created", "delete_link"]
    list_display_links = None
    fields = ["user"]

    @admin.display(description="")
    def delete_link(self, token):
        url = reverse("admin:authtoken_tokenproxy_delete", args=[token.user_id])
        return format_html('<a href="{}">Delete</a>', url)

    def has_add_permission(self, request):
        # S14.25: a token is made by its owner only (their API token page), never by staff.
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        self.message_user(
            request,
            "A token is never shown; its owner makes a new one on their API token page.",
        )
        return HttpResponseRedirect(reverse("admin:authtoken_tokenproxy_changelist"))

    def delete_model(self, request, obj):
        api_token_revoke(owner=obj.user, actor=request.user)

    def delete_queryset(self, request, queryset):
        for token in queryset.select_related("user"):
            api_token_revoke(owner=token.user, actor=request.user)

    def get_deleted_objects(self, objs, request):
        _, count, perms, protected = super().get_deleted_objects(objs, request)
        return [_token_label(obj) for obj in objs], count, perms, protected

    def delete_view(self, request, object_id, extra_context=None):
        token = self.get_object(request, object_id)
        shown = {"object": _TokenShown(token)} if token else {}
        return super().delete_view(request, object_id, {**(extra_context or {}), **shown})

    def response_delete(self, request, obj_display, obj_id):
        return super().response_delete(request, "API token", obj_id)

    def _log(self, request, obj, flag: int, message) -> LogEntry:
        return LogEntry.objects.create(
            user_id=request.user.pk,
            content_type_id=ContentType.objects.get_for_model(obj, for_concrete_model=False).pk,
            object_id=str(obj.user_id),
            object_repr=_token_label(obj)[:200],
            action_flag=flag,
            change_message=message if isinstance(message, str) else "",
        )

    def log_addition(self, request, obj, message):
        return self._log(request, obj, ADDITION, message)

    def log_change(self, request, obj, message):
        return self._log(request, obj, CHANGE, message)

    def log_deletions(self, request, queryset):
        return [self._log(request, obj, DELETION, "") for obj in queryset]
