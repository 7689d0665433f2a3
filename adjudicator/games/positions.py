"""The position cache: the full position after each adjudicated commit, so that a submission
loads it instead of replaying the whole game from its seed.

A position holds the secret deck order, so the cache lives in the service's data folder
(`PAMIR_HOME/cache/positions/GAME/`, a folder only the service's user can read), never in
a game repository. An entry is keyed by the *basis* of a snapshot: a digest of what a replay
reads (the engine version, `game.toml`, `rollbacks.toml` and `state.json` by their Git
object ids, and the `moves/` folder's tree as Git stores it, less the entries of the move
files still waiting for the adjudicator). Two commits with the same basis replay to
the same position: a player's commit that only adds a move file waiting for the adjudicator
has the basis of the commit before it.

An entry is trusted only if the public view it gives is the one `state.json` records at that
commit: its `state.json`, rebuilt from the cached position, holds the same data as the one
committed (whose SHA-256 the adjudicator commit carries in its `Pamir-State` trailer).
Anything else (a missing, unreadable or disagreeing entry, another engine version) is a
miss: the game is replayed and the entry written again. `pamir verify` never reads the
cache; it replays everything.
"""

from __future__ import annotations

import hashlib
import json
import logging
from contextlib import suppress
from pathlib import Path

import engine
from adjudicator.games.gamefile import GAME_FILE
from adjudicator.games.moves import MOVES_DIR
from adjudicator.games.snapshot import ROLLBACKS_FILE, STATE_FILE, Snapshot, read_state
from adjudicator.home.files import write_atomically
from adjudicator.home.paths import positions_dir

log = logging.getLogger(__name__)

KEEP = 4  # entries kept per game: the latest positions, where submissions start from
FORMAT = 2  # 2: the moves folder is digested as Git stores it


def basis(snap: Snapshot) -> str | None:
    """The digest of what replaying `snap` reads; None before the first commit."""
    if snap.commit is None:
        return None
    repo, at = snap.repo, snap.commit
    digest = hashlib.sha256(f"pamir positions {FORMAT} engine {engine.__version__}\n".encode())
    for path in (GAME_FILE, ROLLBACKS_FILE, STATE_FILE):
        digest.update(f"{path} {repo.object_id(path, at)}\n".encode())
    # The moves folder as Git stores it, less the entries of moves still waiting for the
    # adjudicator: hashed whole, so the key costs no more at move 300 than at move 3.
    folder = repo.tree_bytes(MOVES_DIR, at)
    entries = repo.entries(MOVES_DIR, at)
    for move in snap.pending():
        name = move.path.removeprefix(MOVES_DIR + "/")
        entry = entries.get(name)
        if entry is not None:
            written = b"%o %s\0%s" % (
                entry.mode,
                name.encode("utf-8", "surrogateescape"),
                entry.binsha,
            )
            folder = folder.replace(written, b"", 1)
    digest.update(b"moves " + hashlib.sha256(folder).digest())
    return digest.hexdigest()


def _entry_path(home: Path, snap: Snapshot, key: str) -> Path:
    return positions_dir(home, snap.game.id) / f"{key}.json"


def load(snap: Snapshot, home: Path) -> engine.State | None:
    """The cached position of `snap`, or None (a miss) if there is none to trust."""
    key = basis(snap)
    if key is None:
        return None
    path = _entry_path(home, snap, key)
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        if entry.get("format") != FORMAT or entry.get("engine") != engine.__version__:
            return None
        state = engine.from_dict(entry["state"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, engine.StateError) as error:
        log.warning("position cache entry %s unreadable (%s); replaying", path, error)
        return None
    if not _agrees(snap, state):
        log.warning("position cache entry %s disagrees with %s; replaying", path, STATE_FILE)
        return None
    log.debug("position after move %d of %s from the cache", snap.adjudicated, snap.game.id)
    return state


def _agrees(snap: Snapshot, state: engine.State) -> bool:
    """True if `state`'s public view is the one committed in `state.json` at `snap`: the
    document rebuilt from it, read back as JSON, is the committed one (compared as data,
    which needs no indented text made in Python: a third of a submission's JSON time)."""
    if snap.commit is None:
        return False
    committed = snap.document if snap.document is not None else read_state(snap.repo, snap.commit)
    if committed is None:
        return False
    rebuilt = {
        "game": snap.game.id,
        "move": snap.adjudicated,
        "last": committed.get("last"),
        "view": engine.view(state),
    }
    if "phrases" in committed:  # kept with the view; state.json files before it have none
        rebuilt["phrases"] = committed["phrases"]
    return bool(json.loads(json.dumps(rebuilt, ensure_ascii=False)) == committed)


def store(snap: Snapshot, home: Path, state: engine.State) -> None:
    """Keep `state` as the position of `snap`; a failure to write only costs a replay."""
    key = basis(snap)
    if key is None:
        return
    folder = positions_dir(home, snap.game.id)
    entry = {"format": FORMAT, "engine": engine.__version__, "state": engine.to_dict(state)}
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        # Not flushed to disk: an entry a crash left empty is unreadable, a miss (`load`).
        write_atomically(folder / f"{key}.json", json.dumps(entry).encode(), durable=False)
        _prune(folder)
    except OSError as error:
        log.warning("position cache not written (%s); the next submission replays", error)


def _prune(folder: Path) -> None:
    """Keep the newest KEEP entries: submissions start from the latest position."""
    entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in entries[KEEP:]:
        with suppress(FileNotFoundError):
            old.unlink()
