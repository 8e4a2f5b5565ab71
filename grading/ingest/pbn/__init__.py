"""PBN files with results: TotalScoreTable (pair ranking) and ScoreTable (travellers).

FORMATS 3; PBN 2.1 sections 5.2, 5.9, 5.10. Rows are split with a quote-aware tokenizer, not by
column widths (widths are minimums and programs get them wrong). A PBN file with only hand
records and bare travellers has no pair results and is refused with a clear message.
"""

from __future__ import annotations

import datetime as dt

from grading.ingest.limits import EARLIEST_PLAY_DATE
from grading.ingest.pbn.games import (
    Game,
    creator_of,
    decode,
    read_games,
)
from grading.ingest.pbn.session import SessionReader
from grading.ingest.problems import FileMeta, ParseResult, ProblemLog

__all__ = ["parse_pbn"]


def parse_pbn(data: bytes, club: str, *, earliest: dt.date = EARLIEST_PLAY_DATE) -> ParseResult:
    log = ProblemLog()
    text, encoding = decode(data)
    games, meta_tags = read_games(text)
    version = next((ln[1:].strip() for ln in text.splitlines()[:3] if ln.startswith("% PBN")), "")
    program = meta_tags.get("generator", "") or creator_of(text)
    meta = FileMeta(
        format="pbn",
        format_version=version,
        program=program,
        club_name=meta_tags.get("arranger", "") or meta_tags.get("licencee", ""),
        encoding=encoding,
    )
    rankings = [(g, t) for g in games for t in g.tables if t.name == "TotalScoreTable"]
    if not rankings:
        log.problem("file", _no_results(games), code="pbn-no-results")
        return log.result([], meta)
    session = SessionReader(rankings, games, meta_tags, club, program, log, earliest).build()
    return log.result([session] if session else [], meta)


def _no_results(games: list[Game]) -> str:
    """What a PBN file without a ranking is (issue 20 item 3): a hand record, or deals with
    travellers; neither names the pairs' players, so neither can be graded."""
    deals = sum(1 for g in games if g.tags.get("Deal"))
    travellers = any(t.name == "ScoreTable" for g in games for t in g.tables)
    if not travellers:
        return (
            f"This PBN file is a hand record: it holds the deals of {deals} board(s) but no "
            "results, so there is nothing to grade. Upload the results file your scoring "
            "program writes once the session has been scored (the USEBIO XML file, or a PBN "
            "file with the pairs' ranking)."
        )
    return (
        "This PBN file has hand records and travellers but no pair results (no "
        "TotalScoreTable), and no membership numbers, so it cannot be graded. Upload the "
        "USEBIO XML results file your scoring program writes for the EBU instead."
    )
