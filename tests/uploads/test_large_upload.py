"""A 50 MB file through the upload page over a real socket (issue 10): refused with a clear
message, nothing stored, and never held whole in memory or on disk.

The body is a true multipart stream sent in 1 MB pieces to the live server (a thread of this
process, so ``tracemalloc`` sees the server's allocations too)."""

import http.client
import re
import tracemalloc
from urllib.parse import urlparse
from urllib.request import Request, urlopen

import pytest
from django.conf import settings
from django.core.files.uploadhandler import TemporaryFileUploadHandler

from grading.models import SessionVersion, Upload

FILE_BYTES = 50 * 1024 * 1024
PIECE = b"<x>" + b"a" * (1024 * 1024 - 7) + b"</x>"  # one reused 1 MB piece of a hostile file
BOUNDARY = "----grading-large-upload-test"
CSRF = "a" * 32  # an unmasked CSRF secret, sent as both cookie and form field


def multipart_head() -> bytes:
    return (
        f"--{BOUNDARY}\r\n"
        f'Content-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n{CSRF}\r\n'
        f"--{BOUNDARY}\r\n"
        f'Content-Disposition: form-data; name="files"; filename="huge.xml"\r\n'
        f"Content-Type: text/xml\r\n\r\n"
    ).encode()


def multipart_tail() -> bytes:
    return f"\r\n--{BOUNDARY}--\r\n".encode()


def stream_upload(url: str, path: str, session_cookie: str) -> tuple[int, str]:
    """POST the multipart body piece by piece; the test never holds the file either."""
    head, tail = multipart_head(), multipart_tail()
    pieces = FILE_BYTES // len(PIECE)
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
    conn.putrequest("POST", path)
    conn.putheader("Content-Type", f"multipart/form-data; boundary={BOUNDARY}")
    conn.putheader("Content-Length", str(len(head) + pieces * len(PIECE) + len(tail)))
    conn.putheader(
        "Cookie",
        f"{settings.SESSION_COOKIE_NAME}={session_cookie}; {settings.CSRF_COOKIE_NAME}={CSRF}",
    )
    conn.putheader("Referer", url)
    conn.endheaders()
    conn.send(head)
    for _ in range(pieces):
        conn.send(PIECE)
    conn.send(tail)
    response = conn.getresponse()
    status, location = response.status, response.getheader("Location", "")
    response.read()
    conn.close()
    return status, location


def warm_up(url: str, session_cookie: str) -> None:
    request = Request(url, headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session_cookie}"})
    with urlopen(request, timeout=60) as response:
        assert response.status == 200


@pytest.mark.slow
def test_a_50_mb_file_streamed_to_the_upload_page_is_refused_without_being_kept(
    live_server, club_admin, client, monkeypatch
):
    user, _, club = club_admin
    client.force_login(user)
    session_cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    written_to_disk = []
    to_disk = TemporaryFileUploadHandler.receive_data_chunk

    def counting(self, raw_data, start):
        written_to_disk.append(len(raw_data))
        return to_disk(self, raw_data, start)

    monkeypatch.setattr(TemporaryFileUploadHandler, "receive_data_chunk", counting)
    path = f"/clubs/{club.slug}/uploads/"
    warm_up(live_server.url + path, session_cookie)  # imports and first-request caches

    tracemalloc.start()
    try:
        status, location = stream_upload(live_server.url, path, session_cookie)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert status == 302, "the page answers (a redirect to the result), not a reset connection"
    upload = Upload.objects.get()
    assert upload.status == Upload.Status.REFUSED
    assert upload.filename == "huge.xml"
    assert not SessionVersion.objects.exists()
    problem = " ".join(str(p) for p in upload.problems)
    assert re.search(r"The file is 50\.0 MB; results files are limited to 10 MB", problem)
    # Neither memory nor disk ever held the file: the server kept at most the limit on disk
    # and a fraction of a megabyte in memory (measured: 0.26 MB for 12, 50 or 100 MB files).
    assert sum(written_to_disk) <= settings.UPLOAD_MAX_BYTES
    assert peak < 2 * 1024 * 1024, f"peak traced memory {peak / 1e6:.1f} MB"
    assert f"show={upload.pk}" in location
    shown = client.get(location)
    assert "limited to 10 MB" in shown.content.decode()


@pytest.mark.django_db
def test_an_oversize_file_beside_a_good_one_is_refused_alone(
    club_admin, client, settings, django_capture_on_commit_callbacks
):
    """The limit is per file (S12): in one POST, the good file is stored and the other refused
    with its true size, though the handler kept none of its bytes past the limit."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.csvfiles import csv_bytes, mp_session_rows

    user, _, club = club_admin
    client.force_login(user)
    good = csv_bytes(mp_session_rows())
    settings.UPLOAD_MAX_BYTES = len(good) + 10
    big = b"<x>" + b"a" * 3 * len(good) + b"</x>"
    files = [
        SimpleUploadedFile("good.csv", good, "text/csv"),
        SimpleUploadedFile("big.xml", big, "text/xml"),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/clubs/{club.slug}/uploads/", {"files": files})
    stored, refused = Upload.objects.order_by("pk")
    assert (stored.filename, refused.filename) == ("good.csv", "big.xml")
    assert stored.status != Upload.Status.REFUSED and SessionVersion.objects.count() == 1
    assert refused.status == Upload.Status.REFUSED
    assert refused.size == len(big)
