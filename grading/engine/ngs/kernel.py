"""A lean NGS ledger fold for national-scale replays (S5.2-S5.4 with S3, S4, S6).

:class:`KernelReplay` folds the same ledger as ``ledger.replay`` and computes the same
numbers, but keeps only compact per-subject state (``window.WindowState``: arrays, running
window sums) and builds no per-step dataclasses. Match-pointed, Butler and cross-IMP pairs
sessions (the bulk of any real ledger) are graded inline; every other graded scoring type is
handed to ``session.grade_session`` with standings from the same state, so the arithmetic
is the reference's by construction.

With ``record=True`` every step's figures are kept as plain tuples (:class:`KernelStep`) so
tests can compare them with the reference path's ``StepResult``s (``compare_kernel_steps``).
Without it only the session grades themselves are kept, in one ``array('d')``.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from grading.engine.ngs.ledger import CHECK_TOLERANCE, LedgerError, LedgerOp, ProcessOp, StepResult
from grading.engine.ngs.params import NGS_DEFAULT, NGSParams
from grading.engine.ngs.session import grade_session, host_pair_of, why_not_graded
from grading.engine.ngs.types import PartnershipKey, PlayerStanding
from grading.engine.ngs.window import WindowState
from grading.engine.ngs.windowrules import STATUS_CODES, rules_for
from grading.engine.types import Movement, Scoring, SessionResult

__all__ = ["KernelReplay", "KernelStep", "kernel_replay", "compare_kernel_steps"]

_MATURE = 2
_INLINE = {Scoring.MP: 0, Scoring.BUTLER: 1, Scoring.CROSS_IMP: 2}


class KernelStep(NamedTuple):
    """One step's figures (``record=True``)."""

    seq: int
    kind: str
    version: str
    reference: int  # ordinal
    # (number, grade_before, sopp, excess, session_grade, regular_adjustment) per player record
    players: tuple[tuple[str, float, float | None, float | None, float | None, float], ...]
    partnerships: tuple[tuple[PartnershipKey, float], ...]  # (key, session grade)
    # (subject, grade, status code, boards in window, padding boards) after the step
    current_grades: tuple[tuple[str, float, int, int, int], ...]
    partnership_grades: tuple[tuple[str, float, int, int, int], ...]


