from django.urls import path

from clubs import views

app_name = "clubs"
urlpatterns = [
    path("<slug:slug>/", views.club_dashboard, name="dashboard"),
]
