"""A whole-ledger fold that writes (issue 18), over the Python engine: ``ReplayState`` and
``apply`` (``path="fast"`` by default). It hands what ``grading.engine.ngs.foldout`` describes:
one :class:`~grading.engine.ngs.foldout.VersionOut` per processed version (graded or not), in
sequence order, then the current grades, partnership grades and histories at the end.

The fallback when the C kernel is not built (``cfold.WritingReplay`` has the same interface),
and its oracle: each ``VersionOut`` is the ``StepResult`` converted as
``grading.ledger.store.store_step`` stores it (``grade_after`` the step's current grade of the
member, every other record figure from the ``PlayerSessionGrade``, pair figures from
``outcome.pairs``), and ``histories()`` is what ``grading.ledger.subjects.subjects_copy``
writes from the state (players in member id order, then partnerships in the order the fold met
them).

Member ids: ``register(numbers)`` gives ``numbers[i]`` the id ``i``; a number met later (an
operation fed with ``apply``) gets the next free id, as in the C fold. ``process_columns``
takes the columns of ``cfold.RecordsReplay.process_columns`` and builds the ``SessionResult``
(so a writer can feed both producers the same way); it returns False, doing nothing, for the
same sessions the C fold leaves to ``apply``.
"""

from __future__ import annotations

import datetime as dt
import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import replace

from grading.engine.ngs.foldout import (
    REASONS,
    STATUSES,
    CurrentOut,
    HistoriesOut,
    PartnershipsOut,
    VersionOut,
    VersionSink,
)
from grading.engine.ngs.ledger import (
    LedgerError,
    LedgerOp,
    Path,
    ProcessOp,
    ReplayState,
    StepResult,
    apply,
)
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.types import SessionOutcome
from grading.engine.types import (
    Direction,
    Movement,
    PairEntry,
    Player,
    Scoring,
    SessionKey,
    SessionResult,
)

__all__ = ["PythonFold", "INLINE_SCORING", "version_out", "not_graded_out"]

# the scoring types the C fold grades itself from columns (cfold.INLINE_SCORING's keys)
INLINE_SCORING = frozenset({Scoring.MP, Scoring.BUTLER, Scoring.CROSS_IMP, Scoring.AGGREGATE})

_NAN = math.nan
_REASON_CODE = {reason: i for i, reason in enumerate(REASONS)}
_STATUS_CODE = {status: i for i, status in enumerate(STATUSES)}
_DIRECTIONS = (None, Direction.NS, Direction.EW)


def _f(x: float | None) -> float:
    return _NAN if x is None else x


def not_graded_out(
    seq: int, version: str, reason: str, reference: int, known: int, total: int
) -> VersionOut:
    """A version not graded (S14.9): the counts, every column empty."""
    return VersionOut(
        seq,
        version,
        False,
        reason,
        reference,
        _NAN,
        known,
        total,
        (),
        array("b"),
        array("b"),
        array("d"),
        array("i"),
        array("i"),
        array("i"),
        array("i"),
        array("b"),
        array("b"),
        array("d"),
    )


def version_out(
    seq: int,
    version: str,
    reference: int,
    outcome: SessionOutcome,
    after: dict[str, float],
    ids: dict[str | None, int],
) -> VersionOut:
    """A processed version's outcome as columns; ``after`` holds the members' grades after
    the step (``StepResult.current_grades``), ``ids`` the members' integer ids."""
    if not outcome.graded:
        return not_graded_out(
            seq, version, outcome.reason, reference, outcome.known_pairs, outcome.total_pairs
        )
    pair_index = {p.pair_id: i for i, p in enumerate(outcome.pairs)}
    figures = array("d")
    for p in outcome.pairs:
        figures.extend((_f(p.score_term), _f(p.sopp), _f(p.par), _f(p.excess)))
    rec = array("d")
    for r in outcome.players:
        rec.extend(
            (
                r.grade_before,
                _f(r.partner_grade),
                _f(r.sopp),
                _f(r.score_term),
                _f(r.excess),
                r.regular_adjustment,
                _f(r.par),
                _f(r.session_grade),
                after.get(r.number, _NAN),
                r.factor,
            )
        )
    players = outcome.players
    return VersionOut(
        seq,
        version,
        True,
        "",
        reference,
        _f(outcome.sof),
        outcome.known_pairs,
        outcome.total_pairs,
        tuple(p.pair_id for p in outcome.pairs),
        array("b", [p.known for p in outcome.pairs]),
        array("b", [p.host for p in outcome.pairs]),
        figures,
        array("i", [ids[r.number] for r in players]),
        array("i", [ids.get(r.partner, -1) for r in players]),
        array("i", [pair_index[r.pair_id] for r in players]),
        array("i", [r.boards for r in players]),
        array("b", [r.boards_reported for r in players]),
        array("b", [_REASON_CODE[r.reason] for r in players]),
        rec,
    )


