"""Who may do what (SPEC S13, issue 10): every URL and API endpoint, requested by every kind of
visitor, answers as the table says; a private grade appears in no response for anyone but its
owner (S7). A URL added to the project fails ``test_every_url_is_in_the_table`` until it is
given a row here."""

import datetime as dt

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from clubs.models import ClubRole
from clubs.services import exemption_request_create, planned_session_create
from grading.models import CurrentGrade, SessionGrade, SessionVersion
from grading.uploads.services import upload_create
from members.models import Member
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory, UserFactory

ROLES = ["anonymous", "member", "other_member", "admin", "other_admin", "staff"]
LOGGED_IN = ROLES[1:]
SECRET = 61.2345  # a private member's grade: must never be shown to anyone else
SECRET_TEXT = ["61.23", "61.2345"]

PAGE_LOGIN = {302}  # a page sends an anonymous visitor to the login page
API_LOGIN = {401, 403}


def everyone(status=200):
    return {role: {status} for role in ROLES}


def logged_in(page=True):
    return {"anonymous": PAGE_LOGIN if page else API_LOGIN, **{r: {200} for r in LOGGED_IN}}


def club_admins(page=True, ok=200):
    refused = {403}
    return {
        "anonymous": PAGE_LOGIN if page else API_LOGIN,
        "member": refused,
        "other_member": refused,
        "other_admin": refused,
        "admin": {ok},
        "staff": {ok},
    }


def own_only(page=True):
    """A member's own record: others get 404 (it is not theirs to know it exists)."""
    return {
        "anonymous": PAGE_LOGIN if page else API_LOGIN,
        "member": {200},
        **{r: {404} for r in ["other_member", "admin", "other_admin", "staff"]},
    }


def staff_only(ok=200):
    """Staff pages (S13, S15): anonymous visitors go to the product's login page, members and
    club administrators get the product's "not allowed" page, never the admin's login form."""
    return {"anonymous": PAGE_LOGIN, **{r: {403} for r in ROLES[1:-1]}, "staff": {ok}}


STAFF_ONLY = staff_only()


RESULTS = {
    "anonymous": PAGE_LOGIN,
    "member": {200},
    "other_member": {403},
    "admin": {200},
    "other_admin": {403},
    "staff": {200},
}

