"""Results files over the limit (S12) are counted as they stream in, never kept.

``SizeLimitUploadHandler`` runs first in ``FILE_UPLOAD_HANDLERS``. Once a file passes
``UPLOAD_MAX_BYTES`` it stops handing the file's chunks to the handlers after it (memory for small
files, a temporary file for larger ones), so a 50 MB file is drained from the socket in 64 KB
chunks and at most the limit is ever held. The view and the API then refuse it from its size, as
they refuse any oversize file, with a message saying how large it was.

It also counts the files of a request: past ``UPLOAD_MAX_FILES_PER_REQUEST`` it stops reading
the request (the rest is drained, not kept) and marks it (``too_many_files``), so the view and
the API answer at once that nothing was uploaded (issue 32 item 9: 50 files of 10 MB in one
request outlasted the server's timeout with 28 stored).
"""

import io

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload

TOO_MANY_FILES = "_upload_too_many_files"


def too_many_files(request) -> bool:
    """Whether the request carried more files than one request may (read its files first)."""
    return bool(getattr(request, TOO_MANY_FILES, False))


class OversizeFile(UploadedFile):
    """Stands for a file that was over the limit: its name and true size, none of its bytes."""

    def __init__(self, *, name: str, size: int, content_type: str, charset: str | None):
        super().__init__(
            io.BytesIO(), name=name, content_type=content_type, size=size, charset=charset
        )


class SizeLimitUploadHandler(FileUploadHandler):
    def __init__(self, request=None):
        super().__init__(request)
        self.files = 0

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.received = 0
        self.files += 1
        if self.files > settings.UPLOAD_MAX_FILES_PER_REQUEST:
            if self.request is not None:
                setattr(self.request, TOO_MANY_FILES, True)
            raise StopUpload(connection_reset=False)  # drain the rest, keep none of it

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        return None if self.oversize else raw_data  # None: later handlers never see it

    def file_complete(self, file_size):
        if not self.oversize:
            return None  # the next handler completes the file as usual
        return OversizeFile(
            name=self.file_name,
            size=self.received,
            content_type=self.content_type,
            charset=self.charset,
        )

    @property
    def oversize(self) -> bool:
        return self.received > settings.UPLOAD_MAX_BYTES
