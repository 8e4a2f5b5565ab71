from django.contrib import admin

from members.models import Member


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["national_number", "name", "user", "grade_private"]
    search_fields = ["national_number", "name"]
    list_filter = ["grade_private"]
    raw_id_fields = ["user"]
    # S13: each member sets their own privacy (on their privacy page); staff do not set it.
    readonly_fields = ["grade_private"]