# name: (method, kwargs builder key, expectations)
TABLE = {
    "home": ("get", {}, everyone()),
    "login": ("get", {}, everyone()),
    "logout": ("post", {}, everyone(302)),
    "vp-scale": ("get", {}, everyone()),
    "score-tool": ("get", {}, everyone()),
    "schema": ("get", {}, everyone()),
    "api-docs": ("get", {}, everyone()),
    "members:top": ("get", {}, everyone()),
    "members:bands": ("get", {}, everyone()),
    "members:public": ("get", {"number": "public"}, everyone()),
    "members:api-top": ("get", {}, everyone()),
    "members:api-bands": ("get", {}, everyone()),
    "members:api-public": ("get", {"number": "public"}, everyone()),
    "members:search": ("get", {}, everyone()),
    "members:api-search": ("get", {}, everyone(400)),  # public; without a name to find: 400
    "dashboard": ("get", {}, logged_in()),
    "password_change": ("get", {}, logged_in()),
    "password_change_done": ("get", {}, logged_in()),
    "members:card": ("get", {}, logged_in()),
    "members:sessions": ("get", {}, logged_in()),
    "members:sessions-csv": ("get", {}, logged_in()),
    "members:partners": ("get", {}, logged_in()),
    "members:forecast": ("get", {}, logged_in()),
    "members:privacy": ("get", {}, logged_in()),
    "members:host-exemption": ("get", {}, logged_in()),
    "members:explain": ("get", {"session_id": "session"}, own_only()),
    # the older address by a session grade's id: sent on to the session's (issue 30 item 3)
    "members:explain-grade": ("get", {"grade_id": "grade"}, {**own_only(), "member": {301}}),
    "members:api-card": ("get", {}, logged_in(page=False)),
    "members:api-sessions": ("get", {}, logged_in(page=False)),
    "members:api-partners": ("get", {}, logged_in(page=False)),
    "members:api-forecast": (  # only "member" has a grade; the rest get a 400 saying so
        "get",
        {"?": "partner_grade=50&field_strength=48"},
        {**{r: {400} for r in LOGGED_IN}, "anonymous": API_LOGIN, "member": {200}},
    ),
    "members:api-privacy": ("get", {}, logged_in(page=False)),
    "members:api-host-exemptions": ("get", {}, logged_in(page=False)),
    "members:api-explain": ("get", {"session_id": "session"}, own_only(page=False)),
    "members:api-explain-grade": ("get", {"grade_id": "grade"}, own_only(page=False)),
    "api-my-schemes": ("get", {}, logged_in(page=False)),
    "uploads": ("get", {"slug": "slug"}, club_admins()),
    "upload-status": ("get", {"slug": "slug", "pk": "upload"}, club_admins()),
    "version-withdraw": ("post", {"slug": "slug", "pk": "version"}, club_admins(ok=302)),
    "clubs:dashboard": ("get", {"slug": "slug"}, club_admins()),
    "clubs:grades": ("get", {"slug": "slug"}, club_admins()),
    "clubs:grades-export": ("get", {"slug": "slug", "fmt": "csv"}, club_admins()),
    "clubs:sessions": ("get", {"slug": "slug"}, club_admins()),
    "clubs:session": ("get", {"slug": "slug", "pk": "session"}, club_admins()),
    "clubs:bands": ("get", {"slug": "slug"}, club_admins()),
    "clubs:planned": ("get", {"slug": "slug"}, club_admins()),
    "clubs:planned-delete": ("post", {"slug": "slug", "pk": "planned"}, club_admins(ok=302)),
    "clubs:exemptions": ("get", {"slug": "slug"}, club_admins()),
    "clubs:exemption-decide": (
        "post",
        {"slug": "slug", "pk": "exemption"},
        club_admins(ok=302),
    ),
    "clubs:handicaps": ("get", {"slug": "slug"}, club_admins()),
    "clubs:handicaps-print": ("get", {"slug": "slug"}, club_admins()),
    "clubs:handicaps-export": ("get", {"slug": "slug", "fmt": "csv"}, club_admins()),
    "api-uploads": ("get", {"slug": "slug"}, club_admins(page=False)),
    "api-upload": ("get", {"slug": "slug", "pk": "upload"}, club_admins(page=False)),
    "api-club-schemes": ("get", {"slug": "slug"}, club_admins(page=False)),
    "clubs-api:member-search": ("get", {"slug": "slug"}, club_admins(page=False)),
    "staff-quality": ("get", {}, STAFF_ONLY),
    "staff-parameters": ("get", {}, STAFF_ONLY),
    # staff: redirected back to the page after queueing the replay
    "staff-parameters-replay": ("post", {}, staff_only(ok=302)),
    # The union's staff pages (S15)
    "staff-home": ("get", {}, STAFF_ONLY),
    "staff-clubs": ("get", {}, STAFF_ONLY),
    "staff-club-new": ("get", {}, STAFF_ONLY),
    "staff-club": ("get", {"slug": "slug"}, STAFF_ONLY),
    "staff-club-admin": ("post", {"slug": "slug"}, STAFF_ONLY),  # empty form: 200
    "staff-club-admin-remove": (
        "post",
        {"slug": "slug", "number": "public"},
        staff_only(ok=302),
    ),
    "staff-register": ("get", {}, STAFF_ONLY),
    "staff-merge": ("get", {}, STAFF_ONLY),
    "staff-report-close": ("post", {"pk": "0"}, staff_only(ok=302)),
    "staff-sign-up-decide": ("post", {"pk": "0"}, staff_only(ok=302)),
    "members:sessions-clubs": ("get", {}, logged_in()),
    # a member's report of a session: only one stored under their own number is taken
    "members:session-report": ("post", {"version_id": "version"}, everyone(302)),
    "accounts:administrator": ("get", {"token": "no-such-token"}, everyone(410)),
    "club_members:invite-register": ("post", {"slug": "slug"}, club_admins(ok=302)),
    # the database admin (not a /staff/ page): others go to its own login
    "admin:index": ("get", {}, {**{r: {302} for r in ROLES[:-1]}, "staff": {200}}),
    # Accounts (issue 19 item 1, issue 21 item 5)
    "admin-login": ("get", {}, everyone()),
    "password_reset": ("get", {}, everyone()),
    "password_reset_done": ("get", {}, everyone()),
    "password_reset_confirm": ("get", {"uidb64": "MQ", "token": "no-such-token"}, everyone()),
    "password_reset_complete": ("get", {}, everyone()),
    "accounts:sign-up": ("get", {}, everyone()),
    "accounts:sign-up-sent": ("get", {}, everyone()),
    "accounts:api-token": ("get", {}, logged_in()),
    "accounts:invitation": ("get", {"token": "no-such-token"}, everyone(410)),
    "club_members:members": ("get", {"slug": "slug"}, club_admins()),
    "club_members:invite": ("post", {"slug": "slug"}, club_admins()),  # empty form: 200
    "club_members:invite-list": ("post", {"slug": "slug"}, club_admins()),
    "club_members:decide": ("post", {"slug": "slug", "pk": "0"}, club_admins(ok=404)),
    # Results for the players (issue 28, S16, S13's new row): the club's members, the players
    # of the session, its administrators and staff; a club may publish them (tests/results/).
    "results:session": ("get", {"session_id": "session"}, RESULTS),
    "results:session-version": ("get", {"session_id": "session", "number": "1"}, RESULTS),
    # An old email's link: a plain redirect to the member's own page of the session
    # ("members:explain", which decides who may see what).
    "results:explain": ("get", {"session_id": "session"}, everyone(302)),
    "results:emails-off": ("get", {"token": "no-such-token"}, everyone(404)),
    "results:member-emails": ("post", {}, everyone(302)),  # empty form: back to the page
    "results:club-settings": ("get", {"slug": "slug"}, club_admins()),
    "results:estimate-delete": ("post", {"slug": "slug", "pk": "0"}, club_admins(ok=302)),
    "results:api-emails": ("get", {}, logged_in(page=False)),
}


