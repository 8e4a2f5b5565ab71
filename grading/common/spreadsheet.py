"""The one escaping rule of every CSV and XLSX the product writes (OWASP CSV injection): text
that a spreadsheet would read as a formula is written behind a leading ``'`` in a CSV and marked
quote-prefixed in an XLSX; numbers stay numbers."""

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")  # OWASP, and ASVS's NUL


def formula_like(value) -> bool:
    """Text a spreadsheet would read as a formula (or start one with); numbers never are."""
    return isinstance(value, str) and value.startswith(FORMULA_START)


def cell_text(value, *, decimals: int = 2) -> str:
    """A cell as CSV text: empty for None, a float to ``decimals`` places, a list joined with
    "; ", and formula-like text behind a leading ``'``."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    if isinstance(value, list | tuple):
        value = "; ".join(str(v) for v in value)
    if formula_like(value):
        return "'" + value
    return str(value)
