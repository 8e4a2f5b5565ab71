"""The schemes rebuilt in bulk (issue 17 item 3, issue 18): after every PPI and Brambledown
table (and the schemes' log) is emptied, ``schemes_rebuild`` stores exactly what the uploads
stored step by step (S10, S11, S14.17), figures to 1e-9: corrections, withdrawals, a version
the NGS did not grade (replaced, and one left live), a late session in a closed quarter,
several clubs, quarters closed by later sessions, travellers (board by board)."""

from __future__ import annotations

import math
import multiprocessing
from io import StringIO

import pytest
from django.core.management import call_command

from grading.engine.ppi.bulk import pair_rows
from grading.engine.types import Direction, Movement
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownListEntry,
    BrambledownMemberState,
    BrambledownPairState,
    BrambledownPoint,
    BrambledownQuarter,
    BrambledownRating,
    PPIPoint,
    PPIRating,
    SchemeHead,
    SessionVersion,
)
from grading.models.schemes import SchemeEntry
from grading.schemes.brambledown.update import brambledown_regrade_club
from grading.schemes.ppi import ppi_check
from grading.schemes.rebuild.read import (
    PairsVersion,
    SessionReader,
    log_derive,
    log_live,
    log_logged,
)
from grading.schemes.rebuild.run import schemes_rebuild
from grading.schemes.rebuild.write import TABLES, tables_clear
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.schemes.conftest import FIXTURES, withdraw
from tests.schemes.test_not_graded import TOO_FEW_KNOWN


def numbers(first: int, count: int = 8) -> list[tuple[str, str]]:
    return [(str(first + 2 * i), str(first + 2 * i + 1)) for i in range(count)]


POOL = [str(2001 + i) for i in range(40)]


def players(shift: int) -> list[tuple[str, str]]:
    """Eight pairs drawn from a shared pool, so clubs and sessions share players."""
    picked = [POOL[(shift * 7 + 3 * i) % len(POOL)] for i in range(16)]
    if len(set(picked)) < 16:
        picked = [POOL[(shift + i) % len(POOL)] for i in range(16)]
    return [(picked[2 * i], picked[2 * i + 1]) for i in range(8)]


def scores(shift: int) -> list[float]:
    base = [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5]
    return base[shift % 8 :] + base[: shift % 8]


def send(upload, club, event: str, day: str, shift: int, **extra):
    rows = mp_session_rows(
        event_id=event, date=day, numbers=players(shift), scores=scores(shift), **extra
    )
    return upload(csv_bytes(rows), target=club)


def version(event: str, club) -> SessionVersion:
    return (
        SessionVersion.objects.filter(session__event__event_id=event, session__event__club=club)
        .order_by("-pk")
        .first()
    )


@pytest.fixture
def ledger(club, upload):
    """Three clubs keeping Brambledown (one with travellers), one not; quarters 2026Q1-Q3."""
    other = ClubFactory(keeps_brambledown=True)
    plain = ClubFactory(keeps_brambledown=False)
    usebio = ClubFactory(national_number="458128", keeps_brambledown=True)
    for i, day in enumerate(["2026-01-12", "2026-02-09", "2026-02-09", "2026-03-16"]):
        send(upload, club, f"A{i}", day, i)
    send(upload, other, "B0", "2026-01-20", 5)
    send(upload, plain, "C0", "2026-02-02", 6)
    send(upload, club, "A4", "2026-04-13", 7)  # closes 2026Q1 at the club
    send(upload, other, "B1", "2026-05-04", 8)
    # A version the NGS does not grade (2/3 rule), later corrected; one left live elsewhere.
    upload(csv_bytes(mp_session_rows(event_id="A5", date="2026-05-11", numbers=TOO_FEW_KNOWN)))
    upload(
        csv_bytes(mp_session_rows(event_id="B2", date="2026-05-18", numbers=TOO_FEW_KNOWN)),
        target=other,
    )
    send(upload, plain, "C1", "2026-05-25", 9)
    send(upload, club, "A5", "2026-05-11", 10)  # the correction of the not-graded version
    send(upload, club, "A1", "2026-02-09", 11)  # a correction in a closed quarter
    withdraw(version("B0", other))  # a withdrawal in a closed quarter
    path = FIXTURES / "usebio/ukbridge-club/mp-pairs.usebio.xml"
    upload(path.read_bytes(), name=path.name, target=usebio)
    send(upload, club, "A6", "2026-07-06", 12)  # closes 2026Q2
    send(upload, club, "A7", "2026-03-30", 13)  # late, in a closed quarter
    send(upload, other, "B3", "2026-08-03", 14)
    withdraw(version("A6", club))  # the latest session: Q2 stays closed
    send(upload, plain, "C2", "2026-08-10", 15)
    assert ppi_check() == []
    assert SessionVersion.objects.filter(state=SessionVersion.State.NOT_GRADED).count() == 2
    # The latest session withdrawn, 2026Q2 stays closed though no live session is after it.
    assert BrambledownClubState.objects.get(club=club).regraded == "2026Q2"


