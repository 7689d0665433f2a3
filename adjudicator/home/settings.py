"""Service settings: defaults, then the instance file, then PAMIR_* environment variables.

The instance file is `PAMIR_HOME/pamir.toml` (keys as below, lower case). Every setting can
be given as an environment variable named `PAMIR_` plus the key in upper case, e.g.
PAMIR_SMTP_HOST. docs/configuration.md lists them all.

The secret settings are those typed `SecretStr` (SECRET_SETTINGS follows from the types):
repr(), str() and model_dump_json() of the settings show them as asterisks, and each may
be given as a file instead, whose content is the value: `KEY_file` in the instance file or
PAMIR_KEY_FILE, as systemd's LoadCredential= hands them over (docs/operations.md).
"""

from __future__ import annotations

import os
import tomllib
import typing
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from adjudicator.home.paths import games_dir, home_from
from adjudicator.home.secret_key import parse_key
from engine.errors import describe_validation

INSTANCE_FILE = "pamir.toml"


class Settings(BaseModel):
    """Everything the service can be told; see docs/configuration.md."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path  # the data folder; load_settings takes it from PAMIR_HOME
    base_url: str = "http://localhost:8000"  # how players reach the web pages
    # Mail out. With no smtp_host, messages are written as .eml files to the outbox.
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_security: Literal["none", "starttls", "tls"] = "starttls"
    smtp_user: str | None = None
    smtp_password: SecretStr | None = None  # never shown
    smtp_timeout: float = 10.0
    # SMTP sessions a delivery run opens at once; each recipient's mail goes in order on one
    # (docs/email.md#the-outbox). 1: one session, the messages one after the other.
    smtp_connections: int = Field(default=4, ge=1, le=32)
    mail_from: str = "pamir@localhost"
    # Who is mailed when a game needs its host (unset: the log and `pamir games` only).
    operator_email: str | None = Field(default=None, pattern=r"^[^@\s]+@[^@\s]+$")
    # Mail in: replies go to REPLY_LOCAL+GAME.PLAYER.TOKEN@REPLY_DOMAIN.
    reply_local: str = "pamir"
    reply_domain: str = "localhost"
    max_inbound_bytes: int = Field(default=1_000_000, ge=1_000)
    # Press (table talk relayed by mail): how many a player may send per game in 24 hours.
    press_per_day: int = Field(default=20, ge=0)
    # How a reply proves it is from its player, beyond its token and From address
    # (docs/email.md#mail-authentication): "token" trusts the From header, "dkim" checks
    # the message's DKIM signature, "authres" reads our own MTA's Authentication-Results.
    mail_auth: Literal["token", "dkim", "authres"] = "token"
    # The authserv-id our MTA writes in its Authentication-Results (for "authres").
    mail_authserv_id: str | None = Field(
        default=None, pattern=r"^[^\s;()]+$", validate_default=True
    )
    # Move files: the largest accepted on any path (command line, push, forge, email).
    max_move_bytes: int = Field(default=64 * 1024, ge=256)
    # Webhooks: the shared secrets configured on the forge (never shown).
    github_secret: SecretStr | None = None
    gitea_secret: SecretStr | None = None
    # GET /metrics for Prometheus (docs/operations.md#metrics); false: no such page.
    metrics: bool = True
    # Scheduler.
    poll_minutes: int = Field(default=5, ge=1)  # remote games with no webhooks
    outbox_retry_seconds: int = Field(default=60, ge=1)
    # PostgreSQL mode: how long a node's claim on an outbox message holds (it must outlast
    # one SMTP transaction); a dead node's message is sent by another after this.
    outbox_lease_seconds: int = Field(default=120, ge=1)
    # Days the mail sent (its bytes), the inbound messages' records and the webhook
    # deliveries are kept (docs/email.md#retention). At least a week: a mail server retries
    # a message for up to 5 days, and a forge redelivers a webhook within days.
    retention_days: int = Field(default=30, ge=7)
    # The hour (0-23, on each player's own clock) of the daily digest of reports held back.
    digest_hour: int = Field(default=8, ge=0, le=23)
    # How much mail a player gets who chose nothing (`settings notify`, docs/email.md).
    notify: Literal["per-turn", "every", "turns", "digest"] = "per-turn"
    # PostgreSQL mode (docs/cluster.md): several nodes coordinate through this database.
    # Unset: everything is kept under PAMIR_HOME, for one machine.
    # It may hold the database's password (postgresql://USER:PASSWORD@...): left out of the
    # settings' repr and str, as the secrets are, though kept a plain string for the many
    # places that connect with it.
    database_url: str | None = Field(default=None, pattern=r"^postgres(ql)?://", repr=False)
    # This node's name in `pamir nodes` (default: the host name and process id).
    node_name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,47}$")
    # The key the secrets kept in the database are encrypted with (PostgreSQL mode): 32
    # bytes in base64, from the environment (PAMIR_SECRET_KEY) or a file. Never shown.
    secret_key: SecretStr | None = None
    # Logging (docs/operations.md#logging): the least severe level written, and the form of
    # each line: "text" for people, "json" (one object a line) for a log shipper.
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["text", "json"] = "text"
    # `pamir serve`'s server (waitress): threads handling requests, connections held at
    # once, and the seconds after which an idle connection (a slow client) is dropped.
    serve_threads: int = Field(default=8, ge=1, le=128)
    serve_connections: int = Field(default=10_000, ge=10, le=100_000)
    serve_timeout: int = Field(default=30, ge=1)
    # The lobby (docs/lobby.md): who may start a game by mail to REPLY_LOCAL@REPLY_DOMAIN.
    # "off": nobody; "invite": the addresses and domains of lobby_allow; "open": anyone.
    lobby: Literal["off", "invite", "open"] = "off"
    lobby_allow: str = ""  # comma-separated addresses (bob@example.org) and domains
    lobby_expiry_hours: int = Field(default=7 * 24, ge=1)  # an unanswered invitation's life
    lobby_per_day: int = Field(default=5, ge=0)  # `new game` mails a sender may make a day
    lobby_max_pending: int = Field(default=100, ge=0)  # unanswered invitations at once
    lobby_games_per_player: int = Field(default=10, ge=1)  # games an address may be in

    @field_validator("lobby")
    @classmethod
    def _lobby_is_embedded(cls, value: str, info: ValidationInfo) -> str:
        # Its games would live on one node's disk (docs/cluster.md): say so at start.
        if value != "off" and info.data.get("database_url"):
            raise ValueError(
                "the lobby makes games on this machine's disk, and in PostgreSQL mode "
                "(database_url) games live on a forge: leave lobby off there"
            )
        return value

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("secret_key")
    @classmethod
    def _key_is_32_bytes(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            parse_key(value.get_secret_value())  # BadSecretKey is a ValueError
        return value

    @field_validator("mail_authserv_id")
    @classmethod
    def _authres_names_its_server(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Without it every message would be refused: say so at start, not per message.
        if info.data.get("mail_auth") == "authres" and not value:
            raise ValueError(
                'mail_auth = "authres" needs it: the authserv-id that the mail server in '
                "front of the service writes in its Authentication-Results headers "
                "(for example mx.example.org)"
            )
        return value

    @property
    def games_dir(self) -> Path:
        return games_dir(self.home)

    @property
    def outbox_dir(self) -> Path:
        return self.home / "outbox"


# Every setting typed SecretStr: only these may be given as files, and no other setting
# should ever hold a secret, or it would be shown wherever the settings are.
SECRET_SETTINGS: tuple[str, ...] = tuple(
    name
    for name, field in Settings.model_fields.items()
    if SecretStr in (field.annotation, *typing.get_args(field.annotation))
)
FILE_SUFFIX = "_file"


class SettingsError(ValueError):
    """The instance file or an environment variable holds a bad setting."""


def _from_environment(environ: dict[str, str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in Settings.model_fields:
        value = environ.get(f"PAMIR_{key.upper()}")
        if value is not None and key != "home":
            found[key] = value
    return found


def _files_named(
    instance: dict[str, Any], where: Path, environ: dict[str, str], root: Path
) -> dict[str, tuple[str, Path]]:
    """The secret settings given as files, each with where it was named: `KEY_file` in the
    instance file (taken out of `instance`; relative to PAMIR_HOME), then PAMIR_KEY_FILE
    (relative to the current folder), which overrides it as every variable does."""
    files: dict[str, tuple[str, Path]] = {}
    for key in SECRET_SETTINGS:
        named = instance.pop(key + FILE_SUFFIX, None)
        if named is not None:
            if not isinstance(named, str) or not named:
                raise SettingsError(f"bad setting: {key}{FILE_SUFFIX}: a file's path is needed")
            files[key] = (f"{key}{FILE_SUFFIX} in {where}", root / named)
        variable = f"PAMIR_{key.upper()}{FILE_SUFFIX.upper()}"
        if variable in environ:
            files[key] = (variable, Path(environ[variable]))
    return files


def _read_secret(key: str, path: Path) -> str:
    """A secret file's content, less one trailing newline (as `echo` or an editor leaves)."""
    try:
        # Bytes, decoded: text mode would turn a \r in the secret into \n.
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        reason = error.strerror or str(error)
        raise SettingsError(
            f"bad setting: {key}{FILE_SUFFIX}: cannot read {path}: {reason}"
        ) from None
    except UnicodeDecodeError:
        raise SettingsError(
            f"bad setting: {key}{FILE_SUFFIX}: cannot read {path}: it is not UTF-8 text"
        ) from None
    return text.removesuffix("\n")


