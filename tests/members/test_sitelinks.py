"""``{% load sitelinks %}``: the ``url`` and ``static`` tags kept per process give Django's own
answers, whatever the arguments, the script prefix or the URL configuration (issue 17)."""

import pytest
from django.template import Context, Template
from django.templatetags.static import static
from django.urls import NoReverseMatch, reverse, set_script_prefix

from members.templatetags import sitelinks


def render(text: str, **context) -> str:
    return Template("{% load sitelinks %}" + text).render(Context(context))


@pytest.mark.parametrize(
    "tag, expected",
    [
        ("{% url 'home' %}", lambda: reverse("home")),
        ("{% url 'clubs:grades' slug %}", lambda: reverse("clubs:grades", args=["river-side"])),
        (
            "{% url 'clubs:grades-export' slug 'csv' %}",
            lambda: reverse("clubs:grades-export", args=["river-side", "csv"]),
        ),
        (
            "{% url 'clubs:grades' slug=slug %}",
            lambda: reverse("clubs:grades", kwargs={"slug": "river-side"}),
        ),
        ("{% static 'css/site.css' %}", lambda: static("css/site.css")),
    ],
)
def test_the_answers_are_djangos(tag, expected):
    assert render(tag, slug="river-side") == expected()
    assert render(tag, slug="river-side") == expected()  # and again, from what is kept


def test_each_argument_is_part_of_the_key():
    first = render("{% url 'clubs:grades' slug %}", slug="one")
    assert render("{% url 'clubs:grades' slug %}", slug="two") == first.replace("one", "two")


def test_the_script_prefix_is_part_of_the_key():
    plain = render("{% url 'home' %}")
    try:
        set_script_prefix("/grades/")
        assert render("{% url 'home' %}") == "/grades" + plain
    finally:
        set_script_prefix("/")
    assert render("{% url 'home' %}") == plain


def test_as_a_variable_and_an_unknown_name():
    assert render("{% url 'home' as there %}[{{ there }}]") == f"[{reverse('home')}]"
    assert render("{% url 'no-such-page' as there %}[{{ there }}]") == "[]"
    with pytest.raises(NoReverseMatch):
        render("{% url 'no-such-page' %}")


def test_an_argument_that_cannot_be_a_key_goes_to_djangos_tag():
    class Slug(str):
        __hash__ = None

    assert render("{% url 'clubs:grades' slug %}", slug=Slug("x")) == reverse(
        "clubs:grades", args=["x"]
    )


def test_addresses_are_escaped_like_djangos():
    sitelinks._reverse.cache_clear()
    tag = "{% url 'clubs:grades-export' 'river' fmt %}"
    got = render(tag, fmt="a&b")
    assert "&amp;" in got and got == Template(tag).render(Context({"fmt": "a&b"}))


def test_the_url_configuration_is_part_of_the_key(settings):
    """Outside a request ``reverse`` reads the settings' URL configuration: so does the key."""
    home = render("{% url 'home' %}")
    settings.ROOT_URLCONF = "tests.members.urls_elsewhere"
    assert render("{% url 'home' %}") == "/elsewhere/"
    settings.ROOT_URLCONF = "grading.urls"
    assert render("{% url 'home' %}") == home