class PythonFold:
    """The writing fold over ``apply`` (see the module). ``state`` is the ``ReplayState``."""

    def __init__(
        self, params: NGSParams = NGS_DEFAULT, *, sink: VersionSink, path: Path = "fast"
    ) -> None:
        self.params = params
        self.state = ReplayState(params, path)
        self._sink = sink
        self.ids: dict[str | None, int] = {None: -1}
        self.numbers: list[str] = []

    @property
    def last_seq(self) -> int:
        return self.state.last_seq

    def register(self, numbers: Sequence[str]) -> None:
        """Use ``numbers[i]`` as the member of integer id ``i`` (before any operation)."""
        if self.numbers or self.state.last_seq:
            raise LedgerError("members are registered before the first operation")
        self.numbers = list(numbers)
        self.ids = {None: -1}
        self.ids.update((n, i) for i, n in enumerate(self.numbers))

    def _id(self, number: str) -> int:
        i = self.ids.get(number)
        if i is None:
            i = self.ids[number] = len(self.numbers)
            self.numbers.append(number)
        return i

    # ------------------------------------------------------------------ operations

    def apply(self, op: LedgerOp) -> StepResult:
        step = apply(self.state, op)
        self.state.steps.clear()
        if isinstance(op, ProcessOp):
            for pair in op.session.pairs:
                for p in pair.players:
                    if p.number is not None and p.number not in self.ids:
                        self._id(p.number)
            assert step.outcome is not None
            after = {g.subject: g.grade for g in step.current_grades}
            ref = step.reference_date.toordinal()
            self._sink(version_out(op.seq, op.version, ref, step.outcome, after, self.ids))
        return step

    def process_columns(
        self,
        seq: int,
        version: str,
        *,
        date: int,
        scoring: Scoring,
        movement: Movement,
        weighting: int,
        pair_ids: Sequence[str],
        pab: array[int],
        boards: array[int],
        score: array[float],
        dmean: array[float],
        direction: array[int],
        marked: array[int],
        host_pair: str | None,
    ) -> bool:
        """As ``cfold.RecordsReplay.process_columns``: a graded-flagged pairs session given
        as columns, made into a ``SessionResult`` and applied. False, doing nothing, for a
        session the C fold does not grade from columns (feed it to ``apply``)."""
        n = len(pair_ids)
        if scoring not in INLINE_SCORING or n < 2:
            return False
        numbers = self.numbers
        pairs = []
        for j in range(n):
            people = []
            for q in (2 * j, 2 * j + 1):
                i = pab[q]
                first = q % 2 == 0
                people.append(
                    Player(None if i < 0 else numbers[i], rateable=not (first and marked[j]))
                )
            pairs.append(
                PairEntry(
                    pair_ids[j],
                    (people[0], people[1]),
                    None if math.isnan(score[j]) else score[j],
                    direction=_DIRECTIONS[direction[j]],
                    boards=boards[j] if boards[j] > 0 else None,
                    direction_mean=None if math.isnan(dmean[j]) else dmean[j],
                )
            )
        session = SessionResult(
            SessionKey("", version, 1, dt.date.fromordinal(date)),
            "",
            scoring,
            movement,
            tuple(pairs),
            weighting=weighting,
        )
        self.apply(ProcessOp(seq, version, session, host_pair))
        return True

    def flush(self) -> None:
        """Nothing is queued: each operation is handed to the sink as it is applied."""

    # ------------------------------------------------------------------ the end

    def latest(self) -> int | None:
        """The latest date of play (ordinal) among live versions (S14.6)."""
        latest = self.state.latest_date()
        return None if latest is None else latest.toordinal()

    def current_grades(self, as_of: int) -> CurrentOut:
        """Every player with a live session, their grade on ``as_of`` (an ordinal no earlier
        than the latest date of play), in member id order."""
        day = dt.date.fromordinal(as_of)
        params = self.params
        out = CurrentOut(
            as_of,
            array("i"),
            array("d"),
            array("b"),
            array("i"),
            array("i"),
            array("d"),
            array("i"),
        )
        for i, number, history in self._players():
            if not history.session_count():
                continue
            g = history.grade(day, params, subject=number)
            last = history.last_date()
            assert last is not None
            out.member.append(i)
            out.grade.append(g.grade)
            out.status.append(_STATUS_CODE[g.status])
            out.boards_in_window.append(g.boards_in_window)
            out.sessions_in_window.append(g.sessions_in_window)
            out.initial.append(history.initial)
            out.last_date.append(last.toordinal())
        return out

    def partnership_grades(self, as_of: int) -> PartnershipsOut:
        """Every partnership with a live session, its grade on ``as_of``, in the order the
        fold met them (``a``, ``b`` in the engine's key order)."""
        day = dt.date.fromordinal(as_of)
        params = self.params
        ids = self.ids
        out = PartnershipsOut(
            as_of,
            *(array(t) for t in ("i", "i", "d", "b", "d", "i", "i", "i", "i")),
        )
        for key, history in self.state.partnerships.items():
            if not history.session_count():
                continue
            g = history.grade(day, params)
            last = history.last_date()
            assert last is not None
            out.a.append(ids[key[0]])
            out.b.append(ids[key[1]])
            out.grade.append(g.grade)
            out.status.append(_STATUS_CODE[g.status])
            out.initial.append(history.initial)
            out.boards_in_window.append(g.boards_in_window)
            out.boards_together.append(history.graded_boards())
            out.sessions_together.append(history.session_count())
            out.last_date.append(last.toordinal())
        return out

    def history_batches(self, subjects: int = 200_000) -> Iterator[HistoriesOut]:
        """``histories()`` as one batch (the Python fold holds every history anyway)."""
        yield self.histories()

    def _players(self):
        ids = self.ids
        return sorted((ids[n], n, h) for n, h in self.state.players.items())

    def histories(self) -> HistoriesOut:
        """Every subject the fold has met and every live history entry (see the module)."""
        ids = self.ids
        state = self.state
        subjects = [((i, -1), h) for i, _, h in self._players()]
        subjects += [((ids[a], ids[b]), h) for (a, b), h in state.partnerships.items()]
        positions: dict[tuple[tuple[int, int], int], int] = {}
        for live in state.live.values():
            keys = [(ids[n], -1) for n in live.players]
            keys += [(ids[a], ids[b]) for a, b in live.partnerships]
            for pos, key in enumerate(keys):
                positions[(key, live.seq)] = pos
        out = HistoriesOut(*(array(t) for t in ("i", "i", "d")), *_entry_columns(), *_live())  # type: ignore[arg-type]  # noqa: E501
        for index, (key, history) in enumerate(subjects):
            out.subject_a.append(key[0])
            out.subject_b.append(key[1])
            out.subject_initial.append(history.initial)
            entries = sorted(history.history().entries, key=lambda e: (e.date, e.seq))
            for e in entries:
                out.entry_subject.append(index)
                out.entry_seq.append(e.seq)
                out.entry_pos.append(positions[(key, e.seq)])
                out.entry_date.append(e.date.toordinal())
                out.entry_boards.append(e.boards)
                out.entry_grade.append(e.grade)
                out.entry_factor.append(e.factor)
                out.entry_partner.append(ids[e.partner] if e.partner is not None else -1)
                out.entry_pad.append(_f(e.pad))
        versions = []
        for version, live in state.live.items():
            out.live_seq.append(live.seq)
            out.live_date.append(live.date.toordinal())
            versions.append(version)
        return replace(out, live_version=tuple(versions))


def _entry_columns() -> tuple[array, ...]:
    return tuple(array(t) for t in ("i", "i", "i", "i", "i", "d", "d", "i", "d"))


def _live() -> tuple:
    return array("i"), (), array("i")
