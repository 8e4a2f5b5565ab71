"""parse_file never raises: mutated sample bytes either parse or come back with problems."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.ingest import parse_file
from tests.ingest.conftest import fixture_bytes

SAMPLES = [
    fixture_bytes(path)
    for path in (
        "usebio/scorebridge/scorebridge_mp_pairs_EXCERPT.xml",
        "handmade/usebio-1.3-host-phantom.xml",
        "handmade/swiss-pairs.xml",
        "usebio/cobalt/mp_pairs_mitchell_03.xml",
        "malformed/good.csv",
    )
] + [fixture_bytes("pbn/ruter_norway/pairs.pbn")[:12000]]


@st.composite
def mutated(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "delete", "insert", "truncate", "duplicate"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 200))]
        elif kind == "insert":
            chunk = draw(st.sampled_from([b"<", b">", b"&", b'"', b",", b"\n", b"A5050", b"-", b"\x00", b"\xff"]))
            data[at:at] = chunk
        elif kind == "truncate":
            del data[at:]
        else:
            end = min(len(data), at + draw(st.integers(1, 400)))
            data[at:at] = data[at:end]
    return bytes(data)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_parse_file_never_raises(data):
    result = parse_file("fuzz", data, "club")
    assert not any(p.code == "internal-error" for p in result.problems), result.problems
    assert result.ok == (not result.problems)
    if result.problems:
        assert result.sessions == ()
    for session in result.sessions:
        assert len({p.pair_id for p in session.pairs}) == len(session.pairs)
