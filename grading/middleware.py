"""Security headers Django 5.2 does not set itself (issue 10)."""

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
        policy = API_DOCS_POLICY if request.path.startswith("/api/docs/") else (
            CONTENT_SECURITY_POLICY
        )
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
