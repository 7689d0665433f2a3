"""`game.toml`: who plays, how, on which engine, and the seed commitment.

Validated by pydantic at the edge (unknown keys refused); written with tomli-w. The
format is documented in docs/game-repository.md.
"""

from __future__ import annotations

import tomllib
from typing import Annotated, Literal

import tomli_w
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from adjudicator.games.sshkeys import check_key_line, parse_key_line
from adjudicator.home.translations import SOURCE, check_language
from engine.errors import describe_validation

GAME_FILE = "game.toml"
GAME_ID = r"^[a-z0-9][a-z0-9_-]{0,63}$"  # a game's id: its folder's name, in reply addresses


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# An OpenSSH public key line, kept as OpenSSH writes it (docs/signing.md).
KeyLine = Annotated[str, AfterValidator(check_key_line)]
# A language the service speaks (docs/i18n.md): `en` or `pl`.
Language = Annotated[str, AfterValidator(check_language)]


class PlayerEntry(_Strict):
    name: str
    email: str = Field(pattern=r"^[^@\s]+@[^@\s]+$")
    language: Language = SOURCE  # what the player's mail and private sections are in
    policies: tuple[str, ...] = ()  # standing policies in the notation, e.g. "pay 2"
    signing_key: KeyLine | None = None  # the key the player's pushed commits are signed with
    # How the player sends moves: by replying to the mail, by pushing to the repository, or
    # either. A player's messages explain only their own way (docs/email.md).
    plays_by: Literal["email", "git", "both"] = "both"
    # Resigned by mail: the stand-in plays the seat for the rest of the game.
    resigned: bool = False


class AdjudicatorEntry(_Strict):
    signing_key: KeyLine  # the key every commit of the service is signed with


class Deadlines(_Strict):
    timezone: str = "UTC"
    turn_hours: int = Field(default=48, ge=1)
    reminder_hours: int = Field(default=12, ge=0)
    # What answers for a player whose deadline passed: each decision's documented default,
    # or the stand-in (engine/standin.py), which plays the seat with its own loyalty.
    on_timeout: Literal["default", "standin"] = "default"


class GameFile(_Strict):
    id: str = Field(pattern=GAME_ID)  # used in reply addresses
    engine_version: str
    created: str
    seed_commitment: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    players: tuple[PlayerEntry, ...] = Field(min_length=1, max_length=5)
    deadlines: Deadlines = Deadlines()
    wakhan: bool = False  # Wakhan, the automated opponent, takes a seat (1 or 2 players)
    options: dict[str, str] = {}
    # Pushed move commits must carry a valid signature by their player's key.
    require_signatures: bool = False
    adjudicator: AdjudicatorEntry | None = None  # None: the game predates signed commits
    # What a player's resignation does: the stand-in takes the seat, or the game ends.
    on_resign: Literal["standin", "end"] = "standin"
    # The language of the public record: the reports committed to the repository.
    language: Language = SOURCE

    @model_validator(mode="after")
    def _keys_differ(self) -> GameFile:
        """One key, one signer: a signature names exactly one player, or the adjudicator."""
        owners: dict[tuple[str, bytes], str] = {}
        signers = [(p.name, p.signing_key) for p in self.players]
        if self.adjudicator is not None:
            signers.append(("the adjudicator", self.adjudicator.signing_key))
        for owner, line in signers:
            if line is None:
                continue
            key = parse_key_line(line)
            first = owners.setdefault((key.type, key.blob), owner)
            if first != owner:
                raise ValueError(f"{first} and {owner} have the same signing key")
        if self.require_signatures and any(p.signing_key is None for p in self.players):
            missing = ", ".join(p.name for p in self.players if p.signing_key is None)
            raise ValueError(f"require_signatures is on, but {missing} has no signing_key")
        return self

    def player(self, name: str) -> PlayerEntry:
        for entry in self.players:
            if entry.name.lower() == name.lower():
                return entry
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    @property
    def resigned_players(self) -> list[str]:
        return [p.name for p in self.players if p.resigned]

    def has_resigned(self, name: str) -> bool:
        """Whether `name` is a player who resigned (not Wakhan, nor an unknown name)."""
        return any(p.resigned for p in self.players if p.name.lower() == name.lower())


class GameFileError(ValueError):
    """game.toml cannot be read or does not follow the format."""


def parse_game_file(text: str) -> GameFile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise GameFileError(f"{GAME_FILE} is not TOML: {error}") from None
    try:
        return GameFile.model_validate(data)
    except ValidationError as error:
        details = describe_validation(error)
        raise GameFileError(f"{GAME_FILE}: {details}") from None


def dump_game_file(game: GameFile) -> str:
    # Absent keys stay absent (TOML has no null), and a game that does not require
    # signatures reads as before they existed.
    data = game.model_dump(mode="json", exclude_none=True)
    if not game.require_signatures:
        del data["require_signatures"]
    # Settings at their defaults are left out, so games read as before they existed.
    if game.on_resign == "standin":
        del data["on_resign"]
    if game.language == SOURCE:
        del data["language"]
    for player in data["players"]:
        if not player["resigned"]:
            del player["resigned"]
        if player["plays_by"] == "both":
            del player["plays_by"]
    return tomli_w.dumps(data)
