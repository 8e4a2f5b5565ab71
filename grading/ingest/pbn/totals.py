"""This session's own figure from a PBN ranking, whatever form the program wrote it in (S14.22,
S3.3, S3.7; PBN 3.4.12 and 5.10; FORMATS 3.3-3.4).

* A ranking of a later session that carries running totals over earlier sessions is read for
  this session's own columns (``SessionPercentage``, ``Percentage_S2``...), or, without them,
  recomputed from this session's travellers.
* Cross-IMPs written as the sum over every comparison (PBN ``IMP;Cross``) are divided by the
  comparisons of each board; ``Cross1`` (divided by the number of scores) is brought to the
  per-comparison average; ``Cross2`` is already the NGS form.
* A figure written as a mean per board is multiplied by the boards played.
* A pair's boards are the boards it played in this session: boards against a sit-out, bye or
  phantom, and boards of earlier sessions, are not counted.
"""

from __future__ import annotations

import re

from grading.engine import scoring as engine_scoring
from grading.engine.types import Scoring, TravellerLine
from grading.ingest import common, limits
from grading.ingest.pbn.games import Facts, Row, pair_label

__all__ = ["TotalsMixin", "comparisons_in_field", "cross_form"]

# this session's own columns: "SessionPercentage", "Session2IMP", "Percentage_S2", "IMP2"...
_OWN = re.compile(
    r"^(?:(?:session|sess|s)_?(?P<pre>\d*)_?(?P<a>[a-z]+)|(?P<b>[a-z]+?)_?(?:session|sess|s)?_?"
    r"(?P<post>\d+))$"
)
_SCORE_BASES = {
    Scoring.MP: ("percentage", "totalpercentage", "pct"),
    Scoring.BUTLER: ("imp", "imps", "totalimp", "totalscoreimp", "score"),
    Scoring.CROSS_IMP: ("imp", "imps", "totalimp", "totalscoreimp", "score"),
}
_BOARD_BASES = ("nrboards", "boards")
_ALL_SCORE_BASES = tuple({b for bases in _SCORE_BASES.values() for b in bases})


def _own_column(
    columns: list[str], bases: tuple[str, ...], session: int | None
) -> tuple[str, int | None] | None:
    """The column of this session's own figure and the session it names: with this
    session's number (``session``, when the file gives it), else the highest number (the
    file is the latest session's); a column named for the session without a number
    (``SessionPercentage``) when none is numbered."""
    found: list[tuple[int, str]] = []
    unnumbered: list[str] = []
    for column in columns:
        match = _OWN.match(column.lower())
        if not match:
            continue
        base = match.group("a") or match.group("b") or ""
        number = match.group("pre") or match.group("post") or ""
        if base not in bases:
            continue
        if number:
            found.append((int(number), column))
        elif match.group("a") is not None:
            unnumbered.append(column)
    exact = [c for n, c in found if n == session]
    if exact:
        return exact[0], session
    if found:
        number, column = max(found)
        return column, number
    return (unnumbered[0], session) if unnumbered else None


def cross_form(scoring_text: str) -> str:
    """PBN 3.4.12's cross-IMP modifier: "Cross" (summed over every comparison), "Cross1"
    (divided by the number of scores), "Cross2" (divided by the comparisons), or ""."""
    fields = {f.strip().lower() for f in scoring_text.split(";")}
    for form in ("cross2", "cross1", "cross"):
        if form in fields:
            return form
    return ""


