"""What a whole-ledger fold hands the writer that stores it (issue 18): every figure a refold,
or the national builder, writes, as flat columns, never one object per member.

A fold that writes (``grading.ledger.replay.write``) asks its engine for:

* one :class:`VersionOut` per processed ledger operation, in sequence order, handed to a sink as
  soon as the engine has it: whether the version was graded (S14.9; if not, why), its SoF and
  pair counts, each pair's figures (S3.2-S3.5), each member's session-grade record (S3.4, S3.8,
  S3.9, S9.1) with the member's grade after the step (S5.2);
* at the end, :class:`CurrentOut` (every player's current grade as of a date, S4, S14.7-8),
  :class:`PartnershipsOut` (every partnership's, S6, S14.10) and :class:`HistoriesOut` (every
  subject's live history, what ``grading.ledger.subjects`` stores for the stateless steps).

Two engines produce it and are tested equal, to 1e-9, on random ledgers: the compiled kernel
(``cfold``) and the Python engine's ``apply`` (the fallback when the kernel is not built, and,
through ``StepResult``, the reference path's oracle). Ids are the integer ids the fold was given
for members (``register``: the members' database keys); -1 is "none". Floats are NaN for None.
Dates are proleptic Gregorian ordinals (``date.toordinal()``).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Protocol

from grading.engine.ngs.types import Reason, Status

__all__ = [
    "PAIR_FIGURES",
    "REASONS",
    "RECORD_FIGURES",
    "STATUSES",
    "CurrentOut",
    "HistoriesOut",
    "PartnershipsOut",
    "VersionOut",
    "VersionSink",
]

# a pair's figures, in the order of VersionOut.pair_figures (PairResult's stored columns)
PAIR_FIGURES = ("score_term", "sopp", "par", "excess")
# a member record's figures, in the order of VersionOut.rec_figures (SessionGrade's columns)
RECORD_FIGURES = (
    "grade_before",
    "partner_grade",
    "sopp",
    "score_term",
    "excess",
    "regular_adjustment",
    "par",
    "session_grade",
    "grade_after",  # the member's grade as of the step's reference date, after the step
    "factor",
)
# a member record's reason code indexes this tuple ("" = graded)
REASONS = (
    "",
    Reason.PARTNER_UNKNOWN,
    Reason.HOST,
    Reason.NO_OPPONENTS,
    Reason.NO_SCORE,
    Reason.PARTNER_NEW,
)
# status codes index this tuple
STATUSES = (Status.PROVISIONAL, Status.EVOLVING, Status.MATURE, Status.OUT_OF_DATE)


@dataclass(frozen=True, slots=True)
class VersionOut:
    """One processed operation. Not graded (``graded`` False): ``reason`` says why, the counts
    are filled, every column is empty and the fold's state is unchanged."""

    seq: int
    version: str
    graded: bool
    reason: str
    reference_date: int  # latest live date of play after the step (S14.6), ordinal
    sof: float
    known_pairs: int
    total_pairs: int
    # per pair, in the session's pair order
    pair_ids: tuple[str, ...]
    pair_known: array  # 'b' 0/1
    pair_host: array  # 'b' 0/1
    pair_figures: array  # 'd', len(PAIR_FIGURES) per pair
    # per member record, in SessionOutcome.players order (pair by pair, first player first)
    rec_member: array  # 'i'
    rec_partner: array  # 'i', -1 when the partner has no membership number
    rec_pair: array  # 'i', index into pair_ids
    rec_boards: array  # 'i', the boards counted (S3.5, S14.1)
    rec_reported: array  # 'b', 1 when the file gave the pair's boards
    rec_reason: array  # 'b', index into REASONS
    rec_figures: array  # 'd', len(RECORD_FIGURES) per record


class VersionSink(Protocol):
    def __call__(self, out: VersionOut) -> None: ...


@dataclass(frozen=True, slots=True)
class CurrentOut:
    """Every player with a live session: their grade as of ``as_of`` (what CurrentGrade
    stores), in member id order. ``as_of`` is no earlier than the latest date of play."""

    as_of: int
    member: array  # 'i'
    grade: array  # 'd'
    status: array  # 'b', index into STATUSES
    boards_in_window: array  # 'i'
    sessions_in_window: array  # 'i'
    initial: array  # 'd' (NaN: none)
    last_date: array  # 'i', ordinal of the latest live session


@dataclass(frozen=True, slots=True)
class PartnershipsOut:
    """Every partnership with a live session (``a`` < ``b`` by membership number, the engine's
    key order), in the order the fold met them: its grade as of ``as_of`` (what
    PartnershipGrade stores; ``as_of`` no earlier than the latest date of play)."""

    as_of: int
    a: array  # 'i'
    b: array  # 'i'
    grade: array  # 'd'
    status: array  # 'b', index into STATUSES
    initial: array  # 'd'
    boards_in_window: array  # 'i'
    boards_together: array  # 'i', graded boards of every live session together
    sessions_together: array  # 'i'
    last_date: array  # 'i'


@dataclass(frozen=True, slots=True)
class HistoriesOut:
    """Every subject the fold has met (players in member id order, then partnerships in the
    order the fold met them), with its initial grade, and every live history entry, in (date,
    seq) order per subject (what ``LedgerSubject``, ``LedgerHistory`` and ``LedgerLive`` hold).

    A fold can also hand them in batches of subjects (``history_batches``): a batch holds the
    subjects numbered ``first_subject`` on, ``entry_subject`` is the subject's number over all
    batches, and only the first batch holds the live versions."""

    # per subject
    subject_a: array  # 'i' the member, or the partnership's first member
    subject_b: array  # 'i' -1 for a player, else the partnership's second member
    subject_initial: array  # 'd'
    # per live history entry
    entry_subject: array  # 'i', index into the subjects
    entry_seq: array  # 'i'
    entry_pos: array  # 'i', order among its version's subjects (players, then partnerships)
    entry_date: array  # 'i'
    entry_boards: array  # 'i'
    entry_grade: array  # 'd'
    entry_factor: array  # 'd'
    entry_partner: array  # 'i', -1 none
    entry_pad: array  # 'd', NaN: the restart grade (S5.1)
    # per live version
    live_seq: array  # 'i'
    live_version: tuple[str, ...]
    live_date: array  # 'i'
    first_subject: int = 0  # the number of this batch's first subject
