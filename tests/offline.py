"""The product works offline: every script and stylesheet a page loads is its own."""

import re

EXTERNAL = re.compile(r"""<(?:script|link)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""", re.I)


def assert_served_locally(html: str) -> None:
    """No script or stylesheet from another host (a CDN); plotly from the site's own files. (A
    plain "cdn" search also matched the CSRF token's random letters now and then.)"""
    assert "/static/vendor/plotly/plotly.min.js" in html
    assert not EXTERNAL.search(html), EXTERNAL.search(html).group(0)
