"""Check a file's pair totals against the travellers it carries (S2, S12).

The file's totals are what grading uses (FORMATS 7.5); when the product's own scoring of the
travellers gives a different figure beyond rounding, the administrator is warned so they can
check the session in their scoring program. Nothing is refused here.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from grading.engine import scoring as engine_scoring
from grading.engine.scoring import BoardResult, Method, TravellerLine
from grading.engine.types import Scoring, SessionResult
from grading.ingest.problems import Problem

logger = logging.getLogger(__name__)

# The scorings whose pair totals are checked, and the units their messages give.
_UNITS = {Scoring.MP: "%", Scoring.BUTLER: " IMPs", Scoring.CROSS_IMP: " IMPs"}
# Butler datums scoring programs use besides S2.5's (drop, halves), tried before warning: S2.5
# lets a club drop each board's highest and lowest score; Cobalt does, and rounds a negative
# datum's 5 away from zero (tests/fixtures: its Butler samples match it to the IMP).
BUTLER_VARIANTS = ((1, "up"), (1, "away"), (0, "away"))


@dataclass(frozen=True)
class Variant:
    """A way of scoring the travellers: the specification's (the default), or one a scoring
    program is known to use (docs/decisions.md): a Butler datum (``drop``, ``halves``: S2.5),
    each section a field of its own (``per_section``: FORMATS 2.2), or BriAn's match points
    (``real_top``: an adjusted score's table left out of the board's top, no Neuberg)."""

    drop: int = 0
    halves: str = "up"
    per_section: bool = False
    real_top: bool = False


SPECIFICATION = Variant()


def _method(scoring: Scoring) -> Method | None:
    """The board method of a scoring whose totals are checked, else None."""
    return engine_scoring.method_of(scoring) if scoring in _UNITS else None


def tolerance(scoring: Scoring, boards: int | None) -> float:
    """How far apart two totals may be and still agree 'to rounding'.

    Percentages are written to 2 decimals; cross-IMPs round each board's average, so their
    error grows with the boards played; Butler IMPs are whole numbers.
    """
    if scoring is Scoring.MP:
        return 0.06
    if scoring is Scoring.BUTLER:
        return 0.5
    return 0.06 + 0.005 * (boards or 24)


def compare_totals(session: SessionResult, recomputed: Mapping[str, float]) -> list[Problem]:
    """Warnings for pairs whose file total and recomputed total differ beyond rounding; when
    most pairs differ, one warning for the session."""
    return _summarised(session, _mismatches(session, recomputed))


# Board differences: (board, the file's figure, the product's), per pair.
BoardDifferences = Mapping[str, list[tuple[int, float, float]]]
# How far a board's two figures may be apart and agree: a percentage written to 2 decimals
# of a factored top, a cross-IMP average to 2 decimals; Butler IMPs are whole, so two that
# differ at all differ by at least 1.
_BOARD_TOLERANCE = {Scoring.MP: 0.51, Scoring.BUTLER: 0.5, Scoring.CROSS_IMP: 0.06}


def _mismatches(
    session: SessionResult,
    recomputed: Mapping[str, float],
    boards: BoardDifferences | None = None,
) -> list[Problem]:
    boards = boards or {}
    warnings = []
    unit = _UNITS.get(session.scoring, "")
    for pair in session.pairs:
        ours = recomputed.get(pair.pair_id)
        if ours is None or pair.score is None:
            continue
        if abs(ours - pair.score) <= tolerance(session.scoring, pair.boards):
            continue
        section = f" in section {pair.section}" if pair.section else ""
        warnings.append(
            Problem(
                f"session {session.key.session}, pair {pair.pair_id}",
                f"Pair {pair.pair_id}{section} has {pair.score:g}{unit} in the file, but scoring "
                f"its traveller lines gives {ours:.2f}{unit}"
                f"{_where(boards.get(pair.pair_id, []), unit)}. The file's figure is used; check "
                "the session's travellers and adjustments in your scoring program.",
                code="total-mismatch",
            )
        )
    return warnings


def _where(differences: list[tuple[int, float, float]], unit: str) -> str:
    """The boards where the file's own figure for the pair and the product's scoring of the
    traveller differ (S14.21), at most five."""
    if not differences:
        return ""
    shown = [
        f"board {b} (the file {f:.2f}{unit}, the traveller {o:.2f}{unit})"
        for b, f, o in differences
    ]
    more = f" and {len(shown) - 5} more board(s)" if len(shown) > 5 else ""
    return "; they differ on " + ", ".join(shown[:5]) + more


def board_differences(
    session: SessionResult,
    figures: Mapping[tuple[str, int], float] | None,
    variant: Variant = SPECIFICATION,
) -> dict[str, list[tuple[int, float, float]]]:
    """Per pair, the boards where the file's own figure (``figures``: percent or IMPs per
    pair and board, as the traveller lines give them) differs from the product's scoring of
    that board's traveller (S2), scored the way ``variant`` scores it (the way that fits the
    file's totals best): the boards a total that disagrees should be checked on."""
    method = _method(session.scoring)
    if not figures or method is None or not session.travellers:
        return {}
    found: dict[str, list[tuple[int, float, float]]] = {}
    allowed = _BOARD_TOLERANCE[session.scoring]
    for board, result in _scored_boards(session, method, variant):
        for line in result.lines:
            for pair, ours in (
                (line.ns_pair, _side(line, "ns")),
                (line.ew_pair, _side(line, "ew")),
            ):
                theirs = figures.get((pair, board))
                if theirs is not None and ours is not None and abs(theirs - ours) > allowed:
                    found.setdefault(pair, []).append((board, theirs, ours))
    return found


