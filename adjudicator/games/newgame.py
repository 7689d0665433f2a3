"""A new game: its repository, its first adjudicator commit, and its secret kept in the
service's data folder (`create_game`, as `pamir new` makes a game)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import engine
from adjudicator.games import positions
from adjudicator.games.gamefile import GAME_FILE, GAME_ID, GameFile, dump_game_file
from adjudicator.games.outputs import (
    BOARD_FILE,
    NEW_GAME_TITLE,
    board_document,
    now,
    report_for,
    state_document,
    trailers,
    write_private_sections,
    write_translated_reports,
)
from adjudicator.games.repo import GameRepo
from adjudicator.games.seeds import (
    commitment,
    has_secret,
    new_secret,
    secret_name,
    seed_from,
    store_secret,
)
from adjudicator.games.snapshot import (
    REPORTS_DIR,
    STATE_FILE,
    Rollbacks,
    Snapshot,
    initial_state,
    snapshot,
)
from adjudicator.home.files import new_folder
from adjudicator.home.keys import adjudicator_key, public_key_line
from adjudicator.home.paths import games_dir, positions_dir, private_folder
from adjudicator.home.store import store_for
from engine.rules.setup import check_player_names

ENGINE_VERSION = engine.__version__


def _check_folder(path: Path, identifier: str, home: Path) -> None:
    """Refuse a game in the service's games folder whose folder is not named after its
    id: the service finds a game by its id alone (`registry.game_path`), so nothing would
    ever find it. Anywhere else a folder may have any name."""
    if path.parent.resolve() != games_dir(home).resolve():
        return
    if path.name in (identifier, f"{identifier}.git"):
        return
    named = identifier if re.match(GAME_ID, identifier) else "ID"
    raise ValueError(
        f"{path.name}: the service finds a game in PAMIR_HOME/games by its id, so its folder "
        f"must be games/{named} or games/{named}.git (a game id is 1 to 64 lower-case "
        "letters, digits, _ and -, starting with a letter or a digit)"
    )


def create_game(
    path: Path,
    players: list[tuple[str, str]],
    *,
    home: Path,
    secret: str | None = None,
    bare: bool = False,
    game_id: str | None = None,
    policies: dict[str, list[str]] | None = None,
    turn_hours: int = 48,
    timezone: str = "UTC",
    wakhan: bool = False,
    signing_keys: dict[str, str] | None = None,
    require_signatures: bool | None = None,
    languages: dict[str, str] | None = None,
    language: str = "en",
) -> GameRepo:
    """Create a game repository with its first adjudicator commit; keep the secret in the
    service's data folder `home`.

    `signing_keys` are players' SSH public key lines, by name. `require_signatures`
    (default: whether every player has a key) makes their pushed moves need a signature.
    The service's own key (made in `home` on first use) is recorded and signs every
    commit the service makes in the game (docs/signing.md). `languages` are the players'
    languages by name (default `en`), `language` the language of the committed reports.

    All or nothing: should any step fail, neither the repository nor the game's secret
    and private sections in `home` are left behind (an empty folder at `path` stays).
    """
    check_player_names([name for name, _ in players], wakhan=wakhan)
    identifier = game_id or path.name.removesuffix(".git").lower().replace(".", "-")
    _check_folder(path, identifier, home)
    if secret is not None and not secret.strip():
        raise ValueError("the given secret is empty")
    secret = secret or new_secret()
    keys = _keys_by_player(players, signing_keys or {})
    if require_signatures is None:
        require_signatures = all(name in keys for name, _ in players)
    entries = [
        {
            "name": n,
            "email": e,
            "language": (languages or {}).get(n, "en"),
            "policies": (policies or {}).get(n, []),
            "signing_key": keys.get(n),
        }
        for n, e in players
    ]
    signing_key = adjudicator_key(home)
    game = GameFile.model_validate(
        {
            "id": identifier,
            "engine_version": ENGINE_VERSION,
            "created": now().strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seed_commitment": commitment(secret),
            "players": entries,
            "deadlines": {"timezone": timezone, "turn_hours": turn_hours},
            "wakhan": wakhan,
            "require_signatures": require_signatures,
            "language": language,
            "adjudicator": {"signing_key": public_key_line(signing_key)},
        }
    )
    state = initial_state(game, seed_from(secret))
    if has_secret(home, identifier):
        raise FileExistsError(f"this service already has a game {identifier!r}; choose --id")
    if not secret.isascii() or not secret:
        raise ValueError("the secret must be non-empty ASCII text")
    # The home's files are undone last, so that they also go if the final rename fails.
    with _undone_on_failure(home, identifier), new_folder(path) as folder:
        repo = GameRepo.init(folder, bare=bare)
        repo.configure_signing(signing_key)
        _first_commit(repo, home, game, secret, state)
    return GameRepo(path)


def _keys_by_player(players: list[tuple[str, str]], keys: dict[str, str]) -> dict[str, str]:
    """The signing keys given for players, by the players' own spelling of their names."""
    names = {name.lower(): name for name, _ in players}
    found: dict[str, str] = {}
    for name, line in keys.items():
        if name.lower() not in names:
            raise ValueError(f"a signing key for {name!r}, who is not a player of this game")
        found[names[name.lower()]] = line
    return found


