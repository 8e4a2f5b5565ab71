"""What the staff admin of every app shares."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Listed and opened, never added, changed or deleted here: records the product writes
    (the fold's output, the audit log, the emails sent) or that others set on their own pages."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
