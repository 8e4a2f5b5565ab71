"""The evening pass's SMTP server (``grading.lab.evening``): an aiosmtpd server on a free
loopback port that keeps when each message arrived, to whom, and the results page it links."""

from __future__ import annotations

import email
import logging
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.policy import default as email_policy


@dataclass(frozen=True)
class Arrival:
    """One message as the SMTP server took it: when (epoch seconds), to whom, its subject's
    event, and the results page it links to."""

    at: float
    to: str
    event: str
    results_path: str


RESULTS_LINK = re.compile(r"https?://[^/\s]+(/results/\d+/(?:v\d+/)?)")


def arrival_of(raw: bytes, at: float) -> Arrival:
    """Read what the pass needs of one email after grading (``templates/emails/results_session``:
    the subject "Your result: <event>, <date>", the results link in the text)."""
    message = email.message_from_bytes(raw, policy=email_policy)
    subject = str(message["Subject"] or "")
    event = subject.partition(": ")[2].rpartition(", ")[0]
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    link = RESULTS_LINK.search(text)
    return Arrival(at, str(message["To"] or ""), event, link.group(1) if link else "")


@dataclass
class Mailbox:
    """The aiosmtpd handler: every message accepted, with its time of arrival."""

    arrivals: list[Arrival] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        arrival = arrival_of(envelope.content, time.time())
        with self.lock:
            self.arrivals.append(arrival)
        return "250 Message accepted"

    def count(self) -> int:
        with self.lock:
            return len(self.arrivals)

    def snapshot(self) -> list[Arrival]:
        with self.lock:
            return list(self.arrivals)


@contextmanager
def smtp_server() -> Iterator[tuple[Mailbox, int]]:
    """An SMTP server on a free loopback port, for as long as the block runs."""
    from aiosmtpd.controller import Controller  # the test extras: lab only

    from grading.lab.load import _free_port

    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every command
    box = Mailbox()
    port = _free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


def email_env(port: int) -> dict[str, str]:
    """The product's email settings (``grading/settings.py``) pointed at the pass's server."""
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_USE_TLS": "0",
        "EMAIL_HOST_USER": "",
        "EMAIL_HOST_PASSWORD": "",
        "EMAIL_TIMEOUT": "10",
    }