class KernelReplay:
    """Compact fold state; ``apply(op)`` performs one ledger operation."""

    def __init__(
        self, params: NGSParams = NGS_DEFAULT, *, record: bool = False, keep_grades: bool = True
    ) -> None:
        self.params = params
        self.rules = rules_for(params)
        self.players: dict[str, WindowState] = {}
        self.partnerships: dict[PartnershipKey, WindowState] = {}
        self.live: dict[str, tuple[int, int, tuple[str, ...], tuple[PartnershipKey, ...]]] = {}
        self.live_dates: dict[int, int] = {}
        self.latest: int | None = None
        self.last_seq = 0
        self.record = record
        self.steps: list[KernelStep] = []
        self.graded = 0  # player-session grades computed
        self.partnership_graded = 0
        self.sessions = 0  # graded session versions processed
        self.grades: array[float] | None = array("d") if keep_grades else None
        self._rec_players: list[
            tuple[str, float, float | None, float | None, float | None, float]
        ] = []
        p = params
        self._consts = (
            p.gain,
            p.rpcf,
            p.default_boards,
            p.f_butler,
            p.f_cross,
            p.new_partner_min_boards,
        )

    # ------------------------------------------------------------------ ledger

    def apply(self, op: LedgerOp) -> None:
        if op.seq <= self.last_seq:
            raise LedgerError(f"sequence {op.seq} is not after {self.last_seq}")
        if isinstance(op, ProcessOp):
            self._process(op)
        else:
            self._withdraw(op.seq, op.version)
        self.last_seq = op.seq

    def run(self, ledger: Iterable[LedgerOp]) -> KernelReplay:
        for op in ledger:
            self.apply(op)
        return self

    def _date_added(self, d: int) -> None:
        dates = self.live_dates
        dates[d] = dates.get(d, 0) + 1
        if self.latest is None or d > self.latest:
            self.latest = d

    def _date_removed(self, d: int) -> None:
        dates = self.live_dates
        left = dates[d] - 1
        if left:
            dates[d] = left
        else:
            del dates[d]
            if d == self.latest:
                self.latest = max(dates) if dates else None

    # ------------------------------------------------------------------ process

    def _process(self, op: ProcessOp) -> None:
        session = op.session
        params = self.params
        if op.version in self.live:
            raise LedgerError(f"version {op.version} is already live; withdraw it first")
        d = session.date.toordinal()
        latest = self.latest
        ref = d if latest is None or d > latest else latest
        if why_not_graded(session, params, op.host_pair):
            if self.record:
                self.steps.append(KernelStep(op.seq, "process", op.version, ref, (), (), (), ()))
            return
        self.sessions += 1
        kind = _INLINE.get(session.scoring)
        if kind is None or session.matches:
            records, pships = self._graded_by_reference(op, session, ref)
        else:
            records, pships = self._graded_inline(op, session, ref, kind)
        # initial grades are fixed at the first appearance in a known pair (S14.3, S14.4, S14.7)
        players = self.players
        rules = self.rules
        first = params.first_grade(session.weighting)
        for pair in session.pairs:
            if pair.known:
                for p in pair.players:
                    if p.number not in players:
                        players[p.number] = WindowState(rules, first)  # type: ignore[index]
        factor = params.factor(session.weighting)
        seq = op.seq
        graded: list[str] = []
        out = self.grades
        for number, partner, x, sg in records:
            players[number].add(seq, d, x, sg, factor, partner)
            graded.append(number)
            if out is not None:
                out.append(sg)
        self.graded += len(graded)
        keys: list[PartnershipKey] = []
        partnerships = self.partnerships
        for key, x, sg, average in pships:
            ws = partnerships.get(key)
            if ws is None:
                ws = partnerships[key] = WindowState(rules, average, track_partners=False)
            ws.add(seq, d, x, sg, factor, None, average)
            keys.append(key)
        self.partnership_graded += len(keys)
        self.live[op.version] = (seq, d, tuple(graded), tuple(keys))
        self._date_added(d)
        if self.record:
            seen: dict[str, None] = {}
            for pair in session.pairs:
                for p in pair.players:
                    if p.number is not None and p.number in players:
                        seen[p.number] = None
            self._record(op.seq, "process", op.version, ref, list(seen), keys)
            self.steps[-1] = self.steps[-1]._replace(
                partnerships=tuple((key, sg) for key, _, sg, _ in pships)
            )

    def _graded_inline(
        self, op: ProcessOp, session: SessionResult, ref: int, kind: int
    ) -> tuple[list[tuple[str, str | None, int, float]], list[tuple[Any, int, float, float]]]:
        """MP, Butler and cross-IMP pairs (S3.2-S3.4, S3.8, S3.9, S6): ``grade_session``'s
        arithmetic without its dataclasses."""
        params = self.params
        gain, rpcf, default_boards, f_butler, f_cross, min_boards = self._consts
        players = self.players
        first = params.first_grade(session.weighting)
        host, _ = host_pair_of(session, op.host_pair)
        two = session.movement is Movement.TWO_WINNER
        # standings at the start: (grade, status, graded boards, state)
        st: dict[str, tuple[float, int, int, WindowState | None]] = {}
        rows: list[list[Any]] = []
        known_sum: dict[str, float] = {}
        known_n: dict[str, int] = {}
        unknown_sum: dict[str, float] = {}
        for pair in session.pairs:
            a, b = pair.players
            na = a.number
            nb = b.number
            for num in (na, nb):
                if num is not None and num not in st:
                    ws = players.get(num)
                    if ws is None:
                        st[num] = (first, 0, 0, None)
                    else:
                        g, code, _, _ = ws.current(ref)
                        st[num] = (g, code, ws.total, ws)
            boards = pair.boards
            x = boards if boards is not None and boards > 0 else default_boards
            score = pair.score
            if score is None:
                term = None
            elif kind == 0:
                term = score - 50.0
            elif kind == 1:
                term = f_butler * score / x
            else:
                term = f_cross * score / x
            direction = pair.direction
            group = direction.value if two and direction is not None else ""
            if na is not None and nb is not None:
                ga = st[na][0]
                gb = st[nb][0]
                known_sum[group] = known_sum.get(group, 0.0) + (ga + gb)
                known_n[group] = known_n.get(group, 0) + 2
                rows.append([pair, group, x, term, ga, gb, (ga + gb) / 2])
            else:
                unknown_sum[group] = unknown_sum.get(group, 0.0) + 2 * (term or 0.0)
                rows.append([pair, group, x, term, None, None, 0.0])
        if unknown_sum:  # unknown players' h_u (S3.8)
            total_known = sum(known_n.values())
            field_sof = (sum(known_sum.values()) + sum(unknown_sum.values())) / total_known
            for row in rows:
                if row[4] is None:
                    grp = row[1]
                    m = known_n.get(grp, 0)
                    if m:
                        sof = (known_sum.get(grp, 0.0) + unknown_sum.get(grp, 0.0)) / m
                    else:
                        sof = field_sof
                    row[6] = (row[3] or 0.0) + sof
        totals: dict[str, float] = {}
        counts: dict[str, int] = {}
        for row in rows:
            grp = row[1]
            totals[grp] = totals.get(grp, 0.0) + row[6]
            counts[grp] = counts.get(grp, 0) + 1
        records: list[tuple[str, str | None, int, float]] = []
        pships: list[tuple[Any, int, float, float]] = []
        rec = self._rec_players if self.record else None
        partnerships = self.partnerships
        for pair, grp, x, term, ga, gb, own in rows:
            c = counts[grp]
            sopp = (totals[grp] - own) / (c - 1) if c > 1 else None
            excess = None if sopp is None or term is None else term + sopp - own
            a, b = pair.players
            na = a.number
            nb = b.number
            is_host = pair.pair_id == host
            got = 0
            for me, partner in ((na, nb), (nb, na)):
                if me is None:
                    continue
                mine = st[me]
                if partner is None:
                    if rec is not None:
                        rec.append((me, mine[0], None, None, None, 0.0))
                    continue
                theirs = st[partner]
                adjustment = 0.0
                mws = mine[3]
                tws = theirs[3]
                if (
                    mws is not None
                    and tws is not None
                    and mws.regular_with(partner)
                    and tws.regular_with(me)
                ):
                    adjustment = rpcf * (theirs[0] - mine[0]) / 2
                sg = None
                if not (
                    is_host
                    or excess is None
                    or (min_boards is not None and mine[1] == _MATURE and theirs[2] < min_boards)
                ):
                    sg = mine[0] + adjustment + gain * excess
                    records.append((me, partner, x, sg))
                    got += 1
                if rec is not None:
                    rec.append((me, mine[0], sopp, excess, sg, adjustment))
            if got == 2:
                assert na is not None and nb is not None and excess is not None
                assert sopp is not None and term is not None and ga is not None
                key = (na, nb) if na <= nb else (nb, na)
                average = (ga + gb) / 2
                pws = partnerships.get(key)
                before = average if pws is None else pws.current(ref, average)[0]
                pships.append((key, x, before + gain * (term + sopp - before), average))
        return records, pships

    def _graded_by_reference(
        self, op: ProcessOp, session: SessionResult, ref: int
    ) -> tuple[list[tuple[str, str | None, int, float]], list[tuple[Any, int, float, float]]]:
        """Every other scoring type: ``grade_session`` with standings from this state."""
        players = self.players
        standings: dict[str, PlayerStanding] = {}
        for pair in session.pairs:
            for p in pair.players:
                num = p.number
                if num is None or num in standings or num not in players:
                    continue
                ws = players[num]
                g, code, _, _ = ws.current(ref)
                standings[num] = PlayerStanding(
                    g, STATUS_CODES[code], ws.total, ws.regular_partner()
                )
        pgrades: dict[PartnershipKey, float] = {}
        for pair in session.pairs:
            a, b = (p.number for p in pair.players)
            if a is None or b is None or a not in standings or b not in standings:
                continue
            key = (a, b) if a <= b else (b, a)
            pws = self.partnerships.get(key)
            if pws is not None:
                average = (standings[a].grade + standings[b].grade) / 2
                pgrades[key] = pws.current(ref, average)[0]
        outcome = grade_session(
            session, standings, self.params, host_pair=op.host_pair, partnership_grades=pgrades
        )
        records = []
        for r in outcome.players:
            if self.record:
                self._rec_players.append(
                    (
                        r.number,
                        r.grade_before,
                        r.sopp,
                        r.excess,
                        r.session_grade,
                        r.regular_adjustment,
                    )
                )
            if r.session_grade is not None:
                records.append((r.number, r.partner, r.boards, r.session_grade))
        pships = [
            (ps.key, ps.boards, ps.session_grade, ps.pair_average) for ps in outcome.partnerships
        ]
        return records, pships

    # ------------------------------------------------------------------ withdraw

    def _withdraw(self, seq: int, version: str) -> None:
        live = self.live.pop(version, None)
        if live is None:
            raise LedgerError(f"version {version} is not live")
        vseq, d, numbers, keys = live
        for number in numbers:
            self.players[number].remove(vseq)
        for key in keys:
            self.partnerships[key].remove(vseq)
        self._date_removed(d)
        if self.record:
            ref = self.latest if self.latest is not None else d
            self._record(seq, "withdraw", version, ref, list(numbers), list(keys))

    # ------------------------------------------------------------------ queries

    def grade(self, number: str, as_of: int) -> tuple[float, int, int, int] | None:
        """A member's ``(grade, status code, boards in window, padding)`` on ``as_of`` (an
        ordinal no earlier than the member's latest session)."""
        ws = self.players.get(number)
        return None if ws is None else ws.current(as_of)

    # ------------------------------------------------------------------ recording

    def _record(
        self, seq: int, kind: str, version: str, ref: int, numbers: list[str], keys: Sequence[Any]
    ) -> None:
        grades = []
        for n in numbers:
            g, code, boards, padding = self.players[n].current(ref)
            grades.append((n, g, code, boards, padding))
        pgrades = []
        for key in keys:
            g, code, boards, padding = self.partnerships[key].current(ref)
            pgrades.append((f"{key[0]}+{key[1]}", g, code, boards, padding))
        players = tuple(self._rec_players)
        self._rec_players = []
        self.steps.append(
            KernelStep(seq, kind, version, ref, players, (), tuple(grades), tuple(pgrades))
        )


