"""Notes cut to size in mail, so that a report mail stays under its 150 KB budget.

A move file may carry notes (`# note: TEXT`), as long as the move file may be
(`max_move_bytes`, 64 KB by default), and the report lists each as a line of what happened,
`- TEXT`. The committed report keeps them whole; a mail shows them twice (text and HTML),
encoded: 64 KB of notes made mails of 400 KB. In mail the lines of what happened (the
report's first list) get `BUDGET` in all: when they take more, the longest are cut first,
to the same length but never below `SHORTEST` (the engine's own lines are shorter); when
there are so many lines that they still do not fit, those in the middle are left out (the
first and the last are kept: a move's actions come before or after its notes). Each cut
says where the whole note is: the committed report, `reports/NNNN.md`, which the move's
page shows too.

What a line takes is counted in bytes of mail (`cost`): the line is in the mail twice, as
text and as HTML, both quoted-printable, so a character beyond ASCII takes three bytes for
each of its UTF-8 bytes in each; ASCII punctuation may become an HTML escape or Markdown's
tags; each line has its list item's markup. `BUDGET` is so counted, whatever
`max_move_bytes` is, and leaves the tables, the player's own section and how to reply room
enough under 150 KB; the board's picture takes only the room left
(`compose.reports.report_message`).
"""

from __future__ import annotations

from adjudicator.home.translations import N_, Words

BUDGET = 90_000  # bytes of mail the lines of what happened may take, at most
SHORTEST = 1_000  # a line is never cut shorter than this (some 400 ASCII characters)
LINE = 24  # what a line takes besides its characters: `- `, `<li>`, `</li>`, line ends
ITEM = "- "
CUT = N_("(cut: the whole note is in the game's record, %(path)s)")


def _weight(char: str) -> int:
    """The most bytes of mail one character of a line takes (text and HTML together)."""
    if char.isascii():
        return 2 if char.isalnum() or char == " " else 12
    return 6 * len(char.encode("utf-8"))


def cost(line: str) -> int:
    """The most bytes of mail a line of what happened takes."""
    return LINE + sum(_weight(char) for char in line)


def _limit(costs: list[int]) -> int:
    """The most a line may take so that all of them take at most `BUDGET` (at least
    `SHORTEST`): the costliest lines are cut first, to the same cost."""
    low, high = SHORTEST, max(costs)
    while low < high:  # the largest limit whose total fits
        middle = (low + high + 1) // 2
        if sum(min(n, middle) for n in costs) <= BUDGET:
            low = middle
        else:
            high = middle - 1
    return low


def _cut(line: str, limit: int, said: str) -> str:
    """The longest start of `line` that takes at most `limit`, and what says it is cut."""
    spent, end = LINE + cost(said) + 6, len(ITEM)
    while end < len(line) and spent + _weight(line[end]) <= limit:
        spent += _weight(line[end])
        end += 1
    return f"{line[:end].rstrip()}… {said}"


def cut_notes(report: str, number: int, words: Words) -> str:
    """`report` (a report's Markdown) as a mail shows it: the lines of what happened (its
    first list, `- ` lines) within `BUDGET`, each cut saying so in `words`; unchanged when
    they fit already."""
    lines = report.split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith(ITEM)), len(lines))
    end = next((i for i in range(first, len(lines)) if not lines[i].startswith(ITEM)), len(lines))
    costs = [cost(line) for line in lines[first:end]]
    if sum(costs) <= BUDGET:
        return report
    record = f"reports/{number:04d}.md"
    said = words(CUT, path=record)
    limit = _limit(costs)
    shown = [
        line if taken <= limit else _cut(line, limit, said)
        for line, taken in zip(lines[first:end], costs, strict=True)
    ]
    taken = [min(n, limit) for n in costs]
    if sum(taken) > BUDGET:
        # Too many lines even so: the first and the last are kept, half the budget each,
        # and those in between left out (a move's actions come before or after its notes).
        head = _fitting(taken, BUDGET // 2)
        tail = _fitting(taken[::-1], BUDGET // 2)
        shown = [*shown[:head], f"{ITEM}{said}", *shown[len(shown) - tail :]]
    return "\n".join([*lines[:first], *shown, *lines[end:]])


def _fitting(costs: list[int], budget: int) -> int:
    """How many of the first `costs` take at most `budget` together."""
    spent = 0
    for count, taken in enumerate(costs):
        spent += taken
        if spent > budget:
            return count
    return len(costs)
