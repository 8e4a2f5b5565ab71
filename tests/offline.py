"""The product works offline: every script and stylesheet a page loads is its own."""

import re

PLOTLY_BASIC = "/static/vendor/plotly-basic/plotly-basic.min.js"
# The staff quality report draws histograms, which the basic bundle lacks: it loads the full one.
PLOTLY_FULL = "/static/vendor/plotly/plotly.min.js"
EXTERNAL = re.compile(r"""<(?:script|link)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""", re.I)


def assert_served_locally(html: str, plotly: str = PLOTLY_BASIC) -> None:
    """No script or stylesheet from another host (a CDN); plotly from the site's own files: the
    member and club pages load the partial bundle (scatter and bar only, issue 30), never also
    the 4.8 MB full one. (A plain "cdn" search also matched the CSRF token's random letters now
    and then.)"""
    assert plotly in html
    assert (PLOTLY_FULL if plotly == PLOTLY_BASIC else PLOTLY_BASIC) not in html  # one bundle
    assert not EXTERNAL.search(html), EXTERNAL.search(html).group(0)
