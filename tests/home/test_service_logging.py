"""The service's log and its servers (docs/operations.md#logging): `pamir serve` on waitress
and the Procfile's gunicorn write one line per request in the same form, with time,
level, logger and message (or JSON), and never a private page's or a reply address's token.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import PAMIR, THREE, create, decider, full_state, head, play
from liveserver import fetch
from test_private_page import form_fields, post, private_path

from adjudicator.home import logs
from adjudicator.home.settings import SettingsError, load_settings
from adjudicator.mail.tokens import page_token, token

ROOT = Path(__file__).resolve().parents[2]
GAME = "herat"
# `2026-11-28T09:15:02.120Z INFO adjudicator.web.requests: GET /path 200 3.1 ms`
LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: "
)
REQUEST = re.compile(LINE.pattern + r"(GET|POST) (\S+) (\d{3}) [\d.]+ ms$")


# -- what a log line may not hold ------------------------------------------------------------


def test_a_private_pages_token_is_hidden_wherever_it_stands() -> None:
    secret = "0123456789abcdef0123456789abcdef"
    for text, hidden in [
        (f"GET /play/kabul/alice/{secret} 200", "GET /play/kabul/alice/… 200"),
        (f"GET /play/kabul/alice/{secret}?lang=pl 200", "GET /play/kabul/alice/…?lang=pl 200"),
        (f"see http://x.org/play/kabul/alice/{secret}.", "see http://x.org/play/kabul/alice/…"),
        (f'href="/play/k/bob.smith/{secret}"', 'href="/play/k/bob.smith/…"'),
        (f"Exception on /play/g/p/{secret} [POST]", "Exception on /play/g/p/… [POST]"),
    ]:
        assert logs.redact(text) == hidden
        assert secret not in logs.redact(text)


def test_a_reply_addresss_token_is_hidden_plain_percent_encoded_and_with_press() -> None:
    secret = "0123456789abcdef0123"
    for text, hidden in [
        (f"to pamir+kabul.alice.{secret}@play.org", "to pamir+kabul.alice.…@play.org"),
        (f"<pamir+kabul.bob.smith.{secret}@x>", "<pamir+kabul.bob.smith.…@x>"),
        (f"pamir+kabul.alice.{secret}+all@x", "pamir+kabul.alice.…+all@x"),
        (f"mailto:pamir%2Bkabul.alice.{secret}%40x.org", "mailto:pamir%2Bkabul.alice.…%40x.org"),
    ]:
        assert logs.redact(text) == hidden
    # Nothing else is taken for a token: a commit, an ordinary address, a sum.
    for text in ("commit 4f4ba6b0c1", "alice+games@example.org", "2+2=4", "a.b.c@d"):
        assert logs.redact(text) == text


def test_a_json_line_holds_the_fields_and_the_traceback_redacted() -> None:
    record = logging.LogRecord(
        "adjudicator.web.requests", logging.INFO, __file__, 1, "GET %s", ("/play/a/b/c",), None
    )
    record.status = 200
    try:
        raise ValueError("at /play/g/p/0123456789abcdef")
    except ValueError:
        record.exc_info = sys.exc_info()
    entry = json.loads(logs.JsonFormatter().format(record))
    assert entry["level"] == "INFO" and entry["logger"] == "adjudicator.web.requests"
    assert entry["message"] == "GET /play/a/b/…" and entry["status"] == 200
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry["time"])
    assert "ValueError: at /play/g/p/…" in entry["exception"]
    assert "0123456789abcdef" not in json.dumps(entry)


def test_a_line_break_in_a_message_cannot_forge_a_line_of_its_own() -> None:
    forged = "refused: x\n2026-11-28T09:00:00.000Z INFO adjudicator.web.play: move 9 accepted"
    record = logging.LogRecord("adjudicator.mail", logging.INFO, __file__, 1, "%s", (forged,), None)
    (line,) = logs.TextFormatter().format(record).splitlines()
    assert line.endswith(
        "refused: x\\x0a2026-11-28T09:00:00.000Z INFO adjudicator.web.play: move 9 accepted"
    )
    try:
        raise ValueError("boom")
    except ValueError:
        record.exc_info = sys.exc_info()
    assert "Traceback (most recent call last):\n" in logs.TextFormatter().format(record)


def test_the_set_up_is_one_handler_however_often_it_is_made() -> None:
    script = (
        "import logging\n"
        "from adjudicator.home import logs\n"
        "logs.configure('info'); logs.configure('warning', 'json'); logs.configure('info')\n"
        "logging.getLogger('x').info('once')\n"
        "logging.getLogger('werkzeug').info('quiet')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert LINE.match(line) and line.endswith(" INFO x: once"), line


def test_log_settings_are_read_in_any_case_and_checked(home: Path) -> None:
    settings = load_settings({"log_level": "DEBUG", "log_format": "JSON"})
    assert (settings.log_level, settings.log_format) == ("debug", "json")
    with pytest.raises(SettingsError, match="log_format"):
        load_settings({"log_format": "xml"})


# -- pamir serve -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(
    command: list[str], env: dict[str, str], out: Path, ready: str, cwd: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A server process, its standard output and error both to `out`, until it says `ready`
    (or answers at the URL `ready`); stopped with SIGTERM after."""
    with open(out, "wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, cwd=cwd)
    try:
        limit = time.monotonic() + 60
        while time.monotonic() < limit:
            if process.poll() is not None:
                raise AssertionError(out.read_text(encoding="utf-8", errors="replace"))
            if ready.startswith("http"):
                try:
                    if fetch(ready).status == 200:
                        break
                except OSError:
                    pass
            elif ready in out.read_text(encoding="utf-8", errors="replace"):
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"not ready: {out.read_text(encoding='utf-8')}")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def logged(out: Path, text: str) -> None:
    """Wait until the server has written `text`: a request is logged once its answer is
    sent, so just after the client has it."""
    limit = time.monotonic() + 30
    while text not in out.read_text(encoding="utf-8") and time.monotonic() < limit:
        time.sleep(0.05)