def url_names(patterns=None, namespace="") -> set[str]:
    names: set[str] = set()
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                names.add("admin:index")
                continue
            inner = pattern.namespace or namespace
            if pattern.namespace and namespace:
                inner = f"{namespace}:{pattern.namespace}"
            names |= url_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            names.add(f"{namespace}:{pattern.name}" if namespace else str(pattern.name))
    return names


def test_every_url_is_in_the_table():
    assert url_names() - set(TABLE) == set(), "add the new URL to TABLE with its S13 answers"
    assert set(TABLE) - url_names() == set()


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    """Two clubs; one graded session at the first, with a private member in it."""
    alpha, beta = ClubFactory(slug="alpha", national_number=""), ClubFactory(slug="beta")
    users = {}
    for role, club, kind in [
        ("member", alpha, "member"),
        ("other_member", beta, "member"),
        ("admin", alpha, "admin"),
        ("other_admin", beta, "admin"),
        ("staff", None, None),
    ]:
        user = UserFactory(username=role, is_staff=role == "staff")
        member = Member.objects.create(
            national_number=str(900001 + len(users)), name=role.title(), user=user
        )
        if club is not None:
            ClubRole.objects.create(club=club, member=member, role=kind)
        users[role] = user
    numbers = [("900001", "900010"), ("900011", "900012")] + [
        (str(900020 + 2 * i), str(900021 + 2 * i)) for i in range(6)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        upload = upload_create(
            club=alpha, filename="alpha.csv", data=csv_bytes(mp_session_rows(numbers=numbers))
        )
    private = Member.objects.get(national_number="900011")
    private.grade_private = True
    private.save()
    CurrentGrade.objects.filter(member=private).update(grade=SECRET, status="M")
    member = Member.objects.get(user=users["member"])
    planned = planned_session_create(
        club=alpha,
        event_name="Next",
        date=timezone.localdate() + dt.timedelta(days=7),
        start=dt.time(19, 30),
    )
    exemption = exemption_request_create(
        member=member, partner=private, planned_session=planned, now=timezone.now()
    )
    version = SessionVersion.objects.get()
    return {
        "users": users,
        "slug": alpha.slug,
        "upload": upload.pk,
        "version": version.pk,
        "session": version.session_id,
        "planned": planned.pk,
        "exemption": exemption.pk,
        "grade": SessionGrade.objects.get(member=member).pk,
        "public": member.national_number,
    }


def request_as(client, world, role: str, name: str):
    method, kwargs, _ = TABLE[name]
    query = kwargs.get("?", "")
    url = reverse(name, kwargs={k: world.get(v, v) for k, v in kwargs.items() if k != "?"})
    url += f"?{query}" if query else ""
    if role != "anonymous":
        client.force_login(world["users"][role])
    if method == "post":
        data = {"approve": "1"} if name == "clubs:exemption-decide" else {}
        return client.post(url, data)
    return client.get(url)


@pytest.mark.parametrize("role", ROLES)
def test_every_url_answers_each_role_as_s13_says(client, world, role):
    wrong = []
    # GETs first, then the POSTs that change things, deletions last.
    for name in sorted(TABLE, key=lambda n: (TABLE[n][0] == "post", "delete" in n)):
        client.logout()
        response = request_as(client, world, role, name)
        expected = TABLE[name][2][role]
        if response.status_code not in expected:
            wrong.append(f"{name}: {response.status_code}, expected {sorted(expected)}")
        body = b"".join(response) if response.streaming else response.content
        if response.status_code == 200:
            leaked = [s for s in SECRET_TEXT if s.encode() in body]
            if leaked:
                wrong.append(f"{name}: shows the private grade {leaked[0]} to {role}")
    assert wrong == []


@pytest.mark.django_db
def test_the_private_grade_is_shown_to_its_owner(client, world):
    """The sentinel check above can fail: the owner does see it."""
    private = Member.objects.get(national_number="900011")
    private.user = UserFactory(username="private-owner")
    private.save()
    client.force_login(private.user)
    assert "61.23" in client.get(reverse("members:card")).content.decode()
