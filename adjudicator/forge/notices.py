"""What an update of a forge-hosted game has to tell (`remote.update`): its adjudications,
the moves it refused, and the notices every player should read, each a Markdown text in
the reader's words. The caller mails them: the forge modules send no mail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from adjudicator.games.contract import Breach
from adjudicator.games.outputs import Adjudication
from adjudicator.games.repo import GameRepo
from adjudicator.home.translations import N_, Words
from engine.phrases import Phrase


@dataclass(frozen=True)
class RefusedMove:
    """A move that did not go into the game: its author should be told why."""

    number: int | None  # None: a move this service had accepted that no longer applies
    player: str
    reason: str  # the engine's words
    text: str  # the move file as submitted
    phrase: Phrase | None = None  # `reason` said in a reader's language (its English: reason)


# A notice to the players: its Markdown text in a reader's words.
Notice = Callable[[Words], str]


@dataclass
class Update:
    """What one `update` did: the adjudicator commits now on the forge, and refusals.

    `restored` lists the pushed commits that broke the contract (their changes were put
    back by an adjudicator commit); `held` says why the game is held for the host (a
    rewritten history that could not be put back); `notices` are what every player should
    be told, each a Markdown text in the reader's words (the caller mails them: this module
    sends no mail)."""

    results: list[Adjudication] = field(default_factory=list)
    # Those of `results` that are players' moves pushed to the forge; the others are this
    # service's own moves, submitted again on top of the forge's.
    pushed: list[Adjudication] = field(default_factory=list)
    refused: list[RefusedMove] = field(default_factory=list)
    attempts: int = 0
    restored: list[Breach] = field(default_factory=list)
    held: str | None = None
    notices: list[Notice] = field(default_factory=list)


def _notice(name: str, title: str, body: str) -> Notice:
    """A notice headed by the game's name: `title` and `body` (catalogue messages) in the
    reader's words."""
    return lambda words: f"# {name}: {words(title)}\n\n{words(body)}\n"


def put_back_notice(name: str) -> Notice:
    """The notice of a rewritten history pushed back over the forge's."""
    return _notice(
        name,
        N_("the game's history was put back"),
        N_(
            "Someone rewrote the history of the game's main branch on the forge (a force "
            "push). The adjudicator pushed the game's true history back; pull (`git fetch` "
            "and `git reset --hard origin/main`) before your next move."
        ),
    )


def held_notice(name: str) -> Notice:
    """The notice of a game held for its host (a rewritten history not put back)."""
    return _notice(
        name,
        N_("the game is held"),
        N_(
            "Someone rewrote the history of the game's main branch on the forge, and the "
            "adjudicator could not push the true history back. No move is adjudicated until "
            "the host restores it."
        ),
    )


def restore_notice(repo: GameRepo, breaches: list[Breach]) -> Notice:
    name = repo.path.name

    def notice(words: Words) -> str:
        lines = "\n".join(f"- {words.phrase(b.phrase())}" for b in breaches)
        said = words(
            "A player's commit may only add the next move file, by that player. These commits "
            "did more, and the adjudicator put back what they changed (the move files they "
            "added were not played):"
        )
        return f"# {name}: " + words("pushed changes were put back") + f"\n\n{said}\n\n{lines}\n"

    return notice
