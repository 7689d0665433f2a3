"""Markdown turn reports, rendered from views only (templates/report.md.j2, private.md.j2).

The public report is committed as `reports/NNNN.md`; each player's private section (their
hand and their legal actions) is rendered for them alone and never committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jinja2

from engine.cards import card_name
from engine.followups import FollowUp


def _card(number: int | None) -> str:
    return "—" if number is None else f"{number} {card_name(number)}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{who} {n}" for who, n in counts.items()) or "—"


def _row_name(index: int) -> str:
    return ("top", "bottom")[index]


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pamir_templates", ""),
        autoescape=False,  # Markdown, not HTML; the HTML is rendered from it later
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # installed templates do not change: no stat at every render
    )
    env.filters["card"] = _card
    env.filters["counts"] = _counts
    env.filters["row_name"] = _row_name
    return env


ENV = environment()


def public_report(
    game_id: str,
    title: str,
    view: dict[str, Any],
    happened: list[str],
    deadline: str | None,
) -> str:
    """The report every player (and the repository) sees."""
    text = ENV.get_template("report.md.j2").render(
        game_id=game_id, title=title, view=view, happened=happened, deadline=deadline
    )
    return _tidy(text)


def private_section(
    view: dict[str, Any],
    next_number: int,
    plays_by: str = "both",
    follow_ups: Sequence[FollowUp] = (),
) -> str:
    """One player's own section: rendered from their view (`view["viewer"]`), with the
    follow-ups their legal actions raise (`engine.follow_ups`). How to push a move is said
    only to a player who plays by Git (`plays_by` of game.toml)."""
    seat = next(i for i, p in enumerate(view["players"]) if p["name"] == view["viewer"])
    text = ENV.get_template("private.md.j2").render(
        view=view,
        seat=seat,
        next_number=next_number,
        by_git=plays_by != "email",
        follow_ups=follow_ups,
    )
    return _tidy(text)


def _tidy(text: str) -> str:
    """At most one blank line in a row, one newline at the end."""
    lines: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip() + "\n"
