"""The board in a report mail: the public board drawn as a PNG, shown inline by Content-ID.

Mail clients do not show SVG (and many strip it as a risk), so the board's SVG
(`adjudicator.drawing.board`) is rasterized with cairo (`adjudicator.drawing.raster`, or
CairoSVG for what that does not draw), once per adjudication and language: every player's
mail carries the same picture of the public view (in the player's language), so none can
show what only another player may see. The player's own
hand goes into that player's HTML as card faces, not into the picture.

Both need the cairo library at run time. Without it (or if a drawing cannot be
rasterized) the mail goes out without the picture, and the log says why once per process:
a report is worth more than its illustration.
"""

from __future__ import annotations

import io
import logging
import struct
import sys
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import escape
from typing import Any

import deflate

log = logging.getLogger(__name__)

# SVG text and a width in pixels, to PNG bytes; raises when it cannot.
Rasterize = Callable[[str, int], bytes]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
WIDTHS = (800, 640, 480)  # readable on a phone first; narrower only to fit the budget
_warned: set[str] = set()


def cairo_png(svg_text: str, width: int) -> bytes:
    """The SVG as a PNG `width` pixels wide, drawn with cairo. Raises ImportError or
    OSError when cairocffi (or CairoSVG) or the cairo library is not installed.

    The board's own SVG is drawn by `adjudicator.drawing.raster`, which knows the few
    elements the board drawing writes and draws each text in one call (a late board at
    800 px: 5 ms instead of CairoSVG's 43); any other SVG, or a board that has grown an
    element it does not know, is drawn by CairoSVG. Either draws on a cairo image surface
    in memory; an opaque picture (the board has a background) is then written here, its
    rows unfiltered and deflated once at `LEVEL`: the same pixels as cairo's own PNG
    writer gives, which filters and deflates every row and writes a larger file, so that
    `recompress` had to inflate and deflate it all again. On a little-endian machine the
    board is drawn with red and blue exchanged (`raster.draw`), so that the surface's
    bytes are already a PNG's RGBA rows; elsewhere, and for what CairoSVG draws, the
    pixels are taken apart into 8-bit RGB (`opaque_png`). Measured on a late board at
    800 px: the RGBA rows written in 6 ms, the RGB ones in 13 (for 7% fewer bytes), cairo's
    writer and the recompression in 25. A picture with any transparent pixel goes through
    cairo's writer, which keeps the alpha channel, and is recompressed. Either way the
    result is as `recompress` would leave it."""
    from adjudicator.drawing import raster  # its PNG codec, loaded with the first picture

    exchanged = sys.byteorder == "little"
    try:
        surface: Any = raster.draw(svg_text, width, red_blue_exchanged=exchanged)
        drawing = None
    except raster.Unsupported:
        # Imported here: loading it loads libcairo, which may be missing. The package
        # first, so that a missing one raises even when its submodules were loaded before.
        import cairosvg
        import cairosvg.parser
        import cairosvg.surface

        tree = cairosvg.parser.Tree(bytestring=svg_text.encode("utf-8"))
        drawing = cairosvg.surface.PNGSurface(tree, None, 96, output_width=width)
        surface = drawing.cairo
        surface.flush()
        exchanged = False
    try:
        # The surface's own memory, not a copy of its 1.8 MB: it lives until `finish`.
        pixels = memoryview(surface.get_data())
        size = (surface.get_width(), surface.get_height())
        png = rgba_png(pixels, *size) if exchanged else opaque_png(bytes(pixels), *size)
        if png is None:
            if exchanged:  # cairo's writer needs the colours where they belong
                surface.finish()
                surface = raster.draw(svg_text, width)
            written = io.BytesIO()
            surface.write_to_png(written)
            png = recompress(written.getvalue())
    finally:
        if drawing is not None:
            drawing.finish()
        else:
            surface.finish()
    return png


def rgba_png(pixels: bytes | memoryview, width: int, height: int) -> bytes | None:
    """A PNG of `pixels`, bytes R, G, B, A for each pixel row after row (no padding at
    the end of a row), or None when any pixel is not fully opaque: a premultiplied colour
    is the colour itself only at an alpha of 255."""
    # The alphas sliced off a copy: a memoryview's stepped slice goes byte by byte, five
    # times as long as the copy and a bytes slice together.
    if len(pixels) != 4 * width * height or bytes(pixels)[3::4].count(255) != width * height:
        return None
    return _png(pixels, width, height, 6)  # 8-bit RGBA


def opaque_png(pixels: bytes, width: int, height: int) -> bytes | None:
    """A PNG of cairo's ARGB32 `pixels` (32-bit words in the machine's byte order, no
    padding at the end of a row), or None when any pixel is not fully opaque. The colours
    of opaque pixels are stored as they are: premultiplying by an alpha of 255 changed
    nothing."""
    if len(pixels) != 4 * width * height:
        return None  # rows padded: cairo's writer handles that
    # In memory a word is B, G, R, A on a little-endian machine, A, R, G, B on a big one.
    blue, green, red, alpha = (0, 1, 2, 3) if sys.byteorder == "little" else (3, 2, 1, 0)
    if pixels[alpha::4].count(255) != width * height:
        return None
    rgb = bytearray(3 * width * height)
    rgb[0::3], rgb[1::3], rgb[2::3] = pixels[red::4], pixels[green::4], pixels[blue::4]
    return _png(bytes(rgb), width, height, 2)  # 8-bit RGB


