"""Safe XML reading for uploads (S12: entity expansion disabled; FORMATS 2.1, 5.1).

A DOCTYPE line is allowed, since real USEBIO files carry one, but its DTD is never fetched;
any entity declaration (billion laughs) or external reference (XXE) refuses the file. Every
element's line number is kept so problems can say where they are.

The tree is bounded while it is built (issue 32 item 10: 9.6 MB of empty elements took 24 s
of a worker's time, and 1.4 million nested elements 530 MB): more than ``MAX_ELEMENTS``
elements, or elements nested deeper than ``MAX_DEPTH``, stop the reading at once and refuse the
file. A real results file has about one element per 30-50 bytes (so under 350,000 in the 10 MB
an upload may be) and nests 8 deep.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from grading.ingest.problems import Problem

_DECLARATION = re.compile(rb"^(\xef\xbb\xbf)?\s*<\?xml[^>]*\?>", re.S)
_DECLARED_ENCODING = re.compile(rb"encoding\s*=\s*[\"']([A-Za-z0-9._\-]+)[\"']")


@dataclass
class XmlDocument:
    root: ET.Element
    lines: dict[ET.Element, int] = field(default_factory=dict)
    encoding: str = ""
    reencoded: bool = False  # True when the file lied about its encoding and was re-read

    def line(self, element: ET.Element | None) -> int | None:
        return None if element is None else self.lines.get(element)


MAX_ELEMENTS = 500_000
MAX_DEPTH = 64


class _TooLarge(Exception):
    def __init__(self, what: str, line: int | None) -> None:
        super().__init__(what)
        self.what = what
        self.line = line


class _LineRecordingBuilder(ET.TreeBuilder):
    """Remembers the line each element starts on (ElementTree itself forgets it), and stops
    at ``MAX_ELEMENTS`` elements or ``MAX_DEPTH`` levels."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[ET.Element, int] = {}
        self.expat: Any = None
        self.count = 0
        self.depth = 0

    def start(self, tag: Any, attrs: Any) -> ET.Element:
        self.count += 1
        self.depth += 1
        line = self.expat.CurrentLineNumber if self.expat is not None else None
        if self.count > MAX_ELEMENTS:
            raise _TooLarge(f"more than {MAX_ELEMENTS:,} elements", line)
        if self.depth > MAX_DEPTH:
            raise _TooLarge(f"elements nested more than {MAX_DEPTH} deep", line)
        element = super().start(tag, attrs)
        if line is not None:
            self.lines[element] = line
        return element

    def end(self, tag: Any) -> ET.Element:
        self.depth -= 1
        return super().end(tag)


def declared_encoding(data: bytes) -> str:
    match = _DECLARATION.match(data[:400])
    if match:
        enc = _DECLARED_ENCODING.search(match.group(0))
        if enc:
            return enc.group(1).decode("ascii").lower()
    return "utf-8"


def _parse(data: bytes) -> tuple[ET.Element, dict[ET.Element, int]]:
    builder = _LineRecordingBuilder()
    parser = DefusedXMLParser(
        target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True
    )
    builder.expat = parser.parser
    parser.feed(data)
    root = parser.close()
    return root, builder.lines


def _decodes_as(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


def _as_utf8_from_windows(data: bytes) -> bytes:
    """The same document read as Windows-1252 and re-declared as UTF-8."""
    body = _DECLARATION.sub(b"", data, count=1) if _DECLARATION.match(data) else data
    text = body.decode("cp1252", errors="replace")
    return b'<?xml version="1.0" encoding="utf-8"?>' + text.encode("utf-8")


def read_xml(data: bytes) -> tuple[XmlDocument | None, list[Problem]]:
    """Parse ``data`` safely. Returns the document, or None and the problems that stop it."""
    encoding = declared_encoding(data)
    try:
        root, lines = _parse(data)
        return XmlDocument(root, lines, encoding), []
    except DefusedXmlException as exc:
        return None, [_security_problem(exc)]
    except _TooLarge as exc:
        return None, [_size_problem(exc)]
    except ET.ParseError as exc:
        first_error = exc
    except (ValueError, LookupError) as exc:  # e.g. an encoding name expat does not know
        first_error = ET.ParseError(str(exc))

    # FORMATS 5.1: files edited by hand may lie about their encoding; retry as Windows-1252.
    if not _decodes_as(data, encoding) or "encoding" in str(first_error):
        try:
            root, lines = _parse(_as_utf8_from_windows(data))
            return XmlDocument(root, lines, "cp1252", reencoded=True), []
        except DefusedXmlException as exc:
            return None, [_security_problem(exc)]
        except _TooLarge as exc:
            return None, [_size_problem(exc)]
        except (ET.ParseError, ValueError, LookupError):
            pass
    return None, [_syntax_problem(first_error)]


def _security_problem(exc: DefusedXmlException) -> Problem:
    return Problem(
        "file",
        "The file declares XML entities or refers to outside files or addresses, which "
        "results files never need, so it was refused for safety. "
        "Export the results again from your scoring program and upload that file unchanged.",
        code="xml-unsafe",
    )


def _size_problem(exc: _TooLarge) -> Problem:
    where = f"line {exc.line}" if exc.line else "file"
    return Problem(
        where,
        f"The file holds {exc.what}, far more than any results file; it was not read further. "
        "Export the results again from your scoring program and upload that file unchanged.",
        exc.line,
        "xml-too-large",
    )


def _syntax_problem(exc: ET.ParseError) -> Problem:
    position = getattr(exc, "position", None)
    line = position[0] if position else None
    reason = str(exc).split(":")[0] if str(exc) else "not well-formed"
    truncated = "no element found" in str(exc) or "unclosed token" in str(exc)
    advice = (
        "The file seems to be cut short; export it again from your scoring program and upload "
        "the complete file."
        if truncated
        else "The file is not valid XML; export it again from your scoring program rather than "
        "editing it by hand."
    )
    where = f"line {line}" if line else "file"
    return Problem(where, f"The XML cannot be read ({reason}). {advice}", line, "xml-syntax")
