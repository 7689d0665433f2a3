"""A game whose public record is in Polish (`language = "pl"` in game.toml): its committed
reports are in Polish, and `pamir verify` renders them again the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gitgame import SECRET, create, current_home, git, head, isolate, opened, pamir, play
from test_i18n import english_left

from adjudicator.games import pipeline
from adjudicator.games.gamefile import parse_game_file
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import report_for
from adjudicator.games.pipeline import submit
from adjudicator.games.verify import verify
from engine.state import as_said

PLAYERS = ("ala", "bob", "cyd")


def test_a_polish_game_is_recorded_in_polish_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(tmp_path, monkeypatch)
    path = tmp_path / "games" / "kabul"
    repo = create_game(
        path,
        [(n, f"{n}@example.org") for n in PLAYERS],
        home=current_home(),
        secret=SECRET,
        language="pl",
        languages={"bob": "en"},
    )
    repo.repo.close()
    played = play(path, 30, seed=7, whole_turn=True)
    with opened(path) as repo:
        game = parse_game_file(repo.read("game.toml") or "")
        assert (game.language, game.player("bob").language) == ("pl", "en")
        assert 'language = "pl"' in (repo.read("game.toml") or "")
        report = repo.read(f"reports/{played:04d}.md") or ""
        assert f"# kabul: ruch {played}, gracz " in report
        assert "## Rynek" in report and "## Market" not in report
        # bob reads English: the service keeps his copy of each report, never committed.
        english = current_home() / "private" / "kabul" / "reports" / f"{played:04d}.en.md"
        assert "## Market" in english.read_text(encoding="utf-8")
        # Every committed report is Polish through and through, what happened included.
        for number in range(played + 1):
            polish = repo.read(f"reports/{number:04d}.md") or ""
            path = english.with_name(f"{number:04d}.en.md")
            assert english_left(polish, path.read_text(encoding="utf-8")) == [], polish
        # state.json keeps the prompt and the last move's log as phrases for the pages.
        phrases = json.loads(repo.read("state.json") or "{}")["phrases"]
        assert phrases["prompt"]["message"] and len(phrases["log"]) >= 1
        result = verify(repo, current_home())
        assert result.divergence is None, result.divergence
        assert result.moves == played
        # A rollback's report, too, is in Polish (state.json keeps the English lines).
        done = submit(repo, "ala", "rollback 2 literówka\n", home=current_home())
        report = repo.read(f"reports/{done.number:04d}.md") or ""
        assert f"ruch {done.number}: propozycja cofnięcia" in report
        assert "ala proponuje cofnięcie gry do ruchu 2: literówka" in report
        assert "proposes to roll back" in (repo.read("state.json") or "")
        assert verify(repo, current_home()).divergence is None


PAMIR = Path(sys.executable).parent / "pamir"


def pamir_new(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    players = [f"--player={n}:{n}@example.org" for n in PLAYERS]
    return subprocess.run(
        [str(PAMIR), "new", str(folder), *players, *options],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_pamir_new_records_each_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(tmp_path, monkeypatch)
    done = pamir_new(tmp_path / "herat", "--language", "ala=pl", "--language", "CYD=en")
    assert done.returncode == 0, done.stderr
    game = parse_game_file((tmp_path / "herat" / "game.toml").read_text(encoding="utf-8"))
    languages = [(p.name, p.language) for p in game.players]
    assert languages == [("ala", "pl"), ("bob", "en"), ("cyd", "en")]
    assert game.language == "en"
    # ala's private section of move 0 is in Polish, bob's in English.
    private = current_home() / "private" / "herat"
    assert "## Tylko dla: ala" in (private / "0000-ala.md").read_text(encoding="utf-8")
    assert "## For bob only" in (private / "0000-bob.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--language", "zed=pl"), "no --player is called 'zed'"),
        (("--language", "ala=de"), "the languages are en, pl"),
        (("--language", "ala"), "write NAME=LANG"),
        (("--language", "ala=pl", "--language", "ala=en"), "two languages for ala"),
        (("--game-language", "fr"), "unknown language 'fr'"),
    ],
)
def test_pamir_new_refuses_a_bad_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...], said: str
) -> None:
    isolate(tmp_path, monkeypatch)
    done = pamir_new(tmp_path / "herat", *options)
    assert done.returncode != 0 and said in done.stderr, done.stderr
    assert not (tmp_path / "herat" / "game.toml").exists()


ADJUDICATOR = ("pamir adjudicator", "adjudicator@pamir.invalid")


@pytest.mark.parametrize("key", ["prompt", "log"])
def test_verify_checks_the_phrases_of_state_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """The pages show state.json's phrases to Polish visitors: `pamir verify` checks them
    against the replay like the rest of the file."""
    isolate(tmp_path, monkeypatch)
    path = create(tmp_path / "game", PLAYERS)
    play(path, 6, seed=7, whole_turn=True)
    assert pamir("verify", path).returncode == 0
    document = json.loads((path / "state.json").read_text(encoding="utf-8"))
    forged = {"message": "%(who)s won the game", "params": {"who": "bob"}}
    document["phrases"][key] = forged if key == "prompt" else [forged]
    (path / "state.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    name, email = ADJUDICATOR
    git(path, "-c", f"user.name={name}", "-c", f"user.email={email}",
        "commit", "-q", "-am", "Phrases that the position does not say")  # fmt: skip
    done = pamir("verify", path)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert f"commit {head(path)[:10]}: state.json 'phrases' differ" in done.stderr


@pytest.mark.parametrize("lines", ["some in English", "some in neither language"])
def test_verify_accepts_a_polish_reports_lines_in_english_as_the_engine_once_said_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: str
) -> None:
    """Polish games were committed while the engine said some of its lines (events',
    Wakhan's, the component limits') only in English: their reports verify, each line in
    the game's language or in English; a line in neither still differs from the replay."""
    isolate(tmp_path, monkeypatch)
    path = tmp_path / "games" / "kabul"
    create_game(
        path,
        [(n, f"{n}@example.org") for n in PLAYERS],
        home=current_home(),
        secret=SECRET,
        language="pl",
    ).repo.close()

    def as_before(*args: Any, **kwargs: Any) -> str:
        snap, number, title, state, happened, when = args
        if lines == "some in English":
            said = [as_said(str(s)) if i % 2 else s for i, s in enumerate(happened)]
        else:
            said = [as_said(f"{s} (!)") if i == 0 else s for i, s in enumerate(happened)]
        return report_for(snap, number, title, state, said, when, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "report_for", as_before)
        play(path, 6, seed=7, whole_turn=True)
    with opened(path) as repo:
        reports = [repo.read(f"reports/{n:04d}.md") or "" for n in range(1, 7)]
        english = (" purchased ", " placed ", " played ", " took ", " paid ", " gained ")
        marks = ("(!)",) if lines != "some in English" else english
        assert any(mark in report for report in reports for mark in marks), reports
        divergence = verify(repo, current_home()).divergence
    if lines == "some in English":
        assert divergence is None, divergence
    else:
        assert divergence is not None and "reports/0001.md differs" in divergence
