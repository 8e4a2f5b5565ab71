"""Handicapped pairs events graded on scratch results (SPEC S14.15, issue 20 item 2).

A USEBIO pair may carry ``HANDICAP``; its ``PERCENTAGE`` or ``TOTAL_SCORE`` is then the result
after handicaps. The EBU grades raw results, so the score grading uses is the result before
handicaps: recomputed from the travellers when the file has them all, else the pair's handicap
taken off its score; when neither can be done the session is stored not graded with the reason.
Either way a warning says the event was handicapped and how its scratch scores were had, and
the session's ``extra`` carries ``("handicapped", how)`` for the upload summary and the pages.

Sign: a handicap is read as the amount added to the pair's score (EBUScore's convention and the
product's own, S8), except in files from ScoreBridge and Pianola, whose handicaps are subtracted
(a positive handicap lowers the score; issue 20, "Handicap files for the scoring programs").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from grading.engine.types import (
    Movement,
    PairEntry,
    Scoring,
    SessionKey,
    SessionResult,
    TravellerLine,
)
from grading.ingest import common
from grading.ingest.crosscheck import recompute_totals, sectioned
from grading.ingest.usebio.shapes import RawPair, Unit, pair_label

FROM_TRAVELLERS = "scratch scores from the travellers"
HANDICAP_REMOVED = "scratch scores by taking the handicaps off"
NOT_POSSIBLE = "scratch scores could not be worked out"

# Programs whose handicap lowers the score when positive.
_SUBTRACTING_PROGRAMS = ("SCOREBRIDGE", "PIANOLA")


@dataclass(frozen=True)
class Scratch:
    entries: list[PairEntry]
    reason: str = ""
    notes: tuple[tuple[str, str], ...] = ()


class ScratchMixin:
    """Scratch scores, for :class:`~grading.ingest.usebio.reader.EventReader`, which provides
    ``log``, ``header`` and ``line()``."""

    def _scratch(
        self,
        unit: Unit,
        scoring: Scoring,
        movement: Movement,
        raws: list[RawPair],
        entries: list[PairEntry],
        travellers: tuple[TravellerLine, ...],
    ) -> Scratch:
        handicaps = {r.pair_id: r.handicap for r in raws if (r.handicap or "").strip()}
        values = {pid: common.parse_decimal(h) for pid, h in handicaps.items()}
        if not any(v != 0 for v in values.values()):
            return Scratch(entries)  # no pair handicapped ("0.0" is written by some programs)
        where = unit.path
        line = self.line(unit.element)
        recomputed = self._from_travellers(unit, scoring, movement, entries, travellers, values)
        if recomputed is not None:
            self.log.warn(
                where,
                "This event was handicapped. Grading uses each pair's result before handicaps, "
                "worked out from the travellers in the file; the results after handicaps are "
                "not used for grading.",
                line=line,
                code="handicapped",
            )
            scored = [replace(e, score=recomputed[e.pair_id]) for e in entries]
            return Scratch(scored, notes=(("handicapped", FROM_TRAVELLERS),))
        unreadable = [r for r in raws if r.pair_id in values and values[r.pair_id] is None]
        if unreadable:
            raw = unreadable[0]
            reason = (
                "This event was handicapped, and the pairs' results before handicaps cannot be "
                "worked out: the file has no complete travellers, and "
                f'{pair_label(raw).lower()}\'s handicap "{raw.handicap}" is not a number. '
                "Grades are worked out from results before handicaps."
            )
            self.log.warn(where, reason, line=line, code="handicapped")
            return Scratch(entries, reason=reason, notes=(("handicapped", NOT_POSSIBLE),))
        sign = -1 if self.header.program.upper().startswith(_SUBTRACTING_PROGRAMS) else 1
        scored = []
        for entry in entries:
            handicap = values.get(entry.pair_id) or 0.0
            if entry.score is not None and handicap:
                entry = replace(entry, score=round(entry.score - sign * handicap, 2))
            scored.append(entry)
        added = "added to" if sign == 1 else "taken from"
        self.log.warn(
            where,
            "This event was handicapped. Grading uses each pair's result before handicaps: the "
            "file has no complete travellers, so each pair's handicap was taken off its score "
            f"(read as {added} the score, as the program that wrote the file does).",
            line=line,
            code="handicapped",
        )
        return Scratch(scored, notes=(("handicapped", HANDICAP_REMOVED),))

    def _from_travellers(
        self,
        unit: Unit,
        scoring: Scoring,
        movement: Movement,
        entries: list[PairEntry],
        travellers: tuple[TravellerLine, ...],
        handicaps: dict[str, float | None],
    ) -> dict[str, float] | None:
        """Every pair's scratch score from the travellers (S2), or None when they cannot give
        one for every pair."""
        if not travellers or unit.date is None:
            return None
        session = SessionResult(
            key=SessionKey("", "", 1, unit.date),
            event_name="",
            scoring=scoring,
            movement=movement,
            pairs=tuple(entries),
            travellers=travellers,
        )
        try:
            totals = recompute_totals(session)
            candidates = [totals]
            if sectioned(session):
                candidates.append(recompute_totals(session, per_section=True))
        except Exception:  # a traveller the engine cannot score: fall back to the handicaps
            return None
        complete = [c for c in candidates if c is not None and all(e.pair_id in c for e in entries)]
        if not complete:
            return None
        best = min(complete, key=lambda c: _unexplained(entries, c, handicaps))
        return {pair_id: round(value, 2) for pair_id, value in best.items()}


def _unexplained(
    entries: list[PairEntry], scratch: dict[str, float], handicaps: dict[str, float | None]
) -> float:
    """How far the file's scores are from scratch plus or minus the handicap, for the sign
    that fits best: the fields (whole session or each section) that explain the file best."""
    return min(
        sum(
            abs(e.score - scratch[e.pair_id] - sign * (handicaps.get(e.pair_id) or 0.0))
            for e in entries
            if e.score is not None
        )
        for sign in (1, -1)
    )
