"""The grading app's models: results as uploaded, the ledger and its grades, the two other
schemes, and the audit log (S5, S10-S12)."""

from grading.models.audit import AuditEvent
from grading.models.enums import Movement, Scoring
from grading.models.ledger import (
    CurrentGrade,
    LedgerEntry,
    LedgerHead,
    LedgerHistory,
    LedgerLive,
    LedgerSubject,
    LedgerTables,
    PartnershipGrade,
    SessionGrade,
)
from grading.models.results import (
    Event,
    Match,
    PairResult,
    Session,
    SessionVersion,
    TravellerLine,
    Upload,
)
from grading.models.schemes import (
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
    SchemeEntry,
    SchemeHead,
)

__all__ = [
    "AuditEvent",
    "BrambledownClubState",
    "BrambledownGrade",
    "BrambledownListEntry",
    "BrambledownMemberState",
    "BrambledownPairState",
    "BrambledownPoint",
    "BrambledownQuarter",
    "BrambledownRating",
    "CurrentGrade",
    "Event",
    "LedgerEntry",
    "LedgerHead",
    "LedgerHistory",
    "LedgerLive",
    "LedgerSubject",
    "LedgerTables",
    "Match",
    "Movement",
    "PPIPoint",
    "PPIRating",
    "PairResult",
    "PartnershipGrade",
    "SchemeEntry",
    "SchemeHead",
    "Scoring",
    "Session",
    "SessionGrade",
    "SessionVersion",
    "TravellerLine",
    "Upload",
]
