"""Security headers (issue 10): a Content-Security-Policy without inline scripts, and the
templates it relies on free of inline scripts and event-handler attributes."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)
HANDLER = re.compile(r"\son[a-z]+\s*=", re.I)


def test_no_template_has_an_inline_script_or_handler():
    offenders = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        for pattern in (INLINE_SCRIPT, HANDLER):
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                offenders.append(f"{path.relative_to(TEMPLATES)}:{line}: {match.group(0).strip()}")
    assert offenders == []


def test_the_checker_finds_inline_scripts():
    assert INLINE_SCRIPT.search("<script>alert(1)</script>")
    assert not INLINE_SCRIPT.search('<script src="/static/x.js" defer></script>')
    assert HANDLER.search('<button onclick="x()">')


@pytest.mark.django_db
def test_pages_send_the_policy(client):
    response = client.get(reverse("home"))
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
    assert "frame-ancestors 'none'" in policy
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "camera=()" in response.headers["Permissions-Policy"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["/members/a%00b/", "/grades/top/?club=a%00b", "/grades/bands/?club=%00"]
)
def test_a_nul_character_in_an_address_is_a_400_not_a_500(client, url):
    """Found by schemathesis: PostgreSQL cannot hold a NUL, so it failed the query (a 500)."""
    response = client.get(url)
    assert response.status_code == 400
    assert response["Content-Security-Policy"]  # the security headers still apply


@pytest.mark.django_db
def test_an_unknown_api_address_answers_json_and_a_page_address_html(client):
    api = client.get("/api/v1/no-such-thing/")
    assert (api.status_code, api["Content-Type"], api.json()) == (
        404,
        "application/json",
        {"detail": "Not found."},
    )
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
