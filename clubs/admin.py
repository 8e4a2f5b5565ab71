from django.contrib import admin

from clubs.models import Club, ClubRole


class ClubRoleInline(admin.TabularInline):
    model = ClubRole
    raw_id_fields = ["member"]
    extra = 0


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "national_number", "keeps_brambledown"]
    list_editable = ["keeps_brambledown"]
    search_fields = ["name", "slug", "national_number"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [ClubRoleInline]


@admin.register(ClubRole)
class ClubRoleAdmin(admin.ModelAdmin):
    list_display = ["member", "club", "role"]
    list_filter = ["role", "club"]
    raw_id_fields = ["member"]
