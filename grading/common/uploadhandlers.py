"""Results files over the limit (S12) are counted as they stream in, never kept.

``SizeLimitUploadHandler`` runs first in ``FILE_UPLOAD_HANDLERS``. Once a file passes
``UPLOAD_MAX_BYTES`` it stops handing the file's chunks to the handlers after it (memory for small
files, a temporary file for larger ones), so a 50 MB file is drained from the socket in 64 KB
chunks and at most the limit is ever held. The view and the API then refuse it from its size, as
they refuse any oversize file, with a message saying how large it was.
"""

import io

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler


class OversizeFile(UploadedFile):
    """Stands for a file that was over the limit: its name and true size, none of its bytes."""

    def __init__(self, *, name: str, size: int, content_type: str, charset: str | None):
        super().__init__(
            io.BytesIO(), name=name, content_type=content_type, size=size, charset=charset
        )


class SizeLimitUploadHandler(FileUploadHandler):
    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.received = 0

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