def tables() -> dict[str, list]:
    def rows(model, *order, exclude=("id", "created", "updated", "closed")):
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in exclude]
        return list(model.objects.order_by(*order).values_list(*fields))

    return {
        "log": rows(SchemeEntry, "seq"),
        "head": rows(SchemeHead, "pk"),
        "ppi": rows(PPIRating, "member_id"),
        "points": rows(PPIPoint, "member_id", "seq"),
        "bd_state": rows(BrambledownClubState, "club_id"),
        "bd_quarters": rows(BrambledownQuarter, "club_id", "quarter"),
        "bd_lists": rows(BrambledownListEntry, "club_id", "quarter", "kind", "rank"),
        "bd_ratings": rows(BrambledownRating, "version_id", "member_id"),
        "bd_grades": rows(BrambledownGrade, "club_id", "member_id"),
        "bd_points": rows(BrambledownPoint, "club_id", "member_id", "date", "pk"),
        "bd_members": rows(BrambledownMemberState, "club_id", "number"),
        "bd_pairs": rows(BrambledownPairState, "club_id", "first", "second"),
    }


def assert_close(got, expected, where="") -> None:
    if isinstance(expected, float) and isinstance(got, float):
        assert math.isclose(got, expected, rel_tol=0, abs_tol=1e-9), where
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), where
        for i, (a, b) in enumerate(zip(got, expected, strict=True)):
            assert_close(a, b, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), where
        for key in expected:
            assert_close(got[key], expected[key], f"{where}.{key}")
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


def test_rebuild_from_empty_tables_stores_what_the_steps_stored(ledger):
    stepped = tables()
    assert all(stepped[name] for name in ("log", "ppi", "points", "bd_lists", "bd_points"))
    tables_clear()
    assert not any(model.objects.exists() for model in TABLES.values())

    report = schemes_rebuild()

    assert report["log_kept"] is False  # derived from the ledger and the versions
    assert report["by_payload"] == 2  # travellers, and the live version not graded
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)
    assert ppi_check() == []


def test_rebuild_keeps_a_log_that_mirrors_the_ledger(ledger):
    stepped = tables()
    PPIRating.objects.all().delete()
    BrambledownGrade.objects.all().delete()
    BrambledownClubState.objects.all().delete()
    report = schemes_rebuild()
    assert report["log_kept"] is True
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)


def test_the_steps_go_on_from_a_rebuilt_database(ledger, club, upload):
    tables_clear()
    schemes_rebuild()
    send(upload, club, "A8", "2026-08-24", 16)
    rebuilt = tables()
    tables_clear()
    schemes_rebuild()
    for name, rows in rebuilt.items():
        assert_close(tables()[name], rows, name)
    assert ppi_check() == []


def test_the_command_reports_each_stage(ledger):
    out, err = StringIO(), StringIO()
    call_command("schemes_rebuild", stdout=out, stderr=err)
    assert "live sessions" in out.getvalue()
    assert "PPI" in err.getvalue() and "Brambledown" in err.getvalue()


def test_a_quarter_the_regrade_closed_stays_closed(ledger, club):
    brambledown_regrade_club(club=club, quarter="2026Q3")  # (the quarterly task's)
    stepped = tables()
    for name, model in TABLES.items():
        if name != "bd_clubs":  # the clubs' states say which quarters were closed
            model.objects.all().delete()
    schemes_rebuild()
    assert BrambledownClubState.objects.get(club=club).regraded == "2026Q3"
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)


