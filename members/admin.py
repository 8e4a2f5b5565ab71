from django.contrib import admin

from members.models import Member


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["national_number", "name", "user", "grade_private"]
    search_fields = ["national_number", "name"]
    list_filter = ["grade_private"]
    raw_id_fields = ["user"]
