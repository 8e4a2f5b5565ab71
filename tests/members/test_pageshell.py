"""A member's kept page served from a shell kept per process (members/pageshell.py): the page
is the one Django's ``render`` makes for the same request (its bar, its messages, its
content), for every kind of viewer, with its own working token; the same queries are asked."""

import datetime as dt
from types import SimpleNamespace

import pytest
from django.contrib import messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.shortcuts import render
from django.test import RequestFactory
from django.urls import set_script_prefix
from django.utils.safestring import mark_safe

from clubs.pages import administered_club, club_kept_render, club_render
from members import pageshell
from members.auth import MemberBackend
from members.models import SignUpRequest
from members.templatetags import navbar
from tests.factories import ClubRoleFactory, MemberFactory, UserFactory
from tests.members.conftest import url
from tests.members.test_navbar import TOKEN, _viewers, _without_tokens

PAGES = [("members/grade_card.html", "card"), ("members/history.html", "sessions")]
DAY = dt.date(2026, 12, 1)
CONTENT = mark_safe('<section class="kept">A kept page &amp; its <em>figures</em></section>')


@pytest.fixture(autouse=True)
def _kept_afresh(settings):
    settings.DEBUG = False
    pageshell._kept_shell.cache_clear()
    navbar._kept_bar.cache_clear()
    yield
    pageshell._kept_shell.cache_clear()


def _request(user, path="/me/"):
    request = RequestFactory().get(path)
    request.user = user
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def _refused(*args, **kwargs):
    raise AssertionError("rendered, not served from its shell")


def _both(user, template, nav, *, note=None) -> tuple[str, str]:
    """The page from its kept shell and from Django's ``render``, each for a request of its own
    (the same user; ``note`` a message waiting for each)."""
    pages = []
    for serve in (pageshell.kept_shell_render, render):
        request = _request(MemberBackend().get_user(user.pk))
        if note:
            messages.info(request, note)
        pages.append(serve(request, template, {"content": CONTENT, "nav": nav}).content.decode())
    return pages[0], pages[1]


@pytest.mark.django_db
@pytest.mark.parametrize(("template", "nav"), PAGES)
def test_the_page_from_its_shell_is_the_page_django_renders_for_every_viewer(
    template, nav, monkeypatch
):
    monkeypatch.setattr(pageshell, "render", _refused)  # every page from its shell
    for user in _viewers():
        for _ in range(2):  # the shell rendered, then kept
            kept, plain = _both(user, template, nav)
            assert _without_tokens(kept) == _without_tokens(plain)
            assert len(TOKEN.findall(kept)) == 1 and CONTENT in kept
    assert pageshell._kept_shell.cache_info().hits >= 4
    assert pageshell._kept_shell.cache_info().currsize == 1


@pytest.mark.django_db
def test_a_waiting_message_is_shown_escaped_once():
    user = MemberFactory(user=UserFactory()).user
    kept, plain = _both(user, *PAGES[0], note="Saved <your> choice")
    assert _without_tokens(kept) == _without_tokens(plain)
    assert '<li class="message info">Saved &lt;your&gt; choice</li>' in kept
    request = _request(MemberBackend().get_user(user.pk))
    messages.info(request, "Shown once")
    page = pageshell.kept_shell_render(request, "members/grade_card.html", {"content": CONTENT})
    assert "Shown once" in page.content.decode() and request._messages.used
    assert '<ul class="messages">' not in _both(user, *PAGES[0])[0]


@pytest.mark.django_db
def test_the_members_pages_come_from_the_shell_and_ask_the_same_queries(
    me_client, graded, django_assert_num_queries
):
    for name in ("card", "sessions"):
        me_client.get(url(name))  # the content kept
        with django_assert_num_queries(2):  # the session and the user, as rendered before
            page = me_client.get(url(name)).content.decode()
        assert 'aria-current="page"' in page and len(TOKEN.findall(page)) == 1
    assert pageshell._kept_shell.cache_info().currsize == 2


@pytest.mark.django_db
def test_with_debug_on_every_page_is_rendered(settings):
    settings.DEBUG = True
    user = MemberFactory(user=UserFactory()).user
    kept, plain = _both(user, *PAGES[0])
    assert _without_tokens(kept) == _without_tokens(plain)
    assert pageshell._kept_shell.cache_info().currsize == 0


@pytest.mark.django_db
def test_the_script_prefix_is_part_of_the_shells_key():
    user = MemberFactory(user=UserFactory()).user
    unprefixed = _both(user, *PAGES[0])[0]
    try:
        set_script_prefix("/under-a-prefix/")
        prefixed, expected = _both(user, *PAGES[0])
    finally:
        set_script_prefix("/")
    assert 'href="/under-a-prefix/' in prefixed and "/under-a-prefix/" not in unprefixed
    assert _without_tokens(prefixed) == _without_tokens(expected)
    assert _without_tokens(_both(user, *PAGES[0])[0]) == _without_tokens(unprefixed)