class TotalsMixin:
    """For :class:`~grading.ingest.pbn.session.SessionReader`, which provides ``log``,
    ``meta``, ``table``, ``scoring_text`` and ``means_converted``."""

    def _session_number(self) -> int:
        """The session's number: the file's (``crsession``), else the one its own columns
        name (a ranking with ``Percentage_S2`` is session 2's), else 1."""
        given = common.parse_whole(self.meta.get("crsession", ""))
        if given is not None and given > 0:
            return given
        found = _own_column(self.table.columns, _ALL_SCORE_BASES, None)
        return found[1] if found and found[1] else 1

    def _own_columns(self, scoring: Scoring) -> tuple[str | None, str | None]:
        columns = self.table.columns
        number = self._session_number()
        score = _own_column(columns, _SCORE_BASES.get(scoring, ()), number)
        boards = _own_column(columns, _BOARD_BASES, number) if score else None
        return (score[0] if score else None), (boards[0] if boards else None)

    def _running(self, rows: list[Row], facts: Facts, lines: list[TravellerLine]) -> bool:
        """A ranking of a later session whose board counts (and so its totals) go beyond what
        this session's travellers and sit-outs hold: running totals over earlier sessions."""
        if not lines or facts.skipped or self._session_number() < 2:
            return False
        counted = [r for r in rows if r.boards is not None]
        return bool(counted) and all(r.boards > _accounted(r, facts) for r in counted)

    def _boards_agree(self, row: Row, facts: Facts, running: bool) -> bool:
        """Whether a row's board count is what this session's travellers show: equal, or
        larger by boards it sat out, or a running count (then the travellers decide)."""
        if row.boards is None or running:
            return True
        played = len(facts.boards.get(row.pair_id, ()))
        return played <= row.boards <= _accounted(row, facts)

    def _recomputed(self, scoring: Scoring, lines: list[TravellerLine]) -> dict[str, float]:
        """This session's figures from its travellers (S2): percent, Butler IMPs, or
        cross-IMPs averaged per comparison and summed."""
        method = {Scoring.MP: "MP", Scoring.BUTLER: "BUTLER"}.get(scoring, "CROSS_IMP")
        totals: dict[str, float] = {}
        try:
            results = engine_scoring.score_session(lines, method)
        except ValueError as exc:  # travellers no table can have produced
            self.log.problem(
                f"line {self.table.line}",
                "The ranking gives totals over earlier sessions as well as this one, and this "
                f"session's travellers cannot be scored to find its own ({exc}). Export this "
                "session's results on their own, or with each session's own columns.",
                line=self.table.line,
                code="running-totals",
            )
            return totals
        for pair, result in results.items():
            value = result.percentage if scoring is Scoring.MP else float(result.total)
            if value is not None:
                totals[pair] = round(value, 2)
        return totals

    def _file_score(self, row: Row, column: str, scoring: Scoring) -> float | None:
        value = common.parse_decimal(row.record.get(column))
        if value is None:
            self.log.problem(
                f"line {row.line}",
                f'{pair_label(row)} has no {column} ("{row.record.get(column, "")}"). Export the '
                "results again after the session is complete.",
                line=row.line,
                code="score",
            )
            return None
        bad = limits.percent_problem(pair_label(row), value) if scoring is Scoring.MP else None
        if bad is not None:
            self.log.problem(f"line {row.line}", bad, line=row.line, code="score")
            return None
        return value

    def _imp_total(
        self, row: Row, column: str, value: float, boards: int | None, facts: Facts
    ) -> float:
        """FORMATS 3.4: Ruter writes a per-board mean in TotalScoreIMP. A mean column, or a
        figure the travellers show to be a mean, is turned into the session total: the mean
        times the boards played (S14.22), or the travellers' sum where it agrees with that to
        the mean's rounding (it is exact where the mean was rounded)."""
        if not boards:
            return value
        summed = facts.points.get(row.pair_id)
        every_board = len(facts.boards.get(row.pair_id, ())) == boards
        is_mean = column.startswith("Mean")
        if not is_mean and every_board and summed is not None:
            is_mean = abs(value - summed / boards) < abs(value - summed)
        if not is_mean:
            return value
        self.means_converted.append(row.pair_id)
        total = value * boards
        if every_board and summed is not None and abs(summed - total) <= 0.005 * boards + 0.01:
            return round(summed, 2)
        return round(total, 2)

    def _uncrossed(
        self, row: Row, value: float, form: str, facts: Facts, comparisons: int | None
    ) -> float:
        """Cross-IMPs summed over every comparison ("Cross") or divided by the scores
        ("Cross1") as the sum of per-board averages per comparison (S2.5, S14.12): from the
        file's own per-board figures where it gives them, else the total divided by the
        comparisons per board (the same on every board the pair played, or ``comparisons``
        worked out from the field when there are no travellers)."""
        boards = sorted(facts.boards.get(row.pair_id, ()))
        counts = [facts.scores_by_board.get(b, 0) for b in boards]
        per_board = [facts.line_points.get((row.pair_id, b)) for b in boards]
        if boards and all(n > 1 for n in counts):
            if all(p is not None for p in per_board):
                return round(
                    sum(_averaged(p, n, form) for p, n in zip(per_board, counts, strict=True)), 2
                )
            if len(set(counts)) == 1:
                return round(_averaged(value, counts[0], form), 2)
        if comparisons:
            return round(_averaged(value, comparisons + 1, form), 2)
        return value


def _averaged(value: float, scores: int, form: str) -> float:
    """A board's cross-IMPs as the average per comparison, from the sum over the ``scores - 1``
    comparisons ("cross") or the sum divided by the scores ("cross1")."""
    if form == "cross1":
        return value * scores / (scores - 1)
    return value / (scores - 1)


def _accounted(row: Row, facts: Facts) -> int:
    """The boards a row's pair has on this session's travellers, played or sat out."""
    played = facts.boards.get(row.pair_id, set())
    return len(played | facts.sat_out.get(row.pair_id, set()))


def comparisons_in_field(rows: list[Row]) -> int | None:
    """Without travellers: the comparisons a board has when every table of the field plays it
    (a field of ``p`` pairs sits at ``p/2`` tables, so a board has ``p/2`` scores)."""
    tables = len(rows) // 2
    return tables - 1 if tables > 1 else None
