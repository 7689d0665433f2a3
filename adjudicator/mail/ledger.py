"""The mails of an adjudication follow from its commit: the mail ledger and its reconciler.

A crash can come between any two durable steps: the commit of a move, the messages about
it written to the outbox, the answer to the email or webhook that brought it. So the
messages are not queued by whoever made the commit but derived from the commits
themselves, like a Mailman runner draining its queue: `reconcile` walks the game's
commits that come after the last one whose mails were queued (kept per game in
`PAMIR_HOME/mail/ledger/GAME.json`, written atomically) and, for each adjudicator commit
(one with a `Pamir-Move` trailer), queues the report for every player, the refusal for
the author when the commit records one, and the confirmation for the author of a move
that came by email (its commit's `Pamir-Inbound` trailer). Then it moves the record on.

Every message has a key (`message_key`: game, move, recipient, kind, and the
commit or inbound message) that is its outbox file name and makes its Message-ID, so a
crash after queuing and before the record moves on only leads to the same messages being
found in the outbox again, never to a second copy.

Inbound messages have a record of their own, `PAMIR_HOME/mail/inbound/GAME/HASH` (HASH:
`inbound_key`): written as `pending` before the move is submitted, then `accepted` (with
the move's number and commit) or `refused` (with the reason). A message delivered again
gets the outcome recorded for it; one still `pending` is looked for in the game's history
by its trailer, so a move committed just before a crash is answered as accepted. In
PostgreSQL mode (docs/cluster.md) the record is a row of `pamir_inbound_messages`, whose
primary key is the game and HASH, so a message is one record whichever node takes it.

`reconcile` is run by every path that adjudicates for the service (email, webhooks, the
scheduler), and `reconcile_all` once `pamir serve` listens, at the start of `pamir
scheduler` and on every tick of the scheduler's outbox job (`pamir inbound-email`
reconciles the message's own game, as every path does).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import git

from adjudicator.forge import remote, transport
from adjudicator.forge.notices import RefusedMove, Update
from adjudicator.games import hosting, needs_host
from adjudicator.games.moves import MoveName
from adjudicator.games.outputs import (
    INBOUND_TRAILER,
    Adjudication,
    phrase_said,
    private_section_name,
    refused_phrase,
    write_private_sections,
)
from adjudicator.games.pipeline import position
from adjudicator.games.refs import tip_of
from adjudicator.games.registry import folder_id, game_lock
from adjudicator.games.repo import REF, GameRepo, RepoError
from adjudicator.games.snapshot import REPORTS_DIR, snapshot, state_record
from adjudicator.home import backend, locks, store
from adjudicator.home.faults import fault
from adjudicator.home.settings import Settings
from adjudicator.home.translations import phrase_data
from adjudicator.mail import inbound_records, notices, report_mails
from adjudicator.mail.compose.messages import message_key
from adjudicator.mail.outbox import queued
from adjudicator.mail.preferences import notify_preference
from adjudicator.mail.records import LEDGER, Ledger
from engine.phrases import Phrase

log = logging.getLogger(__name__)

Record = dict[str, Any]


# -- the ledger: the last commit whose mails were queued ------------------------------------


def _ledger_path(settings: Settings, game_id: str) -> Path:
    return settings.home / "mail" / "ledger" / f"{game_id}.json"


def _ledger_name(game_id: str) -> str:
    return f"mail/ledger/{game_id}.json"


def mailed_up_to(settings: Settings, game_id: str) -> str | None:
    """The last commit of the game whose mails were queued, or None before the first."""
    found = LEDGER.read(store.of(settings), _ledger_name(game_id))
    return found.commit if found is not None and found.commit else None


def _advance(settings: Settings, game_id: str, commit: str) -> None:
    LEDGER.write(store.of(settings), _ledger_name(game_id), Ledger(commit=commit))


@contextmanager
def _ledger_lock(settings: Settings, game_id: str) -> Iterator[None]:
    """One reconciler per game at a time. Not the game's lock: the paths that adjudicate
    hold that one already when they reconcile."""
    path = _ledger_path(settings, game_id).with_suffix(".lock")
    with locks.exclusive(settings, f"ledger:{game_id}", path):
        yield


def _trailers(message: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in message.splitlines() if line.startswith("Pamir-"))


def _unmailed(settings: Settings, repo: GameRepo, game_id: str, head: str) -> list[str]:
    """The commits of the game branch after the ledger's, oldest first."""
    last = mailed_up_to(settings, game_id)
    if last is None:
        # The ledger starts where the service first adjudicates for the game: every path
        # that does reconciles before it commits. What came before (the new game, moves
        # made with `pamir move`, mails sent before the ledger existed) is not mailed.
        return []
    chain = _linear_since(repo, last, head)
    if chain is not None:
        return chain
    try:
        # Not only the descendants of `last`: a forge-hosted game's clone can have been
        # reset onto the forge's history, which dropped `last` (made again on top).
        return str(repo.repo.git.rev_list("--reverse", f"{last}..{head}")).split()
    except git.GitCommandError:
        log.warning("mail ledger of %s names an unknown commit %s; starting afresh", game_id, last)
        return []


