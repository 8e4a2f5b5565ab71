"""Small USEBIO files built in tests, element by element (FORMATS 2)."""


def pair(
    number,
    percentage=None,
    direction=None,
    *,
    ids=("1001", "1002"),
    names=("A B", "C D"),
    total=None,
):
    xml = f"<PAIR><PAIR_NUMBER>{number}</PAIR_NUMBER>"
    if direction is not None:
        xml += f"<DIRECTION>{direction}</DIRECTION>"
    if percentage is not None:
        xml += f"<PERCENTAGE>{percentage}</PERCENTAGE>"
    if total is not None:
        xml += f"<TOTAL_SCORE>{total}</TOTAL_SCORE>"
    for name, number_ in zip(names, ids, strict=True):
        member = f"<NATIONAL_ID_NUMBER>{number_}</NATIONAL_ID_NUMBER>" if number_ else ""
        xml += f"<PLAYER><PLAYER_NAME>{name}</PLAYER_NAME>{member}</PLAYER>"
    return xml + "</PAIR>"


def line(ns, ew, score, ns_points=None, ew_points=None, tag="MATCH_POINTS"):
    xml = (
        f"<TRAVELLER_LINE><NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{ew}"
        f"</EW_PAIR_NUMBER><CONTRACT>4S</CONTRACT><SCORE>{score}</SCORE>"
    )
    if ns_points is not None:
        xml += f"<NS_{tag}>{ns_points}</NS_{tag}><EW_{tag}>{ew_points}</EW_{tag}>"
    return xml + "</TRAVELLER_LINE>"


def board(number, *lines):
    return f"<BOARD><BOARD_NUMBER>{number}</BOARD_NUMBER>{''.join(lines)}</BOARD>"


def usebio(body, *, event_type="PAIRS", header="", date="<DATE>05/01/2026</DATE>") -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<USEBIO Version="1.2"><CLUB><CLUB_NAME>X'
        "</CLUB_NAME><CLUB_ID_NUMBER>1</CLUB_ID_NUMBER></CLUB>"
        f'<EVENT EVENT_TYPE="{event_type}"><EVENT_IDENTIFIER>E1</EVENT_IDENTIFIER>'
        f"<EVENT_DESCRIPTION>T</EVENT_DESCRIPTION>{date}{header}\n{body}</EVENT></USEBIO>"
    ).encode()
