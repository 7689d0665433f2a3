"""The secret settings: never shown with the settings, and readable from files.

An operator's service manager hands secrets over as files (systemd's LoadCredential=, in
$CREDENTIALS_DIRECTORY), named by PAMIR_KEY_FILE or by `KEY_file` in the instance file
(docs/configuration.md#secrets-from-files). The files here are real files, the commands
the real `pamir` script, the SMTP server and the web service real servers.
"""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest
from gitgame import PAMIR
from liveserver import fetch, github_headers, serving
from mailserver import Authenticator, mail_server, settings_for

from adjudicator.home.settings import SECRET_SETTINGS, SettingsError, load_settings
from adjudicator.mail import smtp
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home")

KEY = base64.b64encode(b"pamir-secret-settings-test-key!!").decode()  # 32 bytes
VALUES = {
    "smtp_password": "smtp-password-4f1c",
    "github_secret": "github-secret-8e2d",
    "gitea_secret": "gitea-secret-77a0",
    "secret_key": KEY,
}


def secret_file(folder: Path, key: str, content: str) -> Path:
    path = folder / key
    path.write_text(content, encoding="utf-8")
    return path


def test_the_secret_settings_are_those_typed_secret() -> None:
    assert set(SECRET_SETTINGS) == set(VALUES)


def test_no_secret_is_shown_with_the_settings(home: Path) -> None:
    settings = load_settings({"home": home, **VALUES})
    for shown in (repr(settings), str(settings), settings.model_dump_json()):
        for key, value in VALUES.items():
            assert value not in shown, key
    assert {key: getattr(settings, key).get_secret_value() for key in VALUES} == VALUES


def test_the_database_password_is_not_shown_with_the_settings(home: Path) -> None:
    url = "postgresql://pamir:hunter2-db@127.0.0.1:5432/pamir"
    settings = load_settings({"home": home, "database_url": url})
    assert settings.database_url == url
    assert "hunter2-db" not in repr(settings) and "hunter2-db" not in str(settings)


@pytest.mark.parametrize("key", sorted(VALUES))
def test_a_secret_is_read_from_the_file_its_variable_names(tmp_path: Path, key: str) -> None:
    path = secret_file(tmp_path, key, VALUES[key] + "\n")  # as `echo` writes it
    settings = load_settings(environ={**os.environ, f"PAMIR_{key.upper()}_FILE": str(path)})
    assert getattr(settings, key).get_secret_value() == VALUES[key]
    assert VALUES[key] not in repr(settings)


def test_only_one_trailing_newline_is_taken_off(tmp_path: Path) -> None:
    path = secret_file(tmp_path, "pw", " pass\r\nword \n\n")
    settings = load_settings(environ={**os.environ, "PAMIR_SMTP_PASSWORD_FILE": str(path)})
    assert settings.smtp_password is not None
    assert settings.smtp_password.get_secret_value() == " pass\r\nword \n"


def test_the_instance_file_names_a_file_relative_to_the_home(home: Path) -> None:
    (home / "credentials").mkdir()
    secret_file(home / "credentials", "smtp", "from-the-instance-file\n")
    (home / "pamir.toml").write_text('smtp_password_file = "credentials/smtp"\n', encoding="utf-8")
    settings = load_settings()
    assert settings.smtp_password is not None
    assert settings.smtp_password.get_secret_value() == "from-the-instance-file"


def test_the_variable_names_the_file_over_the_instance_file(home: Path, tmp_path: Path) -> None:
    secret_file(home, "old", "old")
    (home / "pamir.toml").write_text('gitea_secret_file = "old"\n', encoding="utf-8")
    new = secret_file(tmp_path, "new", "new")
    settings = load_settings(environ={**os.environ, "PAMIR_GITEA_SECRET_FILE": str(new)})
    assert settings.gitea_secret is not None
    assert settings.gitea_secret.get_secret_value() == "new"