def _mailable_head(settings: Settings, repo: GameRepo) -> str | None:
    """The last commit whose mails may be queued: the head, or in PostgreSQL mode, for a
    forge-hosted game, the last commit this node knows the forge has (`origin/main` as
    the last fetch or push left it). A node's own commit not pushed yet dies with the
    node, and is made again by another: no mail may name it."""
    if backend.of(settings).several_nodes and remote.is_remote(repo):
        return repo.ref(transport.TRACKING)
    return repo.head()


def _follows_ledger(settings: Settings, repo: GameRepo, game_id: str, head: str) -> bool:
    """Whether the ledger may move on to `head`. In PostgreSQL mode the ledger is every
    node's, and a node whose clone is behind it (it has not fetched what another node
    pushed: the ledger's commit is unknown here) leaves it alone rather than moving it
    back: it would mail those commits again. A ledger's commit known here but not behind
    `head` is a history the forge reset, which `_unmailed` follows, as on one machine,
    where a ledger naming an unknown commit starts afresh."""
    last = mailed_up_to(settings, game_id)
    if not backend.of(settings).several_nodes or last is None:
        return True
    try:
        repo.repo.git.cat_file("-e", f"{last}^{{commit}}")
    except git.GitCommandError:
        log.info("game %s: this clone is behind the mail ledger (%s); left alone", game_id, last)
        return False
    return True


LINEAR_STEPS = 64  # commits walked in this process before `git rev-list` is asked


def _linear_since(repo: GameRepo, last: str, head: str) -> list[str] | None:
    """The commits after `last` up to `head`, oldest first, when `head` descends from
    `last` through at most LINEAR_STEPS commits of one parent each: the usual case, a
    move or two since the last reconciling, read in this process instead of a `git
    rev-list` process a move. None otherwise (a merge, a reset history, a commit that
    cannot be read): `git rev-list` decides then."""
    chain: list[str] = []
    commit = head
    while commit != last:
        if len(chain) == LINEAR_STEPS:
            return None
        try:
            parents = repo.parents(commit)
        except Exception:  # whatever it is, git's own answer is the one to go by
            return None
        if len(parents) != 1:
            return None
        chain.append(commit)
        commit = parents[0]
    return chain[::-1]


def reconcile(settings: Settings, repo: GameRepo) -> list[Path]:
    """Queue the mails of every adjudicator commit of the game that has none yet, then
    move the ledger on; return the outbox files (existing ones included). Safe to run at
    any moment and any number of times. Paths that adjudicate for the service run it
    before they commit too (holding the game's lock): that starts a game's ledger, and
    sends what an earlier crash left unsent first."""
    game_id = snapshot(repo).game.id
    with _ledger_lock(settings, game_id):
        head = _mailable_head(settings, repo)
        if head is None or mailed_up_to(settings, game_id) == head:
            return []
        if not _follows_ledger(settings, repo, game_id, head):
            return []
        commits = _unmailed(settings, repo, game_id, head)
        written: list[Path] = []
        if commits:
            fault("before-queue")
        confirming: list[tuple[str, Adjudication]] = []
        for commit in commits:
            written.extend(queue_commit(settings, repo, game_id, commit, confirming))
        # Confirmations last: a later report that took a move's report along answers its
        # author (`_report_answers`), and it is queued only now.
        for inbound, result in confirming:
            written.extend(confirm(settings, repo, game_id, inbound, result))
        if commits:
            fault("after-queue")
        _advance(settings, game_id, head)
    return written


