"""Brambledown's update from its players' rows (``grading.schemes.brambledown.add_session``, S11) equals the
club's full update: after every upload of random sequences (in order, late, same-day, corrected,
withdrawn, quarters closing, new players reaching three performances, sessions not rated), the
stored tables are those a replay of the club from its first session writes, and the path is
taken for most uploads. What it reads does not grow with the club."""

from __future__ import annotations

import datetime as dt
import random
from types import SimpleNamespace

import pytest
from django.db import connection, transaction
from django.db.models import F

import grading.schemes.after_step as fold_module
import grading.schemes.brambledown.close_quarter as close_quarter
import grading.schemes.brambledown.update as brambledown_module
from grading.engine.brambledown import Quarter
from grading.ledger.lock import ledger_head_lock
from grading.models import (
    BrambledownClubState,
    BrambledownGrade,
    BrambledownMemberState,
    SessionVersion,
)
from grading.schemes.brambledown.update import brambledown_club_update, brambledown_regrade_club
from tests.csvfiles import csv_bytes, mp_session_rows
from tests.factories import ClubFactory
from tests.schemes.conftest import withdraw
from tests.schemes.test_not_graded import TOO_FEW_KNOWN
from tests.schemes.test_rebuild import assert_close, tables

SCORES = [
    [62.5, 55.0, 52.5, 50.0, 47.5, 45.0, 44.0, 43.5],
    [48.0, 58.0, 51.0, 49.0, 53.0, 47.0, 46.0, 48.0],
    [60.0, 50.0, 45.0, 55.0, 44.0, 52.0, 46.0, 48.0],
]
BRAMBLEDOWN = (
    "bd_state",
    "bd_quarters",
    "bd_lists",
    "bd_ratings",
    "bd_grades",
    "bd_points",
    "bd_members",
    "bd_pairs",
)


def bd_tables() -> dict[str, list]:
    found = tables()
    return {name: found[name] for name in BRAMBLEDOWN}


def replayed_tables(club) -> dict[str, list]:
    """The tables after the club's full replay (``replay=True``), rolled back."""
    with transaction.atomic():
        ledger_head_lock()
        update = brambledown_club_update(club=club, replay=True)
        assert not update.fast
        found = bd_tables()
        transaction.set_rollback(True)
    return found


@pytest.fixture
def fast_taken(monkeypatch):
    """The updates that took the fast path: the quarters each closed."""
    taken: list = []
    real = brambledown_module.club_session_add

    def counting(*, club, row, entries):
        done = real(club=club, row=row, entries=entries)
        if done is not None:
            taken.append(done.closed)
        return done

    monkeypatch.setattr(brambledown_module, "club_session_add", counting)
    return taken


def session_rows(rng: random.Random, event: str, day: dt.date, pool: list[str], pairs: int):
    chosen = rng.sample(pool, 2 * pairs)
    numbers = [(chosen[2 * i], chosen[2 * i + 1]) for i in range(pairs)]
    scores = [round(rng.uniform(35, 68), 1) for _ in range(pairs)]
    return mp_session_rows(
        event_id=event, date=day.isoformat(), numbers=numbers, scores=scores, boards=24
    )


def live_versions(club) -> list[SessionVersion]:
    """The club's live versions graded by the NGS (those a club can withdraw)."""
    return list(
        SessionVersion.objects.filter(
            session__event__club=club,
            session__live_version=F("pk"),
            state=SessionVersion.State.GRADED,
        ).order_by("pk")
    )


