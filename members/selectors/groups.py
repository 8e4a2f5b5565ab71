"""The groups a member's session figures are averages over: the opponents behind SOpp (S3.2)
and the field behind SoF, and whether the viewer may see each average (S7, S14.14).

The groups are read from the stored pairs; whether an average may be shown is decided in
``grading.privacy`` (``average_shown``, ``group_hides_grades``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from grading.engine.ngs import NGS_DEFAULT, NGSParams
from grading.engine.ngs.session import Tables, comparison_group, sopp_tables, table_opponents
from grading.engine.types import SWISS_PAIRS_SCORING, TEAMS_SCORING, Direction
from grading.engine.types import Movement as EngineMovement
from grading.engine.types import Scoring as EngineScoring
from grading.models import (
    Match,
    Movement,
    PairResult,
    SessionGrade,
    SessionVersion,
    TravellerLine,
)
from grading.privacy import SMALLEST_GROUP, average_shown, hidden_from_q
from members.models import Member

SWISS = (
    SWISS_PAIRS_SCORING | TEAMS_SCORING
)  # the scorings whose SOpp may be over the pairs met at the table
MET = "the pairs you met at the table"
# What deciding whether a pair's opponents hide a private grade reads of each pair.
PAIR_FIELDS = (
    "version",
    "pair_id",
    "direction",
    "player1",
    "player1__grade_private",
    "player2",
    "player2__grade_private",
)


@dataclass(frozen=True)
class Opponents:
    """The pairs a pair's SOpp is the average over, and the group's name in words."""

    pairs: list[PairResult]
    name: str

    @property
    def players(self) -> list[Member | None]:
        return players_of(self.pairs)

    @property
    def unknown(self) -> int:
        return sum(not p.known for p in self.pairs)


def players_of(pairs: Iterable[PairResult]) -> list[Member | None]:
    """Every player of the pairs, an unknown player as None (they count in the average)."""
    return [player for pair in pairs for player in (pair.player1, pair.player2)]


def pair_group(version: SessionVersion, pair: PairResult) -> str:
    """The comparison group of a stored pair, as the engine grades it (S3.2, S14.3:
    ``grading.engine.ngs.session.comparison_group``): its direction for two-winner pairs and
    for teams, else the whole field ("")."""
    direction = Direction(pair.direction) if pair.direction in ("NS", "EW") else None
    return comparison_group(
        EngineScoring(version.scoring), EngineMovement(version.movement), direction
    )


def opponents_of(
    version: SessionVersion,
    pair_id: str,
    pairs: list[PairResult],
    tables: dict[str, Tables] | None = None,
    params: NGSParams = NGS_DEFAULT,
) -> Opponents:
    """The group SOpp averaged over, by the engine's own rule (S3.2: ``sopp_tables``): the
    pairs met at the table (``tables``, from :func:`tables_met`) where the engine averages
    those, else the other pairs of the pair's comparison group."""
    met = sopp_tables(
        EngineScoring(version.scoring), (tables or {}).get(pair_id, []), len(pairs), params
    )
    if met:
        ids = {o for _, opponents in met for o in opponents}
        return Opponents([p for p in pairs if p.pair_id in ids], MET)
    me = next((p for p in pairs if p.pair_id == pair_id), None)
    group = pair_group(version, me) if me is not None else ""
    others = [p for p in pairs if p.pair_id != pair_id and pair_group(version, p) == group]
    if group:
        return Opponents(others, f"the other pairs sitting {group}")
    return Opponents(others, "every other pair in the field")


def tables_met(pairs: dict[int, list[PairResult]]) -> dict[int, dict[str, Tables]]:
    """Per version of ``pairs`` (its stored pairs), per pair, the tables it met as the engine
    reads them (``table_opponents``: the stored matches, else the travellers). Two queries."""
    matches: dict[int, list[Match]] = defaultdict(list)
    for match in Match.objects.filter(version_id__in=list(pairs)).only(
        "version_id", "pair_id", "opponents", "boards"
    ):
        matches[match.version_id].append(match)
    lines = defaultdict(list)
    for line in TravellerLine.objects.filter(
        version_id__in=[v for v in pairs if v not in matches]
    ).values_list("version_id", "ns_pair", "ew_pair", named=True):
        lines[line.version_id].append(line)
    return {
        version_id: table_opponents(
            {p.pair_id for p in version_pairs}, matches[version_id], lines[version_id]
        )
        for version_id, version_pairs in pairs.items()
    }


def _may_be_small(version: SessionVersion) -> bool:
    """Whether any pair's opponents in this version can be fewer than 5 players: only then is
    a stored average checked against the privacy of the players."""
    total = version.total_pairs
    if total is None or version.scoring in SWISS:
        return True
    if version.movement == Movement.TWO_WINNER:
        return True  # a direction can be small in any field
    return 2 * (total - 1) < SMALLEST_GROUP


def sopp_hidden(
    *, viewer: Member, grades: list[SessionGrade], params: NGSParams = NGS_DEFAULT
) -> set[int]:
    """The ids of ``grades`` (the viewer's own rows) whose SOpp the viewer may not see: an
    average over fewer than 5 players that includes someone else's private grade (S7,
    S14.14). Five queries at most, whatever the number of rows; two when no session of the
    rows holds someone else's private grade."""
    small = [g for g in grades if g.sopp is not None and _may_be_small(g.version)]
    if not small:
        return set()
    # Only a session holding someone else's private grade can hide an average: the others'
    # pairs are not read at all (most sessions hold none).
    seated: dict[int, set[int | None]] = defaultdict(set)
    for version_id, first, second in PairResult.objects.filter(
        version_id__in={g.version_id for g in small}
    ).values_list("version_id", "player1_id", "player2_id"):
        seated[version_id].update((first, second))
    private = set(
        Member.objects.filter(pk__in=set().union(*seated.values()) - {None})
        .filter(hidden_from_q("", viewer))
        .values_list("pk", flat=True)
    )
    version_ids = {v for v, players in seated.items() if players & private}
    small = [g for g in small if g.version_id in version_ids]
    if not small:
        return set()
    swiss_versions = {g.version_id for g in small if g.version.scoring in SWISS}
    pairs: dict[int, list[PairResult]] = defaultdict(list)
    for pair in (
        PairResult.objects.filter(version_id__in=version_ids)
        .select_related("player1", "player2")
        .only(*PAIR_FIELDS)
    ):
        pairs[pair.version_id].append(pair)
    tables = tables_met({v: pairs[v] for v in version_ids if v in swiss_versions})
    hidden = set()
    for g in small:
        group = opponents_of(
            g.version, g.pair_id, pairs[g.version_id], tables.get(g.version_id), params
        )
        if not average_shown(group.players, viewer):
            hidden.add(g.pk)
    return hidden
