"""The handicap form (S8, FAQ 36): input checking only. What the administrator typed comes
back as typed, with what the table found for each player."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django import forms

from clubs.handicaps.table import PAIRS, SLOTS, TEAMS, HandicapTable, RawEntry, TablePlayer
from clubs.models import PlannedSession
from grading.engine.types import TEAM_EVENT_SCORING


class HandicapForm(forms.Form):
    """What the table is for. The rows themselves are read by ``handicap_entries``."""

    planned = forms.ModelChoiceField(
        queryset=PlannedSession.objects.none(),
        required=False,
        label="Planned session",
        empty_label="— an ad-hoc event —",
    )
    event = forms.CharField(required=False, max_length=200, label="Event (ad hoc)")
    kind = forms.ChoiceField(
        choices=[(PAIRS, "Pairs"), (TEAMS, "Teams")],
        initial=PAIRS,
        widget=forms.RadioSelect,
        required=False,
    )
    boards = forms.IntegerField(
        min_value=1, max_value=200, initial=24, required=False, label="Boards per match"
    )
    rows = forms.IntegerField(min_value=1, max_value=60, required=False, widget=forms.HiddenInput)

    def __init__(self, data=None, *args, planned_sessions=None, **kwargs):
        if data is not None and not data.get("kind") and not data.get("planned"):
            data = data.copy()
            data["kind"] = PAIRS
        super().__init__(data, *args, **kwargs)
        if planned_sessions is not None:
            self.fields["planned"].queryset = planned_sessions

    def settings(self) -> dict:
        """kind, boards, rows, title, event, date and start, with defaults for an unbound or invalid form."""
        data = {}
        if self.is_bound:
            self.is_valid()  # the fields that are valid count, the others take their defaults
            data = self.cleaned_data
        planned = data.get("planned")
        kind = data.get("kind") or (
            TEAMS if planned is not None and planned.scoring in TEAM_EVENT_SCORING else PAIRS
        )
        rows = data.get("rows") or (8 if kind == PAIRS else 4)
        if planned is not None:
            event, date, start = planned.event_name, planned.date, f"{planned.start:%H:%M}"
            title = f"{event}, {date:%A %d %B %Y} at {start}"
        else:
            event, date, start = data.get("event") or "Handicap table", None, ""
            title = event
        return {
            "kind": kind,
            "boards": data.get("boards") or 24,
            "rows": rows,
            "title": title,
            "event": event,
            "date": date,
            "start": start,
        }


def _estimate(text: str) -> tuple[float | None, str]:
    text = (text or "").strip().replace("%", "")
    if not text:
        return None, ""
    try:
        value = float(text)
    except ValueError:
        return None, f"{text!r} is not a grade: type a number such as 48.5."
    if not 20 <= value <= 80:
        return None, f"An estimate of {value:g} is not a grade: grades lie between 20 and 80."
    return value, ""


def handicap_entries(data, *, kind: str, rows: int) -> tuple[list[RawEntry], list[str]]:
    """The typed rows: ``r<i>name``, players ``r<i>p<j>`` and estimates ``r<i>e<j>``."""
    entries, errors = [], []
    for i in range(1, rows + 1):
        players, estimates = [], []
        for j in range(1, SLOTS[kind] + 1):
            players.append((data.get(f"r{i}p{j}") or "").strip()[:200])
            value, error = _estimate(data.get(f"r{i}e{j}", ""))
            if error:
                errors.append(f"Row {i}, player {j}: {error}")
            estimates.append(value)
        entries.append(
            RawEntry(
                i, (data.get(f"r{i}name") or "").strip()[:100], tuple(players), tuple(estimates)
            )
        )
    return entries, errors


ESTIMATE_TEXT_MAX = 20


def estimates_as_typed(rows: list[FormRow], data) -> list[FormRow]:
    """The form's rows with every estimate box as the administrator typed it (``r<i>e<j>``),
    so a rejected estimate ("abc", "95") comes back to be corrected, not emptied; the
    problem list says what is wrong with it. A box left empty stays empty."""
    out = []
    for row in rows:
        cells = []
        for cell in row.cells:
            typed = (data.get(f"r{row.index}e{cell.slot}") or "").strip()[:ESTIMATE_TEXT_MAX]
            cells.append(replace(cell, estimate_text=typed) if typed else cell)
        out.append(replace(row, cells=cells))
    return out


@dataclass(frozen=True)
class FormCell:
    slot: int
    text: str
    estimate_text: str
    player: TablePlayer | None


@dataclass(frozen=True)
class FormRow:
    index: int
    name: str
    cells: list[FormCell]


def handicap_form_rows(entries: list[RawEntry], table: HandicapTable) -> list[FormRow]:
    """The form's rows as typed, each player with what the table found for them."""
    found = {(e.index, p.slot): p for e in table.entries for p in e.players}
    return [
        FormRow(
            raw.index,
            raw.name,
            [
                FormCell(j, text, "" if est is None else f"{est:g}", found.get((raw.index, j)))
                for j, (text, est) in enumerate(zip(raw.players, raw.estimates, strict=True), 1)
            ],
        )
        for raw in entries
    ]
