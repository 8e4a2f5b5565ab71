"""Numbers as the member pages write them, without the template filters' localisation
machinery (a history page's five ``floatformat`` columns were a tenth of its first rendering,
issue 31, docs/benchmarks.md)."""

from django import template
from django.template.defaultfilters import floatformat

from members.charts import two_decimals
from members.selectors.base import count_text

register = template.Library()


@register.filter
def two_places(value) -> str:
    """``value|floatformat:2``, to the character (tested equal): a number to two decimals,
    anything else as the filter writes it (None: empty)."""
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        return two_decimals(value)
    return floatformat(value, 2)


# ``{{ n|count }}``: a count with its thousands separated (``count_text``).
register.filter("count", count_text)
