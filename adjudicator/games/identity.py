"""The adjudicator's identity is the service's alone.

Every commit the service makes has the adjudicator as its committer
(`repo.ADJUDICATOR`), and `pamir verify` takes such a commit for the service's own: it
replays it and checks it against the adjudicator's key. A player who pushed a commit under
that identity would have it adjudicated, and `verify` would fail on it for ever (history
cannot be rewritten). So a pushed commit whose author or committer claims the identity, by
name or address, is refused like any other breach of the contract (`contract.check_commit`).

A claim is read the way a person reads `git log`: case, spaces, the punctuation Git trims
from an identity, accents and zero-width characters, and Cyrillic or Greek letters drawn
like Latin ones are ignored; any address at the service's own domain is a claim too.
"""

from __future__ import annotations

import unicodedata

from adjudicator.games.objects import CommitInfo, Person
from adjudicator.games.repo import ADJUDICATOR
from engine.phrases import P, Phrase

# Letters of other scripts that look like the Latin letters of "pamir adjudicator" and
# "pamir.invalid" in the fonts people read logs in.
LOOK_ALIKES = str.maketrans(
    {
        "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ӏ": "l", "ј": "j",
        "о": "o", "р": "p", "ѕ": "s", "у": "y", "х": "x", "α": "a", "ι": "i", "κ": "k",
        "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "ɑ": "a", "ı": "i", "ȷ": "j", "ɩ": "i",
    }
)  # fmt: skip
# What Git trims from the ends of a name or address it writes ("crud"), and the quotes
# and brackets a hand-written commit object may carry around them.
CRUD = " \t\r\n.,:;<>\"'\\`()[]"


def _skeleton(text: str) -> str:
    """`text` as it reads: compatibility forms folded, marks and invisible characters
    dropped, look-alike letters mapped to Latin, case folded, spaces removed, crud trimmed."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(
        char
        for char in decomposed
        if unicodedata.category(char) not in {"Mn", "Me", "Cf", "Cc", "Zs", "Zl", "Zp"}
    )
    return kept.casefold().translate(LOOK_ALIKES).replace(" ", "").strip(CRUD)


ADDRESS = _skeleton(ADJUDICATOR.email)
DOMAIN = ADDRESS.rpartition("@")[2]
NAMES = {_skeleton(name) for name in (ADJUDICATOR.name, "adjudicator", "the adjudicator")}


def claims_adjudicator(person: Person) -> bool:
    """Whether a name and address claim to be the adjudicator (or pass for it)."""
    for value in (person.name, person.email):
        seen = _skeleton(value)
        if seen in NAMES or seen == ADDRESS or seen.endswith(f"@{DOMAIN}"):
            return True
    return False


def impersonation(commit: CommitInfo) -> Phrase | None:
    """Why a pushed commit may not go in because it claims the adjudicator's identity, or
    None when neither its author nor its committer does."""
    if claims_adjudicator(commit.committer):
        return P(
            "the commit's committer (%(who)s) claims the adjudicator's identity: "
            "only the service commits as the adjudicator; commit as yourself (git config "
            "user.name and user.email) and push again",
            who=_shown(commit.committer),
        )
    if claims_adjudicator(commit.author):
        return P(
            "the commit's author (%(who)s) claims the adjudicator's identity: "
            "only the service commits as the adjudicator; commit as yourself (git config "
            "user.name and user.email) and push again",
            who=_shown(commit.author),
        )
    return None


def _shown(person: Person) -> str:
    # As the commit has it, spaces included: the player sees what to change.
    return f"{person.name} <{person.email}>"