def reconcile_all(settings: Settings) -> int:
    """Reconcile every game this node has a repository of, each under its lock; return
    how many messages were queued. A game that fails is logged and the others go on.

    The games are the folders of PAMIR_HOME/games, read as they are: in PostgreSQL mode a
    game this node has no clone of has no commit of this node's to mail, so none is cloned
    for this. A game whose branches have not moved since this process last reconciled it
    is passed over without its lock (two ref files read): the outbox job runs this every
    few seconds, and its cost must not grow with the games that are idle."""
    count = 0
    games = settings.games_dir
    if not games.is_dir():
        return 0
    for path in sorted(games.iterdir()):
        # A hidden folder is a game still being built by `create_game`, not yet a game.
        if not path.is_dir() or path.name.startswith("."):
            continue
        tips = _tips(path)
        if _reconciled.get(path) == tips:
            continue
        game_id = folder_id(path)
        if needs_host.marked(settings.home, game_id) is not None:
            continue  # cannot be read: `pamir games` and the scheduler say so
        try:
            with game_lock(settings, game_id):
                repo = GameRepo(path)
                try:
                    count += len(reconcile(settings, repo))
                finally:
                    repo.repo.close()
        except RepoError:
            continue  # not a Git repository: not a game
        except Exception:
            log.exception("queuing the mails of game %s failed", game_id)
            continue
        _reconciled[path] = tips
    return count


# A game's folder -> its branch and remote-tracking branch when this process last
# reconciled it (`reconcile_all`). A commit made since, by any process, moves one of them.
_reconciled: dict[Path, tuple[str | None, str | None]] = {}


def _tips(path: Path) -> tuple[str | None, str | None]:
    """The game's branch and its forge's remote-tracking branch as their files say."""
    return tip_of(path, REF), tip_of(path, transport.TRACKING)


# -- the mails of one commit ---------------------------------------------------------------


def queue_commit(
    settings: Settings,
    repo: GameRepo,
    game_id: str,
    commit: str,
    confirming: list[tuple[str, Adjudication]],
) -> list[Path]:
    """Queue the mails of one commit (none unless it is an adjudicator commit); the
    confirmation of an emailed move it adjudicated is added to `confirming`, for the
    caller to queue once every commit's mails are."""
    trailers = _trailers(str(repo.repo.commit(commit).message))
    if "Pamir-Move" not in trailers:
        return []
    number = int(trailers["Pamir-Move"])
    report = repo.read(f"{REPORTS_DIR}/{number:04d}.md", commit)
    if report is None:
        return []
    _ensure_private_sections(settings, repo, game_id, commit, number)
    result = Adjudication(number, commit, report)
    written = report_mails.notify(settings, repo, [result], deliver_now=False)
    refused = _recorded_refusal(repo, commit, number)
    if refused is not None:
        key = message_key(game_id, number, refused.player, "refusal", commit)
        written.append(
            notices.notify_refusal(
                settings,
                repo,
                refused.player,
                refused.text,
                refused.reason,
                phrase=refused.phrase,
                deliver_now=False,
                at=commit,
                key=key,
            )
        )
    inbound = trailers.get(INBOUND_TRAILER)
    if inbound is not None:
        confirming.append((inbound.strip(), result))
    return written


def _recorded_refusal(repo: GameRepo, commit: str, number: int) -> RefusedMove | None:
    """The refusal a commit records (`last.refused` in its state.json), if any."""
    document = state_record(repo, commit)
    last = document.get("last")
    if not isinstance(last, dict) or not last.get("refused") or last.get("number") != number:
        return None
    player = str(last["player"])
    # Quoted back to the author as it was: a refused file may not even be UTF-8.
    data = repo.data(MoveName(number, player).path, commit) or b""
    submitted = data.decode("utf-8", "replace")
    return RefusedMove(number, player, str(last["refused"]), submitted, refused_phrase(document))


