"""Login throttling (issue 10, issue 21 item 5): repeated failures slow down, then lock, for one
username from one client address. Every form that checks a password or sends one goes through
here: the site's login, the admin's login and the password reset.

The lock is on the pair (username, client address): a stranger who knows a username cannot lock
its owner out from elsewhere, and members behind one shared address do not lock each other out.
The client address is the connection's, unless that connection comes from a proxy named in the
``TRUSTED_PROXIES`` setting, in which case it is read from the proxy's ``X-Forwarded-For``.

Counts live in the cache (Redis when REDIS_URL is set, shared by every web process), so nothing
is written to the database for an attacker's guesses. When the cache cannot be reached, the
counts are kept in this process's memory instead and a warning is logged (issue 32 item 7: the
throttle fails safe, neither locking everyone out nor letting guesses through uncounted).
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time
import unicodedata
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import REDIRECT_FIELD_NAME, get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, _unicode_ci_compare
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.db import connections
from django.urls import reverse, reverse_lazy

log = logging.getLogger(__name__)

FAILURES_BEFORE_LOCK = 5
LOCK_SECONDS = 15 * 60
WINDOW_SECONDS = 15 * 60
DELAY_PER_FAILURE = 0.25  # seconds added to each failed attempt after the first
LOCKED_MESSAGE = (
    "Too many failed attempts. Please wait 15 minutes before trying again, or ask your club's "
    "administrator to reset your password."
)
RESET_LOCKED_MESSAGE = (
    "Too many password reset requests for this address. Please wait 15 minutes and look in "
    "your email (and its spam folder) for the link we have already sent."
)


def throttle_name(username: str) -> str:
    """The username as authentication reads it, for the throttle's key (issue 32 item 4:
    ``demo-admi\uff4e`` logged in after ``demo-admin`` was locked). The login form strips the
    field and NFKC-normalises it before looking the user up, so every spelling that reaches the
    same user must count on one key; case-folded too, so ``DEMO-ADMIN`` counts with it."""
    text = unicodedata.normalize("NFKC", username.strip())
    return unicodedata.normalize("NFKC", text.casefold()).strip()


def _key(kind: str, username: str, address: str) -> str:
    pair = f"{throttle_name(username)}\0{address}"
    return f"login-fail:{kind}:{hashlib.sha256(pair.encode()).hexdigest()[:32]}"


# Where the counts go while the shared cache is down: this process's memory.
_local_counts = LocMemCache(
    "login-throttle-fallback", {"TIMEOUT": LOCK_SECONDS, "OPTIONS": {"MAX_ENTRIES": 20000}}
)


def _counted(operation):
    """``operation(cache)`` on the shared cache, or on this process's memory when the shared
    cache cannot be reached (issue 32 item 7)."""
    try:
        return operation(cache)
    except Exception:
        log.warning("Login throttle: the cache is unreachable; counting in this process")
        return operation(_local_counts)


def login_failures(*, username: str, address: str, kind: str = "login") -> int:
    key = _key(kind, username, address)
    return _counted(lambda counts: counts.get(key, 0))


def login_locked(
    *, username: str, address: str, kind: str = "login", limit: int = FAILURES_BEFORE_LOCK
) -> bool:
    return login_failures(username=username, address=address, kind=kind) >= limit


def login_failure_record(*, username: str, address: str, kind: str = "login") -> int:
    key = _key(kind, username, address)

    def record(counts) -> int:
        counts.add(key, 0, WINDOW_SECONDS)
        try:
            count = counts.incr(key)
        except ValueError:  # expired between add and incr
            counts.set(key, 1, WINDOW_SECONDS)
            count = 1
        if count >= FAILURES_BEFORE_LOCK:
            counts.touch(key, LOCK_SECONDS)
        return count

    return _counted(record)


def login_failures_clear(*, username: str, address: str) -> None:
    key = _key("login", username, address)
    _local_counts.delete(key)
    _counted(lambda counts: counts.delete(key))


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    for proxy in settings.TRUSTED_PROXIES:
        try:
            if ip in ipaddress.ip_network(proxy, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(request) -> str:
    """The address the request came from. ``X-Forwarded-For`` is believed only when the
    connection comes from a trusted proxy (``TRUSTED_PROXIES``), and then read from the right:
    the first address that is not itself a trusted proxy is the client's. Anyone else can put
    anything in that header, so without the setting it is ignored."""
    remote = request.META.get("REMOTE_ADDR", "")
    if not settings.TRUSTED_PROXIES or not _trusted(remote):
        return remote
    forwarded = [
        hop.strip()
        for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if hop.strip()
    ]
    for hop in reversed(forwarded):
        if not _trusted(hop):
            return hop
    return forwarded[0] if forwarded else remote


class LoginThrottleMixin:
    """For a LoginView: refuse while the pair is locked, slow down and count each failure."""

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        if login_locked(username=username, address=client_address(request)):
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, LOCKED_MESSAGE)
            return self.render_to_response(self.get_context_data(form=form, locked=True))
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        username = self.request.POST.get("username", "")
        failures = login_failure_record(username=username, address=client_address(self.request))
        if settings.LOGIN_THROTTLE_DELAY and failures > 1:
            time.sleep(min(DELAY_PER_FAILURE * (failures - 1), 2.0))
        return super().form_invalid(form)

    def form_valid(self, form):
        login_failures_clear(
            username=self.request.POST.get("username", ""), address=client_address(self.request)
        )
        return super().form_valid(form)


class ThrottledLoginView(LoginThrottleMixin, auth_views.LoginView):
    """The site's login page."""


