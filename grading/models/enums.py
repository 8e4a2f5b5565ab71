"""Django choices built from the engine's enums (``grading.engine.types``): one set of values,
with the labels a page shows."""

from django.db import models

from grading.engine import types

SCORING_LABELS = {
    types.Scoring.MP: "Match points",
    types.Scoring.BUTLER: "Butler IMPs",
    types.Scoring.CROSS_IMP: "Cross-IMPs",
    types.Scoring.AGGREGATE: "Aggregate",
    types.Scoring.SWISS_PAIRS_MP: "Swiss pairs (match points)",
    types.Scoring.SWISS_PAIRS_IMP: "Swiss pairs (IMPs)",
    types.Scoring.SWISS_TEAMS: "Swiss teams",
    types.Scoring.MULTIPLE_TEAMS: "Multiple teams",
    types.Scoring.TEAM_LEAGUE: "Teams league",
    types.Scoring.INDIVIDUAL: "Individual",
    types.Scoring.HEAD_TO_HEAD: "Head-to-head teams",
    types.Scoring.POINT_A_BOARD: "Point-a-board teams",
}
MOVEMENT_LABELS = {
    types.Movement.ONE_WINNER: "One winner",
    types.Movement.TWO_WINNER: "Two winners",
}


def _choices(name: str, labels: dict) -> type[models.TextChoices]:
    return models.TextChoices(name, [(m.name, (m.value, label)) for m, label in labels.items()])


Scoring = _choices("Scoring", SCORING_LABELS)
Movement = _choices("Movement", MOVEMENT_LABELS)
