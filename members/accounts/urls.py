"""The member's side of the accounts flows (/accounts/...)."""

from django.urls import path

from members.accounts import union_views, views

app_name = "accounts"
urlpatterns = [
    path("sign-up/", views.sign_up, name="sign-up"),
    path("sign-up/sent/", views.sign_up_sent, name="sign-up-sent"),
    path("api-token/", views.api_token, name="api-token"),
    path("invitation/<str:token>/", views.invitation, name="invitation"),
    path("administrator/<str:token>/", union_views.administrator, name="administrator"),
]
