"""PARTICIPANTS: players, pairs and team pairs, phantoms left out, pair ids (FORMATS 2.5, 5.2,
5.3)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

from grading.engine.types import (
    Player,
    normalise_number,
)
from grading.ingest import common, limits
from grading.ingest.usebio.shapes import (
    Dropped,
    RawPair,
    Unit,
    pair_label,
    written_direction,
)
from grading.ingest.xmltext import attr, child_path, children, find, text


class ParticipantsMixin:
    """Players and pairs, for :class:`~grading.ingest.usebio.reader.EventReader`, which
    provides ``log``, ``header``, ``path``, ``event`` and ``line()``."""

    def _player(self, element: ET.Element, path: str) -> Player:
        name = text(element, "PLAYER_NAME") or ""
        raw = text(element, "NATIONAL_ID_NUMBER")
        number = normalise_number(raw)
        if number is not None and not number.isdigit():
            self.log.warn(
                f"{path}/NATIONAL_ID_NUMBER",
                f"The membership number {limits.shown(raw)} of "
                f"{limits.player_shown(name)} is not a number, so the "
                "player is treated as unknown. Correct it in your scoring program's player "
                "list if the player is a member.",
                line=self.line(find(element, "NATIONAL_ID_NUMBER")),
                code="bad-number",
            )
            number = None
        rateable = attr(element, "RATEABLE").upper() != "N"
        return Player(number=number, name=name, rateable=rateable)

    def _raw_pair(self, element: ET.Element, path: str, section: str, team: str = "") -> RawPair:
        number = text(element, "PAIR_NUMBER") or ""
        players = tuple(
            self._player(p, child_path(path, "PLAYER", i)) for i, p in children(element, "PLAYER")
        )
        return RawPair(
            number=number,
            section=section,
            direction=written_direction(text(element, "DIRECTION"), number),
            players=players,
            path=path,
            line=self.line(element),
            percentage=text(element, "PERCENTAGE"),
            total=text(element, "TOTAL_SCORE"),
            pair_imps=text(element, "PAIR_IMPS"),
            handicap=text(element, "HANDICAP"),
            boards_played=text(element, "BOARDS_PLAYED"),
            team=team,
        )

    def _keep_pair(self, raw: RawPair, what: str = "Pair") -> bool:
        """False for sit-outs and phantoms (noted) and for pairs that cannot be read (problem)."""
        label = pair_label(raw, what)
        if common.is_phantom_pair(raw.players):
            self.log.warn(
                raw.path,
                f"{label} is a sit-out or phantom pair; it is left out of grading and its "
                "opponents' boards against it are not counted.",
                line=raw.line,
                code="phantom",
            )
            return False
        if not raw.number:
            self.log.problem(
                f"{raw.path}/PAIR_NUMBER",
                f"{label} has no pair number, so its results cannot be matched to the "
                "travellers. Export the results again from your scoring program.",
                line=raw.line,
                code="pair-number",
            )
            return False
        if len(raw.players) != 2:
            self.log.problem(
                raw.path,
                f"{label} lists {len(raw.players)} players; a pair needs exactly two. Correct "
                "the pair in your scoring program and export again.",
                line=raw.line,
                code="pair-players",
            )
            return False
        return True

    def _assign_pair_ids(self, raws: list[RawPair]) -> bool:
        """Unique ids within the session (FORMATS 5.2). False (with a problem) on true
        duplicates."""
        ids = common.unique_pair_ids(raws)
        if ids is not None:
            for raw, pair_id in zip(raws, ids, strict=True):
                raw.pair_id = pair_id
            return True
        counts = Counter(common.pair_in_full(r) for r in raws)
        for raw in raws:
            if counts[common.pair_in_full(raw)] > 1:
                self.log.problem(
                    f"{raw.path}/PAIR_NUMBER",
                    f"{pair_label(raw)} appears more than once in the session. Each pair "
                    "needs its own number; correct the movement in your scoring program and "
                    "export again.",
                    line=raw.line,
                    code="duplicate-pair",
                )
        return False

    def _collect_pairs(self, unit: Unit) -> tuple[list[RawPair], Dropped]:
        raws: list[RawPair] = []
        dropped = Dropped()
        for section, path, container in unit.sections:
            for p_index, participants in children(container, "PARTICIPANTS"):
                p_path = child_path(path, "PARTICIPANTS", p_index)
                for i, pair_el in children(participants, "PAIR"):
                    raw = self._raw_pair(pair_el, child_path(p_path, "PAIR", i), section)
                    if self._keep_pair(raw):
                        raws.append(raw)
                    else:
                        dropped.add(section, raw)
        return raws, dropped

    def _no_pairs(self, unit: Unit) -> None:
        self.log.problem(
            unit.path,
            f"Session {unit.number} has no pairs with results. Export the results again "
            "after the session has been scored.",
            line=self.line(unit.element),
            code="no-pairs",
        )