def _first_commit(
    repo: GameRepo, home: Path, game: GameFile, secret: str, state: engine.State
) -> None:
    """Keep the secret, commit the new game, write the private sections."""
    try:
        if repo.bare:  # history is never rewritten: refuse forced pushes and deletions
            repo.repo.git.config("receive.denyNonFastForwards", "true")
            repo.repo.git.config("receive.denyDeletes", "true")
        store_secret(home, game.id, secret)
        said = state.said if len(state.said) == len(state.log) else state.log
        state_text = state_document(game.id, 0, None, state, said)
        when = now()
        snap = Snapshot(repo, None, game, [], Rollbacks(), 0)
        title = NEW_GAME_TITLE
        report = report_for(snap, 0, title, state, said, when)
        files: dict[str, bytes | None] = {
            GAME_FILE: dump_game_file(game).encode(),
            STATE_FILE: state_text.encode(),
            BOARD_FILE: board_document(state, game.language).encode(),
            f"{REPORTS_DIR}/0000.md": report.encode(),
            "README.md": readme(game).encode(),
        }
        message = f"New game {game.id}" + trailers(0, state_text)
        commit = repo.commit(files, message, parent=None, when=when)
        write_private_sections(home, snap, 0, state)
        write_translated_reports(home, snap, 0, title, state, said, when)
        positions.store(snapshot(repo, commit), home, state)  # for the first submission
    finally:
        repo.repo.close()  # its git processes must not outlive the folder's move or removal


@contextmanager
def _undone_on_failure(home: Path, game_id: str) -> Iterator[None]:
    """Remove the game's secret, private sections and cached positions if the block fails,
    unless they were there before it."""
    records = store_for(home)
    private = private_folder(game_id)
    cached = positions_dir(home, game_id)
    had_secret, had_cached = has_secret(home, game_id), cached.exists()
    had_private = bool(records.names(private)) or bool(records.names(f"{private}/reports"))
    try:
        yield
    except BaseException:
        if not had_secret:
            with suppress(OSError):  # the failure may be that it cannot be there at all
                records.delete(secret_name(game_id))
        if not had_private:
            records.delete_folder(private)
        if not had_cached:
            shutil.rmtree(cached, ignore_errors=True)
        raise


def readme(game: GameFile) -> str:
    players = ", ".join(game.names)
    return (
        f"# Pax Pamir game {game.id}\n\n"
        f"Players: {players}. Adjudicated by pamir (engine {game.engine_version}).\n\n"
        "To play, add `moves/NNNN-YOURNAME.txt` (NNNN: the next number) holding your actions,\n"
        "one a line, in the notation of pamir's docs/notation.md; commit and push it.\n"
        "`state.json` is the position after the last move; `reports/` has every turn's report.\n"
        "The deck order is secret until the game ends: then `reveal.toml` holds the secret\n"
        "whose SHA-256 is `seed_commitment` in game.toml, and `pamir verify` replays the game.\n"
    )
