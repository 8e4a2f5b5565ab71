"""Reading the compiled kernel's state (``grading.engine.ngs.ckernel``): members' and
partnerships' grades, standings at the start of a session, and the fold's statistics."""

from __future__ import annotations

import ctypes
import math
from array import array
from collections.abc import Iterator
from typing import Any

from grading.engine.cbuild import addr
from grading.engine.ngs.types import PartnershipKey, PlayerStanding
from grading.engine.ngs.windowrules import STATUS_CODES
from grading.engine.types import SessionResult

_NAN = math.nan


class CState:
    """The read side of :class:`~grading.engine.ngs.ckernel.CKernelReplay`: ``_lib`` (the
    library), ``_k`` (the C state), ``ids`` (member number -> integer id) and ``numbers`` (the
    reverse). ``flush()`` performs queued operations before anything is read."""

    _lib: Any
    _k: Any
    ids: dict[str | None, int]
    numbers: list[str]

    def flush(self) -> None:
        """Perform the queued operations (nothing here; the fold overrides it)."""

    def standings(
        self, session: SessionResult, ref: int
    ) -> tuple[dict[str, PlayerStanding], dict[PartnershipKey, float]]:
        """The session's known members' standings and partnerships' grades on ``ref``, read
        from the C state (every member of the session must already have an id)."""
        lib, k = self._lib, self._k
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        standings: dict[str, PlayerStanding] = {}
        for pair in session.pairs:
            for p in pair.players:
                num = p.number
                if num is None or num in standings:
                    continue
                if not lib.ck_player_info(k, self.ids[num], ref, ctypes.byref(g), addr(info)):
                    continue
                rp = info[4]
                standings[num] = PlayerStanding(
                    g.value, STATUS_CODES[info[0]], info[3], self.numbers[rp] if rp >= 0 else None
                )
        pgrades: dict[PartnershipKey, float] = {}
        for pair in session.pairs:
            a, b = (p.number for p in pair.players)
            if a is None or b is None or a not in standings or b not in standings:
                continue
            key = (a, b) if a <= b else (b, a)
            pid = lib.ck_pship_find(k, self.ids[a], self.ids[b])
            if pid >= 0:
                average = (standings[a].grade + standings[b].grade) / 2
                lib.ck_pship_info(k, pid, ref, average, ctypes.byref(g), addr(info))
                pgrades[key] = g.value
        return standings, pgrades

    def _members(self, session: SessionResult) -> list[str]:
        seen: dict[str, None] = {}
        for pair in session.pairs:
            for p in pair.players:
                num = p.number
                if num is not None and self._lib.ck_has_player(self._k, self.ids[num]):
                    seen[num] = None
        return list(seen)

    def _player_grades(self, numbers: list[str], ref: int) -> tuple[Any, ...]:
        out = []
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        for n in numbers:
            self._lib.ck_player_info(self._k, self.ids[n], ref, ctypes.byref(g), addr(info))
            out.append((n, g.value, info[0], info[1], info[2]))
        return tuple(out)

    def _pship_key(self, pid: int) -> PartnershipKey:
        ia, ib = ctypes.c_int32(), ctypes.c_int32()
        self._lib.ck_pship_ends(self._k, pid, ctypes.byref(ia), ctypes.byref(ib))
        a, b = self.numbers[ia.value], self.numbers[ib.value]
        return (a, b) if a <= b else (b, a)

    def _pship_grades(self, pids: list[int], ref: int) -> tuple[Any, ...]:
        out = []
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        for pid in pids:
            key = self._pship_key(pid)
            self._lib.ck_pship_info(self._k, pid, ref, _NAN, ctypes.byref(g), addr(info))
            out.append((f"{key[0]}+{key[1]}", g.value, info[0], info[1], info[2]))
        return tuple(out)

    # ------------------------------------------------------------------ figures

    def _stats(self) -> array[int]:
        self.flush()
        out = array("q", bytes(8 * 6))
        self._lib.ck_stats(self._k, addr(out))
        return out

    @property
    def graded(self) -> int:
        """Player-session grades computed."""
        return self._stats()[0]

    @property
    def partnership_graded(self) -> int:
        return self._stats()[1]

    @property
    def sessions(self) -> int:
        """Graded session versions processed."""
        return self._stats()[2]

    @property
    def players(self) -> dict[str, int]:
        """Members with a grade history (number -> integer id)."""
        self.flush()
        has = self._lib.ck_has_player
        return {n: i for i, n in enumerate(self.numbers) if has(self._k, i)}

    @property
    def partnerships(self) -> list[PartnershipKey]:
        return [self._pship_key(pid) for pid in range(self._stats()[4])]

    def history_bytes(self) -> int:
        """Bytes allocated for the C histories (entries)."""
        return self._stats()[5]

    def grade(self, number: str, as_of: int) -> tuple[float, int, int, int] | None:
        """A member's ``(grade, status code, boards in window, padding)`` on ``as_of`` (an
        ordinal no earlier than the member's latest session), as ``KernelReplay.grade``."""
        self.flush()
        i = self.ids.get(number)
        if i is None or i < 0:
            return None
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        if not self._lib.ck_player_info(self._k, i, as_of, ctypes.byref(g), addr(info)):
            return None
        return g.value, info[0], info[1], info[2]

    def partnership_grade(
        self, key: PartnershipKey, as_of: int, restart: float | None = None
    ) -> tuple[float, int, int, int] | None:
        self.flush()
        a, b = self.ids.get(key[0]), self.ids.get(key[1])
        if a is None or b is None or a < 0 or b < 0:
            return None
        pid = self._lib.ck_pship_find(self._k, a, b)
        if pid < 0:
            return None
        g = ctypes.c_double()
        info = array("q", bytes(8 * 6))
        value = _NAN if restart is None else restart
        self._lib.ck_pship_info(self._k, pid, as_of, value, ctypes.byref(g), addr(info))
        return g.value, info[0], info[1], info[2]

    def partnership_grades_of(
        self, a: array[int], b: array[int], as_of: array[int]
    ) -> tuple[array[float], array[int]]:
        """``partnership_grade`` of the partnerships of the players of integer ids ``a[j]``
        and ``b[j]`` (in either order) on ``as_of[j]``, asked in that order, in one call:
        their grades and whether each was found (a grade not found is NaN)."""
        self.flush()
        n = len(a)
        if not n == len(b) == len(as_of):
            raise ValueError("a, b and as_of differ in length")
        a, b, as_of = (x if x.typecode == "i" else array("i", x) for x in (a, b, as_of))
        out, found = array("d", bytes(8 * n)), array("b", bytes(n))
        self._lib.ck_pship_grades(
            self._k, n, addr(a), addr(b), addr(as_of), _NAN, addr(out), addr(found)
        )
        return out, found

    def latest(self) -> int | None:
        """The latest date of play (ordinal) among live versions (S14.6)."""
        self.flush()
        d = self._lib.ck_latest(self._k)
        return None if d < 0 else d

    def current_grades(
        self, as_of: int | None = None
    ) -> Iterator[tuple[str, float, int, int, int]]:
        """Every member's ``(number, grade, status code, boards, padding)`` on ``as_of``
        (default: the latest date of play)."""
        day = self.latest() if as_of is None else as_of
        if day is None:
            return
        for number in self.players:
            got = self.grade(number, day)
            assert got is not None
            yield (number, *got)
