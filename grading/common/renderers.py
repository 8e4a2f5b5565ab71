"""The API's JSON, whatever the figures (S14.26: no figure, however large, may take a page
down). A grade stored before the score bounds can be infinite (a 400-digit aggregate score is
read as infinity); strict JSON has no such number, and DRF's renderer raised (HTTP 500). Such a
figure is written as null."""

from __future__ import annotations

import math

from rest_framework.renderers import JSONRenderer


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


class FiniteJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except ValueError:  # "Out of range float values are not JSON compliant"
            return super().render(_finite(data), accepted_media_type, renderer_context)
