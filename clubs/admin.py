from django.contrib import admin

from clubs.models import Club, ClubEstimate, ClubRole, ClubStrata
from grading.common.admin import ReadOnlyAdmin
from grading.common.stale import club_pages_invalidate


class ClubRoleInline(admin.TabularInline):
    model = ClubRole
    raw_id_fields = ["member"]
    extra = 0


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "slug",
        "national_number",
        "keeps_brambledown",
        "results_public",
        "results_emails",
    ]
    list_editable = ["keeps_brambledown"]
    list_filter = ["results_public", "results_emails"]
    search_fields = ["name", "slug", "national_number"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [ClubRoleInline]

    # The grade list is kept rendered (members/pagecache.py): its club's slug and roles
    # changed here show at once (the list page and its inline roles both end here).
    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        club_pages_invalidate(club_ids=[form.instance.pk])


@admin.register(ClubRole)
class ClubRoleAdmin(admin.ModelAdmin):
    list_display = ["member", "club", "role"]
    list_filter = ["role", "club"]
    raw_id_fields = ["member"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        moved_from = form.initial.get("club")  # a role moved to another club: both lists
        club_pages_invalidate(club_ids={obj.club_id} | ({moved_from} if moved_from else set()))

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        club_pages_invalidate(club_ids=[obj.club_id])

    def delete_queryset(self, request, queryset):
        clubs = set(queryset.values_list("club_id", flat=True))
        super().delete_queryset(request, queryset)
        club_pages_invalidate(club_ids=clubs)


class SetByTheClubAdmin(ReadOnlyAdmin):
    """Read-only: a club's administrators set these on the club's results settings page
    (``grading/results/``: the limits and grades checked there, S16), not staff."""


@admin.register(ClubStrata)
class ClubStrataAdmin(SetByTheClubAdmin):
    list_display = ["club", "event", "limits", "updated"]
    list_filter = ["club"]
    list_select_related = ["club", "event"]


@admin.register(ClubEstimate)
class ClubEstimateAdmin(SetByTheClubAdmin):
    """A club's estimate for a member whose grade is private or provisional (S16 strata): the
    club's own figure, never the member's grade."""

    list_display = ["member", "club", "grade", "updated"]
    list_filter = ["club"]
    search_fields = ["member__national_number", "member__name"]
    list_select_related = ["member", "club"]