def unreadable(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A secret file that cannot be read, and the reason the system gives."""
    if kind == "missing":
        return tmp_path / "nowhere" / "smtp_password", "No such file or directory"
    if kind == "dangling link":
        link = tmp_path / "smtp_password"
        link.symlink_to(tmp_path / "gone")
        return link, "No such file or directory"
    if kind == "a folder":
        return tmp_path, "Is a directory"
    if os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode")
    path = secret_file(tmp_path, "smtp_password", "hidden")
    path.chmod(0)
    return path, "Permission denied"


@pytest.mark.parametrize("kind", ["missing", "dangling link", "a folder", "mode 000"])
def test_a_secret_file_that_cannot_be_read_is_named(tmp_path: Path, kind: str) -> None:
    path, reason = unreadable(tmp_path, kind)
    with pytest.raises(SettingsError) as raised:
        load_settings(environ={**os.environ, "PAMIR_SMTP_PASSWORD_FILE": str(path)})
    assert str(raised.value) == f"bad setting: smtp_password_file: cannot read {path}: {reason}"


def test_a_secret_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "github_secret"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(SettingsError, match=f"github_secret_file: cannot read {path}: .*UTF-8"):
        load_settings(environ={**os.environ, "PAMIR_GITHUB_SECRET_FILE": str(path)})


def test_a_secret_file_path_must_be_text(home: Path) -> None:
    (home / "pamir.toml").write_text("github_secret_file = 3\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="github_secret_file: a file's path is needed"):
        load_settings()


@pytest.mark.parametrize(
    ("value_in", "file_in"),
    [("variable", "variable"), ("instance", "variable"), ("variable", "instance")],
)
def test_a_value_and_a_file_for_one_secret_are_refused(
    home: Path, tmp_path: Path, value_in: str, file_in: str
) -> None:
    path = secret_file(tmp_path, "github_secret", "from-the-file")
    env = dict(os.environ)
    lines = []
    if value_in == "variable":
        env["PAMIR_GITHUB_SECRET"] = "from-the-value"
    else:
        lines.append('github_secret = "from-the-value"')
    if file_in == "variable":
        env["PAMIR_GITHUB_SECRET_FILE"] = str(path)
    else:
        lines.append(f'github_secret_file = "{path}"')
    (home / "pamir.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"github_secret: given both as a value .* as a file"):
        load_settings(environ=env)


def test_only_secret_settings_come_from_files(home: Path, tmp_path: Path) -> None:
    path = secret_file(tmp_path, "host", "smtp.example.org")
    env = {**os.environ, "PAMIR_SMTP_HOST_FILE": str(path)}
    assert load_settings(environ=env).smtp_host is None  # an unknown variable, ignored
    (home / "pamir.toml").write_text(f'smtp_host_file = "{path}"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match="smtp_host_file"):
        load_settings()


@pytest.mark.parametrize(
    ("command", "prefix"), [(["serve", "--port", "0"], "pamir serve: "), (["scheduler"], "")]
)
def test_the_service_does_not_start_without_its_secret_file(
    tmp_path: Path, command: list[str], prefix: str
) -> None:
    missing = tmp_path / "credentials" / "smtp_password"
    env = {**os.environ, "PAMIR_SMTP_PASSWORD_FILE": str(missing)}
    # Started with the file ignored, either would run until stopped: the timeout says so.
    done = subprocess.run(
        [str(PAMIR), *command], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"{prefix}bad setting: smtp_password_file: cannot read {missing}: "
        "No such file or directory\n"
    )


def test_the_smtp_password_from_a_file_logs_in(home: Path, tmp_path: Path) -> None:
    path = secret_file(tmp_path, "smtp_password", "s3cret-from-a-file\n")
    authenticator = Authenticator("pamir", "s3cret-from-a-file")
    with mail_server(authenticator=authenticator, auth_require_tls=False) as server:
        env = {**os.environ, "PAMIR_SMTP_PASSWORD_FILE": str(path)}
        loaded = load_settings(environ=env)
        settings = settings_for(
            home, server.port, smtp_user="pamir", smtp_password=loaded.smtp_password
        )
        smtp.connect(settings).quit()
    assert authenticator.logins == ["pamir"]


def test_the_webhook_secret_from_a_file_checks_deliveries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = secret_file(tmp_path, "github_secret", "hook-secret-from-a-file\n")
    monkeypatch.setenv("PAMIR_GITHUB_SECRET_FILE", str(path))
    body = b"{}"
    with serving(create_app()) as site:
        right = github_headers("hook-secret-from-a-file", body, "d-1", event="ping")
        assert fetch(f"{site}/webhooks/github", body, right).status == 202
        wrong = github_headers("hook-secret-from-a-file\n", body, "d-2", event="ping")
        assert fetch(f"{site}/webhooks/github", body, wrong).status == 403