def serve_url(out: Path) -> str:
    match = re.search(r"pamir: serving (http://\S+)/ ", out.read_text(encoding="utf-8"))
    assert match, out.read_text(encoding="utf-8")
    return match.group(1)


@pytest.fixture
def game(home: Path) -> Path:
    create(home / "games" / GAME, THREE)
    play(home / "games" / GAME, 3, seed=5, whole_turn=True)
    return home


def reply_mail(home: Path, player: str, text: str) -> bytes:
    settings = load_settings({"home": home})
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = f"pamir+{GAME}.{player}.{token(settings, GAME, player)}@localhost"
    message["Subject"] = f"Re: [{GAME}] your move"
    message["Message-ID"] = f"<{time.time_ns()}@example.org>"
    message.set_content(text)
    return message.as_bytes()


def test_pamir_serve_logs_each_request_and_no_token_anywhere(game: Path, tmp_path: Path) -> None:
    home = game
    settings = load_settings({"home": home})
    player, options = decider(full_state(home / "games" / GAME))
    secrets = {page_token(settings, GAME, p) for p in THREE} | {
        token(settings, GAME, p) for p in THREE
    }
    out = tmp_path / "serve.out"
    env = {**os.environ, "PAMIR_HOME": str(home), "PAMIR_LOG_LEVEL": "debug"}
    command = [str(PAMIR), "serve", "--no-scheduler", "--port", "0"]
    with running(command, env, out, "pamir: serving"):
        site = serve_url(out)
        page = f"{site}{private_path(home, GAME, player)}"
        shown = fetch(page)
        assert shown.status == 200 and shown.headers["Server"] == "pamir"  # waitress's ident
        before = head(home / "games" / GAME)
        moved = post(page, {**form_fields(shown.text), "move": f"{options[0]}\r\n"})
        assert moved.status == 200 and head(home / "games" / GAME) != before
        other = next(p for p in THREE if p != player)
        fetch(f"{site}{private_path(home, GAME, other)}?lang=pl")
        mailed = fetch(f"{site}/inbound/email", reply_mail(home, other, "pass\n"))
        assert mailed.status == 200, mailed.text
        assert fetch(f"{site}/play/{GAME}/{other}/{'f' * 32}").status == 404
        logged(out, f"GET /play/{GAME}/{other}/… 404")
    written = out.read_text(encoding="utf-8")
    assert "on waitress" in written
    requests = [REQUEST.match(line) for line in written.splitlines()]
    paths = [(m.group(2), m.group(3), m.group(4)) for m in requests if m]
    assert ("GET", f"/play/{GAME}/{player}/…", "200") in paths
    assert ("POST", f"/play/{GAME}/{player}/…", "200") in paths
    assert ("GET", f"/play/{GAME}/{other}/…?lang=pl", "200") in paths
    assert ("POST", "/inbound/email", "200") in paths
    assert ("GET", f"/play/{GAME}/{other}/…", "404") in paths
    leaked = [secret for secret in secrets if secret in written]
    assert leaked == [], written


