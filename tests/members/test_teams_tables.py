"""Issue 21 item 2 for teams: the group an SOpp is averaged over, for the small-group rule (S7,
S14.14), is the engine's own (S3.2: ``grading.engine.ngs.session.table_opponents`` and
``sopp_tables``). A teams session read with travellers and no matches averages the tables met,
not the pair's direction; a pair that met only the private player's pair shows no SOpp."""

import datetime as dt

import pytest

import grading.uploads.services as upload_services
from grading.engine.scoring.lines import TravellerLine
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)
from grading.ingest.problems import FileMeta, ParseResult
from grading.models import Match, SessionGrade
from members.selectors import explain as explanations
from members.selectors.groups import opponents_of, tables_met
from tests.members.conftest import url

DATE = dt.date(2026, 10, 8)
BOARDS = 6


def _teams_session(p) -> SessionResult:
    """Four tables of a teams league, NS pairs 1-4 against EW pairs 5-8, each pair at one
    table for every board (one opponent of 8 pairs: under a quarter, so SOpp is over the
    table met, S3.2). The private member plays in NS pair 1; "me" in EW pair 5, at its table.
    Travellers only, no matches."""
    ns = [(p.private, p.others[0]), (p.partner, p.others[1])]
    ns += [(p.others[2], p.others[3]), (p.others[4], p.others[5])]
    ew = [(p.me, p.public), (p.others[6], p.others[7])]
    ew += [(p.others[8], p.others[9]), (p.others[10], p.others[11])]
    pairs = []
    for i, (a, b) in enumerate(ns + ew, start=1):
        pairs.append(
            PairEntry(
                pair_id=str(i),
                players=(Player(a, f"Player {a}"), Player(b, f"Player {b}")),
                score=None,
                direction=Direction.NS if i <= 4 else Direction.EW,
                boards=BOARDS,
                team=f"Team {(i - 1) % 4 + 1}",
            )
        )
    travellers = tuple(
        TravellerLine(
            board=board,
            ns_pair=str(table),
            ew_pair=str(table + 4),
            ns_score=(420 if (board + table) % 2 else -50),
        )
        for table in range(1, 5)
        for board in range(1, BOARDS + 1)
    )
    return SessionResult(
        key=SessionKey("riverside", "TABLES", 1, DATE),
        event_name="Tables League",
        scoring=Scoring.TEAM_LEAGUE,
        movement=Movement.TWO_WINNER,
        pairs=tuple(pairs),
        boards=BOARDS,
        travellers=travellers,
    )


@pytest.fixture
def tables_session(graded, sender, monkeypatch):
    session = _teams_session(graded.people)
    parsed = ParseResult(sessions=(session,), meta=FileMeta(format="usebio"))
    monkeypatch.setattr(upload_services, "parse_file", lambda *a, **k: parsed)
    sender(graded.riverside, b"<USEBIO/> tables league", "tables.xml")
    mine = SessionGrade.objects.get(member=graded.me, version__session__event__event_id="TABLES")
    assert mine.sopp is not None
    assert not Match.objects.filter(version=mine.version).exists()
    assert mine.version.traveller_lines.exists()
    return mine


def test_the_sopp_group_of_a_teams_pair_is_the_table_it_met(graded, tables_session):
    mine = tables_session
    pairs = list(mine.version.pairs.select_related("player1", "player2"))
    group = opponents_of(
        mine.version, "5", pairs, tables_met({mine.version.pk: pairs})[mine.version.pk]
    )
    assert [p.pair_id for p in group.pairs] == ["1"]  # the table met, not the EW direction
    # ... and it is the group the engine averaged: the grades at the start of pair 1
    starts = dict(
        SessionGrade.objects.filter(version=mine.version).values_list("member_id", "grade_before")
    )
    met = [starts[m.pk] for m in group.players]
    assert mine.sopp == pytest.approx(sum(met) / len(met))


def test_the_pair_that_met_the_private_pair_sees_no_sopp(me_client, graded, tables_session):
    mine = tables_session
    explained = me_client.get(url("api-explain", mine.version.session_id)).json()
    assert explained["row"]["sopp"] is None
    step = next(s for s in explained["steps"] if s["label"] == "SOpp")
    assert step["value"] == "—" and "fewer than 5 players" in step["words"]
    assert explained["row"]["session_grade"] == pytest.approx(mine.session_grade)
    page = me_client.get(url("explain", mine.version.session_id)).content.decode()
    history = me_client.get(url("sessions")).content.decode()
    row = history.split(f'data-id="{mine.pk}">', 1)[1].split("</tr>", 1)[0]
    assert 'data-label="SOpp" class="num">—<' in row
    for body in (page, row, str(explained)):
        assert f"{mine.sopp:.2f}" not in body
    x = explanations.session_explain(member=graded.me, grade_id=mine.pk)
    assert "the pairs you met at the table: 1 pair" in x.opponents_words


def test_the_private_member_sees_their_own_tables_sopp(client, graded, tables_session):
    theirs = SessionGrade.objects.get(member=graded.private, version=tables_session.version)
    client.force_login(graded.private_user)
    explained = client.get(url("api-explain", theirs.version.session_id)).json()
    assert explained["row"]["sopp"] == pytest.approx(theirs.sopp)
