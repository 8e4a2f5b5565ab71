"""Reading values out of a USEBIO tree by name, with element paths for messages."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

# Elements that repeat; their paths carry a 1-based index ("PAIR[3]").
REPEATING = frozenset(
    {"SESSION", "SECTION", "PAIR", "PLAYER", "BOARD", "TRAVELLER_LINE", "TEAM", "MATCH", "EVENT"}
)


def child_path(parent_path: str, tag: str, index: int | None = None) -> str:
    step = f"{tag}[{index}]" if index is not None and tag in REPEATING else tag
    return f"{parent_path}/{step}" if parent_path else step


def children(element: ET.Element, tag: str) -> Iterator[tuple[int, ET.Element]]:
    """The element's children called ``tag`` (case as written), numbered from 1."""
    number = 0
    for child in element:
        if isinstance(child.tag, str) and child.tag.upper() == tag:
            number += 1
            yield number, child


def find(element: ET.Element, *tags: str) -> ET.Element | None:
    """The first child with any of ``tags`` (old and new USEBIO names), ignoring case."""
    wanted = {t.upper() for t in tags}
    for child in element:
        if isinstance(child.tag, str) and child.tag.upper() in wanted:
            return child
    return None


def text(element: ET.Element, *tags: str) -> str | None:
    """Stripped text of the first child with any of ``tags``; "" if empty; None if absent."""
    child = find(element, *tags)
    if child is None:
        return None
    return (child.text or "").strip()


def attr(element: ET.Element, name: str) -> str:
    """An attribute by name, ignoring case and the spaces some programs write around '='."""
    for key, value in element.attrib.items():
        if key.strip().upper() == name.upper():
            return value.strip()
    return ""
