"""The public member page and API read a membership number however it is spelt
(S14.2: spaces and leading zeros are stripped; empty, ``0``, ``-`` and ``88888888`` mean
unknown). The page redirects to the number as stored, so each member has one address."""

import pytest

from grading.engine.ngs import shown
from grading.models import CurrentGrade
from tests.members.conftest import url


@pytest.mark.parametrize("spelling", ["0{n}", "000{n}", "{h} {t}", " {n}"])
def test_public_page_redirects_other_spellings_to_the_number(client, graded, spelling):
    number = graded.people.public
    spelt = spelling.format(n=number, h=number[:2], t=number[2:])
    response = client.get(url("public", spelt))
    assert response.status_code == 301
    assert response["Location"] == url("public", number)
    page = client.get(url("public", spelt), follow=True)
    grade = CurrentGrade.objects.get(member__national_number=number).grade
    assert f"{shown(grade):.2f}" in page.content.decode()


def test_public_page_as_stored_is_not_redirected(client, graded):
    assert client.get(url("public", graded.people.public)).status_code == 200


@pytest.mark.parametrize("spelling", ["0{n}", "000{n}", "{h} {t}"])
def test_public_api_normalises_the_number(client, graded, spelling):
    number = graded.people.public
    spelt = spelling.format(n=number, h=number[:2], t=number[2:])
    response = client.get(url("api-public", spelt))
    assert response.status_code == 200
    assert response.json()["number"] == number
    # privacy is the same whatever the spelling (S7)
    assert client.get(url("api-public", "0" + graded.people.private)).status_code == 404


@pytest.mark.parametrize("unknown", ["0", "00", "-", "88888888", "0999999"])
def test_unknown_numbers_are_not_found(client, graded, unknown):
    assert client.get(url("public", unknown)).status_code == 404
    assert client.get(url("api-public", unknown)).status_code == 404