def test_pamir_serve_drops_a_connection_idle_past_its_timeout(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "serve.out"
    env = {**os.environ, "PAMIR_HOME": str(home), "PAMIR_SERVE_TIMEOUT": "1"}
    command = [str(PAMIR), "serve", "--no-scheduler", "--port", "0"]
    with running(command, env, out, "pamir: serving"):
        host, port = serve_url(out).removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as idle:
            idle.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest of the request
            started = time.monotonic()
            assert idle.recv(1024) == b""  # closed by the server
            assert time.monotonic() - started < 20
        assert fetch(f"http://{host}:{port}/healthz").status == 200


def test_pamir_serve_dev_is_werkzeugs_development_server(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "serve.out"
    env = {**os.environ, "PAMIR_HOME": str(home)}
    command = [str(PAMIR), "serve", "--dev", "--no-scheduler", "--port", "0"]
    with running(command, env, out, "pamir: serving"):
        reply = fetch(f"{serve_url(out)}/healthz")
        assert reply.status == 200 and reply.headers["Server"].startswith("Werkzeug/")
        logged(out, "GET /healthz 200")
    written = out.read_text(encoding="utf-8")
    assert "on Werkzeug's development server" in written
    # pamir's own request line, in pamir's form; Werkzeug's own request lines are quiet.
    assert any(
        (m := REQUEST.match(line)) and m.group(3) == "/healthz" for line in written.splitlines()
    )
    assert '"GET /healthz HTTP/1.1"' not in written


# -- gunicorn, as the Procfile runs it -------------------------------------------------------


def procfile_web(port: int) -> list[str]:
    """The Procfile's web command, with the port a platform would give."""
    (line,) = [
        line
        for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
        if line.startswith("web:")
    ]
    words = shlex.split(line.removeprefix("web:").replace("${PORT:-8000}", str(port)))
    assert words[0] == "gunicorn"
    return [str(Path(sys.executable).parent / "gunicorn"), *words[1:]]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_the_procfiles_web_process_logs_each_request_with_time_and_a_redacted_path(
    game: Path, tmp_path: Path, log_format: str
) -> None:
    home = game
    settings = load_settings({"home": home})
    port = free_port()
    out = tmp_path / "gunicorn.out"
    env = {**os.environ, "PAMIR_HOME": str(home), "PAMIR_LOG_FORMAT": log_format}
    with running(procfile_web(port), env, out, f"http://127.0.0.1:{port}/healthz", home):
        assert fetch(f"http://127.0.0.1:{port}{private_path(home, GAME, 'bob')}").status == 200
        logged(out, f"/play/{GAME}/bob/…")
    written = out.read_text(encoding="utf-8")
    assert page_token(settings, GAME, "bob") not in written
    lines = written.splitlines()
    if log_format == "text":
        assert all(LINE.match(line) for line in lines), written
        assert any(
            (m := REQUEST.match(line)) and m.group(3) == f"/play/{GAME}/bob/…" for line in lines
        ), written
        assert any(" INFO gunicorn.error: Booting worker" in line for line in lines), written
        return
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    (request,) = [e for e in entries if e.get("path") == f"/play/{GAME}/bob/…"]
    assert request["method"] == "GET" and request["status"] == 200
    assert request["logger"] == "adjudicator.web.requests" and request["level"] == "INFO"
    assert isinstance(request["duration_ms"], float) and request["time"].endswith("Z")


def test_the_procfiles_gunicorn_adds_up_its_workers_metrics_by_itself(
    home: Path, tmp_path: Path
) -> None:
    """Without a PROMETHEUS_MULTIPROC_DIR of the operator's, the master makes one for its
    workers (no per-process metrics then), and removes it when it stops."""
    port = free_port()
    out = tmp_path / "gunicorn.out"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "PAMIR_HOME": str(home), "TMPDIR": str(scratch)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with running(procfile_web(port), env, out, f"http://127.0.0.1:{port}/healthz", home):
        (folder,) = scratch.iterdir()
        assert folder.name.startswith("pamir-metrics-")
        scraped = fetch(f"http://127.0.0.1:{port}/metrics")
        assert scraped.status == 200 and "# TYPE pamir_moves_adjudicated_total counter" in (
            scraped.text
        )
        assert "process_cpu_seconds_total" not in scraped.text  # one process's own: not here
    assert list(scratch.iterdir()) == []


def test_the_procfiles_gunicorn_stops_at_once_on_a_missing_secret_file(
    home: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "credentials" / "smtp_password"
    env = {**os.environ, "PAMIR_HOME": str(home), "PAMIR_SMTP_PASSWORD_FILE": str(missing)}
    done = subprocess.run(
        procfile_web(free_port()), env=env, cwd=home, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"pamir: bad setting: smtp_password_file: cannot read {missing}: No such file or directory"
    )
