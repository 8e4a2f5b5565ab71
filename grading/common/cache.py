"""Keep a member's own grade out of every cache but their own memory (issue 21 item 5).

Every answer to a signed-in user (a page or an API answer with a session or a token) and every
answer under the member's own addresses carries ``Cache-Control: private, no-store``: neither a
shared proxy nor the browser's disk keeps it, so the next person at a club's computer cannot
page back to someone's grade after they log out. Public pages for anonymous visitors are left
as they are.
"""

from django.utils.cache import patch_cache_control

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