def test_a_shell_without_each_mark_once_in_order_is_not_used():
    bar, notes, content = pageshell._MARKS
    assert pageshell.shell_split(f"a{bar}b{notes}c{content}d") == ("a", "b", "c", "d")
    for shell in (
        f"a{bar}b{content}d",  # no messages
        f"a{bar}b{notes}c{content}d{content}",  # the content twice
        f"a{notes}b{bar}c{content}d",  # out of order
        f"a{bar}{bar}b{notes}c{content}d",
    ):
        assert pageshell.shell_split(shell) is None


@pytest.mark.django_db
def test_a_template_whose_shell_cannot_be_cut_is_rendered(settings):
    user = MemberFactory(user=UserFactory()).user
    request = _request(MemberBackend().get_user(user.pk))
    # partials/nav.html alone has a bar but no messages nor content: rendered as ever
    page = pageshell.kept_shell_render(request, "partials/nav.html", {"content": CONTENT})
    assert "Log out" in page.content.decode() and "placeholder" not in page.content.decode()


def _club_pages(user, club, content=CONTENT) -> tuple[str, str]:
    """A club's grade list from its kept shell and from ``club_render``, each for a request of
    its own by ``user`` (the club as the page's door hands it over)."""
    pages = []
    for kept in (True, False):
        request = _request(MemberBackend().get_user(user.pk), f"/clubs/{club.slug}/grades/")
        door = administered_club(request, club.slug)
        if kept:
            page = club_kept_render(request, door, "clubs/grades.html", content, tab="grades")
        else:
            page = club_render(
                request, door, "clubs/grades.html", {"content": content}, tab="grades"
            )
        pages.append(page.content.decode())
    return pages[0], pages[1]


@pytest.mark.django_db
def test_a_club_grade_list_from_its_shell_is_the_list_django_renders(monkeypatch):
    monkeypatch.setattr(pageshell, "render", _refused)  # every page from its shell
    admin = UserFactory()
    member = MemberFactory(user=admin)
    busy = ClubRoleFactory(member=member, role="admin", club__name="Busy & <Bold>").club
    quiet = ClubRoleFactory(member=member, role="admin").club
    for status in ("waiting", "waiting", "declined"):
        SignUpRequest.objects.create(member=MemberFactory(), club=busy, status=status)
    staff = UserFactory(is_staff=True)
    for user, club in ((admin, busy), (admin, quiet), (staff, busy), (staff, quiet)):
        for _ in range(2):
            kept, plain = _club_pages(user, club)
            assert _without_tokens(kept) == _without_tokens(plain) and CONTENT in kept
    assert "2 sign-ups waiting for your answer" in _club_pages(admin, busy)[0]
    assert "sign-ups-waiting" not in _club_pages(admin, quiet)[0]
    # the notice is the request's own: one more waiting shows at once, and none when answered
    SignUpRequest.objects.create(member=MemberFactory(), club=busy, status="waiting")
    assert "3 sign-ups waiting" in _club_pages(admin, busy)[0]
    SignUpRequest.objects.filter(club=busy).update(status="declined")
    assert "sign-ups-waiting" not in _club_pages(staff, busy)[0]


@pytest.mark.django_db
def test_a_renamed_club_shows_its_new_name_at_once():
    admin = UserFactory()
    club = ClubRoleFactory(member=MemberFactory(user=admin), role="admin", club__name="Before").club
    assert "Before" in _club_pages(admin, club)[0]
    club.name, club.national_number = "After", "C-42"
    club.save()
    kept, plain = _club_pages(admin, club)
    assert "Before" not in kept and "After · club C-42" in kept
    assert _without_tokens(kept) == _without_tokens(plain)


@pytest.mark.django_db
def test_a_results_page_from_its_shell_is_the_page_django_renders(monkeypatch):
    """The results page's shell is kept under its session and what its title shows
    (grading/results/views.py); a renamed event is a new shell."""
    monkeypatch.setattr(pageshell, "render", _refused)
    user = MemberBackend().get_user(MemberFactory(user=UserFactory()).user.pk)
    session = SimpleNamespace(pk=7, event=SimpleNamespace(name="Pairs <Cup>"), date=DAY)
    for name in ("Pairs <Cup>", "Pairs <Cup>", "Renamed & Co"):
        session.event.name = name
        context = {"session": session, "content": CONTENT}
        key = (session.pk, session.event.name, session.date)  # as grading/results/views.py
        kept = pageshell.kept_shell_render(_request(user), "results/session.html", context, key=key)
        plain = render(_request(user), "results/session.html", context)
        pages = [kept.content.decode(), plain.content.decode()]
        assert _without_tokens(pages[0]) == _without_tokens(pages[1])
    assert "<title>Results: Renamed &amp; Co 1 Dec 2026 · Bridge grading</title>" in pages[0]
    assert pageshell._kept_shell.cache_info().currsize == 2
