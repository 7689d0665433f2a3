"""The board's picture drawn with cairo directly (adjudicator/drawing/raster.py): the same
picture CairoSVG draws of the same SVG, for every board the drawing makes, and CairoSVG
for any SVG outside what it knows."""

from __future__ import annotations

import random
import sys
import zlib
from typing import Any

import pytest
from mailserver import needs_cairo

import engine
from adjudicator.drawing import raster
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.svg import text
from adjudicator.home.translations import Words
from adjudicator.mail import pictures
from engine.game import legal_seat_actions


def cairosvg_surface(svg_text: str, width: int) -> Any:
    import cairosvg.parser
    import cairosvg.surface

    tree = cairosvg.parser.Tree(bytestring=svg_text.encode("utf-8"))
    return cairosvg.surface.PNGSurface(tree, None, 96, output_width=width).cairo


def differing(one: Any, other: Any) -> tuple[float, float]:
    """The share of pixels that differ, and the mean difference of a colour channel over
    the whole picture (0-255)."""
    a, b = bytes(one.get_data()), bytes(other.get_data())
    assert len(a) == len(b)
    pixels = len(a) // 4
    changed = sum(1 for i in range(0, len(a), 4) if a[i : i + 4] != b[i : i + 4])
    mean = sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(a)
    return changed / pixels, mean


def played(players: int, seed: int, steps: int, wakhan: bool = False) -> engine.State:
    names = ["alice", "Bob_the.Great-2", "carol", "dave", "erin"][:players]
    state = engine.new_game(names, seed, {"wakhan": True} if wakhan else None)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == "over":
            break
        seat, action = rng.choice(legal_seat_actions(state))
        state = engine.apply(state, seat, action)
    return state


def boards() -> list[tuple[str, str]]:
    """Boards of a new game and of games some way in (Wakhan's included), in both
    languages."""
    found = []
    for players, seed, steps, wakhan in (
        (2, 3, 0, False),
        (4, 5, 150, False),
        (5, 11, 400, False),
        (1, 8, 200, True),
    ):
        state = played(players, seed, steps, wakhan)
        for language in ("en", "pl"):
            svg_text = board_svg(engine.view(state), Words(language))
            found.append((f"{players} players, {steps} steps, {language}", svg_text))
    return found


# How far apart the two drawings may be, by width: the share of pixels that differ and
# the mean difference of a colour channel (0-255). Text is placed in one call instead of
# letter by letter; at the drawing's own width that changes a handful of pixels, and at
# a narrower one a glyph may land a fraction of a pixel apart. (A text left out, an anchor
# ignored or a shape in the wrong colour changes 0.05% to 1% of the pixels.)
CLOSE = {800: (1e-4, 0.01), 640: (0.003, 0.02), 480: (0.006, 0.2)}


@needs_cairo
@pytest.mark.parametrize("width", pictures.WIDTHS)
def test_every_board_is_drawn_as_cairosvg_draws_it(width: int) -> None:
    most_pixels, most_mean = CLOSE[width]
    for label, svg_text in boards():
        ours = raster.draw(svg_text, width)  # never Unsupported: every board is drawn here
        theirs = cairosvg_surface(svg_text, width)
        assert (ours.get_width(), ours.get_height()) == (
            theirs.get_width(),
            theirs.get_height(),
        ), label
        share, mean = differing(ours, theirs)
        assert share < most_pixels and mean < most_mean, (label, share, mean)


@needs_cairo
def test_text_that_needs_escaping_and_spaces_are_drawn_as_cairosvg_draws_them() -> None:
    body = "".join(
        text(10, 20 + 20 * i, content, {"text-anchor": anchor})
        for i, (content, anchor) in enumerate(
            [("<b>&amp; a&b", "start"), ("  two  spaces\tand a tab ", "middle"), ("Zażółć", "end")]
        )
    )
    svg_text = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" font-size="14" '
        'font-family="DejaVu Sans, sans-serif">'
        f'<rect width="200" height="100" fill="#fff"/>{body}</svg>'
    )
    share, mean = differing(raster.draw(svg_text, 400), cairosvg_surface(svg_text, 400))
    assert share < 0.01 and mean < 0.5, (share, mean)


@needs_cairo
def test_a_missing_text_would_be_seen() -> None:
    """The comparison above fails on a board drawn without one line of its text."""
    _, svg_text = boards()[2]
    start = svg_text.index("<text")
    end = svg_text.index("</text>", start) + len("</text>")
    share, _ = differing(
        raster.draw(svg_text[:start] + svg_text[end:], 800), cairosvg_surface(svg_text, 800)
    )
    assert share > 10 * CLOSE[800][0]


