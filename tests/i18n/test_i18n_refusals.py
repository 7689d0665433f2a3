"""A refused move's reason in its reader's language (docs/i18n.md#refusals).

The engine gives every refusal as a phrase beside its English (`MoveError.said()`, whose
English is `str(error)` byte for byte); the service records the phrase with the English
and says it in the reader's language: the refusal mail, the private page, a Polish
game's report of a refused pushed move and the game's page. Nothing reads the English
back. Strict as tests/i18n/test_i18n.py is: any English word of the English refusal still in
the Polish one fails, but for the notation (the legal actions, the verbs, the ids) and
what the player typed, which are quoted as they are.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import pytest
from gitgame import SECRET, current_home, decider, full_state, isolate, opened, write_move
from liveserver import fetch, serving
from mailserver import MailServer, email_of, mail_server, plain, reply_address, settings_for
from test_i18n import PL, english_left
from test_private_page import form_fields, post, private_path

import engine
from adjudicator.games.history import history
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Refusal, refused_phrase
from adjudicator.games.pipeline import adjudicate_pending, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, catalogue, phrase_data, phrase_from
from adjudicator.mail import ledger, notices
from adjudicator.mail.compose.messages import message_key
from adjudicator.mail.incoming import handle_message
from adjudicator.web import create_app
from engine.aliases import english_line
from engine.cards import BORDERS, COALITIONS, COURT_CARDS, REGION_IDS
from engine.game import legal_seat_actions
from engine.phrases import P, Phrase, Term
from engine.rules.verbs import PIECES, VERBS

PLAYERS = ("ala", "bob", "cyd")
# Lists of the notation a refusal quotes as it is, in every language.
NOTATION = [", ".join(VERBS), ", ".join(sorted(BORDERS)), ", ".join(REGION_IDS)]
NOTATION += [", ".join(COALITIONS), ", ".join(PIECES)]


def turn_position() -> engine.State:
    """A game of three at its first turn, every loyalty chosen."""
    state = engine.new_game(list(PLAYERS), 3)
    while (pending := engine.pending(state)) is not None and pending.kind != "turn":
        seat, action = legal_seat_actions(state)[0]
        state = engine.apply(state, seat, action)
    return state


TURN = turn_position()
ACTIVE = TURN.name(TURN.active)
OTHER = next(name for name in PLAYERS if name != ACTIVE)
IN_MARKET = [card for row in TURN.market for card in row if card in COURT_CARDS]
ABSENT = next(n for n in COURT_CARDS if n not in IN_MARKET and n not in TURN.players[0].hand)
# (who writes it, the line, the code it is refused with): player-typed words, notation
# errors, illegal actions, another player's decision, an ambiguity.
LINES = [
    (ACTIVE, "kupx 43", "unknown-verb"),
    (ACTIVE, "purchase 999", "unknown-card"),
    (ACTIVE, "purchase zzyzx", "unknown-card"),
    (ACTIVE, f"purchase {ABSENT}", "not-in-market"),
    (ACTIVE, f"play {ABSENT} left", "not-in-hand"),
    (OTHER, f"purchase {IN_MARKET[0]}", "not-your-decision"),
    (ACTIVE, "loyalty afghan", "wrong-decision"),
    (ACTIVE, "army mars", "unknown-region"),
    (ACTIVE, "road kabul-mars", "unknown-border"),
    (ACTIVE, "loyalty martians", "unknown-coalition"),
    (ACTIVE, "take bishop kabul", "unknown-piece"),
    (ACTIVE, "play 12", "bad-arguments"),
    (ACTIVE, "march army kabul", "bad-arguments"),
    (ACTIVE, "demand lots", "bad-argument"),
    (ACTIVE, "policy sometimes", "bad-policy"),
    (ACTIVE, 'purchase "mohan', "syntax"),
    (ACTIVE, "purchase", "missing-argument"),
]


def masked(text: str, error: engine.MoveError) -> str:
    """`text` without the notation a refusal quotes as it is (the legal actions, the
    lists of verbs and ids), its stable code, and what the player typed (quoted: `'kupx'`)."""
    text = text.replace(f" {error.code}: ", " ").replace(f" `{error.code}`: ", " ")
    for quoted in sorted([", ".join(error.alternatives[:30]), *NOTATION], key=len, reverse=True):
        text = text.replace(quoted, " ") if quoted else text
    return re.sub(r"'[^']*'", " ", text)


def refused(who: str, line: str, state: engine.State = TURN) -> engine.MoveError:
    with pytest.raises(engine.MoveError) as caught:
        parsed = engine.parse_line(f"{who}: {line}", state)
        assert parsed is not None
        engine.apply(state, *parsed)
    return caught.value


def messages(value: object) -> Iterator[str]:
    """Every message a phrase says (its parameters' included)."""
    if isinstance(value, Phrase):
        yield value.message
        for param in value.params.values():
            yield from messages(param)
    elif isinstance(value, Term) and value.translated:
        yield value.message or value.text


@pytest.mark.parametrize(("who", "line", "code"), LINES)
def test_every_refusal_is_a_phrase_said_in_polish(who: str, line: str, code: str) -> None:
    error = refused(who, line)
    error.line = 2
    assert error.code == code
    assert error.phrase is not None, error  # not a plain English message
    english = str(error)
    assert str(error.said()) == english and str(error.describe_phrase()) == error.describe()
    polish = PL.said(error.said())
    assert polish.startswith(f"wiersz 2: `{code}`: ")
    assert english_left(masked(polish, error), masked(english, error)) == [], polish
    # Every message of the phrase is in the catalogue: none falls back to its English.
    translations = catalogue("pl")
    for message in set(messages(error.said())) - {"%(line)s"}:
        assert translations.gettext(message) != message or message.startswith("%("), message


def test_what_the_player_typed_is_a_plain_parameter() -> None:
    """A word the player typed is quoted as typed, never read as a message."""
    typed = "kup%(line)s"
    error = refused(ACTIVE, f"{typed} 43")
    assert error.phrase is not None and error.phrase.params["verb"] == repr(typed)
    assert repr(typed) in PL.said(error.said())


def test_an_ambiguous_name_is_refused_in_polish() -> None:
    state = engine.loads(engine.dumps(TURN))
    names = {n: c.name.lower() for n, c in COURT_CARDS.items()}
    first, second = next(
        (a, b) for a in names for b in names if a < b and names[a][:4] == names[b][:4]
    )
    state.players[state.active].hand[:] = [first, second]
    error = refused(ACTIVE, f"play {names[first][:4]} left", state)
    assert error.code == "ambiguous" and len(error.alternatives) == 2
    polish = PL.said(error.said())
    assert "pasuje do 2 dozwolonych akcji; podaj numer karty" in polish
    assert english_left(masked(polish, error), masked(str(error), error)) == [], polish


def test_the_english_of_a_refusal_is_unchanged() -> None:
    error = refused(ACTIVE, f"purchase {ABSENT}")
    assert str(error) == (
        f"not-in-market: cannot purchase card {ABSENT}: that card is not in the market "
        f"[Purchase, p. 10]; legal now: {', '.join(error.alternatives)}"
    )
    assert Words().said(error.said()) == str(error)
    many = engine.IllegalActionError("illegal", "x", alternatives=[str(n) for n in range(33)])
    assert str(many.said()) == str(many) and str(many).endswith("29 (and 3 more)")
    assert PL.said(many.said()).endswith("29 (i jeszcze 3)")


def test_a_refusal_of_the_service_is_a_phrase_too() -> None:
    """The pipeline's own refusals (a stale submission, a rollback refused) also say their
    words by phrases; a refusal given as plain English stays English."""
    over = Refusal("game-over", engine.phrases.P("the game is over; no move can be submitted"))
    assert str(over.phrase) == str(over) == "game-over: the game is over; no move can be submitted"
    polish = "`game-over`: gra się zakończyła; nie można już wysłać żadnego ruchu"
    assert PL.said(over.phrase) == polish
    plain_refusal = Refusal("x", "plain words")
    assert PL.said(plain_refusal.phrase) == "`x`: plain words"


def test_a_long_hostile_line_is_refused_with_its_words_as_typed() -> None:
    """Nothing reads the English back: a long line written to trip a reader of it is
    quoted as typed (benchmarks/refusal_words.py times it)."""
    hostile = "kup " + " ".join(["(a+)+%(x)s%s{0}'\\"] * 30)
    error = refused(ACTIVE, hostile)
    assert error.code in ("unknown-card", "syntax")
    polish = PL.said(error.said())
    assert "(a+)+%(x)s%s{0}" in str(error)
    assert "(a+)+%(x)s%s{0}" in polish


# -- what the service records and says ------------------------------------------------------


def message_from(settings: Settings, player: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"] = email_of(player)
    message["To"] = reply_address(settings, "g1", player)
    message["Subject"] = "Re: [g1] move"
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content(body)
    return message.as_bytes()


def refusal_block(mail: EmailMessage) -> str:
    """The refusal a mail quotes (indented by four spaces), unindented."""
    return "\n".join(
        line[4:] for line in plain(mail).splitlines() if line.startswith("    ") and line.strip()
    )


def polish_game(settings: Settings) -> GameRepo:
    """A game of three Polish players at its first turn."""
    repo = create_game(
        settings.games_dir / "g1",
        [(n, email_of(n)) for n in PLAYERS],
        home=settings.home,
        secret=SECRET,
        languages=dict.fromkeys(PLAYERS, "pl"),
    )
    while True:
        state = full_state(repo.path)
        pending = engine.pending(state)
        if pending is None or pending.kind == "turn":
            return repo
        player, options = decider(state)
        submit(repo, player, options[0] + "\n", home=settings.home)


def last_mail(server: MailServer, player: str) -> EmailMessage:
    return [m for m in server.messages if str(m["X-Pamir-Player"]) == player][-1]


def test_a_polish_players_refusal_mail_has_no_english_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port, base_url="https://pamir.example")
        repo = polish_game(settings)
        state = full_state(repo.path)
        active = state.name(state.active)
        other = next(name for name in PLAYERS if name != active)
        market = [card for row in state.market for card in row if card in COURT_CARDS]
        absent = next(n for n in COURT_CARDS if n not in market)
        samples = [
            (active, "kupx 43", "unknown-verb"),
            (active, f"kup {absent}", "not-in-market"),
            (other, f"purchase {market[0]}", "not-your-decision"),
        ]
        for player, line, code in samples:
            result = handle_message(settings, message_from(settings, player, line + "\n"))
            assert result.status == "refused" and f"line 1: {code}: " in result.reason
            mail = last_mail(server, player)
            assert "twój ruch nie został przyjęty" in plain(mail)
            polish = refusal_block(mail)
            assert polish.startswith(f"wiersz 1: `{code}`: "), polish
            error = refused(player, english_line(line), state)
            english = result.reason
            assert english_left(masked(polish, error), masked(english, error)) == [], polish
        # The inbound record keeps the phrase beside the English.
        records = [
            json.loads(p.read_text("utf-8"))
            for p in (home / "mail" / "inbound").rglob("*")
            if p.is_file()
        ]
        kept = [r for r in records if r.get("status") == "refused"]
        assert len(kept) == len(samples)
        for record in kept:
            assert str(phrase_from(record["reason_phrase"])) == record["reason"]


def test_a_refusal_recorded_without_its_phrase_is_said_in_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records made before refusals were phrases, or a phrase that does not say the
    English the record holds: the engine's English, as before."""
    home = isolate(tmp_path, monkeypatch)
    settings = settings_for(home, None, base_url="https://pamir.example")
    repo = polish_game(settings)
    english = "line 1: unknown-verb: unknown action 'kupx'; actions are: purchase"
    wrong = phrase_from(phrase_data(engine.phrases.P("the line has no action")))
    assert isinstance(wrong, Phrase)
    for number, phrase in enumerate((None, wrong)):
        key = message_key("g1", 0, "ala", "refusal", f"old{number}")
        path = notices.notify_refusal(
            settings, repo, "ala", "kupx\n", english, phrase=phrase, deliver_now=False, key=key
        )
        assert f"    {english}\n" in path.read_text("utf-8")


def test_the_private_page_says_a_refusal_in_the_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolate(tmp_path, monkeypatch)
    settings = settings_for(home, None)
    repo = polish_game(settings)
    active = decider(full_state(repo.path))[0]
    with serving(create_app({"home": home})) as site:
        url = f"{site}{private_path(home, 'g1', active)}"
        reply = post(url, {**form_fields(fetch(url).text), "move": "kupx 43"})
    assert reply.status == 422
    assert "wiersz 1: unknown-verb: nieznana akcja &#39;kupx&#39;; akcje to: " in reply.text
    assert "unknown action" not in reply.text


def refused_in_polish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A Polish game whose move 1, pushed by a player not to decide, was refused: the
    service's home and the game's repository."""
    home = isolate(tmp_path, monkeypatch)
    path = home / "games" / "kabul"
    create_game(
        path,
        [(n, f"{n}@example.org") for n in PLAYERS],
        home=current_home(),
        secret=SECRET,
        language="pl",
        languages={"bob": "en", "cyd": "en"},
    ).repo.close()
    player, _ = decider(full_state(path))
    other = next(name for name in PLAYERS if name != player)
    write_move(path, 1, other, "loyalty afghan\n")
    return home, path


def test_a_refused_pushed_move_is_reported_in_the_games_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, path = refused_in_polish(tmp_path, monkeypatch)
    with opened(path) as repo:
        (done,) = adjudicate_pending(repo, current_home())
        document = json.loads(repo.read("state.json") or "{}")
        reason = document["last"]["refused"]
        assert reason.startswith("line 1: not-your-decision: ")
        phrase = refused_phrase(document)  # kept beside the English for pages and mails
        assert phrase is not None and str(phrase) == reason
        report = repo.read(f"reports/{done.number:04d}.md") or ""
        copy = current_home() / "private" / "kabul" / "reports" / f"{done.number:04d}.en.md"
        assert "wiersz 1: `not-your-decision`: " in report
        assert english_left(report, copy.read_text("utf-8")) == [], report
        assert "line 1: not-your-decision: " in copy.read_text("utf-8")
        # The author's mail of it says it too: the refusal the commit records has it.
        recorded = ledger._recorded_refusal(repo, done.commit, done.number)
        assert recorded is not None and recorded.phrase == phrase
        assert verify(repo, current_home()).divergence is None
    # The game's page says it in the visitor's language, and in English to others.
    with serving(create_app({"home": home})) as site:
        polish = fetch(f"{site}/games/kabul", headers={"Accept-Language": "pl"}).text
        english = fetch(f"{site}/games/kabul", headers={"Accept-Language": "en"}).text
    assert '<span lang="pl">wiersz 1: not-your-decision: ' in polish
    assert "has nothing to decide now" not in polish  # nor in the history's line for it
    assert '<span lang="en">line 1: not-your-decision: ' in english


# -- phrases read back from files a player may have written ----------------------------------

FORGED = [
    {"message": "%(a)2000000000s", "params": {"a": "x"}},  # a width: a string of 2 GB
    {"message": "%(a)s", "params": {"a": {"term": "no", "message": "your move was not accepted"}}},
    {"message": "%(a)s", "params": {"not a name": "x"}},
    {"message": "%(n)s rupee", "plural": "%(n)s rupees", "n": True},
    {"message": "x", "params": {"a": "y" * 30_000}},
    # each under the limits of size, together saying 320 GB
    {
        "message": "%(a)s" * 4000,
        "params": {"a": {"message": "%(a)s" * 4000, "params": {"a": "x" * 20_000}}},
    },
    [1],
]


def nested(depth: int) -> object:
    data: object = "x"
    for _ in range(depth):
        data = {"message": "%(a)s", "params": {"a": data}}
    return data


@pytest.mark.parametrize("data", [*FORGED, nested(200), nested(5_000)])
def test_a_phrase_no_adjudication_writes_is_not_read(data: object) -> None:
    with pytest.raises(ValueError):
        phrase_from(data)


def test_an_engine_phrase_is_read_back_whole() -> None:
    error = refused(ACTIVE, "tax kabul punjab")
    assert phrase_from(phrase_data(error.said())) == error.said()
    region = Phrase("%(region)s", {"region": engine.rules.words.ID_TERMS["kabul"]})
    assert phrase_from(phrase_data(region)) == region


def rewritten(repo: GameRepo, commit: str, state_text: str, subject: str | None = None) -> str:
    """`commit` made again on its parent with another state.json (and subject): the same
    other files, as a history rewritten on a forge would have it."""
    old = repo.commit_info(commit)
    changed = repo.repo.git.diff_tree("--no-commit-id", "--name-only", "-r", old.parents[0], commit)
    files: dict[str, bytes | None] = {
        name: repo.data(name, commit) for name in changed.splitlines() if name
    }
    files["state.json"] = (state_text + "\n").encode()
    message = old.message if subject is None else old.message.replace(old.summary, subject, 1)
    made = repo.make_commit(files, message, parent=old.parents[0])
    repo.repo.git.update_ref("refs/heads/main", made)
    return made


def test_a_forged_refusal_phrase_is_shown_as_its_english_and_fails_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal commit rewritten with a phrase whose Polish says something else than its
    English (a term said by another message): pages show the English; `pamir verify`
    reports it, and any key of `phrases` that no adjudication writes."""
    _, path = refused_in_polish(tmp_path, monkeypatch)
    with opened(path) as repo:
        (done,) = adjudicate_pending(repo, current_home())
        document = json.loads(repo.read("state.json") or "{}")
        reason = document["last"]["refused"]
        forged = {"message": "%(a)s", "params": {"a": {"term": reason, "message": "Your turn"}}}
        cases = [(document["phrases"] | {"refused": forged}, False)]
        cases += [(document["phrases"] | {"x": 1}, True)]
        for phrases, readable in cases:
            text = json.dumps(document | {"phrases": phrases}, indent=2, ensure_ascii=False)
            rewritten(repo, done.commit, text)
            assert (refused_phrase(json.loads(text)) is not None) == readable
            divergence = verify(repo, current_home()).divergence
            assert divergence is not None and "phrase" in divergence, divergence
        rewritten(repo, done.commit, json.dumps(document, indent=2, ensure_ascii=False))
        assert verify(repo, current_home()).divergence is None  # the rewriting itself
        repo.repo.git.update_ref("refs/heads/main", done.commit)
        assert verify(repo, current_home()).divergence is None


def test_a_refusal_recorded_for_another_reason_fails_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pamir verify` replays a refused pushed move in its position, as the pipeline
    refused it: a refusal commit rewritten to give another code (state.json, its phrase
    and its subject alike) is reported; one recorded before refusals were kept as phrases
    may name an older code (an older version refused it so), but the move must not play."""
    _, path = refused_in_polish(tmp_path, monkeypatch)
    with opened(path) as repo:
        (done,) = adjudicate_pending(repo, current_home())
        assert verify(repo, current_home()).divergence is None
        document = json.loads(repo.read("state.json") or "{}")
        player = document["last"]["player"]

        def recorded(reason: str, *, with_phrase: bool) -> str | None:
            phrases = {k: v for k, v in document["phrases"].items() if k != "refused"}
            if with_phrase:
                phrases["refused"] = phrase_data(P(reason))
            last = document["last"] | {"refused": reason}
            text = json.dumps(document | {"last": last, "phrases": phrases}, indent=2)
            rewritten(repo, done.commit, text, f"Refuse move 1 by {player}: {reason}")
            return verify(repo, current_home()).divergence

        forged = "line 1: unknown-coalition: 'afgan' is not a coalition"
        divergence = recorded(forged, with_phrase=True)
        assert divergence is not None and "another reason" in divergence, divergence
        assert recorded(forged, with_phrase=False) is None  # as an older version wrote it
        oversized = "too-large: the move file is 15 bytes; max_move_bytes allows 300"
        assert recorded(oversized, with_phrase=True) is not None  # 15 bytes is not too large


def test_a_players_commit_with_a_trailer_and_any_state_file_leaves_the_pages_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a forge a player's commit may name a refused move in a trailer and hold any
    state.json (the service puts the files back, the commit stays in the history): the
    game's page and its history still show."""
    home, path = refused_in_polish(tmp_path, monkeypatch)
    with opened(path) as repo:
        adjudicate_pending(repo, current_home())
    good = (path / "state.json").read_text("utf-8")
    git = ["git", "-C", str(path), "-c", "user.name=bob", "-c", "user.email=bob@example.org"]
    deep = '{"message": "%(a)s", "params": {"a": ' * 5_000 + '"x"' + "}}" * 5_000
    junks = ["[1]", "{", deep, json.dumps({"phrases": nested(3)})]
    for junk in junks:
        (path / "state.json").write_text(junk)
        subprocess.run([*git, "commit", "-qam", "x\n\nPamir-Move: 1"], check=True)
        (path / "state.json").write_text(good)  # as the service's restore puts it back
        subprocess.run([*git, "commit", "-qam", "put back"], check=True)
        with opened(path) as repo:
            assert [e for e in history(repo) if e.number == 1]
        with serving(create_app({"home": home})) as site:
            page = fetch(f"{site}/games/kabul", headers={"Accept-Language": "pl"})
        assert page.status == 200, junk


REFUSALS = {
    "MoveError",
    "NotationError",
    "IllegalActionError",
    "AmbiguousActionError",
    "Refusal",
    "RollbackRefused",
}


def test_no_refusal_is_written_as_plain_english() -> None:
    """Every refusal of a move (the engine's, the pipeline's, a rollback's) is built with
    a phrase, never an English string: each of its messages is then extracted into the
    catalogue, which tests/i18n/test_i18n.py requires translated, so every code's refusal has
    its words in Polish."""
    root = Path(__file__).resolve().parents[2]
    plain = []
    for path in sorted([*(root / "engine").rglob("*.py"), *(root / "adjudicator").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and len(node.args) >= 2):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            message = node.args[1]
            if name in REFUSALS and isinstance(message, ast.Constant | ast.JoinedStr):
                plain.append(f"{path.relative_to(root)}:{node.lineno}")
    assert plain == []