def _scored_boards(
    session: SessionResult, method: Method, variant: Variant
) -> Iterator[tuple[int, BoardResult]]:
    """Each board's traveller scored as ``variant`` scores it for the pairs' totals
    (:func:`recompute_totals`, ``mp_percentages_real_top``), in board order per field."""
    for lines in _fields(session, variant.per_section):
        travellers = engine_scoring.group_by_board(lines)
        most = max(len(traveller) for traveller in travellers.values())
        for board, traveller in sorted(travellers.items()):
            if variant.real_top:
                real = [line for line in traveller if not _artificial(line)]
                if real:  # an artificial score's figure is not compared (the readers)
                    yield board, engine_scoring.score_board(real, Method.MP, small_group_max=0)
                continue
            yield (
                board,
                engine_scoring.score_traveller(
                    traveller, method, most, drop=variant.drop, halves=variant.halves
                ),
            )


def _artificial(line: TravellerLine) -> bool:
    return (
        engine_scoring.ns_outcome(line).is_artificial
        or engine_scoring.ew_outcome(line).is_artificial
    )


def _fields(session: SessionResult, per_section: bool) -> list[Sequence[TravellerLine]]:
    """The session's traveller lines as the fields they are scored in: one, or one per
    section (a line belongs to its NS pair's section)."""
    if not per_section:
        return [session.travellers]
    section_of = {pair.pair_id: pair.section for pair in session.pairs}
    groups: dict[str, list[TravellerLine]] = {}
    for line in session.travellers:
        groups.setdefault(section_of.get(line.ns_pair, ""), []).append(line)
    return list(groups.values())


def _side(line, side: str) -> float | None:
    if line.top is not None:
        percent = line.ns_percent if side == "ns" else line.ew_percent
        return None if percent is None else float(percent)
    return float(line.ns if side == "ns" else line.ew)


def _summarised(session: SessionResult, warnings: list[Problem]) -> list[Problem]:
    if len(warnings) > 3 and len(warnings) * 3 > len(session.pairs):
        return [_summary(session, warnings)]
    return warnings


