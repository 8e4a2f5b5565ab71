"""A real SMTP server for the email tests (aiosmtpd, on a free local port): messages arrive
over SMTP exactly as a mail server would take them, and it can refuse for a while."""

from __future__ import annotations

import email
import socket
from email.policy import default

import pytest


class Mailbox:
    """What the server received; ``refuse`` > 0 answers "451 try again later" to that many
    recipients first."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = 0
        self.refused = 0
        self.connections = 0

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        self.connections += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse > 0:
            self.refuse -= 1
            self.refused += 1
            return "451 4.3.0 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content, policy=default))
        return "250 Message accepted"

    def to(self, address: str) -> list[email.message.EmailMessage]:
        return [m for m in self.messages if address in m["To"]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def smtp_settings(settings, port: int) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 5


@pytest.fixture
def mailbox(settings):
    from aiosmtpd.controller import Controller

    box = Mailbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    smtp_settings(settings, port)
    try:
        yield box
    finally:
        controller.stop()


@pytest.fixture
def no_mail_server(settings):
    """Django pointed at a local port where nothing listens."""
    smtp_settings(settings, free_port())
