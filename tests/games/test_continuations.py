"""A move that meets another player's decision is played up to it, and the rest is the
mover's continuation, played once the other has decided (docs/decisions.md#continuations).

Real games through the real pipeline: a random game is played until its decider has an
action that hands a bribe to another player (a ruler, or a hostage card's holder); the
decider then submits that action and the rest of their turn in one move file."""

from __future__ import annotations

from pathlib import Path

import pytest
from bribes import rest_of_turn, to_a_bribe
from gitgame import THREE, create, isolate, opened

import engine
from adjudicator.games import continuations
from adjudicator.games.moves import apply_submission
from adjudicator.games.outputs import private_section_name
from adjudicator.games.pipeline import position, submit
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.home.store import store_for


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate(tmp_path, monkeypatch)


def test_the_lines_after_another_players_decision_wait_and_are_played_after_it(
    home: Path, tmp_path: Path
) -> None:
    create(tmp_path / "g", THREE)
    with opened(tmp_path / "g") as repo:
        mover, action, ruler = to_a_bribe(repo, home)
        before = snapshot(repo).adjudicated
        rest = rest_of_turn(position(snapshot(repo), home), mover, action, "demand 0")
        text = "".join(f"{line}\n" for line in ["policy pay 99", action, *rest])

        done = submit(repo, mover, text, home=home)

        # The move holds only the lines it played; the rest waits, outside the repository.
        assert done.number == before + 1
        recorded = repo.read(f"moves/{done.number:04d}-{mover}.txt") or ""
        assert recorded.splitlines() == ["policy pay 99", action]
        kept = continuations.kept(home, "g")[mover]
        assert kept.lines == rest and kept.waits_for == [ruler] and kept.after == done.number
        assert "pass" not in str(repo.repo.commit(done.commit).message)
        own = store_for(home).read(private_section_name("g", done.number, mover)) or b""
        assert b"The rest of your move (`" + rest[0].encode() in own
        assert b"waits for " + ruler.encode() in own
        theirs = store_for(home).read(private_section_name("g", done.number, ruler)) or b""
        assert b"The rest of your move" not in theirs  # the ruler never learns what waits

        answer = submit(repo, ruler, "demand 0\n", home=home)

        # The ruler's answer, then the mover's continuation, as the adjudicator's commit.
        assert [f.number for f in answer.followed] == [answer.number + 1]
        follow = answer.followed[0]
        text = repo.read(f"moves/{follow.number:04d}-{mover}.txt") or ""
        assert text.splitlines() == [
            f"# note: the rest of move {done.number} by {mover}, kept until {ruler} decided",
            *rest,
        ]
        message = repo.repo.commit(follow.commit).message
        assert f"for {mover} (continuation of move {done.number})" in str(message)
        assert continuations.kept(home, "g") == {}
        state = position(snapshot(repo), home)
        assert state.active != state.seat(mover)  # the pass ended the mover's turn
        assert verify(repo, home).ok


def test_a_line_for_after_the_authors_turn_is_still_refused(home: Path, tmp_path: Path) -> None:
    """Only a decision the author's own lines handed to another in the author's own turn
    makes a continuation: a line meant for the next player's turn refuses the move."""
    create(tmp_path / "g", THREE)
    with opened(tmp_path / "g") as repo:
        mover, _, _ = to_a_bribe(repo, home)
        state = position(snapshot(repo), home)
        assert engine.pending(state).kind == "turn"  # type: ignore[union-attr]
        with pytest.raises(engine.MoveError) as refused:
            apply_submission(state, mover, "pass\npass\n")
        assert (refused.value.code, refused.value.line) == ("not-your-decision", 2)


def test_a_line_that_is_no_action_is_refused_at_once_with_its_number(
    home: Path, tmp_path: Path
) -> None:
    create(tmp_path / "g", THREE)
    with opened(tmp_path / "g") as repo:
        mover, action, _ = to_a_bribe(repo, home)
        state = position(snapshot(repo), home)
        with pytest.raises(engine.MoveError) as refused:
            apply_submission(state, mover, f"{action}\nfly to the moon\n")
        assert refused.value.line == 2
        assert continuations.kept(home, "g") == {}


def test_a_line_in_another_players_name_is_refused_at_once_with_its_number(
    home: Path, tmp_path: Path
) -> None:
    """A move file holds only its author's decisions: a line in the ruler's name in the
    rest of the mover's turn is refused now, not once the ruler has answered."""
    create(tmp_path / "g", THREE)
    with opened(tmp_path / "g") as repo:
        mover, action, ruler = to_a_bribe(repo, home)
        state = position(snapshot(repo), home)
        with pytest.raises(engine.MoveError) as refused:
            apply_submission(state, mover, f"{action}\npass\n{ruler}: demand 0\n")
        assert refused.value.line == 3 and refused.value.code == "not-your-line"
        assert continuations.kept(home, "g") == {}


def test_a_continuation_no_longer_legal_is_dropped_and_its_author_told_why(
    home: Path, tmp_path: Path
) -> None:
    """The ruler demands a bribe; the mover had no pay policy, so the pending decision is
    theirs (pay or refuse) and a kept `pass` is not an answer to it."""
    create(tmp_path / "g", THREE)
    with opened(tmp_path / "g") as repo:
        mover, action, ruler = to_a_bribe(repo, home)
        state = position(snapshot(repo), home)
        frame = engine.apply(state, mover, engine.read_action(action)[0]).stack[-1]
        assert frame["kind"] == "bribe"
        amount = frame["amount"]
        if amount == 0:
            pytest.skip("a bribe of nothing asks no payment")
        submit(repo, mover, f"{action}\npass\n", home=home)

        answer = submit(repo, ruler, f"demand {amount}\n", home=home)

        assert answer.followed == []  # nothing played for the mover
        assert continuations.kept(home, "g") == {}
        own = store_for(home).read(private_section_name("g", answer.number, mover)) or b""
        assert b"could not be played" in own and b"reply with your actions" in own
        decision = engine.pending(position(snapshot(repo), home))
        assert decision is not None and decision.kind == "pay"


def test_a_new_move_of_the_author_replaces_a_waiting_continuation(
    home: Path, tmp_path: Path
) -> None:
    create(tmp_path / "g", THREE)
    with opened(tmp_path / "g") as repo:
        mover, action, _ = to_a_bribe(repo, home)
        submit(repo, mover, f"{action}\npass\n", home=home)
        assert mover in continuations.kept(home, "g")
        submit(repo, mover, "policy pay 1\n", home=home)  # a policy: a move of the author
        assert continuations.kept(home, "g") == {}
