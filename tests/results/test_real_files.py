"""Every real results file the product grades has a results page that loads (no input may take
a page down): the ranking, the travellers scored by the engine where the file has them, and a
player's scorecard; Swiss pairs from the handmade sample too (S16, S2)."""

import pytest
from django.urls import reverse

from grading.models import PairResult, SessionVersion
from grading.uploads.services import upload_create
from tests.factories import ClubFactory, UserFactory
from tests.uploads.test_samples import FIXTURES, GRADED

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("relative", [*GRADED, "handmade/swiss-pairs.xml"])
def test_the_results_page_of_a_real_file(client, relative, django_capture_on_commit_callbacks):
    club = ClubFactory(national_number="", results_public=True)
    path = FIXTURES / relative
    with django_capture_on_commit_callbacks(execute=True):
        upload_create(club=club, filename=path.name, data=path.read_bytes())
    client.force_login(UserFactory(is_staff=True))
    for version in SessionVersion.objects.filter(state="graded"):
        url = reverse("results:session", args=[version.session_id])
        page = client.get(url)
        assert page.status_code == 200, relative
        r = page.context["r"]
        assert sum(len(lines) for _, lines in r.groups) == version.pairs.count()
        pair = PairResult.objects.filter(version=version).first()
        card = client.get(url, {"pair": pair.pair_id}).context["r"].card
        if r.travellers:
            assert card is not None and card.pair_id == pair.pair_id