def _png(pixels: bytes | memoryview, width: int, height: int, colour_type: int) -> bytes:
    """A PNG of 8-bit `pixels` of the colour type given (2: RGB, 6: RGBA), row after row."""
    row = max((4 if colour_type == 6 else 3) * width, 1)
    # Filter type 0 (none) before each row: on a board of flat colours zlib finds the
    # repeats itself, and a Python filter per byte would cost more than it saves.
    raw = _unfiltered(memoryview(pixels), row)
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join(
        [
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", _deflated(raw)),
            _chunk(b"IEND", b""),
        ]
    )


def _unfiltered(pixels: memoryview, row: int) -> bytearray:
    """The rows of `pixels`, `row` bytes each (the last may be shorter), each after a
    filter type byte of 0: each row copied once into its place (a row sliced off, a zero
    put before it and the rows joined made three copies and two objects a row)."""
    starts = range(0, len(pixels), row)
    raw = bytearray(len(pixels) + len(starts))  # zeros: the filter bytes are in place
    for count, start in enumerate(starts):
        at = start + count + 1  # a slice past the end is cut short on both sides alike
        raw[at : at + row] = pixels[start : start + row]
    return raw


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (ValueError if it is not a PNG)."""
    if not png.startswith(PNG_SIGNATURE) or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def _chunks(png: bytes) -> Iterable[tuple[bytes, bytes]]:
    offset = len(PNG_SIGNATURE)
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        kind = png[offset + 4 : offset + 8]
        yield kind, png[offset + 8 : offset + 8 + length]
        offset += 12 + length


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# The level the pixel data is deflated at. On a late board's unfiltered rows (800 px, 1.8 MB)
# libdeflate's 6 gives 52.1 KB in 3.5 ms where zlib's 6 gave 51.7 KB in 8.1 ms; libdeflate's
# 9, 48.5 KB in 10.5 ms; zlib-ng's 6, 57.0 KB in 2.9 ms.
LEVEL = 6


def _deflated(data: bytes | bytearray) -> bytes:
    """`data` as a zlib stream, as a PNG's IDAT chunks hold it (libdeflate, `LEVEL`)."""
    return bytes(deflate.zlib_compress(data, LEVEL))


def recompress(png: bytes) -> bytes:
    """The same image with its pixel data deflated again at `LEVEL` (cairo writes a
    faster, larger compression): fewer bytes, the same pixels."""
    chunks = list(_chunks(png))
    pixels = zlib.decompress(b"".join(data for kind, data in chunks if kind == b"IDAT"))
    out, written = [PNG_SIGNATURE], False
    for kind, data in chunks:
        if kind != b"IDAT":
            out.append(_chunk(kind, data))
        elif not written:  # all the pixel data in one chunk, where the first one was
            out.append(_chunk(b"IDAT", _deflated(pixels)))
            written = True
    smaller = b"".join(out)
    return smaller if len(smaller) < len(png) else png


@dataclass(frozen=True)
class Picture:
    """A PNG to show inline in a mail's HTML: `cid` is its Content-ID (no brackets)."""

    png: bytes
    cid: str
    alt: str

    def img(self) -> str:
        """The `<img>` that shows it: its natural width, never wider than the window."""
        width, height = png_size(self.png)
        return (
            f'<img src="cid:{escape(self.cid)}" alt="{escape(self.alt)}" width="{width}" '
            f'height="{height}" style="max-width:100%;height:auto">'
        )


WARNED_REASONS = 64  # reasons remembered: some carry sizes or errors, and the service runs long


def warn_once(reason: str) -> None:
    """Log that mail goes out without its picture, once per reason and process."""
    if reason in _warned or len(_warned) >= WARNED_REASONS:
        log.debug("mail without the board picture: %s", reason)
        return
    _warned.add(reason)
    log.warning("mail goes out without the board picture: %s", reason)


def rasterized(svg_text: str, width: int, rasterize: Rasterize) -> bytes | None:
    """The SVG as a recompressed PNG, or None (logged once) when it cannot be made."""
    try:
        png = rasterize(svg_text, width)
        png_size(png)
    except Exception as error:  # any failure: the mail still goes, without the picture
        warn_once(f"{type(error).__name__}: {error}")
        return None
    if rasterize is cairo_png:
        return png  # deflated at `LEVEL` already: recompressing would give the same bytes
    return recompress(png)


class BoardPictures:
    """The board of one adjudication at the widths tried, each rasterized at most once."""

    def __init__(self, svg_text: str, cid: str, alt: str, rasterize: Rasterize) -> None:
        self.svg_text, self.cid, self.alt, self.rasterize = svg_text, cid, alt, rasterize
        self._made: dict[int, bytes | None] = {}

    def at(self, width: int) -> Picture | None:
        if width not in self._made:
            self._made[width] = rasterized(self.svg_text, width, self.rasterize)
        png = self._made[width]
        return None if png is None else Picture(png, self.cid, self.alt)

    def fitting(self, room: int) -> Picture | None:
        """The widest picture whose PNG, base64-encoded in a mail, takes at most `room`
        bytes; None if none does or none can be made."""
        for width in WIDTHS:
            picture = self.at(width)
            if picture is None:
                return None
            if encoded_size(picture.png) <= room:
                return picture
        warn_once(f"the board does not fit in {room} bytes at {WIDTHS[-1]} px")
        return None

    def fitting_after(self, room: Callable[[bool], int]) -> Picture | None:
        """`fitting(room(True))`, asking for the exact room (`room(True)`, costly) only when
        the cheap lower bound of it (`room(False)`) leaves too little for the widest
        picture: the choice is the same either way."""
        widest = self.at(WIDTHS[0])
        if widest is not None and encoded_size(widest.png) <= room(False):
            return widest
        return self.fitting(room(True))


def encoded_size(data: bytes) -> int:
    """Bytes of `data` in base64 as a mail carries it (76 characters a line, newlines)."""
    characters = 4 * ((len(data) + 2) // 3)
    return characters + characters // 76 + 1