def _ensure_private_sections(
    settings: Settings, repo: GameRepo, game_id: str, commit: str, number: int
) -> None:
    """The private sections after a move are written after its commit: a crash between
    the two leaves none, so they are made again from the commit."""
    snap = snapshot(repo, commit)
    records = store.of(settings)
    if all(
        records.read(private_section_name(game_id, number, name)) is not None
        for name in snap.game.names
    ):
        return
    write_private_sections(settings.home, snap, number, position(snap, settings.home))


# -- inbound messages and their outcomes ---------------------------------------------------


def inbound_key(message_id: str | None, raw: bytes, signature: str | None = None) -> str:
    """The hash an inbound message is known by: of its Message-ID; when it has none, of
    the `b=` value of the DKIM signature that proved it (`signature`: bytes outside what
    it signs could be changed, adjudicator/mail/replays.py), else of its bytes (the same
    message delivered again still has the same bytes)."""
    if message_id:
        data = message_id.strip().encode("utf-8", "replace")
    elif signature:
        data = b"dkim b=" + signature.encode("ascii", "replace")
    else:
        data = raw
    return hashlib.sha256(data).hexdigest()[:40]


def inbound_record(settings: Settings, game_id: str, key: str) -> Record | None:
    """What became of an inbound message: {"status": "pending" | "accepted" | "refused",
    ...}, {} for one handled before records were kept, or None when it is new."""
    return inbound_records.of(settings).read(game_id, key)


def write_inbound(settings: Settings, game_id: str, key: str, record: Record) -> None:
    inbound_records.of(settings).write(game_id, key, record)


def confirm(
    settings: Settings, repo: GameRepo, game_id: str, key: str, result: Adjudication
) -> list[Path]:
    """Queue the confirmation of an emailed move (once per message) and record it as
    accepted. A player who gets one mail a turn (`per-turn`, the default) gets none when
    the report of their move went to them at once: that report is the answer."""
    record = inbound_record(settings, game_id, key)
    if not record or "player" not in record:
        return []  # not a message this service answers (or an old record without details)
    name = message_key(game_id, result.number, record["player"], "confirmation", key)
    if _report_answers(settings, repo, game_id, record["player"], result):
        if record.get("status") != "accepted":
            record.update(status="accepted", number=result.number, commit=result.commit)
            write_inbound(settings, game_id, key, record)
        return []
    path = notices.notify_confirmation(
        settings,
        repo,
        record["player"],
        record.get("text", ""),
        result,
        in_reply_to=record.get("message_id"),
        subject=record.get("subject"),
        deliver_now=False,
        key=name,
    )
    if record.get("status") != "accepted":
        record.update(status="accepted", number=result.number, commit=result.commit)
        write_inbound(settings, game_id, key, record)
    return [path]


def _report_answers(
    settings: Settings, repo: GameRepo, game_id: str, player: str, result: Adjudication
) -> bool:
    """Whether the report of the player's own move was queued for them, and they chose
    one mail a turn: a confirmation beside it would say the same twice."""
    if notify_preference(settings, game_id, player) != "per-turn":
        return False
    # Their report of this move, or of a later one, which took it along (delivery.py).
    later = list(repo.repo.iter_commits(f"{result.commit}..{REF}", max_count=MOST_LATER))
    for commit in [*later, repo.repo.commit(result.commit)]:
        number = _trailers(str(commit.message)).get("Pamir-Move")
        if number is None or not number.strip().isdigit():
            continue
        key = message_key(game_id, int(number), player.lower(), "report", commit.hexsha)
        if queued(settings, key) is not None:
            return True
    return False


MOST_LATER = 20  # commits after a move looked at for a report that took it along


def refuse(
    settings: Settings,
    repo: GameRepo,
    game_id: str,
    key: str,
    reason: str,
    phrase: Phrase | None = None,
) -> list[Path]:
    """Record an emailed move as refused, then queue the refusal for its author (once).
    `phrase` is the reason in a form said in the author's language (its English is
    `reason`), recorded beside it as `reason_phrase`; a record without one is said in
    English."""
    record = inbound_record(settings, game_id, key) or {}
    if record.get("status") != "refused":
        record.update(status="refused", reason=reason)
        if phrase is not None:
            record["reason_phrase"] = phrase_data(phrase)
        write_inbound(settings, game_id, key, record)
    player = str(record["player"])
    name = message_key(game_id, 0, player, "refusal", key)
    path = notices.notify_refusal(
        settings,
        repo,
        player,
        str(record.get("text", "")),
        str(record["reason"]),
        phrase=phrase_said(record.get("reason_phrase"), record["reason"]),
        in_reply_to=record.get("message_id"),
        subject=record.get("subject"),
        deliver_now=False,
        key=name,
    )
    return [path]


