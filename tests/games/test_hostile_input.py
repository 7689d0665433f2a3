"""Hostile input at every edge: script in notes, oversized and unreadable input, leaked hands.

Each test is one attack, made the way an attacker would make it: a move pushed with real
Git, a page fetched and a webhook posted over real HTTP, mail through a real SMTP server,
the `pamir` command run as a process.
"""

from __future__ import annotations

import html
import http.client
import json
import re
import select
import socket
from collections.abc import Iterator
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from gitgame import (
    count_commits,
    create,
    current_home,
    decider,
    full_state,
    git,
    head,
    opened,
    pamir,
    pamir_ok,
    play,
    player_email,
    push,
    show,
    state_json,
)
from liveserver import fetch, github_headers, serving
from mailserver import (
    MailServer,
    email_of,
    mail_server,
    new_game,
    plain,
    reply_to,
    settings_for,
)
from mailserver import html as html_part

import engine
from adjudicator.forge import newgames
from adjudicator.games.pipeline import submit
from adjudicator.home.settings import Settings
from adjudicator.hooks import receive
from adjudicator.mail import report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.web import create_app

GITHUB_SECRET = "github-webhook-secret"
BIG = 64 * 1024 * 1024  # what an attacker streams at an endpoint
SAFE_SCHEMES = ("http", "https", "mailto")


# The shared `home` fixture (conftest.py) isolates PAMIR_HOME for every test here.
pytestmark = pytest.mark.usefixtures("home")


# -- helpers ---------------------------------------------------------------------------------


