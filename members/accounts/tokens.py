"""API tokens, made by their owner only (S14.25; issue 32 item 1: staff made a token for any
login in the admin and read that member's private grade through ``/api/v1/me/``).

A member makes their token on their own page (``/accounts/api-token/``): the key is shown once,
in the answer to that request, and only its digest is stored (DRF's ``Token.key`` holds the
first 40 hex digits of the key's SHA-256), so neither the database nor the admin can give it
back. The owner revokes it there; staff revoke any token in the admin but cannot make one (the
admin's "add" is off). Creation and revocation go to the audit log.
"""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from grading.common.audit import audit_record
from grading.models import AuditEvent

KEY_BYTES = 30  # 40 characters once written in URL-safe base64


def token_key_digest(key: str) -> str:
    """What is stored for ``key``: 40 hex digits of its SHA-256 (``Token.key`` is 40 long)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def api_token_of(*, user) -> Token | None:
    """The user's token (its digest and date), or None."""
    return Token.objects.filter(user=user).first()


@transaction.atomic
def api_token_create(*, user) -> str:
    """Make ``user``'s API token, replacing any earlier one, and return the key: the only time it
    exists outside the request. Only the owner's own page calls this (S14.25)."""
    replaced = Token.objects.filter(user=user).delete()[0] > 0
    key = secrets.token_urlsafe(KEY_BYTES)
    Token.objects.create(user=user, key=token_key_digest(key))
    audit_record(
        action=AuditEvent.Action.TOKEN_CREATE,
        subject=f"API token of {user.get_username()}",
        actor=user,
        replaced=replaced,
    )
    return key


@transaction.atomic
def api_token_revoke(*, owner, actor) -> bool:
    """Revoke ``owner``'s token; ``actor`` is the owner or staff. False when there was none."""
    deleted = Token.objects.filter(user=owner).delete()[0] > 0
    if deleted:
        audit_record(
            action=AuditEvent.Action.TOKEN_REVOKE,
            subject=f"API token of {owner.get_username()}",
            actor=actor,
            by_owner=actor is not None and actor.pk == owner.pk,
        )
    return deleted


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's ``Authorization: Token <key>``, looked up by the key's digest."""

    def authenticate_credentials(self, key):
        try:
            token = Token.objects.select_related("user").get(key=token_key_digest(key))
        except Token.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