def committed_inbound(repo: GameRepo, key: str, since: str | None) -> Adjudication | None:
    """The adjudicator commit on the game branch that carries this inbound message's
    trailer (looked for after `since`, when given), as an adjudication."""
    span = f"{since}..{REF}" if since else REF
    try:
        found = str(
            repo.repo.git.log("--format=%H", f"--grep=^{INBOUND_TRAILER}: {key}$", span)
        ).split()
    except git.GitCommandError:
        return None
    for commit in found:
        return _adjudication_at(repo, commit)
    return None


def same_move_played(
    repo: GameRepo, player: str, text: str, since: str | None, *, at_since: bool = False
) -> Adjudication | None:
    """An adjudicated (not refused) move by `player` with exactly this text, made after
    `since` (or by the commit `since` itself, with `at_since`): the same move, arrived
    another way first (a push to the forge racing the email)."""
    if since is None:
        return None
    try:
        listing = str(repo.repo.git.rev_list(f"{since}..{REF}")).split()
    except git.GitCommandError:
        return None
    for commit in [*listing, *([since] if at_since else [])]:
        done = _adjudication_at(repo, commit)
        if done is None:
            continue
        last = state_record(repo, commit).get("last")
        if not isinstance(last, dict):
            continue
        if str(last.get("player", "")).lower() != player.lower() or last.get("refused"):
            continue
        if repo.read(MoveName(done.number, str(last["player"])).path, commit) == text:
            return done
    return None


def _adjudication_at(repo: GameRepo, commit: str) -> Adjudication | None:
    trailers = _trailers(str(repo.repo.commit(commit).message))
    if "Pamir-Move" not in trailers:
        return None
    number = int(trailers["Pamir-Move"])
    report = repo.read(f"{REPORTS_DIR}/{number:04d}.md", commit) or ""
    return Adjudication(number, commit, report)


# -- after a forge update ------------------------------------------------------------------


def forge_update(settings: Settings, repo: GameRepo) -> Update:
    """`remote.update` (the caller holds the game's lock), the report mails of its
    adjudications composed while their push is on its way (`report_mails.prepare`), for
    `announce` to queue as they are once the forge has them."""
    done = remote.update(
        repo, settings.home, while_pushing=partial(report_mails.prepare, settings, repo)
    )
    # The other nodes compare their clones with this before they serve a page of the game
    # (web/freshness.py).
    if backend.of(settings).several_nodes and (tip := repo.ref(transport.TRACKING)):
        hosting.saw_forge_head(settings, snapshot(repo).game.id, tip)
    return done


def announce(
    settings: Settings,
    repo: GameRepo,
    done: Update,
    *,
    answered: tuple[str, str] | None = None,
) -> None:
    """Queue the players' mails about what a forge update did (the caller holds the game's
    lock): the notices of changes put back or of a held game, the mails of its commits
    (`reconcile`), and the refusal of each move this service had accepted that no longer
    applies, except `answered` (player, text): the emailed move whose author the caller
    answers itself. Nothing is sent here: the caller delivers once it has released the
    lock, so that a slow mail server never holds up the game."""
    try:
        for notice in done.notices:
            notices.notify_all(settings, repo, notice)
        reconcile(settings, repo)
        for refused in done.refused:
            if refused.number is not None:
                continue  # recorded in a commit: reconcile has queued it
            if answered is not None and (refused.player.lower(), refused.text) == (
                answered[0].lower(),
                answered[1],
            ):
                continue
            notices.notify_refusal(
                settings,
                repo,
                refused.player,
                refused.text,
                refused.reason,
                phrase=refused.phrase,
                deliver_now=False,
            )
    except Exception:  # the moves are adjudicated and pushed; mail must not undo that
        log.exception("notifying the players of %s failed", repo.path.name)
