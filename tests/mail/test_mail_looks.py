"""How a report mail looks (adjudicator/mail/compose/styles.py, messages.py): the HTML
styled inline for phones with a dark mode for clients that honour one, its addresses
links (https and mailto only), its text part free of image Markdown; and Chromium draws
it on a phone's width, light and dark, with nothing wider than the screen.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import SECRET, bot_submission, current_home
from mailserver import UNDER_CI, email_of, html, mail_server, plain, settings_for

from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.mail import report_mails, tokens
from adjudicator.mail.compose import styles
from adjudicator.mail.compose.messages import mail_html
from adjudicator.mail.compose.styles import INLINE

pytestmark = pytest.mark.usefixtures("home")

NAMES = ("alice", "bob")
BASE = "https://pamir.example"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not UNDER_CI, reason="headless Chromium is not installed"
)


def reports(home: Path, moves: int = 4, language: str = "en") -> dict[str, EmailMessage]:
    """The report mails of a game `moves` moves in, by player, through a real SMTP server."""
    settings = settings_for(home, None, base_url=BASE)
    repo = create_game(
        settings.games_dir / "g1",
        [(n, email_of(n)) for n in NAMES],
        home=settings.home,
        secret=SECRET,
        languages=dict.fromkeys(NAMES, language),
    )
    last = _play(repo, moves)
    with mail_server() as server:
        settings = settings.model_copy(update={"smtp_host": "127.0.0.1", "smtp_port": server.port})
        report_mails.notify(settings, repo, [last])
        received = server.messages
    repo.repo.close()
    return {str(m["X-Pamir-Player"]): m for m in received if m["X-Pamir-Kind"] == "report"}


def _play(repo: GameRepo, count: int) -> Adjudication:
    rng = random.Random(3)
    done = None
    for _ in range(count):
        state = position(snapshot(repo), current_home())
        player, text = bot_submission(state, rng, whole_turn=True)
        done = submit(repo, player, text, home=current_home())
    assert done is not None
    return done


def test_every_element_of_the_html_is_styled_inline_and_dark_mode_is_offered(home: Path) -> None:
    page = html(reports(home)["alice"])
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "@media (prefers-color-scheme: dark)" in page
    assert re.search(r'<body class="mail" style="[^"]*font-size:16px', page)
    for tag in ("h2", "p", "table", "th", "td", "ul"):
        opened = re.findall(rf"<{tag}(?=[\s>])[^>]*>", page)
        assert opened, tag
        assert all(f'style="{INLINE[tag]}"' in found for found in opened), (tag, opened[:3])
    # A table scrolls sideways within the screen rather than widen the page.
    assert re.search(r'<div style="overflow-x:auto[^"]*"><table', page)
    # No colour is set inline where it would beat the dark mode: text and backgrounds are
    # the client's, shades are greys seen through.
    inline = " ".join(re.findall(r'style="([^"]*)"', page))
    assert not re.search(r"(?<![-\w])color:", inline)
    assert not re.search(r"background:#", inline)


def test_a_mail_styled_part_by_part_is_the_page_styled_whole(home: Path) -> None:
    """A report mail's HTML is styled part by part (each part once per distinct text):
    the same page as styling their whole, tables, headings and card faces included."""
    text = plain(reports(home)["alice"])
    parts = [mail_html(block) for block in text.split("\n\n") if block.strip()]
    face = '<div class="card"><p class="card-name">Afghan Handicrafts</p><p>Cost 1</p></div>'
    parts = [*parts, face, parts[0]]
    assert any("<table" in part for part in parts) and any("<h2" in part for part in parts)
    whole = styles.page("\n".join(parts))
    assert styles.page_of(parts) == whole
    assert styles.page_of(parts) == whole  # from what was styled the first time
    assert f'<table style="{INLINE["table"]}"' in whole


def test_addresses_in_the_mail_are_links_and_only_https_and_mailto(home: Path) -> None:
    message = reports(home)["alice"]
    page = html(message)
    reply = str(message["Reply-To"])
    assert f'<a href="mailto:{reply}">{reply}</a>' in page
    links = re.findall(r'<a [^>]*href="([^"]*)"', page)
    assert f"{BASE}/games/g1" in links
    assert any(link.startswith(f"{BASE}/play/g1/alice/") for link in links)
    assert all(link.startswith(("https://", "mailto:")) for link in links), links
    assert tokens.read_address(settings_for(home, None), reply) == ("g1", "alice")


def test_links_written_in_a_text_follow_the_rules_of_every_link() -> None:
    """What a player wrote (a note, press) is rendered with the mail: an https address
    becomes a link to itself, an http one stays text, a link whose text is not its address
    shows the address, and an address in code stays code."""
    page = mail_html(
        "See https://a.example/x, http://b.example/y, [here](https://c.example/z),"
        " `https://d.example/` and write to x@e.example.\n"
    )
    assert '<a href="https://a.example/x">https://a.example/x</a>,' in page
    assert "<span>http://b.example/y</span>" in page and 'href="http://' not in page
    assert '<span>here</span> (<a href="https://c.example/z">https://c.example/z</a>)' in page
    assert "<code>https://d.example/</code>" in page
    assert '<a href="mailto:x@e.example">x@e.example</a>.' in page
    hostile = mail_html('Go to https://f.example/"onclick=alert(1) or javascript:alert(1)\n')
    # The quote ends the address: what follows is text, never an attribute.
    assert re.findall(r"<a ([^>]*)>", hostile) == ['href="https://f.example/"']
    assert 'href="javascript' not in hostile


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_text_part_carries_no_image_markdown(home: Path, language: str) -> None:
    for message in reports(home, language=language).values():
        text = plain(message)
        assert "![" not in text and "board.svg" not in text
        page = html(message)
        assert "board.svg" not in page
        where = {"en": "The board after this move: on this move's page,", "pl": "Plansza"}
        assert where[language] in text
        assert re.search(rf"{BASE}/games/g1/turns/\d+", text)


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@needs_chromium
@pytest.mark.parametrize("dark", [False, True])
def test_chromium_draws_the_mail_on_a_phone_light_and_dark(
    home: Path, tmp_path: Path, dark: bool
) -> None:
    page = html(reports(home)["alice"])
    # How wide the page lays out on a phone's 420 pixels: the right edge of its widest
    # element outside a box that scrolls, measured by a script that runs in Chromium (the
    # mail itself has no script; this copy is the test's). Headless Chromium's window is
    # never narrower than 500 pixels, so the page is made 420 wide.
    probe = (
        "<script>addEventListener('load',()=>{document.documentElement.style.width='420px';"
        "let most=0;for(const e of document.querySelectorAll('body *')){"
        "if(e.parentElement.closest('[style*=overflow-x]'))continue;"
        "most=Math.max(most,e.getBoundingClientRect().right)}"
        "document.title='width:'+Math.ceil(most)})</script>"
    )
    file = tmp_path / "mail.html"
    file.write_text(page.replace("</body>", probe + "</body>"), encoding="utf-8")
    mode = ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if dark else []
    dom = chromium(
        tmp_path / "profile", *mode, "--window-size=420,2000", "--dump-dom", file.as_uri()
    )
    width = re.search(r"<title>width:(\d+)</title>", dom.stdout)
    assert width is not None, dom.stderr[-2000:]
    assert int(width.group(1)) <= 420
    shot = tmp_path / ("dark.png" if dark else "light.png")
    done = chromium(
        tmp_path / "profile",
        *mode,
        "--window-size=420,2000",
        f"--screenshot={shot}",
        file.as_uri(),
    )
    assert shot.is_file() and shot.stat().st_size > 10_000, done.stderr[-2000:]
