"""The club's Members page (clubs/members_views.py), under /clubs/<slug>/members/."""

from django.urls import path

from clubs import members_views

app_name = "club_members"
urlpatterns = [
    path("<slug:slug>/members/", members_views.club_members_page, name="members"),
    path("<slug:slug>/members/invite/", members_views.club_member_invite, name="invite"),
    path(
        "<slug:slug>/members/invite-list/",
        members_views.club_member_invite_list,
        name="invite-list",
    ),
    path(
        "<slug:slug>/members/invite-register/",
        members_views.club_register_invite,
        name="invite-register",
    ),
    path(
        "<slug:slug>/members/sign-ups/<int:pk>/decide/",
        members_views.club_sign_up_decide,
        name="decide",
    ),
]
