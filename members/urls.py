"""Member pages (/me/...), public grade pages and their API. Included at the site root."""

app_name = "members"
urlpatterns: list = []