def test_the_rebuild_read_one_version_at_a_time_stores_what_the_steps_stored(ledger):
    """Streamed (issue 31): versions read, folded and their PPI points copied a chunk at a
    time; a chunk of one version puts a boundary between every two, and changes nothing."""
    stepped = tables()
    tables_clear()
    report = schemes_rebuild(chunk=1)
    assert report["log_kept"] is False
    assert report["by_payload"] == 2  # each version read once by PPI's pass
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)
    tables_clear()
    schemes_rebuild(chunk=3)  # boundaries inside a club's versions and between clubs'
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)


def test_the_clubs_folded_in_a_second_process_store_what_the_steps_stored(ledger):
    """The clubs' Brambledown folded in a second process while this one folds PPI (issue 31
    item 4): the same tables, each club's sessions read here and counted once."""
    stepped = tables()
    tables_clear()
    report = schemes_rebuild(chunk=1, processes=2)
    assert report["by_payload"] == 2  # each version read once by PPI's pass
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)
    # folded elsewhere: this process's own fold of a club is timed as "brambledown_fold"
    assert "brambledown_fold" not in report["seconds"]
    assert "brambledown_fold" in schemes_rebuild(chunk=1)["seconds"]  # as when folded here


def test_a_club_fold_that_fails_in_the_second_process_writes_nothing(ledger, monkeypatch):
    from grading.schemes.rebuild import clubfold

    stepped = tables()

    def broken(*args, **kwargs):
        raise RuntimeError("the club's fold failed")

    monkeypatch.setattr(clubfold, "_club_fold", broken)  # before the second process is forked
    with pytest.raises(RuntimeError, match="the club's fold failed") as failed:
        schemes_rebuild(processes=2)
    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)
    # The second process is stopped by the rebuild itself, not when its pool is collected: the
    # traceback kept here keeps the rebuild's frames (and the pool) alive.
    assert failed.traceback and multiprocessing.active_children() == []


def _two_winner_with_a_host(event: str, day: str) -> list[dict]:
    """A two-winner session with a host pair marked non-rateable and an unknown player."""
    rows = mp_session_rows(event_id=event, date=day, numbers=players(3), rateable={2: "N"})
    for i, row in enumerate(rows):
        row["movement"] = "TWO_WINNER"
        row["direction"] = "NS" if i % 2 == 0 else "EW"
    rows[5]["player2_number"] = ""
    return rows


def test_ppi_reads_each_session_s_pairs_as_the_session_read_whole_holds_them(ledger, club, upload):
    """PPI's fold reads the pairs as rows (``read_ppi``), never as objects; they are the pairs
    of the sessions read whole (``read``), in the same order, for every live version."""
    upload(csv_bytes(_two_winner_with_a_host("T0", "2026-09-07")), target=club)
    log = log_derive()
    live = [e.version_id for e in log_live(log)]
    reader = SessionReader(log_logged(log), live)

    whole, rows = reader.read(live), reader.read_ppi(live)

    assert whole.keys() == rows.keys()
    as_rows = {vid: v for vid, v in rows.items() if isinstance(v, PairsVersion)}
    assert len(as_rows) == len(rows) - 2  # travellers, and the live version not graded
    for vid, version in rows.items():
        session = whole[vid].session
        if vid in as_rows:
            assert version.rows == pair_rows(session)
            assert version.date == session.date
            assert version.two_winner == (session.movement is Movement.TWO_WINNER)
        else:
            assert version.session.pairs == session.pairs
    host = [v for v in as_rows.values() if v.two_winner]
    assert len(host) == 1
    assert [r[6] for r in host[0].rows].count(False) == 1  # the host pair
    assert [r[2] for r in host[0].rows].count(None) == 1  # the unknown player
    assert {r[5] for r in host[0].rows} == {Direction.NS, Direction.EW}


def test_a_two_winner_session_with_a_host_pair_rebuilds_to_what_the_steps_stored(
    ledger, club, upload
):
    upload(csv_bytes(_two_winner_with_a_host("T0", "2026-09-07")), target=club)
    stepped = tables()
    tables_clear()

    schemes_rebuild()

    for name, rows in stepped.items():
        assert_close(tables()[name], rows, name)
