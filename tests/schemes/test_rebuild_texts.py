"""The rebuild's JSON texts (grading/schemes/rebuild/write.py, run.py; S11, S14.17): the
snapshot composed from each member's and pair's text once (``state_dump_text``) reads back as
``state_dump``, and ``as_json``'s once-made encoder writes what the standard encoder writes."""

from __future__ import annotations

import datetime as dt
import json
import pickle
import random

import pytest

from grading.engine.brambledown import Quarter
from grading.engine.brambledown.bulk import brambledown_replay_bulk
from grading.schemes.brambledown.state import (
    pair_json,
    player_fields,
    state_dump,
    state_dump_text,
)
from grading.schemes.rebuild.clubfold import JsonTexts
from grading.schemes.rebuild.write import JSON_COLUMNS, as_json, object_text
from tests.engine.test_brambledown_bulk import _sessions

STANDARD = json.JSONEncoder(separators=(",", ":")).encode


@pytest.mark.parametrize(
    "value",
    [
        None,
        'é "quoted" \\ \n',
        0,
        -1.5,
        1e-300,
        [1.0, 0.1, 2.675, 1e22],
        {"b": [["2026Q4", 3]], "a": {"c": None, "d": True}},
        [["0001-01-01", "0001Q1", 135, "new"]],
        [],
        {},
        float("nan"),
    ],
)
def test_as_json_writes_what_the_standard_encoder_writes(value):
    assert as_json(value) == STANDARD(value)


def test_object_text_takes_texts_as_they_are_and_encodes_the_rest():
    fields = {"number": 'N"1', "grade": None, "quarters": '[["2026Q4",2]]'}
    text = object_text(fields, {"quarters"})
    assert json.loads(text) == {"number": 'N"1', "grade": None, "quarters": [["2026Q4", 2]]}
    assert object_text(fields, ()) == STANDARD(fields)  # a text not named is a string


@pytest.mark.parametrize("seed", [1, 2])
def test_the_snapshot_composed_from_texts_reads_as_state_dump(seed):
    sessions = _sessions(random.Random(seed), 120)
    through = Quarter.of(max(s.date for s in sessions)).previous()
    state = brambledown_replay_bulk(sessions, through).state
    assert len(state.players) > 20 and len(state.pairs) > 20
    texts = JsonTexts()
    composed = state_dump_text(state, texts.player_entry, texts.pair_entry, as_json)
    assert composed == STANDARD(state_dump(state))  # the very bytes of the old write
    player = next(iter(state.players.values()))
    columns = texts.player_columns(player)  # a row's columns: the same texts
    fields = player_fields(player)
    assert {k: json.loads(v) for k, v in columns.items() if k in JSON_COLUMNS} == {
        k: v for k, v in fields.items() if k in JSON_COLUMNS
    }
    record = next(iter(state.pairs.values()))
    assert json.loads(texts.pair_entry(record)) == pair_json(record)


def test_a_quarter_names_itself_once_and_compares_by_year_and_quarter():
    q = Quarter(1, 1)
    assert (q.text, str(q), str(Quarter(10000, 4))) == ("0001Q1", "0001Q1", "10000Q4")
    again = pickle.loads(pickle.dumps(Quarter(2026, 4)))
    assert again == Quarter.of(dt.date(2026, 11, 2)) and again.text == "2026Q4"
    assert hash(again) == hash(Quarter(2026, 4)) and Quarter(2026, 3) < again
    assert repr(again) == "Quarter(year=2026, q=4)"


def test_this_python_takes_the_encoder_made_once():
    """The standard encoder is the fallback; on this project's interpreter the C encoder made
    once must pass the check the module makes when it loads (a silent fallback is slower)."""
    from grading.schemes.rebuild import write

    assert write._CHUNKS is not None
