"""``replay --check`` on the compiled kernel compares the subject tables a grading step reads
(issue 17) with the stored session grades it has compared with the fold (S5.4, S14.11): in the
database, no fold of the tables, every kind of damage found."""

from __future__ import annotations

import pytest

from grading.engine.ngs import get_params, replay
from grading.ledger.ops import ledger_ops
from grading.ledger.replay import compare
from grading.ledger.replay.check import ledger_check
from grading.ledger.replay.tablecheck import subjects_check
from grading.ledger.subjects import subjects_problems
from grading.models import LedgerEntry, LedgerHead, LedgerHistory, LedgerLive, LedgerSubject


def history(key: str):
    return LedgerHistory.objects.filter(subject__key=key)


def test_the_tables_of_a_graded_ledger_are_exact(ledger):
    """Uploads, corrections, a withdrawal, a player left with no live session: the tables
    equal the stored grades, and (the Python comparison) a whole fold."""
    assert subjects_check() == []
    entries = LedgerEntry.objects.select_related("version").order_by("seq")
    state = replay(ledger_ops(entries), get_params(LedgerHead.objects.get().params_name))
    assert subjects_problems(state) == []


@pytest.mark.parametrize(
    ("damage", "found"),
    [
        (
            lambda: history("1001").filter(seq=history("1001").first().seq).update(grade=1.0),
            "player 1001 seq",
        ),
        (lambda: history("1003").first().delete(), "player 1003 seq"),
        (lambda: history("1005").update(factor=0.5), "player 1005 seq"),
        (lambda: history("1007").update(partner="999"), "player 1007 seq"),
        (lambda: history("1009").update(boards=1), "player 1009 seq"),
        (
            lambda: LedgerSubject.objects.filter(key="3001").update(initial=12.0),
            "player 3001: initial grade differs",
        ),
        (
            lambda: LedgerSubject.objects.filter(key="1901").delete(),
            "player 1901: graded, but not in the subject tables",
        ),
        (
            lambda: LedgerSubject.objects.create(key="4242", initial=50.0),
            "player 4242: in the subject tables, never graded",
        ),
        (lambda: LedgerHistory.objects.filter(subject__key__contains="+").first().delete(), "seq"),
        (
            lambda: LedgerHistory.objects.filter(subject__key__contains="+").update(pad=1.0),
            "partnership",
        ),
        (
            lambda: LedgerSubject.objects.filter(key__contains="+").update(initial=3.0),
            "initial grade differs",
        ),
        (lambda: LedgerLive.objects.first().delete(), "not in the subject tables"),
        (lambda: LedgerLive.objects.update(date="2020-01-01"), "seq or date differs"),
    ],
)
def test_damage_to_the_tables_is_found(ledger, damage, found):
    damage()
    problems = subjects_check()
    assert problems and any(found in p for p in problems), problems


def test_replay_check_on_the_compiled_kernel_compares_the_tables(ledger, ckernel_built):
    """The compiled check (``check_compiled``) lists the tables' differences too."""
    history("1001").update(grade=1.0)
    problems = compare.check_compiled(get_params(LedgerHead.objects.get().params_name), 1e-9, None)
    assert problems and all(p.startswith("player 1001 seq") for p in problems)
    assert ledger_check() == problems
