"""Issue 32 item 10: three inputs the API schema allowed were answered 400
(``/api/v1/me/forecast/?partner=0``, ``/api/v1/me/sessions/?club=0``, a host request for an
unknown planned session). The schema now says an id is a positive integer, and a well-formed
id that is not one of the member's is not found (404, documented), as a schema-valid request
may be answered."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.members.conftest import url


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def parameter(schema, path, name):
    (found,) = [p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == name]
    return found["schema"]


def test_the_schema_says_ids_are_positive(schema):
    assert parameter(schema, "/api/v1/me/forecast/", "partner")["minimum"] == 1
    for name in ("club", "partner", "year"):
        assert parameter(schema, "/api/v1/me/sessions/", name)["minimum"] == 1
    body = schema["components"]["schemas"]["ExemptionIn"]["properties"]["planned_session"]
    assert body["minimum"] == 1


def test_a_zero_id_is_refused_as_the_schema_says(me_client, graded):
    assert me_client.get(url("api-forecast") + "?partner=0").status_code == 400
    assert me_client.get(url("api-sessions") + "?club=0").status_code == 400
    zero = {"planned_session": 0, "partner_number": graded.people.partner}
    answer = me_client.post(url("api-host-exemptions"), zero, content_type="application/json")
    assert answer.status_code == 400


def test_an_id_that_is_not_the_members_is_not_found(me_client, graded):
    assert me_client.get(url("api-forecast") + "?partner=987654321").status_code == 404
    assert me_client.get(url("api-sessions") + "?club=987654321").status_code == 404
    assert me_client.get(url("api-sessions") + "?partner=987654321").status_code == 404
    assert me_client.get(url("api-sessions") + "?year=1999").status_code == 404
    unknown = {"planned_session": 987654321, "partner_number": graded.people.partner}
    answer = me_client.post(url("api-host-exemptions"), unknown, content_type="application/json")
    assert answer.status_code == 404


def test_the_members_own_ids_still_filter(me_client, graded):
    rows = me_client.get(url("api-sessions")).json()["results"]
    assert rows
    year = rows[0]["date"][:4]
    assert me_client.get(url("api-sessions") + f"?year={year}").status_code == 200
