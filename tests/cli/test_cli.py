"""The `pamir engine ...` command line, run as the installed console script."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import engine
from adjudicator import cli
from engine.rng import below, seed_state

PAMIR = Path(sys.executable).parent / "pamir"
PLAYERS = "alice,bob,carol"


def pamir(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PAMIR), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ok(*args: str, stdin: str | None = None) -> str:
    done = pamir(*args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def refused(*args: str, stdin: str | None = None) -> str:
    """Run a command that must be refused: exit 2, nothing on stdout, a one-line reason."""
    done = pamir(*args, stdin=stdin)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.strip()
    return done.stderr.strip()


@pytest.fixture(scope="module")
def new_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "state.json"
    path.write_text(ok("engine", "new", "--players", PLAYERS, "--seed", "5"), encoding="utf-8")
    return path


def test_the_console_script_is_installed() -> None:
    assert PAMIR.exists(), PAMIR


def test_version_names_the_package_and_the_engine_and_its_build() -> None:
    out = ok("--version")
    rules = Path(importlib.import_module("engine.game").__file__ or "")
    build = "pure Python" if rules.suffix == ".py" else "compiled"
    assert out == f"pamir {metadata.version('pamir')} (engine {engine.__version__}, {build})\n"
    pattern = r"pamir \d+\.\d+\.\d+\S* \(engine \d+\.\d+\.\d+\S*, (compiled|pure Python)\)\n"
    assert re.fullmatch(pattern, out)


def test_new_prints_the_full_state(new_state: Path) -> None:
    text = new_state.read_text(encoding="utf-8")
    assert text == engine.dumps(engine.new_game(PLAYERS.split(","), 5))
    data = json.loads(text)
    assert data["format"] == "pamir-state/1"
    assert data["seed"] == 5
    assert [p["name"] for p in data["players"]] == ["alice", "bob", "carol"]
    assert data["deck"] and data["rng"]


def test_new_without_a_seed_picks_one() -> None:
    first = json.loads(ok("engine", "new", "--players", "alice,bob"))
    second = json.loads(ok("engine", "new", "--players", "alice,bob"))
    assert isinstance(first["seed"], int)
    assert first["seed"] != second["seed"]


def test_legal_prints_player_action_lines(new_state: Path) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    lines = ok("engine", "legal", str(new_state)).splitlines()
    assert lines == [f"{p}: {engine.format_action(a)}" for p, a in engine.legal_actions(state)]
    assert lines and all(re.match(r"^[a-z]+: \S", line) for line in lines)


def test_apply_prints_the_new_state(new_state: Path, tmp_path: Path) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    player, action = engine.legal_actions(state)[1]
    moves = tmp_path / "moves.txt"
    moves.write_text(
        f"# first move\n\n{player}: {engine.format_action(action)}  # a comment\n",
        encoding="utf-8",
    )
    out = ok("engine", "apply", str(new_state), str(moves))
    assert out == engine.dumps(engine.apply(state, player, action))


def test_apply_several_lines_without_names(new_state: Path, tmp_path: Path) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    lines = []
    for _ in range(3):  # the three loyalty choices
        player, action = engine.legal_actions(state)[0]
        lines.append(engine.format_action(action))
        state = engine.apply(state, player, action)
    moves = tmp_path / "moves.txt"
    moves.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert ok("engine", "apply", str(new_state), str(moves)) == engine.dumps(state)


def test_a_bad_line_is_refused_and_nothing_is_applied(new_state: Path, tmp_path: Path) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    player, action = engine.legal_actions(state)[0]
    moves = tmp_path / "moves.txt"
    moves.write_text(
        f"# a comment\n{player}: {engine.format_action(action)}\n\nfly to kabul\npass\n",
        encoding="utf-8",
    )
    message = refused("engine", "apply", str(new_state), str(moves))
    assert re.match(r"^line 4: unknown-verb: ", message), message


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("zed: loyalty british", "unknown-player"),
        ("loyalty french", "unknown-coalition"),
        ("pass", "wrong-decision"),
        ("purchase 1", "wrong-decision"),
        ("carol: loyalty british", "not-your-decision"),
    ],
)
def test_refused_lines_name_their_code(
    new_state: Path, tmp_path: Path, line: str, code: str
) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    decision = engine.pending(state)
    assert decision is not None
    assert decision.seats != (2,)
    moves = tmp_path / "moves.txt"
    moves.write_text(line + "\n", encoding="utf-8")
    message = refused("engine", "apply", str(new_state), str(moves))
    assert message.startswith(f"line 1: {code}: "), message
    assert len(message.splitlines()) == 1


def test_refusal_lists_the_legal_alternatives(new_state: Path, tmp_path: Path) -> None:
    moves = tmp_path / "moves.txt"
    moves.write_text("pass\n", encoding="utf-8")
    message = refused("engine", "apply", str(new_state), str(moves))
    assert "legal now: loyalty afghan, loyalty british, loyalty russian" in message


def test_standard_input_for_the_state(new_state: Path, tmp_path: Path) -> None:
    text = new_state.read_text(encoding="utf-8")
    assert ok("engine", "legal", "-", stdin=text) == ok("engine", "legal", str(new_state))
    moves = tmp_path / "moves.txt"
    moves.write_text("loyalty british\n", encoding="utf-8")
    assert ok("engine", "apply", "-", str(moves), stdin=text) == ok(
        "engine", "apply", str(new_state), str(moves)
    )
    assert ok("engine", "view", "-", stdin=text) == ok("engine", "view", str(new_state))


def test_standard_input_for_the_moves(new_state: Path) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    out = ok("engine", "apply", str(new_state), "-", stdin="loyalty russian\n")
    (seat, _), *_ = engine.game.legal_seat_actions(state)
    assert out == engine.dumps(engine.apply(state, seat, engine.Action("loyalty", ("russian",))))


def test_state_and_moves_cannot_both_be_standard_input(new_state: Path) -> None:
    message = refused("engine", "apply", "-", "-", stdin=new_state.read_text(encoding="utf-8"))
    assert "standard input" in message


def test_view_hides_secrets(new_state: Path) -> None:
    state = engine.loads(new_state.read_text(encoding="utf-8"))
    public = json.loads(ok("engine", "view", str(new_state)))
    assert public == engine.view(state)
    assert public["viewer"] is None
    for key in ("deck", "removed", "rng", "seed"):
        assert key not in public
    assert public["deck_size"] == len(state.deck)
    assert all(p["hand"] is None for p in public["players"])
    mine = json.loads(ok("engine", "view", str(new_state), "--player", "bob"))
    assert mine == engine.view(state, "bob")
    assert mine["viewer"] == "bob"
    hands = {p["name"]: p["hand"] for p in mine["players"]}
    assert hands == {"alice": None, "bob": [], "carol": None}


def test_view_of_an_unknown_player_is_refused(new_state: Path) -> None:
    message = refused("engine", "view", str(new_state), "--player", "zed")
    assert "zed" in message


def test_playout_prints_one_json_line_of_figures() -> None:
    out = ok("engine", "playout", "--players", "4", "--games", "20")
    lines = out.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert set(figures) == {"games", "finished", "steps", "seconds", "games_per_s", "steps_per_s"}
    assert figures["games"] == 20
    assert figures["finished"] == 20
    assert figures["steps"] > 20


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("engine", "playout", "--players", "7", "--games", "2"), "2 to 5"),
        (("engine", "playout", "--players", "1", "--games", "2"), "2 to 5"),
        (("engine", "playout", "--players", "3", "--games", "0"), "at least 1"),
        (("engine", "new", "--players", "alice"), "2 to 5"),
        (("engine", "new", "--players", "a,b,c,d,e,f"), "2 to 5"),
        (("engine", "new", "--players", "alice,ALICE"), "different"),
        (("engine", "new", "--players", "alice,british"), "british"),
        (("engine", "new", "--players", "alice,bob smith"), "bob smith"),
        (("engine", "legal", "/nonexistent/state.json"), "cannot read"),
        (("engine", "view", "/nonexistent/state.json"), "cannot read"),
    ],
)
def test_bad_inputs_are_refused(args: tuple[str, ...], needle: str) -> None:
    assert needle in refused(*args)


def test_a_missing_move_file_is_refused(new_state: Path) -> None:
    assert "cannot read" in refused("engine", "apply", str(new_state), "/nonexistent/moves")


def test_invalid_state_json_is_refused(new_state: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json", encoding="utf-8")
    assert "not JSON" in refused("engine", "legal", str(broken))
    assert "not JSON" in refused("engine", "legal", "-", stdin="")
    data = json.loads(new_state.read_text(encoding="utf-8"))
    data["colour"] = "red"
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data), encoding="utf-8")
    assert "colour" in refused("engine", "view", str(odd))
    data = json.loads(new_state.read_text(encoding="utf-8"))
    data["bank"] += 1
    odd.write_text(json.dumps(data), encoding="utf-8")
    assert "rupees" in refused("engine", "apply", str(odd), "-", stdin="loyalty british\n")


def test_a_complete_game_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 2-player game played to the end with `legal` and `apply` only.

    Starting a process costs a fifth of a second, so the whole game runs through the CLI's
    entry point in this process; the installed script then replays the recorded move file
    in one call and must reach the very same final state.
    """

    def run(*args: str) -> str:
        assert cli.main(list(args)) == 0
        out, err = capsys.readouterr()
        assert err == ""
        return out

    state_file = tmp_path / "state.json"
    start = run("engine", "new", "--players", "alice,bob", "--seed", "11")
    state_file.write_text(start, encoding="utf-8")
    rng = seed_state(11)
    played: list[str] = []
    for _ in range(2000):
        lines = run("engine", "legal", str(state_file)).splitlines()
        if not lines:
            break
        rng, pick = below(rng, len(lines))
        played.append(lines[pick])
        move_file = tmp_path / "move.txt"
        move_file.write_text(lines[pick] + "\n", encoding="utf-8")
        state_file.write_text(run("engine", "apply", str(state_file), str(move_file)), "utf-8")
    final = json.loads(state_file.read_text(encoding="utf-8"))
    assert final["phase"] == "over", "the game did not end"
    assert final["winners"]
    assert len(played) > 10
    view = json.loads(run("engine", "view", str(state_file)))
    assert view["phase"] == "over" and view["winners"]

    start_file = tmp_path / "start.json"
    start_file.write_text(start, encoding="utf-8")
    all_moves = tmp_path / "all.txt"
    all_moves.write_text("\n".join(played) + "\n", encoding="utf-8")
    assert ok("engine", "apply", str(start_file), str(all_moves)) == state_file.read_text("utf-8")
    assert ok("engine", "legal", str(state_file)) == ""


