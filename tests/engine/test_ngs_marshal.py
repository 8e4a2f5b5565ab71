"""The compiled pair reader (``csrc/ngs_marshal.c``, issue 31) fills the kernel's pair columns
exactly as the Python reader does (``PairColumns.add_session`` + ``add_means``): the same ids,
boards, scores, direction means, direction and host flags (S3.9, S14.4) and the same known
pair and player counts (S3.8, S14.3), bit for bit, on random sessions; it hands back what it
does not read (new members, unexpected values); and a fold with it equals a fold without it."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.engine.ngs import clib, cpairs
from grading.engine.ngs.ckernel import CKernelReplay
from grading.engine.ngs.cpairs import PairColumns
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)
from grading.lab.synthetic import synthetic_ledger

pytestmark = pytest.mark.usefixtures("ckernel_built")

NUMBERS = [f"m{i}" for i in range(12)]


@pytest.fixture(scope="module", autouse=True)
def reader_built():
    if clib.load_marshal() is None and clib.build_marshal() is None:
        pytest.skip("the pair reader cannot be built here (no Python headers)")
    assert clib.load_marshal() is not None


players = st.builds(
    Player,
    st.one_of(st.none(), st.sampled_from(NUMBERS)),
    st.just(""),
    st.sampled_from([True, True, True, False]),
)
pairs = st.builds(
    PairEntry,
    st.sampled_from(["1", "2", "3", "4", "5"]),  # repeated ids: every pair of the host's id
    st.tuples(players, players),
    st.one_of(st.none(), st.floats(-500, 500), st.integers(-300, 300)),
    st.one_of(st.none(), st.sampled_from([Direction.NS, Direction.EW])),
    st.one_of(st.none(), st.integers(0, 40)),
    st.one_of(st.none(), st.floats(-100, 100)),
)


@st.composite
def sessions(draw):
    return (
        SessionResult(
            SessionKey("club", "e", 1, dt.date(2020, 1, 6)),
            "Event",
            draw(
                st.sampled_from([Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE])
            ),
            draw(st.sampled_from([Movement.ONE_WINNER, Movement.TWO_WINNER])),
            tuple(draw(st.lists(pairs, min_size=2, max_size=9))),
        ),
        draw(st.one_of(st.none(), st.sampled_from(["1", "3", "9"]))),
    )


def _columns(cols: PairColumns) -> tuple[bytes, ...]:
    cols.settle()  # the pair reader's room after the pairs is not part of the columns
    return (
        cols.pab.tobytes(),
        cols.boards.tobytes(),
        cols.score.tobytes(),
        cols.dmean.tobytes(),
        cols.flags.tobytes(),
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(sessions(), st.booleans()), min_size=1, max_size=6))
def test_pair_reader_fills_the_columns_as_python_does(drawn_with_reader):
    """Sessions appended by the pair reader, or by the Python reader in between (a session
    the pair reader hands back, ``truncate``), give the Python reader's columns."""
    drawn = [d for d, _ in drawn_with_reader]
    ids: dict[str | None, int] = {None: -1}
    ids.update((n, i) for i, n in enumerate(NUMBERS))
    by_c, by_python = PairColumns(), PairColumns()
    by_c.add_session(drawn[0][0], None, dict(ids), lambda n: 0)  # a non-empty start
    by_c.add_means(drawn[0][0], False)
    by_python.add_session(drawn[0][0], None, dict(ids), lambda n: 0)
    by_python.add_means(drawn[0][0], False)
    for (session, host), use_reader in drawn_with_reader:
        aggregate = session.scoring is Scoring.AGGREGATE
        if use_reader:
            got = by_c.add_session_c(session, host, ids, aggregate)
        else:
            got = by_c.add_session(session, host, ids, lambda n: 0)
            by_c.add_means(session, aggregate)
        want = by_python.add_session(session, host, ids, lambda n: 0)
        by_python.add_means(session, aggregate)
        assert got == want
        assert len(by_c) == len(by_python)
    by_c.truncate(len(by_c) - 1)
    by_python.truncate(len(by_python) - 1)
    assert _columns(by_c) == _columns(by_python)


def test_pair_reader_hands_back_new_members_and_odd_values():
    ids: dict[str | None, int] = {None: -1, "a": 0, "b": 1}
    key = SessionKey("club", "e", 1, dt.date(2020, 1, 6))

    def session(*pairs: PairEntry) -> SessionResult:
        return SessionResult(key, "E", Scoring.MP, Movement.ONE_WINNER, pairs)

    known = PairEntry("1", (Player("a"), Player("b")), 55.0, None, 24)
    cols = PairColumns()
    assert cols.add_session_c(session(known, known), None, ids, False) == (2, 4)
    before = _columns(cols)
    newcomer = PairEntry("2", (Player("a"), Player("zz")), 45.0, None, 24)
    odd = PairEntry("2", (Player("a"), Player("b")), "45", None, 24)  # type: ignore[arg-type]
    for pair in (newcomer, odd):
        assert cols.add_session_c(session(known, pair), None, ids, False) is None
        assert _columns(cols) == before  # nothing added
    assert len(cols) == 2 and math.isnan(cols.dmean[0])


def test_fold_with_the_pair_reader_equals_the_fold_without(monkeypatch):
    """Every session grade bit for bit, and the same counts, with the pair reader and without
    it (the Python reader), on a synthetic ledger with visitors, hosts, late uploads and
    withdrawals."""
    ledger = synthetic_ledger(300, 400, seed=7)
    read = []  # the sessions the pair reader filled (None: it left one to Python)
    real = cpairs.PairColumns.add_session_c

    def counted(self, *args):
        got = real(self, *args)
        read.append(got is not None)
        return got

    monkeypatch.setattr(cpairs.PairColumns, "add_session_c", counted)
    with_reader = CKernelReplay(chunk=53).run(ledger)
    assert sum(read) > len(read) // 2  # most sessions went through the compiled reader
    monkeypatch.setattr(cpairs, "load_marshal", lambda: None)
    without = CKernelReplay(chunk=53).run(ledger)
    assert with_reader.grades is not None and without.grades is not None
    assert with_reader.grades.tobytes() == without.grades.tobytes()
    assert (with_reader.graded, with_reader.partnership_graded, with_reader.sessions) == (
        without.graded,
        without.partnership_graded,
        without.sessions,
    )
