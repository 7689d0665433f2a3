"""What the service puts back on a forge: the files a pushed commit may not change (the
contract, `adjudicator.games.contract`), by an adjudicator commit on top of the forge's;
and the game's history over one rewritten on the forge, or else the game is held for its
host.
"""

from __future__ import annotations

import logging
from pathlib import Path

from adjudicator.forge.notices import Update, held_notice, put_back_notice
from adjudicator.forge.records import hold_is_news
from adjudicator.forge.transport import TRACKING, RemoteError, force_push
from adjudicator.games.contract import RESTORE_TRAILER, Accepted, Breach, blob_id, tree_files, vet
from adjudicator.games.objects import FILE_MODE
from adjudicator.games.repo import BRANCH, GameRepo
from adjudicator.games.snapshot import snapshot

log = logging.getLogger(__name__)


def vetted(
    repo: GameRepo, start: str, upstream: str, own: str | None = None
) -> tuple[str, list[Breach]]:
    """`upstream` itself when every commit the service has not seen keeps the contract;
    otherwise a new adjudicator commit on top of it that puts back every file the service
    owns, keeping only the move files added by the contract, and the offending commits.
    `own`: the newest commit of `upstream` that the service made itself (another node of
    it, in PostgreSQL mode): only the commits after it are players' to vet."""
    base = repo.merge_base(start, upstream)
    if base is None:
        raise RemoteError(f"{repo.path.name}: the forge's history shares nothing with the game's")
    if (
        own is not None
        and own != base
        and repo.is_ancestor(base, own)
        and repo.is_ancestor(own, upstream)
    ):
        base = own  # this clone had not seen it: still the service's, never a breach
    if base == upstream:
        return upstream, []
    snap = snapshot(repo, base)  # the service's own commit: its game.toml is trusted
    vetting = vet(repo, base, upstream, snap.game, snap.next_number)
    if not vetting.breaches:
        return upstream, []
    changes = _restoring_changes(repo, base, upstream, vetting.accepted)
    culprits = ", ".join(f"{b.commit[:10]} ({b.author})" for b in vetting.breaches)
    details = "\n".join(f"- {b.describe()}" for b in vetting.breaches)
    message = (
        f"Restore the adjudicator's files after {culprits}\n\n"
        "A player's commit may only add the next move file, by that player; what these "
        f"commits changed is put back:\n\n{details}\n\n"
        f"{RESTORE_TRAILER}: {' '.join(b.commit for b in vetting.breaches)}\n"
    )
    log.warning("%s: restored the files changed by %s", repo.path.name, culprits)
    return repo.make_commit(changes, message, parent=upstream), vetting.breaches


def _blob(repo: GameRepo, sha: str) -> bytes:
    data: bytes = repo.repo.odb.stream(bytes.fromhex(sha)).read()
    return data


def _restoring_changes(
    repo: GameRepo, base: str, upstream: str, accepted: list[Accepted]
) -> dict[str, bytes | None]:
    """The changes that turn `upstream`'s files into `base`'s plus the accepted moves."""
    wanted = {path: _blob(repo, sha) for path, (sha, _) in tree_files(repo, base).items()}
    wanted.update({a.move.path: a.data for a in accepted})
    found = tree_files(repo, upstream)
    changes: dict[str, bytes | None] = {path: None for path in found if path not in wanted}
    for path, data in wanted.items():
        if found.get(path) != (blob_id(data), FILE_MODE):
            changes[path] = data
    return changes


def rewritten(repo: GameRepo, home: Path, upstream: str, start: str | None) -> Update:
    """The forge's main no longer holds the last commit the service adjudicated: push the
    service's main back over it, or hold the game."""
    name = repo.path.name
    if start is not None and force_push(repo, start, upstream):
        log.warning("%s: the main branch was rewritten on the forge; put back", name)
        repo.set_ref(TRACKING, start)
        done = Update()
        done.notices.append(put_back_notice(name))
        return done
    reason = (
        f"the {BRANCH} branch of {name} was rewritten on the forge and could not be put back; "
        "the game is held until the host restores it"
    )
    log.error("%s", reason)
    held = Update(held=reason)
    if hold_is_news(home, repo, upstream):
        held.notices.append(held_notice(name))
    return held