def run_sequence(seed: int, club, upload, fast_taken, steps: int) -> None:
    rng = random.Random(seed)
    pool = [str(3001 + i) for i in range(rng.choice([18, 26, 40]))]
    day = dt.date(2023, 1, 5) + dt.timedelta(days=rng.randrange(80))  # (all before today)
    made: list[tuple[str, dt.date]] = []  # (event id, date) of each session uploaded
    for step in range(steps):
        kind = rng.choices(
            ["next", "same_day", "late", "correct", "withdraw", "quarter", "unrated", "regrade"],
            weights=[10, 3, 2, 2, 2, 2, 2, 1],
        )[0]
        if not made or kind == "next":
            day += dt.timedelta(days=rng.choice([1, 3, 7, 14]))
            event = f"E{step:02d}"
        elif kind == "same_day":  # another session of the same day: its event id sorts either way
            day = made[-1][1]
            event = rng.choice(["A", "Z"]) + f"{step:02d}"
        elif kind == "late":
            event, late = f"L{step:02d}", rng.choice(made)[1] - dt.timedelta(days=rng.randrange(9))
            upload(csv_bytes(session_rows(rng, event, late, pool, rng.choice([3, 5, 8]))))
            made.append((event, late))
            continue
        elif kind == "correct":
            event, when = rng.choice(made)
            upload(csv_bytes(session_rows(rng, event, when, pool, rng.choice([3, 5, 8]))))
            check(club)
            continue
        elif kind == "withdraw":
            live = live_versions(club)
            if len(live) > 1:
                withdraw(rng.choice(live))
            check(club)
            continue
        elif kind == "quarter":
            day = Quarter.of(day).next().start + dt.timedelta(days=rng.randrange(30))
            if rng.random() < 0.3:  # skip a quarter
                day = Quarter.of(day).next().start + dt.timedelta(days=rng.randrange(30))
            event = f"Q{step:02d}"
        elif kind == "unrated":  # the NGS does not grade it (unknown players), Brambledown
            # rates it; or Brambledown does not rate it (one pair; Butler), maybe in a later
            # quarter (its date closes the open one all the same, if match-pointed)
            variant = rng.choice(["few_known", "one_pair", "butler"])
            if variant == "one_pair" and rng.random() < 0.4:
                day = Quarter.of(day).next().start + dt.timedelta(days=rng.randrange(20))
            else:
                day += dt.timedelta(days=1)
            event = f"U{step:02d}"
            rows = mp_session_rows(event_id=event, date=day.isoformat(), numbers=TOO_FEW_KNOWN)
            if variant == "one_pair":
                rows = session_rows(rng, event, day, pool, 1)
            elif variant == "butler":
                rows = session_rows(rng, event, day, pool, 6)
                for row in rows:
                    row["scoring"], row["score"] = "BUTLER", rng.choice([-3, -1, 1, 4])
            upload(csv_bytes(rows))
            made.append((event, day))
            check(club)
            continue
        else:
            regraded = BrambledownClubState.objects.get(club=club).open_quarter
            if regraded and Quarter.parse(regraded).end < day:
                brambledown_regrade_club(club=club, quarter=regraded)
            check(club)
            continue
        upload(csv_bytes(session_rows(rng, event, day, pool, rng.choice([3, 5, 8]))))
        made.append((event, day))
        check(club)


def check(club) -> None:
    stored = bd_tables()
    for name, rows in replayed_tables(club).items():
        assert_close(stored[name], rows, name)


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_path_stores_what_a_replay_stores(seed, club, upload, fast_taken):
    run_sequence(seed, club, upload, fast_taken, steps=16)
    assert len(fast_taken) >= 4  # the path is exercised, not bypassed
    assert BrambledownMemberState.objects.filter(club=club).exists()


@pytest.mark.parametrize("patched", ["in the database", "in Python"])
def test_a_later_quarter_closes_the_open_one_from_the_rows(
    club, upload, fast_taken, monkeypatch, patched
):
    """The first session of a later quarter closes the open quarter and the one before its
    own (the quarters between, without sessions, are passed over), as the replay does: from
    the rows of those who played in the open quarter. An open quarter left without sessions
    (its only session withdrawn) gets no quarter row. The club's snapshot is patched by
    PostgreSQL, or in Python elsewhere: the same."""
    if patched == "in Python":
        monkeypatch.setattr(close_quarter, "connection", SimpleNamespace(vendor="sqlite"))
    for i, day in enumerate(["2025-01-06", "2025-01-13", "2025-01-20", "2025-02-03"]):
        upload(csv_bytes(mp_session_rows(event_id=f"A{i}", date=day, scores=SCORES[i % 3])))
    upload(csv_bytes(mp_session_rows(event_id="B", date="2025-04-07", scores=SCORES[1])))
    assert fast_taken[-1] == ("2025Q1",)
    check(club)
    withdraw(version_of("B"))
    assert BrambledownClubState.objects.get(club=club).recorded == 0
    check(club)
    upload(csv_bytes(mp_session_rows(event_id="C", date="2025-10-06", scores=SCORES[2])))
    assert fast_taken[-1] == ("2025Q3",)  # not 2025Q2: no session was left in it
    check(club)
    upload(csv_bytes(mp_session_rows(event_id="D", date="2025-10-13", scores=SCORES[0])))
    upload(csv_bytes(mp_session_rows(event_id="E", date="2026-01-05", scores=SCORES[1])))
    assert fast_taken[-1] == ("2025Q4",)
    check(club)
    listed = BrambledownGrade.objects.filter(club=club, quarter="2025Q4", on_b_list=True)
    assert listed.count() == 16


