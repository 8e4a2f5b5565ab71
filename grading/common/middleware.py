"""The product's own middleware: security headers Django 5.2 does not set itself (issue 10),
NUL characters refused in addresses, and a member's own grade kept out of every cache.
"""

from django.utils.cache import patch_cache_control

# No inline scripts anywhere: behaviour lives in static/js (charts read JSON data blocks).
# Styles allow 'unsafe-inline' because plotly and htmx set element styles.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
# Swagger UI (served from our own static files) starts itself with an inline script.
API_DOCS_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", "script-src 'self' 'unsafe-inline'"
)
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        policy = (
            API_DOCS_POLICY if request.path.startswith("/api/docs/") else (CONTENT_SECURITY_POLICY)
        )
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class RefuseNulMiddleware:
    """A NUL character in a page's path or query string is a 400: PostgreSQL cannot hold one,
    so it would otherwise reach a query and fail as a 500 (found by schemathesis on
    ``/members/<number>/`` and ``?club=``). The API answers for itself, as its schema documents
    (a 400 or 404 in JSON; tests/test_api_schema.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/"):
            return self.get_response(request)
        if (
            "\x00" in request.path
            or "\x00" in request.META.get("QUERY_STRING", "")
            or any("\x00" in value for values in request.GET.lists() for value in values[1])
        ):
            from django.http import HttpResponseBadRequest

            return HttpResponseBadRequest("A NUL character is not allowed in an address.")
        return self.get_response(request)


# Keep a member's own grade out of every cache but their own memory (issue 21 item 5).
#
# Every answer to a signed-in user (a page or an API answer with a session or a token) and every
# answer under the member's own addresses carries ``Cache-Control: private, no-store``: neither a
# shared proxy nor the browser's disk keeps it, so the next person at a club's computer cannot
# page back to someone's grade after they log out. Public pages for anonymous visitors are left
# as they are.
# The member's own pages and API answers (members/urls.py, grading/urls.py).
PRIVATE_PREFIXES = ("/me/", "/dashboard/", "/api/v1/me/")


def private_no_store(response):
    """Mark one response as never to be stored. Drops any public/max-age it carried."""
    if "Cache-Control" in response.headers:
        del response.headers["Cache-Control"]
    patch_cache_control(response, private=True, no_store=True)
    return response


class PrivateNoStoreMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # DRF's token authentication sets request.user during the view, so this reads the
        # user the view answered, whichever way they signed in.
        user = getattr(request, "user", None)
        signed_in = user is not None and user.is_authenticated
        if signed_in or request.path.startswith(PRIVATE_PREFIXES):
            private_no_store(response)
        return response
