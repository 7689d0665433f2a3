"""Signed commits (docs/signing.md): players sign pushed moves, the adjudicator signs its own.

Real keys made by `ssh-keygen`, real `git commit -S` with `gpg.format = ssh`, pushes to a
bare game through the installed hooks, and `pamir verify` and `git verify-commit` run as
a player would run them.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from gitgame import (
    SECRET,
    create,
    current_home,
    decider,
    full_state,
    git,
    head,
    opened,
    pamir,
    pamir_ok,
    player_email,
    push,
    run,
    show,
)

from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import adjudicate_pending, submit
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.games.verify import verify
from adjudicator.hooks import receive

pytestmark = pytest.mark.usefixtures("home")


# -- Helpers (the forge's tests use them too) --------------------------------------------------


def make_key(folder: Path, name: str) -> Path:
    """A fresh ed25519 key pair; returns the private key (the public one: + .pub)."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / name
    done = run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)])
    assert done.returncode == 0, done.stderr
    return key


def public(key: Path) -> str:
    return key.with_name(f"{key.name}.pub").read_text(encoding="utf-8").strip()


def commit_move(
    clone: Path, number: int, player: str, text: str, *, key: Path | None = None
) -> str:
    """Commit a move file as `player` in a clone, signed with `key` (unsigned: None)."""
    name = f"moves/{number:04d}-{player}.txt"
    (clone / "moves").mkdir(exist_ok=True)
    (clone / name).write_text(text, encoding="utf-8")
    git(clone, "add", name)
    author = f"{player} <{player_email(clone, player)}>"
    signing = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={key}"] if key else []
    sign = ["-S"] if key else []
    git(
        clone, *signing, "commit", "-q", *sign, "--author", author, "-m", f"{player}: move {number}"
    )
    return head(clone)


def tamper_message(repo: Path, rev: str = "HEAD") -> str:
    """Rewrite a commit object with another message, keeping its signature header; move
    the current branch to it. Returns the new commit."""
    raw = git(repo, "cat-file", "commit", rev)
    changed = raw.replace("move", "MOVE", 1) if "move" in raw.split("\n\n", 1)[1] else raw + "!"
    assert "gpgsig" in changed
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=changed.encode(),
        capture_output=True,
        check=True,
    )
    made = done.stdout.decode().strip()
    git(repo, "update-ref", "HEAD", made)
    return made


def next_move(game: Path) -> tuple[int, str, str]:
    """The next move number, who must decide, and a legal move file for them."""
    player, options = decider(full_state(game))
    with opened(game) as repo:
        number = snapshot(repo).next_number
    return number, player, options[0] + "\n"


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "player-keys"
    return {name: make_key(folder, name) for name in ("alice", "bob", "mallory")}


def signed_bare(tmp_path: Path, keys: dict[str, Path], *, require: bool | None = None) -> Path:
    """A bare game of alice and bob, each with a signing key, the hooks installed."""
    path = tmp_path / "game.git"
    create_game(
        path,
        [("alice", "alice@example.org"), ("bob", "bob@example.org")],
        home=current_home(),
        secret=SECRET,
        bare=True,
        signing_keys={"alice": public(keys["alice"]), "bob": public(keys["bob"])},
        require_signatures=require,
    ).repo.close()
    receive.install(path, current_home())
    return path


def clone_of(bare: Path, name: str) -> Path:
    target = bare.parent / name
    if not target.exists():
        git(bare.parent, "clone", "-q", str(bare), str(target))
    else:
        git(target, "pull", "-q", "--ff-only", "origin", "main")
    return target


# -- Through the pre-receive hook --------------------------------------------------------------