def test_a_few_steps_with_the_installed_script(tmp_path: Path) -> None:
    """legal -> first line -> apply, in separate processes, as a referee's script would."""
    state_file = tmp_path / "state.json"
    state_file.write_text(ok("engine", "new", "--players", "alice,bob", "--seed", "3"), "utf-8")
    state = engine.loads(state_file.read_text(encoding="utf-8"))
    for _ in range(4):
        first = ok("engine", "legal", str(state_file)).splitlines()[0]
        text = ok("engine", "apply", str(state_file), "-", stdin=first + "\n")
        player, action = engine.legal_actions(state)[0]
        assert first == f"{player}: {engine.format_action(action)}"
        state = engine.apply(state, player, action)
        assert text == engine.dumps(state)
        state_file.write_text(text, encoding="utf-8")


def test_a_policy_naming_no_player_is_refused(new_state: Path) -> None:
    message = refused(
        "engine",
        "apply",
        str(new_state),
        "-",
        stdin="alice: policy pay 1\nalice: policy demand zed 2\n",
    )
    assert message.startswith("line 2: unknown-player: "), message


def test_a_state_with_a_non_numeric_spies_key_is_refused(new_state: Path, tmp_path: Path) -> None:
    data = json.loads(new_state.read_text(encoding="utf-8"))
    data["spies"] = {"seven": [0, 0, 0]}
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data), encoding="utf-8")
    assert "spies" in refused("engine", "legal", str(odd))
