"""The clubs' API (/api/v1/clubs/...)."""

from django.urls import path

from clubs.api import MemberSearchView

app_name = "clubs-api"
urlpatterns = [
    path("<slug:slug>/members/", MemberSearchView.as_view(), name="member-search"),
]