def _summary(session: SessionResult, warnings: list[Problem]) -> Problem:
    """Most pairs disagree: the scoring program uses another method (a trimmed Butler datum,
    another way of factoring), not an error on one line, so say it once."""
    shown = "; ".join(w.location.split(", ", 1)[1] for w in warnings[:5])
    return Problem(
        f"session {session.key.session}",
        f"Scoring the travellers gives different totals from the file for {len(warnings)} of "
        f"{len(session.pairs)} pairs ({shown}). Your scoring program probably uses a different "
        "method (for example a trimmed Butler datum or another way of factoring boards played "
        "fewer times). The file's totals are used.",
        code="total-mismatch",
    )


def recompute_totals(
    session: SessionResult, *, drop: int = 0, halves: str = "up", per_section: bool = False
) -> dict[str, float] | None:
    """Pair totals from the travellers in the file's units, or None when they cannot be had.
    ``drop`` and ``halves``: the Butler datum (``scoring.butler_datum``). ``per_section``: each
    section's travellers scored on their own, for files whose sections are separate fields
    (boards of the same number in two sections are then not compared)."""
    method = _method(session.scoring)
    if method is None or not session.travellers:
        return None
    totals: dict[str, float] = {}
    for lines in _fields(session, per_section):
        results = engine_scoring.score_session(lines, method, drop=drop, halves=halves)
        for pair_id, result in results.items():
            value = result.percentage if session.scoring is Scoring.MP else float(result.total)
            if value is not None:
                totals[pair_id] = value
    return totals


def sectioned(session: SessionResult) -> bool:
    """Whether the session has more than one section (then each may be its own field)."""
    return len({pair.section for pair in session.pairs}) > 1


def crosscheck(
    session: SessionResult, figures: Mapping[tuple[str, int], float] | None = None
) -> list[Problem]:
    """Warnings for one parsed session; a traveller the engine cannot score is one warning.
    ``figures``: the file's own figure per pair and board, to name the boards where a pair's
    total and its travellers part (S14.21)."""
    try:
        totals = recompute_totals(session)
        if totals is None:
            return []
        variant, fitted, warnings = _best_fit(session, totals)
        if warnings and figures:
            differences = board_differences(session, figures, variant)
            warnings = _mismatches(session, fitted, differences)
    except Exception as exc:  # a best-effort check must never stop an upload
        logger.warning("Cross-check failed for %s: %s", session.key, exc)
        return [
            Problem(
                f"session {session.key.session}",
                f"The travellers could not be scored to check the pair totals ({exc}). The "
                "file's totals are used.",
                code="crosscheck-failed",
            )
        ]
    return _summarised(session, warnings)


def _best_fit(
    session: SessionResult, totals: Mapping[str, float]
) -> tuple[Variant, Mapping[str, float], list[Problem]]:
    """The way of scoring that fits the file best (the specification's on a tie), its totals
    and the pairs that disagree with it, so a file from a program with another known method is
    quiet, or names only the pairs that really differ. A method that scores fewer pairs is not
    tried: leaving a pair out must not make it look the better fit."""
    best: tuple[Variant, Mapping[str, float], list[Problem]] = (
        SPECIFICATION,
        totals,
        _mismatches(session, totals),
    )
    for variant, variant_totals in _program_variants(session) if best[2] else ():
        if not variant_totals.keys() >= totals.keys():
            continue
        mismatches = _mismatches(session, variant_totals)
        if len(mismatches) < len(best[2]):
            best = (variant, variant_totals, mismatches)
    return best


def _program_variants(session: SessionResult) -> Iterator[tuple[Variant, dict[str, float]]]:
    """The totals other scoring programs' known methods give (docs/decisions.md), and each
    section scored on its own (FORMATS 2.2: sections scored per section)."""
    if sectioned(session):
        yield Variant(per_section=True), recompute_totals(session, per_section=True) or {}
    if session.scoring is Scoring.BUTLER:
        for drop, halves in BUTLER_VARIANTS:
            totals = recompute_totals(session, drop=drop, halves=halves) or {}
            yield Variant(drop=drop, halves=halves), totals
    elif session.scoring is Scoring.MP:
        # BriAn: an adjusted score's table is left out of the board's top.
        percentages = engine_scoring.mp_percentages_real_top(session.travellers)
        yield Variant(real_top=True), {pair: float(v) for pair, v in percentages.items()}
