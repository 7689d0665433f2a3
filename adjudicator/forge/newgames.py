"""New forge-hosted games (docs/web.md): one created here and pushed to an empty forge
repository, or one adopted, cloned from its forge. Either way the forge's repository is
the clone's `origin`, and what it has then is the service's record of the game.
"""

from __future__ import annotations

import logging
from pathlib import Path

from adjudicator.forge.records import record
from adjudicator.forge.transport import ORIGIN, RemoteError, fetch, push, run_git
from adjudicator.games import hosting, newgame
from adjudicator.games.gamefile import AdjudicatorEntry
from adjudicator.games.repo import BRANCH, GameRepo
from adjudicator.games.snapshot import GameError, game_seed, snapshot
from adjudicator.games.sshkeys import parse_key_line
from adjudicator.home.keys import adjudicator_key, public_key_line
from adjudicator.home.settings import Settings

log = logging.getLogger(__name__)


def create_remote_game(
    settings: Settings,
    url: str,
    players: list[tuple[str, str]],
    *,
    game_id: str,
    secret: str | None = None,
    turn_hours: int = 48,
    timezone: str = "UTC",
    signing_keys: dict[str, str] | None = None,
    require_signatures: bool | None = None,
) -> GameRepo:
    """Create a game in PAMIR_HOME/games/<id> and push it to an empty forge repository at
    `url`, which becomes the clone's `origin` (the signing options as `create_game`'s)."""
    path = settings.games_dir / game_id
    repo = newgame.create_game(
        path,
        players,
        home=settings.home,
        secret=secret,
        game_id=game_id,
        turn_hours=turn_hours,
        timezone=timezone,
        signing_keys=signing_keys,
        require_signatures=require_signatures,
    )
    run_git(repo, "remote", "add", ORIGIN, url)
    if not push(repo):
        raise RemoteError(
            f"could not push the new game to {url}: the forge repository must exist and be "
            f"empty (the game is in {path}; push it by hand)"
        )
    record(settings.home, repo, fetch(repo))
    run_git(repo, "branch", f"--set-upstream-to={ORIGIN}/{BRANCH}", BRANCH)
    hosting.register(settings, game_id, url)
    return repo


def _check_signing_key(recorded: AdjudicatorEntry | None, home: Path) -> None:
    """Refuse a game whose commits another service signed: ours would not verify."""
    if recorded is None:
        return
    ours = parse_key_line(public_key_line(adjudicator_key(home)))
    if not parse_key_line(recorded.signing_key).same_key(ours):
        raise GameError(
            "the game's commits are signed with another adjudicator's key "
            "(game.toml [adjudicator] signing_key), not this service's"
        )


def adopt(settings: Settings, url: str, game_id: str | None = None) -> GameRepo:
    """Clone a forge-hosted game into PAMIR_HOME/games/<id> (the id from its game.toml).

    The game's secret must already be in PAMIR_HOME/secrets/<id>.secret (unless the game
    has ended and revealed it): without it nobody can adjudicate the game.
    """
    try:
        with hosting.scratch_clone(settings, url, "adopt-") as folder:
            repo = GameRepo(folder)
            try:
                snap = snapshot(repo)
                found = snap.game.id
                if game_id is not None and game_id != found:
                    raise GameError(f"the repository holds game {found!r}, not {game_id!r}")
                # Refuses a game whose secret this service does not hold.
                game_seed(snap, settings.home)
                _check_signing_key(snap.game.adjudicator, settings.home)
            finally:
                repo.repo.close()
            target = settings.games_dir / found
            if target.exists() or (settings.games_dir / f"{found}.git").exists():
                raise GameError(f"this service already has a game {found!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            folder.rename(target)
    except hosting.CloneFailed as error:
        log.warning("clone of %s failed: %s", url, error.stderr)
        raise RemoteError(f"cannot clone the game's {BRANCH} branch from the forge") from None
    adopted = GameRepo(target)
    if snap.game.adjudicator is not None:
        adopted.configure_signing(adjudicator_key(settings.home))
    # What the forge has now is taken as the game's history from here on.
    record(settings.home, adopted, str(adopted.head()))
    hosting.register(settings, found, url)
    return adopted