class ThrottledAdminLoginView(LoginThrottleMixin, auth_views.LoginView):
    """The admin's login page (``/admin/login/``), with the same throttle as the site's."""

    form_class = AdminAuthenticationForm
    template_name = "admin/login.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(
            admin.site.each_context(self.request),
            title="Log in",
            subtitle=None,
            app_path=self.request.get_full_path(),
            username=self.request.user.get_username(),
        )
        if REDIRECT_FIELD_NAME not in self.request.GET and REDIRECT_FIELD_NAME not in (
            self.request.POST
        ):
            context[REDIRECT_FIELD_NAME] = reverse("admin:index")
        return context

    def get_default_redirect_url(self):
        return reverse("admin:index")


# Issue 32 item 10: one client address asked for resets of any number of emails (the count was
# per email): at most this many reset requests from one address in 15 minutes, whatever the
# emails.
RESETS_PER_ADDRESS = 20

# The reset email is written and sent off the request, so that the answer takes the same time
# for a known and an unknown address (it took 3 ms longer for a known one, 27 times in 28).
_reset_mail = ThreadPoolExecutor(max_workers=2, thread_name_prefix="reset-mail")
_reset_mail_pending: set[Future] = set()


def _reset_mail_send(send, *args, **kwargs) -> None:
    try:
        send(*args, **kwargs)
    except Exception:
        log.exception("The password reset email could not be sent")
    finally:
        connections.close_all()  # this thread's own, if the templates opened one


def reset_mail_wait(timeout: float = 10.0) -> None:
    """Wait until every reset email queued so far is sent (for tests and shutdown)."""
    wait(list(_reset_mail_pending), timeout=timeout)


class ResetForm(PasswordResetForm):
    email = forms.EmailField(
        label="Email address",
        max_length=254,
        widget=forms.TextInput(attrs={"inputmode": "email", "autocomplete": "email"}),
    )

    def get_users(self, email):
        """Django's, with the member read in the same query: the email's templates name them,
        and the mail is written in another thread."""
        field = get_user_model().get_email_field_name()
        users = get_user_model()._default_manager.filter(
            **{f"{field}__iexact": email, "is_active": True}
        )
        return (
            user
            for user in users.select_related("member")
            if user.has_usable_password() and _unicode_ci_compare(email, getattr(user, field))
        )

    def send_mail(self, *args, **kwargs):
        future = _reset_mail.submit(_reset_mail_send, super().send_mail, *args, **kwargs)
        _reset_mail_pending.add(future)
        future.add_done_callback(_reset_mail_pending.discard)


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    """Django's password reset by email, in the site's words. Each request counts against the
    pair (email address, client address): a sixth within 15 minutes is refused, so the form
    cannot be used to flood a member's mailbox or to probe many addresses quickly."""

    form_class = ResetForm
    template_name = "registration/password_reset_form.html"
    email_template_name = "emails/password_reset.txt"
    html_email_template_name = "emails/password_reset.html"
    subject_template_name = "emails/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form):
        email = form.cleaned_data["email"]
        address = client_address(self.request)
        if login_locked(username=email, address=address, kind="reset") or login_locked(
            username="", address=address, kind="reset-address", limit=RESETS_PER_ADDRESS
        ):
            form.add_error(None, RESET_LOCKED_MESSAGE)
            return self.render_to_response(self.get_context_data(form=form, locked=True))
        login_failure_record(username=email, address=address, kind="reset")
        login_failure_record(username="", address=address, kind="reset-address")
        return super().form_valid(form)