def test_a_move_signed_by_its_player_is_accepted_and_adjudicated(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    bare = signed_bare(tmp_path, keys)
    game = tomllib.loads(show(bare, "main", "game.toml"))
    assert game["require_signatures"] is True  # every player has a key
    number, player, text = next_move(bare)
    clone = clone_of(bare, player)
    commit_move(clone, number, player, text, key=keys[player])
    done = push(clone)
    assert done.returncode == 0, done.stderr
    assert f"move {number} adjudicated" in done.stderr
    listing = pamir_ok("verify", bare, "--signers")
    lines = listing.splitlines()
    assert any(f"player {player}" in line and f"{player}: move {number}" in line for line in lines)
    assert sum("the adjudicator" in line for line in lines) == 2  # the new game, the move
    assert "unsigned" not in listing


@pytest.mark.parametrize(
    ("signer", "said"),
    [
        (None, "is not signed: this game requires"),
        ("other", "is signed with {other}'s key, not {player}'s"),
        ("mallory", "is signed with a key that is not {player}'s (SHA256:"),
    ],
)
def test_a_required_signature_missing_or_by_another_key_refuses_the_push(
    tmp_path: Path, keys: dict[str, Path], signer: str | None, said: str
) -> None:
    bare = signed_bare(tmp_path, keys)
    before = head(bare)
    number, player, text = next_move(bare)
    other = "bob" if player == "alice" else "alice"
    key = None if signer is None else keys[other if signer == "other" else signer]
    clone = clone_of(bare, player)
    commit_move(clone, number, player, text, key=key)
    done = push(clone)
    assert done.returncode != 0
    assert "push refused" in done.stderr
    assert said.format(other=other, player=player) in done.stderr
    assert head(bare) == before


@pytest.mark.parametrize("require", [True, False])
def test_a_tampered_signed_commit_is_always_refused(
    tmp_path: Path, keys: dict[str, Path], require: bool
) -> None:
    """Changing a signed commit (here its message) breaks its signature: refused whether
    or not the game requires signatures."""
    bare = signed_bare(tmp_path, keys, require=require)
    before = head(bare)
    number, player, text = next_move(bare)
    clone = clone_of(bare, player)
    commit_move(clone, number, player, text, key=keys[player])
    tamper_message(clone)
    done = push(clone)
    assert done.returncode != 0
    assert f"a BAD signature by the key of player {player}" in done.stderr
    assert "does not verify" in done.stderr
    assert head(bare) == before


def test_without_required_signatures_unsigned_and_unknown_keys_pass_but_impostors_do_not(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    bare = signed_bare(tmp_path, keys, require=False)
    assert "require_signatures" not in tomllib.loads(show(bare, "main", "game.toml"))
    for signer in (None, "mallory"):
        number, player, text = next_move(bare)
        clone = clone_of(bare, player)
        commit_move(clone, number, player, text, key=None if signer is None else keys[signer])
        done = push(clone)
        assert done.returncode == 0, done.stderr
    number, player, text = next_move(bare)
    other = "bob" if player == "alice" else "alice"
    clone = clone_of(bare, player)
    commit_move(clone, number, player, text, key=keys[other])
    done = push(clone)
    assert done.returncode != 0
    assert f"signed with {other}'s key, not {player}'s" in done.stderr
    listing = pamir_ok("verify", bare, "--signers")
    assert "signed by a key the game does not know (SHA256:" in listing
    assert "unsigned" in listing


def test_a_player_cannot_change_game_toml_even_in_a_signed_commit(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    bare = signed_bare(tmp_path, keys)
    clone = clone_of(bare, "alice")
    toml = (clone / "game.toml").read_text(encoding="utf-8")
    (clone / "game.toml").write_text(toml.replace("require_signatures = true\n", ""), "utf-8")
    git(clone, "add", "game.toml")
    signing = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={keys['alice']}"]
    git(clone, *signing, "commit", "-q", "-S", "--author", "alice <alice@example.org>", "-m", "x")
    done = push(clone)
    assert done.returncode != 0
    assert "game.toml: a push may only add move files" in done.stderr


# -- pamir verify ------------------------------------------------------------------------------


def worktree_game(tmp_path: Path, keys: dict[str, Path]) -> Path:
    path = tmp_path / "game"
    create_game(
        path,
        [("alice", "alice@example.org"), ("bob", "bob@example.org")],
        home=current_home(),
        secret=SECRET,
        signing_keys={"alice": public(keys["alice"]), "bob": public(keys["bob"])},
    ).repo.close()
    return path


def test_verify_names_a_player_commit_signed_with_another_players_key(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    """A commit written straight into the repository, past any hook."""
    game = worktree_game(tmp_path, keys)
    number, player, text = next_move(game)
    other = "bob" if player == "alice" else "alice"
    made = commit_move(game, number, player, text, key=keys[other])
    done = pamir("verify", game)
    assert done.returncode == 3, done.stdout
    assert f"commit {made[:10]}" in done.stderr
    assert f"signed with {other}'s key, not {player}'s" in done.stderr


def test_verify_names_a_tampered_adjudicator_commit(tmp_path: Path, keys: dict[str, Path]) -> None:
    game = worktree_game(tmp_path, keys)
    _, player, text = next_move(game)
    with opened(game) as repo:
        submit(repo, player, text, home=current_home())
    made = tamper_message(game)
    done = pamir("verify", game)
    assert done.returncode == 3, done.stdout
    assert f"commit {made[:10]}" in done.stderr
    assert "by the adjudicator: its signature (a BAD signature" in done.stderr


def test_verify_refuses_an_unsigned_commit_made_as_the_adjudicator(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    game = worktree_game(tmp_path, keys)
    identity = {
        "GIT_COMMITTER_NAME": "pamir adjudicator",
        "GIT_COMMITTER_EMAIL": "adjudicator@pamir.invalid",
    }
    done = run(["git", "commit", "-q", "--allow-empty", "-m", "Nothing"], game, env=identity)
    assert done.returncode == 0, done.stderr
    done = pamir("verify", game)
    assert done.returncode == 3
    assert f"commit {head(game)[:10]} (Nothing) is not the service's" in done.stderr
    assert "claims the adjudicator's identity" in done.stderr and "it is unsigned" in done.stderr


def test_verify_says_a_move_pushed_as_the_adjudicator_is_not_the_services(
    tmp_path: Path, keys: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What hooks let in before they refused the adjudicator's identity: a move file
    committed as the adjudicator, signed by its player, then adjudicated. `verify` cannot
    undo it, but says whose it is, apart from an adjudicator's commit changed after the
    service signed it (a BAD signature, above)."""
    game = worktree_game(tmp_path, keys)
    number, player, text = next_move(game)
    monkeypatch.setenv("GIT_COMMITTER_NAME", "pamir adjudicator")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "adjudicator@pamir.invalid")
    made = commit_move(game, number, player, text, key=keys[player])
    with opened(game) as repo:
        (adjudicated,) = adjudicate_pending(repo, current_home())
    assert adjudicated.number == number
    done = pamir("verify", game)
    assert done.returncode == 3
    assert f"commit {made[:10]} ({player}: move {number}) is not the service's" in done.stderr
    assert f"it is signed by player {player}, not signed by the adjudicator's" in done.stderr
    assert "BAD" not in done.stderr


def test_a_restore_trailer_in_a_players_commit_is_not_believed(tmp_path: Path) -> None:
    """Only the service's own restore commits say which pushed commits it put back: a
    player's move naming the adjudicator's last commit changes nothing in `verify`."""
    game = create(tmp_path / "game")
    number, player, text = next_move(game)
    with opened(game) as repo:
        submit(repo, player, text, home=current_home())
    service = head(game)
    number, player, text = next_move(game)
    (game / "moves" / f"{number:04d}-{player}.txt").write_text(text, encoding="utf-8")
    git(game, "add", "moves")
    author = f"{player} <{player_email(game, player)}>"
    message = f"my move\n\nPamir-Restore: {service}\n"
    git(game, "commit", "-q", "--author", author, "-m", message)
    assert "ok:" in pamir_ok("verify", game)


def test_a_game_from_before_signing_verifies_with_unsigned_commits(tmp_path: Path) -> None:
    """Its first commit records no adjudicator key: nothing is signed, and that is fine."""
    signed = create(tmp_path / "new")
    old = tmp_path / "old"
    old.mkdir()
    git(old, "init", "-q", "--initial-branch=main")
    files: dict[str, bytes | None] = {
        path: show(signed, "main", path).encode()
        for path in git(signed, "ls-tree", "-r", "--name-only", "main").split()
    }
    toml = show(signed, "main", "game.toml")
    files["game.toml"] = toml[: toml.index("[adjudicator]")].encode()
    message = git(signed, "log", "-1", "--format=%B", "main")
    with opened(old) as repo:
        repo.commit(files, message, parent=None)
        _, player, text = next_move(old)
        submit(repo, player, text, home=current_home())
    assert "gpgsig" not in git(old, "cat-file", "commit", "main")
    listing = pamir_ok("verify", old, "--signers")
    assert listing.count("unsigned (the game predates signed commits)") == 2
    assert listing.splitlines()[-1].startswith("ok: 2 commits")


# -- The adjudicator's key ---------------------------------------------------------------------


def test_the_adjudicator_key_is_made_once_private_and_recorded(tmp_path: Path) -> None:
    first = create(tmp_path / "one")
    second = create(tmp_path / "two", secret="b" * 64)
    key = current_home() / "keys" / "adjudicator" / "id_ed25519"
    assert key.stat().st_mode & 0o777 == 0o600
    line = public(key)
    for game in (first, second):
        recorded = tomllib.loads(show(game, "main", "game.toml"))["adjudicator"]["signing_key"]
        assert recorded == line
    assert list((current_home() / "keys").iterdir()) == [key.parent]


def test_git_verify_commit_checks_the_adjudicators_commits(tmp_path: Path) -> None:
    """As docs/signing.md tells anyone with a clone to do."""
    game = create(tmp_path / "game")
    _, player, text = next_move(game)
    with opened(game) as repo:
        submit(repo, player, text, home=current_home())
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(pamir_ok("allowed-signers", game), encoding="utf-8")
    assert allowed.read_text(encoding="utf-8").startswith('pamir@adjudicator namespaces="git" ')
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(game), str(clone))
    git(clone, "config", "gpg.ssh.allowedSignersFile", str(allowed))
    for rev in ("main", "main~1"):
        done = run(["git", "verify-commit", rev], clone)
        assert done.returncode == 0, done.stderr
        assert 'Good "git" signature for pamir@adjudicator' in done.stderr
    tampered = tamper_message(clone)
    done = run(["git", "verify-commit", tampered], clone)
    assert done.returncode != 0


def test_processes_racing_to_make_the_key_share_one(tmp_path: Path) -> None:
    home = current_home()
    code = (
        "import sys; from pathlib import Path; "
        "from adjudicator.home.keys import adjudicator_key, public_key_line; "
        "print(public_key_line(adjudicator_key(Path(sys.argv[1]))))"
    )
    racers = [
        subprocess.Popen([sys.executable, "-c", code, str(home)], stdout=subprocess.PIPE)
        for _ in range(4)
    ]
    lines = {racer.communicate(timeout=60)[0].decode().strip() for racer in racers}
    assert all(racer.returncode == 0 for racer in racers)
    assert len(lines) == 1
    assert lines == {public(home / "keys" / "adjudicator" / "id_ed25519")}
    assert sorted(p.name for p in (home / "keys").iterdir()) == ["adjudicator"]


def test_a_game_that_records_a_key_is_never_committed_unsigned(tmp_path: Path) -> None:
    game = create(tmp_path / "game")
    git(game, "config", "--unset", "pamir.signingKey")
    before = head(game)
    _, player, text = next_move(game)
    with opened(game) as repo, pytest.raises(GameError, match="names no signing key"):
        submit(repo, player, text, home=current_home())
    assert head(game) == before


# -- The host's commands -----------------------------------------------------------------------


def test_new_with_keys_requires_signatures_unless_told_not_to(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    players = ["--player", "alice:a@example.org", "--player", "bob:b@example.org"]
    with_keys = [
        "--signing-key",
        f"alice={keys['alice']}.pub",
        "--signing-key",
        f"bob={keys['bob']}.pub",
    ]
    out = pamir_ok("new", tmp_path / "g1", *players, *with_keys)
    assert "pushed moves must be signed" in out
    game = tomllib.loads(show(tmp_path / "g1", "main", "game.toml"))
    assert game["require_signatures"] is True
    assert game["players"][0]["signing_key"] == public(keys["alice"])
    pamir_ok("new", tmp_path / "g2", *players, *with_keys, "--no-require-signatures")
    game = tomllib.loads(show(tmp_path / "g2", "main", "game.toml"))
    assert "require_signatures" not in game
    pamir_ok("new", tmp_path / "g3", *players, *with_keys[:2])  # bob has none: not required
    assert "require_signatures" not in tomllib.loads(show(tmp_path / "g3", "main", "game.toml"))


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("ssh-dss AAAAB3NzaC1kc3MAAACBAP", "key type 'ssh-dss' is not one of"),
        ("ssh-ed25519 not*base64", "not base64"),
        ("ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAABAQ==", "the key says it is ssh-ed25519"),
        ("", "write the public key line"),
    ],
)
def test_a_bad_key_is_refused_with_what_is_wrong(tmp_path: Path, line: str, said: str) -> None:
    key = tmp_path / "bad.pub"
    key.write_text(line + "\n", encoding="utf-8")
    players = ["--player", "alice:a@example.org", "--player", "bob:b@example.org"]
    done = pamir("new", tmp_path / "g", *players, "--signing-key", f"alice={key}")
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "g").exists()


def test_the_host_adds_keys_and_requires_signatures(tmp_path: Path, keys: dict[str, Path]) -> None:
    game = create(tmp_path / "game")
    done = pamir("require-signatures", game, "on")
    assert done.returncode == 2
    assert "alice, bob has no signing_key" in done.stderr
    out = pamir_ok("signing-key", game, "alice", f"{keys['alice']}.pub")
    assert "alice signs with the new key" in out
    done = pamir("signing-key", game, "bob", f"{keys['alice']}.pub")
    assert done.returncode == 2
    assert "alice and bob have the same signing key" in done.stderr
    pamir_ok("signing-key", game, "bob", f"{keys['bob']}.pub")
    pamir_ok("require-signatures", game, "on")
    toml = tomllib.loads(show(game, "main", "game.toml"))
    assert toml["require_signatures"] is True
    assert [p["signing_key"] for p in toml["players"]] == [
        public(keys["alice"]),
        public(keys["bob"]),
    ]
    assert git(game, "log", "-1", "--format=%s").strip() == "Signatures required: on"
    signers = pamir_ok("allowed-signers", game).splitlines()
    assert signers[1:] == [
        f'alice namespaces="git" {" ".join(public(keys["alice"]).split()[:2])}',
        f'bob namespaces="git" {" ".join(public(keys["bob"]).split()[:2])}',
    ]
    with opened(game) as repo:
        result = verify(repo, current_home())
    assert result.ok, result.divergence
    assert all(s.signer == "the adjudicator" for s in result.signers)
