"""The clubs' API (/api/v1/clubs/...)."""

app_name = "clubs-api"
urlpatterns: list = []