@pytest.mark.parametrize(
    "svg_text",
    [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0 L5 5"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<g transform="scale(2)"><rect width="2" height="2"/></g></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<rect width="2" height="2" fill="red"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<text x="1" y="5">a<tspan>b</tspan></text></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" stroke="#000">'
        '<text x="1" y="5">outlined</text></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10" height="5"/>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="2px"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text x="1 2">ab</text></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<polygon points="1,1 2,x"/></svg>',
        "<svg><rect",
    ],
)
def test_anything_else_is_left_to_cairosvg(svg_text: str) -> None:
    with pytest.raises(raster.Unsupported):
        raster.draw(svg_text, 20)


@needs_cairo
def test_the_mail_picture_of_another_svg_is_cairosvgs() -> None:
    svg_text = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10" width="20" height="10">'
        '<rect width="20" height="10" fill="#ffffff"/>'
        '<path d="M0 0 L20 10" stroke="#000000"/></svg>'
    )
    theirs = cairosvg_surface(svg_text, 40)
    expected = pictures.opaque_png(bytes(theirs.get_data()), 40, 20)
    assert pictures.cairo_png(svg_text, 40) == expected


def inflated_rows(png: bytes) -> tuple[int, list[bytes]]:
    """A PNG's colour type and its rows of pixel bytes (every filter byte must be 0)."""
    assert png.startswith(pictures.PNG_SIGNATURE)
    chunks = dict(pictures._chunks(png))  # one IDAT chunk in what the service writes
    width, height = pictures.png_size(png)
    colour_type = chunks[b"IHDR"][9]
    row = (4 if colour_type == 6 else 3) * width
    data = zlib.decompress(chunks[b"IDAT"])
    rows = [data[i * (row + 1) : (i + 1) * (row + 1)] for i in range(height)]
    assert all(r[0] == 0 and len(r) == row + 1 for r in rows)
    return colour_type, [r[1:] for r in rows]


@needs_cairo
def test_a_board_drawn_with_red_and_blue_exchanged_is_the_same_picture_in_rgba() -> None:
    """The mail's picture is drawn with red and blue exchanged, so that cairo's bytes are
    RGBA rows on a little-endian machine: every pixel must be the very one the plain
    drawing gives, the two channels put back."""
    for label, svg_text in boards()[::2]:
        # The surfaces are kept while their bytes are read: the buffer does not keep them.
        plain_surface = raster.draw(svg_text, 800)
        exchanged_surface = raster.draw(svg_text, 800, red_blue_exchanged=True)
        plain, exchanged = bytes(plain_surface.get_data()), bytes(exchanged_surface.get_data())
        assert plain != exchanged, label  # a board has colours that are not grey
        assert plain[0::4] == exchanged[2::4] and plain[2::4] == exchanged[0::4], label
        assert plain[1::4] == exchanged[1::4] and plain[3::4] == exchanged[3::4], label


@needs_cairo
def test_the_mail_picture_has_the_drawing_s_pixels_in_either_byte_order() -> None:
    _, svg_text = boards()[2]
    surface = raster.draw(svg_text, 800)
    width, height = surface.get_width(), surface.get_height()
    expected = pictures.opaque_png(bytes(surface.get_data()), width, height)
    assert expected is not None
    _, rgb_rows = inflated_rows(expected)
    colour_type, rows = inflated_rows(pictures.cairo_png(svg_text, 800))
    if sys.byteorder == "little":
        assert colour_type == 6  # RGBA, as cairo's bytes lie
        assert [r[0::4] + r[1::4] + r[2::4] for r in rows] == [
            r[0::3] + r[1::3] + r[2::3] for r in rgb_rows
        ]
        assert all(r[3::4] == b"\xff" * width for r in rows)
    else:
        assert colour_type == 2 and rows == rgb_rows


@needs_cairo
def test_a_picture_with_transparent_pixels_keeps_its_colours() -> None:
    """Not opaque: written by cairo's writer, from a drawing whose colours are where they
    belong (the exchanged one would swap them)."""
    svg_text = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
        '<rect width="10" height="10" fill="#ff0000"/></svg>'
    )
    png = pictures.cairo_png(svg_text, 20)
    chunks = dict(pictures._chunks(png))
    assert chunks[b"IHDR"][9] == 6  # RGBA, for the transparent half
    # cairo's writer filters its rows: the first pixel is the same under filter 0 or 1
    # (it has nothing to its left or above it).
    first = zlib.decompress(chunks[b"IDAT"])[:5]
    assert first[0] in (0, 1) and first[1:5] == b"\xff\x00\x00\xff"  # red, opaque
