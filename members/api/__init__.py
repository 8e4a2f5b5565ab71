"""The member pages' API (/api/v1/me/...) and the public grade API (/api/v1/grades/...,
/api/v1/members/<number>/): serializers, then views over the same selectors as the pages, so
the same data and the same privacy (S7, S14.14)."""