def kernel_replay(
    ledger: Iterable[LedgerOp], params: NGSParams = NGS_DEFAULT, *, record: bool = False
) -> KernelReplay:
    """Fold a whole ledger from empty with the lean kernel."""
    return KernelReplay(params, record=record).run(ledger)


def compare_kernel_steps(
    expected: Sequence[StepResult], actual: Sequence[KernelStep], tol: float = CHECK_TOLERANCE
) -> list[str]:
    """Differences between the reference path's steps and the kernel's beyond ``tol``."""
    problems: list[str] = []
    if len(expected) != len(actual):
        problems.append(f"{len(expected)} steps expected, {len(actual)} found")
    for a, b in zip(expected, actual, strict=False):
        where = f"seq {a.seq}"
        if (a.seq, a.kind, a.version, a.reference_date.toordinal()) != (
            b.seq,
            b.kind,
            b.version,
            b.reference,
        ):
            problems.append(f"{where}: different operation")
            continue
        if a.outcome is not None and a.outcome.graded:
            mine = [
                (r.number, r.grade_before, r.sopp, r.excess, r.session_grade, r.regular_adjustment)
                for r in a.outcome.players
            ]
            if len(mine) != len(b.players):
                problems.append(f"{where}: {len(mine)} player records, {len(b.players)} found")
            for x, y in zip(mine, b.players, strict=False):
                if x[0] != y[0] or not all(
                    _close(p, q, tol) for p, q in zip(x[1:], y[1:], strict=True)
                ):
                    problems.append(f"{where}: player {x} != {y}")
            theirs = [(p.key, p.session_grade) for p in a.outcome.partnerships]
            if len(theirs) != len(b.partnerships):
                problems.append(f"{where}: partnership records differ in number")
            for p, q in zip(theirs, b.partnerships, strict=False):
                if p[0] != q[0] or not _close(p[1], q[1], tol):
                    problems.append(f"{where}: partnership {p} != {q}")
        for grades, kernel in (
            (a.current_grades, b.current_grades),
            (a.partnership_grades, b.partnership_grades),
        ):
            if len(grades) != len(kernel):
                problems.append(f"{where}: {len(grades)} grades expected, {len(kernel)} found")
                continue
            for cg, k in zip(grades, kernel, strict=True):
                same = (cg.subject, cg.status, cg.boards_in_window, cg.padding_boards) == (
                    k[0],
                    STATUS_CODES[k[2]],
                    k[3],
                    k[4],
                )
                if not same or not _close(cg.grade, k[1], tol):
                    problems.append(f"{where}: {cg.subject} {cg.grade} {cg.status} != {k}")
    return problems


def _close(x: float | None, y: float | None, tol: float) -> bool:
    if x is None or y is None:
        return x is y
    return abs(x - y) <= tol