def test_the_quarterly_regrade_closes_the_open_quarter_from_the_rows(club, upload, fast_taken):
    """``brambledown_regrade_club`` (the quarterly task's) closes the open quarter as a session
    of a later quarter does, and a quarter without sessions after it the replay's way."""
    for i, day in enumerate(["2025-01-06", "2025-01-13", "2025-01-20", "2025-02-03"]):
        upload(csv_bytes(mp_session_rows(event_id=f"A{i}", date=day, scores=SCORES[i % 3])))
    update = brambledown_regrade_club(club=club, quarter="2025Q1")
    assert update.fast and update.closed == ("2025Q1",) and update.sessions == 4
    check(club)
    update = brambledown_regrade_club(club=club, quarter="2025Q3")
    assert update.fast and update.closed == ("2025Q3",) and update.open_quarter == "2025Q4"
    check(club)
    assert brambledown_regrade_club(club=club, quarter="2025Q3").closed == ()
    upload(csv_bytes(mp_session_rows(event_id="B", date="2025-10-06", scores=SCORES[1])))
    assert fast_taken[-1] == ()
    check(club)


def version_of(event: str) -> SessionVersion:
    return SessionVersion.objects.get(session__event__event_id=event)


def test_a_session_at_a_club_that_began_keeping_brambledown_late_is_recorded_in_full(
    club, upload, fast_taken
):
    """Entries the club's state has not folded (the club did not keep Brambledown then) send
    the next upload through the full update."""
    upload(csv_bytes(mp_session_rows(event_id="A", date="2026-07-06")))
    type(club).objects.filter(pk=club.pk).update(keeps_brambledown=False)
    club.refresh_from_db()
    upload(csv_bytes(mp_session_rows(event_id="B", date="2026-07-13")))
    type(club).objects.filter(pk=club.pk).update(keeps_brambledown=True)
    club.refresh_from_db()
    upload(csv_bytes(mp_session_rows(event_id="C", date="2026-07-20")))
    assert fast_taken == []
    check(club)
    upload(csv_bytes(mp_session_rows(event_id="D", date="2026-07-27")))
    assert len(fast_taken) == 1
    check(club)


# --------------------------------------------------------------------------------------------
# What the fast path reads


class Reads:
    """The statements a call runs and the rows they return or change (each statement's
    rowcount: what the database hands back or writes)."""

    def __init__(self) -> None:
        self.queries = 0
        self.rows = 0

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        self.queries += 1
        self.rows += max(context["cursor"].rowcount, 0)
        return result

    def measure(self, call):
        with connection.execute_wrapper(self):
            return call()


@pytest.fixture
def reads(monkeypatch):
    """The reads of each Brambledown update the uploads make, by club slug."""
    found: dict[str, list[Reads]] = {}
    real = fold_module.brambledown_club_update

    def measured(*, club, **kwargs):
        counter = Reads()
        found.setdefault(club.slug, []).append(counter)
        return counter.measure(lambda: real(club=club, **kwargs))

    monkeypatch.setattr(fold_module, "brambledown_club_update", measured)
    return found


def test_what_the_fast_path_reads_does_not_grow_with_the_club(club, upload, reads, fast_taken):
    """Two clubs where the same sixteen members played the same three sessions; the large one
    also has two quarters of sessions of eighty other members. The same new session of the
    sixteen costs the same statements and reads the same rows at both; the full update reads
    more at the large one (the measure sees a club's size)."""
    large = ClubFactory(slug="large", keeps_brambledown=True)
    rng = random.Random(7)
    pool = [str(5001 + i) for i in range(80)]
    history = [
        session_rows(rng, f"H{i:02d}", dt.date(2026, 4, 6) + dt.timedelta(days=4 * i), pool, 8)
        for i in range(20)
    ]
    upload(csv_bytes(*history), target=large)
    core = [
        mp_session_rows(event_id=f"C{i}", date=day, scores=scores)
        for i, (day, scores) in enumerate(
            zip(["2026-07-06", "2026-07-13", "2026-07-20"], SCORES, strict=False)
        )
    ]
    for target in (club, large):
        upload(csv_bytes(*core), target=target)
    assert BrambledownClubState.objects.get(club=large).regraded == "2026Q2"
    assert BrambledownMemberState.objects.filter(club=large).count() > 16 + 70
    reads.clear()
    fast_taken.clear()
    new = mp_session_rows(event_id="NEW", date="2026-07-27", scores=SCORES[2])
    for target in (club, large):
        upload(csv_bytes(new), target=target)
    assert len(fast_taken) == 2
    (small_reads,), (large_reads,) = reads[club.slug], reads["large"]
    assert small_reads.queries == large_reads.queries
    assert small_reads.rows == large_reads.rows < 200
    check(club)
    check(large)

    full = {}
    for target in (club, large):
        counter = Reads()
        with transaction.atomic():
            ledger_head_lock()
            counter.measure(lambda t=target: brambledown_club_update(club=t, replay=True))
            transaction.set_rollback(True)
        full[target.slug] = counter
    assert full["large"].rows > 2 * full[club.slug].rows
    assert full[club.slug].rows > small_reads.rows