def load_settings(
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
    *,
    remember: bool = True,
) -> Settings:
    """Settings from the defaults, PAMIR_HOME/pamir.toml, PAMIR_* variables, `overrides`;
    a secret given as a file is read from it.

    The first settings a process reads for a data folder are remembered (`remembered`): the
    store of that folder, looked up by the folder alone (`store.store_for`), is theirs.
    `remember=False` reads them and nothing more (a process about to fork, such as
    gunicorn's master, must not lead its children to its own settings)."""
    env = dict(os.environ if environ is None else environ)
    root = home_from(env)
    if overrides and "home" in overrides:
        root = Path(overrides["home"]).resolve()
    from_file: dict[str, Any] = {}
    instance = root / INSTANCE_FILE
    if instance.exists():
        try:
            from_file = tomllib.loads(instance.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"{instance}: {error}") from None
    files = _files_named(from_file, instance, env, root)
    from_environment = _from_environment(env)
    values: dict[str, Any] = {**from_file, **from_environment}
    for key, (where, path) in files.items():
        # Which one was meant would be a guess, and the wrong guess a login that fails
        # far from its cause: refuse both.
        if key in from_environment or key in from_file:
            given = f"PAMIR_{key.upper()}" if key in from_environment else f"{key} in {instance}"
            raise SettingsError(
                f"bad setting: {key}: given both as a value ({given}) and as a file "
                f"({where}); give one of them"
            )
        values[key] = _read_secret(key, path)
    values.update(overrides or {})
    values["home"] = root
    try:
        settings = Settings.model_validate(values)
    except ValidationError as error:
        details = describe_validation(error)
        raise SettingsError(f"bad setting: {details}") from None
    if remember:
        _remembered.setdefault(settings.home, settings)
    return settings


_remembered: dict[Path, Settings] = {}


def remembered(home: Path) -> Settings | None:
    """The first settings this process read for the data folder `home` (`load_settings`)."""
    return _remembered.get(home) or _remembered.get(home.resolve())
