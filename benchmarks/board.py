"""The board drawing, the pages and the mails that show it: time and size.

    python benchmarks/board.py [--players N] [--seed S] [--moves M] [--repeat R] [--json]

Plays a game of random whole-turn moves through the real pipeline (a real Git repository
in a temporary PAMIR_HOME), then times, as the median of `--repeat` runs: drawing the
board of the last position (`board_svg` of the public view), the card faces of its market
and courts, and a full game page (GET /games/ID through the Flask application, which reads
the repository, renders every report and draws the board). It also gives the size of
board.svg and of the page. For mail: the board's SVG to an 800 px PNG with cairo, drawn
and written (the median of at most 10 runs: it is slower), the PNG's size, and the largest
report mail of the last move as the outbox holds it (`notify`, left in
outbox/pending; each player's report, picture and hand included). With `--json` the last line
is one JSON object of these figures (keys `board_ms`, `faces_ms`, `page_ms`, `png_ms`,
`board_bytes`, `page_bytes`, `png_bytes`, `mail_bytes`, `moves`).

Targets, on a quiet machine: the board under 10 ms, the page under 30 ms, board.svg under
40 KB, the PNG under 100 ms, every mail under 150 KB.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import court_faces, market_faces
from adjudicator.drawing.kept import forget_drawn_parts
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import pictures, report_mails
from adjudicator.web import create_app
from engine.game import legal_seat_actions
from engine.playout import NAMES

GAME = "bench"


def median_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def whole_turn(state: engine.State, rng: random.Random) -> tuple[str, str]:
    """One player's random decisions until someone else must decide: a move file."""
    state = state.copy()
    seat = legal_seat_actions(state)[0][0]
    lines = []
    while state.phase != "over":
        mine = [a for s, a in legal_seat_actions(state) if s == seat]
        if not mine:
            break
        action = rng.choice(mine)
        lines.append(engine.format_action(action))
        state = engine.apply(state, seat, action)
    return state.players[seat].name, "\n".join(lines) + "\n"


def play_game(
    home: Path, players: int, seed: int, moves: int
) -> tuple[GameRepo, int, Adjudication | None]:
    names = list(NAMES[:players])
    repo = create_game(
        home / "games" / GAME,
        [(n, f"{n}@example.org") for n in names],
        home=home,
        secret="benchmark-secret",
    )
    rng = random.Random(seed)
    played, last = 0, None
    while played < moves:
        state = position(snapshot(repo), home)
        if state.phase == "over":
            break
        player, text = whole_turn(state, rng)
        last = submit(repo, player, text, home=home)
        played += 1
    return repo, played, last


def largest_mail(home: Path, repo: GameRepo, last: Adjudication | None) -> int:
    """Bytes of the largest report mail of the last move, as the outbox writes it."""
    if last is None:
        return 0
    settings = Settings(home=home)
    paths = report_mails.notify(settings, repo, [last], deliver_now=False)  # left in pending/
    return max(p.stat().st_size for p in paths)


def measure(players: int, seed: int, moves: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        repo, played, last = play_game(home, players, seed, moves)
        view = engine.view(position(snapshot(repo), home))
        drawn = view
        mail_bytes = largest_mail(home, repo, last)
        repo.repo.close()
        board = board_svg(drawn)
        png = pictures.cairo_png(board, 800)
        slow = min(repeat, 10)

        def whole_board() -> str:
            # Drawn whole, as for a new position: the parts a board keeps between
            # positions (its regions, tracks) are forgotten first.
            forget_drawn_parts()
            return board_svg(drawn)

        def faces() -> None:
            market_faces(view)
            for player in view["players"]:
                court_faces(player)

        client = create_app({"home": home}).test_client()
        page = client.get(f"/games/{GAME}").get_data()
        assert b'id="region-kabul"' in page
        return {
            "board_ms": round(median_ms(whole_board, repeat), 2),
            "faces_ms": round(median_ms(faces, repeat), 2),
            "page_ms": round(median_ms(lambda: client.get(f"/games/{GAME}"), repeat), 2),
            "png_ms": round(median_ms(lambda: pictures.cairo_png(board, 800), slow), 2),
            "board_bytes": len(board.encode()),
            "page_bytes": len(page),
            "png_bytes": len(png),
            "mail_bytes": mail_bytes,
            "moves": played,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.players, args.seed, args.moves, args.repeat)
    print(f"game: {args.players} players, {figures['moves']} moves (seed {args.seed})")
    print(f"board_svg of the public view: {figures['board_ms']:.2f} ms (target < 10 ms)")
    print(f"card faces of market and courts: {figures['faces_ms']:.2f} ms")
    print(f"GET /games/{GAME}: {figures['page_ms']:.2f} ms (target < 30 ms)")
    print(f"board.svg: {figures['board_bytes']} bytes (target < 40 KB)")
    print(f"game page: {figures['page_bytes']} bytes")
    print(f"board PNG, 800 px, drawn with cairo: {figures['png_ms']:.2f} ms (target < 100 ms)")
    print(f"board PNG: {figures['png_bytes']} bytes")
    print(f"largest report mail: {figures['mail_bytes']} bytes (target < 150 KB)")
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