class _Links(HTMLParser):
    """Every URL an HTML document points at, as a browser decodes it, and its tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, url)
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("href", "src", "action", "formaction", "background") and value:
                self.urls.append((tag, name, value))


def links(document: str) -> _Links:
    parser = _Links()
    parser.feed(document)
    parser.close()
    return parser


def scheme(url: str) -> str:
    cleaned = "".join(c for c in html.unescape(url) if c > " " and c != "\x7f")
    found, sep, _ = cleaned.partition(":")
    if not sep or any(c in found for c in "/?#"):
        return ""  # relative
    return found.lower()


def post_chunked(base: str, path: str, headers: dict[str, str], total: int) -> tuple[int, int]:
    """POST `total` bytes with chunked transfer encoding over a real socket, stopping as
    soon as the server answers. Returns (status, bytes sent)."""
    url = urlsplit(base)
    assert url.hostname is not None and url.port is not None
    sock = socket.create_connection((url.hostname, url.port), timeout=60)
    try:
        lines = [f"POST {path} HTTP/1.1", f"Host: {url.netloc}", "Transfer-Encoding: chunked"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        block = 1 << 16
        frame = f"{block:x}\r\n".encode() + b"x" * block + b"\r\n"
        sent = 0
        while sent < total:
            if select.select([sock], [], [], 0)[0]:
                break  # the server answered before reading everything
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += block
        else:
            sock.sendall(b"0\r\n\r\n")
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, sent
    finally:
        sock.close()


def legal_first(path: Path) -> tuple[str, str]:
    player, options = decider(full_state(path))
    return player, options[0]


def write_bytes_move(clone: Path, number: int, player: str, data: bytes) -> None:
    name = f"moves/{number:04d}-{player}.txt"
    (clone / "moves").mkdir(exist_ok=True)
    (clone / name).write_bytes(data)
    git(clone, "add", name)
    author = f"{player} <{player_email(clone, player)}>"
    git(clone, "commit", "-q", "--author", author, "-m", f"{player}: move {number}")


def padded(action: str, size: int) -> bytes:
    """A legal move file made `size` bytes long with comment lines."""
    text = action + "\n"
    comment = "# " + "x" * 77 + "\n"
    while len(text.encode()) < size:
        text += comment
    return text.encode()


# -- hostile content: pages ------------------------------------------------------------------

NOTES = (
    "# note: [x](JaVaScRiPt&#58;alert(1))",
    "# note: [y](javascript:alert(2)) [z](data:text/html;base64,PHNjcmlwdD4=)",
    "# note: [w](&#106;avascript:alert(3)) ![pixel](https://tracker.example/p.gif)",
)


@pytest.fixture
def noted_game(home: Path) -> Path:
    path = create(home / "games" / "noted", ("alice", "bob"))
    player, action = legal_first(path)
    with opened(path) as repo:
        submit(repo, player, "\n".join([*NOTES, action]) + "\n", home=current_home())
    return path


def test_script_links_in_a_note_are_no_links_on_the_turn_page(noted_game: Path, home: Path) -> None:
    with serving(create_app({"home": home})) as site:
        pages = [fetch(f"{site}/games/noted/turns/1"), fetch(f"{site}/games/noted")]
    for page in pages:
        assert page.status == 200
        found = links(page.text)
        assert found.urls, "the pages have their own links"
        bad = [u for u in found.urls if scheme(u[2]) not in ("", *SAFE_SCHEMES)]
        assert bad == []
        assert "img" not in found.tags
        # The only script is the site's own live refresh, by address (no inline script).
        scripts = [u for u in found.urls if u[0] == "script"]
        assert found.tags.count("script") == len(scripts) <= 1
        assert all(u[2] == "/live.js" for u in scripts), scripts
        assert "tracker.example" not in "".join(u[2] for u in found.urls)


def test_mailed_reports_carry_no_script_links_and_no_remote_images(
    tmp_path: Path, home: Path
) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, _ = new_game(settings)
        try:
            player, action = legal_first(repo.path)
            done = submit(repo, player, "\n".join([*NOTES, action]) + "\n", home=home)
            report_mails.notify(settings, repo, [done])
        finally:
            repo.repo.close()
        messages = server.messages
    assert len(messages) == 2
    for message in messages:
        document = html_part(message)
        found = links(document)
        # The one image is the board's picture, carried in the message itself: its `cid:`
        # names a part of this message, so showing it tells no server anything.
        inline = {
            f"cid:{str(part['Content-ID']).strip('<>')}"
            for part in message.walk()
            if part.get_content_maintype() == "image" and part["Content-ID"]
        }
        images = [u for u in found.urls if u[0] == "img"]
        assert [u for u in images if u[1:] != ("src", *inline)] == []
        assert found.tags.count("img") == len(images) <= 1
        other = [u for u in found.urls if u[0] != "img"]
        assert [u for u in other if scheme(u[2]) not in SAFE_SCHEMES] == []
        assert "tracker.example" not in document or "src=" not in document
        assert "JaVaScRiPt" in plain(message)  # the text part keeps what was written


# -- hostile content: headers ----------------------------------------------------------------


def test_every_response_sends_a_strict_security_policy(noted_game: Path, home: Path) -> None:
    app = create_app({"home": home, "github_secret": GITHUB_SECRET})
    with serving(app) as site:
        replies = {
            "index": fetch(f"{site}/"),
            "game": fetch(f"{site}/games/noted"),
            "turn": fetch(f"{site}/games/noted/turns/1"),
            "missing": fetch(f"{site}/games/nothing-here"),
            "method": fetch(f"{site}/inbound/email"),
            "unsigned": fetch(f"{site}/webhooks/github", b"{}", {"X-GitHub-Event": "push"}),
            "health": fetch(f"{site}/healthz"),
        }
        sheets = [u for t, _, u in links(replies["game"].text).urls if t == "link"]
        styles = [fetch(site + u) for u in sheets if u.startswith("/")]
    assert [r.status for r in replies.values()] == [200, 200, 200, 404, 405, 401, 200]
    for name, reply in replies.items():
        policy = reply.headers.get("Content-Security-Policy", "")
        directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
        assert directives.get("default-src") == ["'none'"], (name, policy)
        assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
        # Scripts from the site itself only (its live refresh, /live.js): never inline.
        assert "script-src" not in directives or directives["script-src"] in (
            ["'none'"],
            ["'self'"],
        )
        assert directives.get("frame-ancestors") == ["'none'"]
        assert reply.headers.get("X-Content-Type-Options") == "nosniff", name
        assert reply.headers.get("Referrer-Policy") in ("no-referrer", "same-origin"), name
    for name in ("index", "game", "turn", "missing"):
        # The site's own live refresh is the one script a page may load, by its address.
        page = replies[name].text.lower().replace('<script src="/live.js"', "", 1)
        assert "<style" not in page and " style=" not in page and "<script" not in page
    assert styles and all(s.status == 200 for s in styles)
    assert all(s.headers["Content-Type"].startswith("text/css") for s in styles)
    assert all(s.headers.get("X-Content-Type-Options") == "nosniff" for s in styles)


# -- bounded input: HTTP ---------------------------------------------------------------------


@pytest.fixture
def site(home: Path) -> Iterator[str]:
    app = create_app({"home": home, "github_secret": GITHUB_SECRET})
    with serving(app) as url:
        yield url


def test_an_unsigned_chunked_webhook_is_refused_before_its_body_is_read(site: str) -> None:
    headers = {"X-GitHub-Event": "push", "Content-Type": "application/json"}
    status, sent = post_chunked(site, "/webhooks/github", headers, BIG)
    assert status == 401
    assert sent < BIG // 2


def test_an_oversized_chunked_webhook_gets_413_without_being_read_whole(site: str) -> None:
    headers = {
        "X-GitHub-Event": "push",
        "Content-Type": "application/json",
        "X-Hub-Signature-256": "sha256=" + "0" * 64,
    }
    status, sent = post_chunked(site, "/webhooks/github", headers, BIG)
    assert status == 413
    assert sent < BIG // 2


def test_an_oversized_chunked_inbound_email_gets_413(site: str) -> None:
    headers = {"Content-Type": "message/rfc822"}
    status, sent = post_chunked(site, "/inbound/email", headers, BIG)
    assert status == 413
    assert sent < BIG // 2


# -- bounded, clean input: the command line --------------------------------------------------


@pytest.fixture
def game(home: Path) -> Path:
    return create(home / "games" / "cli-game", ("alice", "bob"))


def refused_move(game: Path, player: str, data: bytes, tmp_path: Path) -> str:
    path = tmp_path / "move.txt"
    path.write_bytes(data)
    before = count_commits(game)
    done = pamir("move", game, "--as", player, path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert count_commits(game) == before
    return done.stderr


def refused_apply(data: bytes, tmp_path: Path) -> str:
    state = tmp_path / "state.json"
    state.write_text(pamir_ok("engine", "new", "--players", "alice,bob", "--seed", "3"))
    moves = tmp_path / "moves.txt"
    moves.write_bytes(data)
    done = pamir("engine", "apply", state, moves)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stderr


def test_a_move_file_that_is_not_utf8_is_refused_with_exit_2(game: Path, tmp_path: Path) -> None:
    player, action = legal_first(game)
    message = refused_move(game, player, action.encode() + b"\n# caf\xff\n", tmp_path)
    assert "UTF-8" in message and "line 2" in message
    message = refused_apply(b"loyalty \xff\n", tmp_path)
    assert "UTF-8" in message and "line 1" in message


def test_a_move_file_over_max_move_bytes_is_refused(game: Path, tmp_path: Path) -> None:
    player, action = legal_first(game)
    message = refused_move(game, player, padded(action, 65 * 1024), tmp_path)
    assert "max_move_bytes" in message and "65536" in message
    assert "max_move_bytes" in refused_apply(padded("loyalty afghan", 65 * 1024), tmp_path)
    # The limit is a setting.
    small = tmp_path / "small.txt"
    small.write_bytes(padded(action, 3000))
    done = pamir("move", game, "--as", player, small, env={"PAMIR_MAX_MOVE_BYTES": "2048"})
    assert done.returncode == 2 and "2048" in done.stderr, done.stderr


def test_a_leading_byte_order_mark_is_accepted(game: Path, tmp_path: Path) -> None:
    player, action = legal_first(game)
    path = tmp_path / "move.txt"
    path.write_bytes(b"\xef\xbb\xbf" + action.encode() + b"\r\n")
    pamir_ok("move", game, "--as", player, path)
    assert state_json(game)["move"] == 1
    assert "ok:" in pamir_ok("verify", game)
    state = tmp_path / "state.json"
    state.write_text(pamir_ok("engine", "new", "--players", "alice,bob", "--seed", "3"))
    first, options = decider(engine.loads(state.read_text()))
    path.write_bytes(b"\xef\xbb\xbf" + f"{first}: {options[0]}\n".encode())
    pamir_ok("engine", "apply", state, path)


# -- bounded, clean input: pushes to a self-hosted game --------------------------------------


@pytest.fixture
def bare(home: Path, tmp_path: Path) -> Path:
    path = create(tmp_path / "game.git", bare=True)
    receive.install(path, current_home())
    return path


def clone_of(bare: Path, name: str) -> Path:
    target = bare.parent / name
    git(bare.parent, "clone", "-q", str(bare), str(target))
    return target


def test_pushed_move_files_that_are_not_utf8_or_too_big_are_refused(bare: Path) -> None:
    player, action = legal_first(bare)
    mine = clone_of(bare, player)
    before = head(bare)
    write_bytes_move(mine, 1, player, action.encode() + b" \xff\n")
    done = push(mine)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "push refused" in done.stderr and "UTF-8" in done.stderr
    git(mine, "reset", "-q", "--hard", "HEAD^")
    write_bytes_move(mine, 1, player, padded(action, 100 * 1024))
    done = push(mine)
    assert done.returncode != 0 and "max_move_bytes" in done.stderr, done.stderr
    assert head(bare) == before


def test_a_pushed_move_file_with_a_byte_order_mark_is_adjudicated(bare: Path) -> None:
    player, action = legal_first(bare)
    mine = clone_of(bare, player)
    write_bytes_move(mine, 1, player, b"\xef\xbb\xbf" + action.encode() + b"\n")
    done = push(mine)
    assert done.returncode == 0, done.stderr
    assert state_json(bare)["move"] == 1
    assert "ok:" in pamir_ok("verify", bare)


def test_a_push_by_a_player_who_is_not_deciding_shows_no_one_elses_actions(bare: Path) -> None:
    play(bare, 2, seed=1)  # both loyalties chosen: turns begin, hands fill
    deciding, options = decider(full_state(bare))
    other = next(p for p in ("alice", "bob") if p != deciding)
    mine = clone_of(bare, other)
    write_bytes_move(mine, 3, other, b"pass\n")
    done = push(mine)
    assert done.returncode != 0
    assert "not-your-decision" in done.stderr and f"waiting for {deciding}" in done.stderr
    assert "legal now" not in done.stderr
    assert not any(f"{deciding}: {o}" in done.stderr for o in options)


# -- bounded, clean input: a forge-hosted game -----------------------------------------------


@pytest.fixture
def hosted(tmp_path: Path, settings: Settings) -> Path:
    origin = tmp_path / "forge" / "players" / "g1.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    repo = newgames.create_remote_game(
        settings,
        str(origin),
        [("alice", "alice@example.org"), ("bob", "bob@example.org")],
        game_id="g1",
    )
    repo.repo.close()
    return origin


def deliver(site: str, origin: Path, delivery: str) -> tuple[int, dict[str, object]]:
    body = json.dumps(
        {
            "ref": "refs/heads/main",
            "after": head(origin),
            "repository": {"full_name": "players/g1", "clone_url": str(origin)},
        }
    ).encode()
    reply = fetch(f"{site}/webhooks/github", body, github_headers(GITHUB_SECRET, body, delivery))
    return reply.status, reply.json()


def forge_push(origin: Path, number: int, player: str, data: bytes) -> None:
    clone = origin.parent / f"clone-{number}"
    git(origin.parent, "clone", "-q", str(origin), str(clone))
    write_bytes_move(clone, number, player, data)
    done = push(clone)
    assert done.returncode == 0, done.stderr


def test_a_forge_game_refuses_unreadable_and_oversized_moves_and_goes_on(
    site: str, hosted: Path, home: Path
) -> None:
    player, action = legal_first(home / "games" / "g1")
    forge_push(hosted, 1, player, action.encode() + b" \xff\n")
    status, result = deliver(site, hosted, "d1")
    assert (status, result["refused"]) == (200, [1])
    forge_push(hosted, 2, player, padded(action, 100 * 1024))
    status, result = deliver(site, hosted, "d2")
    assert (status, result["refused"]) == (200, [2])
    report = show(hosted, "main", "reports/0002.md")
    assert "max_move_bytes" in report
    forge_push(hosted, 3, player, b"\xef\xbb\xbf" + action.encode() + b"\n")
    status, result = deliver(site, hosted, "d3")
    assert (status, result["adjudicated"], result["refused"]) == (200, [3], [])
    assert state_json(hosted)["move"] == 3
    written = [p.read_text(encoding="utf-8") for p in (home / "outbox").rglob("*.eml")]
    refusals = [m for m in written if "your move was not accepted" in m]
    assert len(refusals) == 2
    assert all(len(m) < 40 * 1024 for m in refusals)  # the oversized file is not quoted whole


def test_a_forge_refusal_shows_no_one_the_deciders_actions(
    site: str, hosted: Path, home: Path
) -> None:
    play(home / "games" / "g1", 2, seed=1)
    git(home / "games" / "g1", "push", "-q", "origin", "main")
    deciding, options = decider(full_state(home / "games" / "g1"))
    other = next(p for p in ("alice", "bob") if p != deciding)
    forge_push(hosted, 3, other, b"pass\n")
    status, result = deliver(site, hosted, "d1")
    assert (status, result["refused"]) == (200, [3])
    public = show(hosted, "main", "reports/0003.md") + show(hosted, "main", "state.json")
    public += git(hosted, "log", "-1", "--format=%B", "main")
    assert "legal now" not in public
    written = [p.read_text(encoding="utf-8") for p in (home / "outbox").rglob("*.eml")]
    refusal = next(m for m in written if "your move was not accepted" in m)
    assert not any(f"{deciding}: {o}" in refusal for o in options)


# -- mail: oversized moves, odd headers, views -----------------------------------------------


@pytest.fixture
def table(home: Path) -> Iterator[tuple[Settings, MailServer]]:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        repo.repo.close()
        yield settings, server


def report_for_player(server: MailServer, player: str) -> EmailMessage:
    return [m for m in server.to(email_of(player)) if "X-Pamir-Move" in m][-1]


def test_an_emailed_move_over_max_move_bytes_is_refused_by_reply(
    table: tuple[Settings, MailServer],
) -> None:
    settings, server = table
    player, action = legal_first(settings.games_dir / "g1")
    body = padded(action, 70 * 1024).decode()
    raw = reply_to(report_for_player(server, player), body, quote=False)
    result = handle_message(settings, raw)
    assert result.status == "refused" and "max_move_bytes" in result.reason
    answer = server.messages[-1]
    assert "your move was not accepted" in plain(answer)
    assert count_commits(settings.games_dir / "g1") == 1


def test_an_encoded_line_break_in_the_subject_does_not_lose_the_reply(
    table: tuple[Settings, MailServer],
) -> None:
    settings, server = table
    player, action = legal_first(settings.games_dir / "g1")
    raw = reply_to(report_for_player(server, player), action + "\n", quote=False)
    raw = raw.replace(b"Subject: Re: ", b"Subject: =?utf-8?q?hi=0D=0ABcc:_x?= Re: ", 1)
    result = handle_message(settings, raw)
    assert result.status == "accepted", result.reason
    confirmation = server.messages[-1]
    subject = str(confirmation["Subject"])
    assert "\r" not in subject and "\n" not in subject and confirmation["Bcc"] is None
    assert "accepted" in plain(confirmation)


def test_an_emailed_move_by_a_player_who_is_not_deciding_shows_no_one_elses_actions(
    table: tuple[Settings, MailServer],
) -> None:
    settings, server = table
    path = settings.games_dir / "g1"
    play(path, 2, seed=1)
    deciding, options = decider(full_state(path))
    other = next(p for p in ("alice", "bob") if p != deciding)
    # A fresh message to the reply address: an answer to the report of move 0, two moves
    # old, would be refused as stale before the rules are asked (adjudicator/mail/staleness.py).
    raw = reply_to(report_for_player(server, other), "pass\n", quote=False)
    raw = re.sub(rb"(?m)^(In-Reply-To|References): .*\n", b"", raw)
    result = handle_message(settings, raw)
    assert result.status == "refused" and "not-your-decision" in result.reason
    assert f"waiting for {deciding}" in result.reason
    refusal = plain(server.messages[-1])
    assert "your move was not accepted" in refusal
    assert not any(f"{deciding}: {o}" in refusal for o in options)
    assert "legal now" not in refusal
