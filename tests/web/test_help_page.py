"""/help: the notation explained to players, consistent with docs/notation.md."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import create, isolate
from liveserver import fetch, serving
from test_web import outline, text_of

from adjudicator.web import create_app

NOTATION = Path(__file__).resolve().parents[2] / "docs" / "notation.md"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("help"), patch)
        create(root / "games" / "helped")
        with serving(create_app({"home": root})) as url:
            yield url


def documented_verbs() -> set[str]:
    """The first word of every form in the verb tables of docs/notation.md (`policy`'s
    first two), e.g. `purchase`, `march`, `policy pay`."""
    text = NOTATION.read_text(encoding="utf-8")
    section = text[text.index("## Verbs") : text.index("## Naming things")]
    verbs: set[str] = set()
    for row in re.findall(r"^\| (`.+?`(?:, `.+?`)*) \|", section, re.MULTILINE):
        for form in re.findall(r"`([^`]+)`", row):
            words = form.split()
            verbs.add(" ".join(words[:2]) if words[0] == "policy" else words[0])
    return verbs


def test_help_lists_every_verb_of_the_notation(site: str) -> None:
    reply = fetch(f"{site}/help")
    assert reply.status == 200
    verbs = documented_verbs()
    assert {"purchase", "battle", "march", "remove", "done", "policy clear"} <= verbs
    for verb in verbs:
        assert f"<code>{verb}" in reply.text, verb


def test_help_explains_move_files_follow_ups_rollbacks_and_notes(site: str) -> None:
    page = text_of(fetch(f"{site}/help").text)
    for words in (
        "one a line",
        "PLAYER: ACTION",
        "Follow-up decisions",
        "rollback N REASON",
        "agree rollback",
        "# note: TEXT",
        "not-your-decision",
        "65536 bytes",
    ):
        assert words in page, words
    assert "notation.md" not in page  # players cannot open the repository's docs


def test_help_is_well_formed(site: str) -> None:
    shape = outline(fetch(f"{site}/help").text)
    assert shape.lang == "en" and shape.headings.count(1) == 1 and shape.scripts == 0
    jumps = [b - a for a, b in zip(shape.headings, shape.headings[1:], strict=False)]
    assert max(jumps, default=0) <= 1
    assert shape.captions == shape.tables and shape.th_without_scope == 0


@pytest.mark.parametrize(
    "path",
    ["/", "/games/helped", "/games/helped/turns/0", "/cards", "/cards/1", "/help", "/no/such/page"],
)
def test_every_page_links_help(site: str, path: str) -> None:
    assert 'href="/help"' in fetch(f"{site}{path}").text
