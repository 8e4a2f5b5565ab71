"""What every API operation documents besides its success (issue 10): DRF's error bodies and
the path parameters exactly as the URL patterns accept them, so that /api/schema/ tells the
truth. ``tests/test_api_schema.py`` holds the API to it with schemathesis."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import pagination, serializers


@extend_schema_field({"type": "string", "pattern": r"^[^\x00]+$"})
class TextField(serializers.CharField):
    """A CharField documented as DRF checks it: text without a NUL character (which PostgreSQL
    could not store or compare, so DRF refuses it); not empty unless ``allow_blank``."""


class ErrorSerializer(serializers.Serializer):
    """DRF's body for a refused request (403, 404, 405, 415, ...)."""

    detail = serializers.CharField()


# A 400 names each field in error (``__all__`` or ``detail`` for the request as a whole) with
# a message or a list of messages.
VALIDATION_ERRORS = {
    "type": "object",
    "additionalProperties": {
        "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    },
}

_MEANING = {
    400: ("The request is not valid: each field in error with its messages.", VALIDATION_ERRORS),
    403: ("Not logged in (no valid session or token), or not allowed (S13).", ErrorSerializer),
    404: ("No such object, or not one the caller may know of.", ErrorSerializer),
    415: ("The request body is not in a media type the operation accepts.", ErrorSerializer),
}


def errors(*codes: int) -> dict:
    """``extend_schema(responses=...)`` entries for the error statuses an operation answers.

    Anonymous callers get 403, not 401: session authentication comes first, and it sends no
    ``WWW-Authenticate`` challenge."""
    return {
        code: OpenApiResponse(response=body, description=text)
        for code, (text, body) in ((code, _MEANING[code]) for code in codes)
    }


def path_parameter(name: str, converter: str, description: str = "") -> OpenApiParameter:
    """A path parameter as its Django converter matches it (a value that does not match finds
    no operation at all)."""
    schema = {
        "int": {"type": "integer", "minimum": 0},
        "slug": {"type": "string", "pattern": r"^[-a-zA-Z0-9_]+$"},
        "str": {"type": "string", "pattern": r"^[^/]+$"},
    }[converter]
    return OpenApiParameter(name, schema, OpenApiParameter.PATH, description=description)


CLUB_SLUG = path_parameter("slug", "slug", "the club's slug")


class ApiPagination(pagination.PageNumberPagination):
    """DRF's page numbers, with ``page`` documented as DRF reads it: empty means the first
    page and ``last`` the last; a page that does not exist is a 404."""

    def get_schema_operation_parameters(self, view):
        [page] = super().get_schema_operation_parameters(view)
        page["description"] = "The page, from 1 (empty: the first; ``last``: the last)."
        page["schema"] = {
            "oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["", "last"]}]
        }
        return [page]
