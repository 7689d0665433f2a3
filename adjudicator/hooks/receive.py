"""Git hooks for self-hosted bare game repositories (`pamir hook install`).

pre-receive: each commit of a push to `main` may only add the next move file, by its
player (`adjudicator.games.contract`), and each move must be legal for its author;
otherwise the push is refused and the reason (or the engine's message) is printed to the
pusher. Other branches are refused too. post-receive: the
accepted moves are adjudicated, one adjudicator commit each.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TextIO

import git

import engine
from adjudicator.games.contract import vet
from adjudicator.games.moves import (
    apply_submission,
    check_canonical,
    move_limit,
    read_submission,
    rollback_request,
)
from adjudicator.games.outputs import Adjudication, Refusal, and_followers
from adjudicator.games.pipeline import adjudicate_pending, position
from adjudicator.games.repo import REF, ZERO, GameRepo, StaleHead
from adjudicator.games.rollback import plan_request
from adjudicator.games.snapshot import GameError, replay, snapshot
from adjudicator.home import metrics
from adjudicator.home.paths import HOME_VARIABLE
from adjudicator.home.settings import load_settings
from adjudicator.mail import report_mails

HOOKS = ("pre-receive", "post-receive")


class PushRefused(Exception):
    """The push breaks a rule of the game repository; the message goes to the pusher."""


def install(bare: Path, home: Path) -> list[Path]:
    """Write the hooks into a bare game repository; they call this installation with the
    service's data folder `home` (where the game's secret is)."""
    repo = GameRepo(bare)
    if not repo.bare:
        raise GameError(f"{bare} is not a bare repository; players push to a bare one")
    snapshot(repo)  # refuses a repository that is not a game
    repo.repo.git.config("receive.denyNonFastForwards", "true")
    repo.repo.git.config("receive.denyDeletes", "true")
    written: list[Path] = []
    for name in HOOKS:
        path = bare / "hooks" / name
        path.write_text(
            "#!/bin/sh\n"
            "# Installed by `pamir hook install`: adjudicates Pax Pamir moves.\n"
            f"export {HOME_VARIABLE}={shlex.quote(str(home))}\n"
            f"exec {shlex.quote(sys.executable)} -m adjudicator.cli hook {name}\n",
            encoding="utf-8",
        )
        path.chmod(0o755)
        written.append(path)
    return written


def check_push(repo: GameRepo, home: Path, old: str, new: str) -> int:
    """Refuse a push that does not only add legal move files; return how many it adds."""
    if old == ZERO:
        raise PushRefused("the game branch cannot be created by a push")
    if new == ZERO:
        raise PushRefused("the game branch cannot be deleted")
    try:
        repo.repo.git.merge_base("--is-ancestor", old, new)
    except git.GitCommandError:
        raise PushRefused("history cannot be rewritten: pull, then push on top") from None
    try:
        return _check_moves(repo, home, old, new)
    except PushRefused:
        metrics.moves("push", refused=1)  # the push's first bad move refuses all of it
        raise


def _check_moves(repo: GameRepo, home: Path, old: str, new: str) -> int:
    snap = snapshot(repo, old)
    vetting = vet(repo, old, new, snap.game, snap.next_number)
    if vetting.breaches:
        raise PushRefused(vetting.breaches[0].problem)
    # Moves pushed earlier and not adjudicated yet come first: replay them too.
    state = position(snap, home) if not snap.pending() else replay(snap, home)[0]
    for accepted in vetting.accepted:
        move = accepted.move
        try:
            text = read_submission(accepted.data, move_limit(home))
            check_canonical(text)
        except engine.MoveError as error:
            raise PushRefused(f"{move.path}: {error}") from None
        if rollback_request(text) is not None:
            try:
                plan_request(snap, move, text)
            except Refusal as refusal:
                raise PushRefused(f"{move.path}: {refusal}") from None
            continue
        try:
            state = apply_submission(state, move.player, text).state
        except engine.MoveError as error:
            raise PushRefused(f"{move.path}: {error}") from None
    return len(vetting.accepted)


def _mail(repo: GameRepo, home: Path, results: list[Adjudication], out: TextIO) -> None:
    """Mail the players the reports of what was pushed; mail never undoes a move."""
    if not results:
        return
    try:
        report_mails.notify(load_settings({"home": home}), repo, results)
    except Exception as error:  # the outbox keeps what was written; it is retried later
        print(f"pamir: the reports were not mailed: {error}", file=out)


def pre_receive(repo: GameRepo, home: Path, stdin: TextIO, out: TextIO) -> int:
    """The pre-receive hook: exit status 0 accepts the whole push, 1 refuses it."""
    try:
        for line in stdin:
            old, new, ref = line.split()
            if ref != REF:
                raise PushRefused(f"{ref}: only the main branch of a game can be pushed")
            count = check_push(repo, home, old, new)
            moves = "move" if count == 1 else "moves"
            print(f"pamir: {count} {moves} accepted; adjudicating", file=out)
    except PushRefused as refusal:
        print(f"pamir: push refused: {refusal}", file=out)
        return 1
    except GameError as error:
        print(f"pamir: push refused: {error}", file=out)
        return 1
    return 0


def post_receive(repo: GameRepo, home: Path, out: TextIO) -> int:
    """The post-receive hook: adjudicate what was pushed, and say where the reports are."""
    for _ in range(3):  # another adjudication may land first: then look again
        try:
            results = adjudicate_pending(repo, home)
            metrics.outcomes("push", results)
            for done in and_followers(results):  # the stand-in's moves for resigned seats too
                print(f"pamir: move {done.number} adjudicated in {done.commit[:10]}", file=out)
            _mail(repo, home, and_followers(results), out)
            return 0
        except StaleHead:
            continue
        except GameError as error:
            print(f"pamir: adjudication failed: {error}", file=out)
            return 1
    print("pamir: the game kept moving; adjudication will resume on the next push", file=out)
    return 1
