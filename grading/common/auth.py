"""Login throttling (issue 10): repeated failures slow down, then lock, per username and per
client address. Counts live in the cache (Redis when REDIS_URL is set, shared by every web
process), so nothing is written to the database for an attacker's guesses."""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache

FAILURES_BEFORE_LOCK = 5
LOCK_SECONDS = 15 * 60
WINDOW_SECONDS = 15 * 60
DELAY_PER_FAILURE = 0.25  # seconds added to each failed attempt after the first


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"login-fail:{kind}:{digest}"


def _keys(username: str, address: str) -> list[str]:
    return [_key("user", username), _key("addr", address)]


def login_failures(*, username: str, address: str) -> int:
    return max(cache.get(key, 0) for key in _keys(username, address))


def login_locked(*, username: str, address: str) -> bool:
    return login_failures(username=username, address=address) >= FAILURES_BEFORE_LOCK


def login_failure_record(*, username: str, address: str) -> int:
    counts = []
    for key in _keys(username, address):
        cache.add(key, 0, WINDOW_SECONDS)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, WINDOW_SECONDS)
            count = 1
        if count >= FAILURES_BEFORE_LOCK:
            cache.touch(key, LOCK_SECONDS)
        counts.append(count)
    return max(counts)


def login_failures_clear(*, username: str) -> None:
    cache.delete(_key("user", username))


def client_address(request) -> str:
    return request.META.get("REMOTE_ADDR", "")


class ThrottledLoginView(auth_views.LoginView):
    """Django's login, refusing while locked and slowing down each failure."""

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        address = client_address(request)
        if login_locked(username=username, address=address):
            form = self.get_form()
            form.errors.clear()
            form.add_error(
                None,
                "Too many failed attempts. Please wait 15 minutes before trying again, or ask "
                "your club's administrator to reset your password.",
            )
            return self.render_to_response(self.get_context_data(form=form, locked=True))
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        username = self.request.POST.get("username", "")
        failures = login_failure_record(username=username, address=client_address(self.request))
        if settings.LOGIN_THROTTLE_DELAY and failures > 1:
            time.sleep(min(DELAY_PER_FAILURE * (failures - 1), 2.0))
        return super().form_invalid(form)

    def form_valid(self, form):
        login_failures_clear(username=form.get_user().get_username())
        return super().form_valid(form)
