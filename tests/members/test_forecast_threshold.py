"""The forecast answers the member's own threshold too (S3.5: "the chance of beating
37/43/49/55/61% style thresholds, or any threshold asked"; FR 5)."""

import pytest

from grading.engine.ngs import forecast, shown
from grading.models import CurrentGrade
from tests.members.conftest import url

ASKED = {"partner_grade": 50, "field_strength": 50, "threshold": 58}


def _par(graded) -> float:
    mine = shown(CurrentGrade.objects.get(member=graded.me).grade)
    return 50 + (mine + 50) / 2 - 50


def test_api_forecast_gives_the_chance_of_the_threshold_asked(me_client, graded):
    result = me_client.get(url("api-forecast"), ASKED).json()
    expected = forecast(_par(graded), 58, 6.34)
    assert result["asked"] == {"threshold": 58, "chance": pytest.approx(expected)}
    # the fixed rows stay as they were, beside it
    assert [c["threshold"] for c in result["chances"]] == [37, 43, 49, 55, 61]  # S3.5, FR 5
    without = me_client.get(url("api-forecast"), {"partner_grade": 50, "field_strength": 50}).json()
    assert without["asked"] is None


def test_forecast_page_shows_the_threshold_asked(me_client, graded):
    body = me_client.get(url("forecast"), ASKED).content.decode()
    expected = 100 * forecast(_par(graded), 58, 6.34)
    assert 'name="threshold"' in body and 'data-testid="chance-asked"' in body
    row = body.split('data-testid="chance-asked"', 1)[1].split("</tr>", 1)[0]
    assert "58%" in row and f"{expected:.1f}%" in row
    assert body.count('data-testid="chance"') == 5  # and the fixed rows


def test_forecast_threshold_accepts_decimals(me_client, graded):
    result = me_client.get(url("api-forecast"), {**ASKED, "threshold": "52.5"}).json()
    assert result["asked"]["threshold"] == 52.5
    assert result["asked"]["chance"] == pytest.approx(forecast(_par(graded), 52.5, 6.34))


@pytest.mark.parametrize("bad", ["-1", "100.5", "abc", "nan", "inf"])
def test_forecast_threshold_is_validated(me_client, graded, bad):
    response = me_client.get(url("api-forecast"), {**ASKED, "threshold": bad})
    assert response.status_code == 400
    assert "threshold" in response.json()
    body = me_client.get(url("forecast"), {**ASKED, "threshold": bad}).content.decode()
    assert 'data-testid="forecast-result"' not in body
    if bad in ("-1", "100.5"):
        assert "Type a percentage from 0 to 100" in body
        assert "Type a percentage from 0 to 100" in response.json()["threshold"][0]
