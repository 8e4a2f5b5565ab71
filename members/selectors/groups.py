"""The groups a member's session figures are averages over: the opponents behind SOpp (S3.2)
and the field behind SoF, and whether the viewer may see each average (S7, S14.14).

The groups are read from the stored pairs; whether an average may be shown is decided in
``grading.privacy`` (``average_shown``, ``group_hides_grades``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from grading.engine.ngs import NGS_DEFAULT, NGSParams
from grading.models import Match, Movement, PairResult, Scoring, SessionGrade, SessionVersion
from grading.privacy import SMALLEST_GROUP, average_shown
from members.models import Member

SWISS_PAIRS = {Scoring.SWISS_PAIRS_MP, Scoring.SWISS_PAIRS_IMP}
TEAMS = {Scoring.SWISS_TEAMS, Scoring.MULTIPLE_TEAMS, Scoring.TEAM_LEAGUE}
SWISS = SWISS_PAIRS | TEAMS  # the scorings whose SOpp may be over the pairs met at the table
MET = "the pairs you met at the table"


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


def opponents_of(
    version: SessionVersion,
    pair_id: str,
    pairs: list[PairResult],
    met: set[str] | None = None,
    share: Fraction = NGS_DEFAULT.multiple_teams_share,
) -> Opponents:
    """The group SOpp averaged over, as the engine takes it (S3.2, ``_assign_sopp``): Swiss
    pairs, the pairs met (``met``, from the matches); teams, the pairs met unless they are at
    least ``share`` of the field (multiple teams, FAQ 46), else the direction; pairs, the other
    pairs of the direction in a two-winner movement, else every other pair."""
    me = next((p for p in pairs if p.pair_id == pair_id), None)
    met = {m for m in (met or set()) if m != pair_id}
    if version.scoring in SWISS_PAIRS and met:
        return Opponents([p for p in pairs if p.pair_id in met], MET)
    if (
        version.scoring in TEAMS
        and met
        and len(met) * share.denominator < share.numerator * len(pairs)
    ):
        return Opponents([p for p in pairs if p.pair_id in met], MET)
    by_direction = version.scoring in TEAMS or (
        version.scoring not in SWISS_PAIRS and version.movement == Movement.TWO_WINNER
    )
    if me is not None and me.direction and by_direction:
        others = [p for p in pairs if p.direction == me.direction and p.pair_id != pair_id]
        return Opponents(others, f"the other pairs sitting {me.direction}")
    return Opponents([p for p in pairs if p.pair_id != pair_id], "every other pair in the field")


def met_pairs(version: SessionVersion, pair_id: str) -> set[str]:
    """The pairs ``pair_id`` met in a Swiss event, from its matches."""
    return {o for m in Match.objects.filter(version=version, pair_id=pair_id) for o in m.opponents}


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
    S14.14). Two queries at most, whatever the number of rows."""
    small = [g for g in grades if g.sopp is not None and _may_be_small(g.version)]
    if not small:
        return set()
    version_ids = {g.version_id for g in small}
    pairs: dict[int, list[PairResult]] = defaultdict(list)
    for pair in PairResult.objects.filter(version_id__in=version_ids).select_related(
        "player1", "player2"
    ):
        pairs[pair.version_id].append(pair)
    swiss = {g.version_id for g in small if g.version.scoring in SWISS}
    met: dict[tuple[int, str], set[str]] = defaultdict(set)
    for version_id, pair_id, opponents in Match.objects.filter(
        version_id__in=swiss, pair_id__in={g.pair_id for g in small}
    ).values_list("version_id", "pair_id", "opponents"):
        met[(version_id, pair_id)].update(opponents)
    hidden = set()
    for g in small:
        group = opponents_of(
            g.version,
            g.pair_id,
            pairs[g.version_id],
            met.get((g.version_id, g.pair_id)),
            params.multiple_teams_share,
        )
        if not average_shown(group.players, viewer):
            hidden.add(g.pk)
    return hidden


def sof_hidden_versions(*, viewer: Member, version_ids: Iterable[int]) -> set[int]:
    """The versions whose strength of field the viewer may not see: fewer than 5 players, one
    of them with someone else's private grade (S7, S14.14)."""
    small = SessionVersion.objects.filter(
        pk__in=set(version_ids), total_pairs__lt=(SMALLEST_GROUP + 1) // 2
    ).values_list("pk", flat=True)
    pairs: dict[int, list[PairResult]] = defaultdict(list)
    for pair in PairResult.objects.filter(version_id__in=list(small)).select_related(
        "player1", "player2"
    ):
        pairs[pair.version_id].append(pair)
    return {vid for vid, ps in pairs.items() if not average_shown(players_of(ps), viewer)}
