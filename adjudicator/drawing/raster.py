"""The board's SVG drawn on a cairo image surface directly, for the picture in a mail.

CairoSVG reads any SVG, and pays for it: it places text letter by letter in Python (a
position, the extents, a save and a restore for every glyph, twice, once for the path and
once for the paint), which was about half of the 35-60 ms a board's PNG took, made for
every adjudication and every language among its readers. The board drawing
(`adjudicator.drawing.board`) writes a small, fixed part of SVG: `<rect>`, `<circle>`,
`<line>`, `<polygon>`, `<text>` without `<tspan>`, inside `<g>`, with presentation
attributes only (no transform, no style, no CSS, no opacity), as the pages' Content
Security Policy requires anyway. That part is drawn here with the same cairo calls
CairoSVG makes (the same scale, shapes, default colours and anchoring of text), in
document order, each text in one call.

Anything outside that part (another element, an attribute not listed in `ALLOWED`, a
colour that is not `#rgb`, `#rrggbb` or `none`) raises `Unsupported`, and the caller draws
the SVG with CairoSVG instead: a drawing that grows a new kind of element stays correct
and only loses the speed, until it is taught here.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from functools import lru_cache
from typing import Any

SVG_NS = "{http://www.w3.org/2000/svg}"

# Attributes inherited from the enclosing elements, as CairoSVG's tree makes them: its
# default fill is black and its default stroke is none.
INHERITED = {
    "fill": "black",
    "stroke": "none",
    "stroke-width": "1",
    "stroke-dasharray": "",
    "font-family": "sans-serif",
    "font-size": "16",
    "font-weight": "normal",
    "text-anchor": "start",
}
# Attributes that change nothing in the picture: names, accessibility, data for scripts.
IGNORED = {"id", "class", "role", "aria-labelledby", "aria-label", "xmlns"}
ALLOWED: dict[str, set[str]] = {
    "svg": {"viewBox", "width", "height"} | set(INHERITED),
    "g": set(INHERITED),
    "rect": {"x", "y", "width", "height", "rx"} | set(INHERITED),
    "circle": {"cx", "cy", "r"} | set(INHERITED),
    "line": {"x1", "y1", "x2", "y2"} | set(INHERITED),
    "polygon": {"points"} | set(INHERITED),
    "text": {"x", "y"} | set(INHERITED),
}
# Attributes that are one number (in the user units of the viewBox: no unit is allowed).
NUMBERS = {"x", "y", "width", "height", "rx", "cx", "cy", "r", "x1", "y1", "x2", "y2"}
NUMBERS |= {"stroke-width", "font-size"}
NOT_DRAWN = {"title", "desc"}  # what screen readers and tooltips say
COLOUR = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
# CairoSVG's ratio for a quarter circle as a Bézier curve (its rounded rectangles).
ARC_TO_BEZIER = 4 * (2**0.5 - 1) / 3


class Unsupported(ValueError):
    """The SVG uses something this drawing does not: draw it with CairoSVG."""


def draw(svg_text: str, width: int, *, red_blue_exchanged: bool = False) -> Any:
    """The SVG on a new ARGB32 cairo image surface `width` pixels wide (its height kept in
    proportion, rounded as CairoSVG rounds it). Raises `Unsupported` (see above), or
    ImportError / OSError when cairocffi or the cairo library is missing.

    With `red_blue_exchanged`, every colour is given to cairo with its red and blue
    exchanged. cairo treats the channels alike (its blending and the grey antialiasing of
    an image surface are the same sum for each), so the picture is the same with those two
    channels exchanged in every pixel: on a little-endian machine, where an ARGB32 word
    lies in memory as B, G, R, A, the surface's bytes then read R, G, B, A, the order of a
    PNG's RGBA rows, and the picture is written without a pass over its pixels."""
    try:
        root = ElementTree.fromstring(svg_text)
    except ElementTree.ParseError as error:
        raise Unsupported(f"not well-formed: {error}") from None
    if root.tag != SVG_NS + "svg":
        raise Unsupported(f"the root is {root.tag}")
    box = _numbers(root.get("viewBox", ""))
    if len(box) != 4 or box[0] != 0 or box[1] != 0 or box[2] <= 0 or box[3] <= 0:
        raise Unsupported("a viewBox of 0 0 W H is needed")
    # CairoSVG keeps the proportions of `width` and `height` where they are given.
    for name, size in (("width", box[2]), ("height", box[3])):
        if name in root.attrib and _number(root.get(name)) != size:
            raise Unsupported(f"a {name} other than the viewBox's")
    _check(root, INHERITED["stroke"])  # before anything is drawn: all of it here, or none

    import cairocffi as cairo  # loads libcairo, which may be missing

    scale = width / box[2]
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, round(box[3] * scale))
    context = cairo.Context(surface)
    context.scale(scale, scale)
    context.set_miter_limit(4)  # SVG's default, which CairoSVG sets (cairo's is 10)
    _draw(context, cairo, root, dict(INHERITED), _exchanged if red_blue_exchanged else _colour)
    surface.flush()
    return surface


def _check(element: ElementTree.Element, stroke: str) -> None:
    tag = element.tag.removeprefix(SVG_NS)
    if tag in NOT_DRAWN:
        return
    allowed = ALLOWED.get(tag)
    if allowed is None:
        raise Unsupported(f"<{tag}>")
    for name, value in element.attrib.items():
        if name in allowed:
            if name in ("fill", "stroke"):
                _colour(value)
            elif name in NUMBERS:
                _number(value)
            elif name in ("points", "stroke-dasharray"):
                _numbers(value)
        elif name not in IGNORED and not name.startswith("data-"):
            raise Unsupported(f"<{tag} {name}>")
    stroke = element.get("stroke", stroke)
    if tag == "text" and (len(element) or stroke != "none"):
        raise Unsupported("<text> with elements inside or an outline")
    for child in element:
        _check(child, stroke)


# A colour as cairo is given it: as it is, or with its red and blue exchanged (see `draw`).
Source = Callable[[str], "tuple[float, float, float] | None"]


def _draw(
    context: Any,
    cairo: Any,
    element: ElementTree.Element,
    inherited: dict[str, str],
    colour: Source,
) -> None:
    tag = element.tag.removeprefix(SVG_NS)
    if tag in NOT_DRAWN:
        return
    attributes = element.attrib
    style = {**inherited, **{k: v for k, v in attributes.items() if k in INHERITED}}
    get = attributes.get
    if tag == "rect":
        x, y = _number(get("x")), _number(get("y"))
        w, h = _number(get("width")), _number(get("height"))
        if w != 0 and h != 0:  # CairoSVG skips only these (a negative size is drawn)
            _rectangle(context, x, y, w, h, _number(get("rx")))
            _paint(context, style, colour)
    elif tag == "circle":
        r = _number(get("r"))
        if r:
            context.new_sub_path()
            context.arc(_number(get("cx")), _number(get("cy")), r, 0, 2 * math.pi)
            context.close_path()
            _paint(context, style, colour)
    elif tag == "line":
        context.move_to(_number(get("x1")), _number(get("y1")))
        context.line_to(_number(get("x2")), _number(get("y2")))
        _paint(context, style, colour)
    elif tag == "polygon":
        points = _numbers(get("points", ""))
        if len(points) >= 2:
            context.move_to(points[0], points[1])
            for index in range(2, len(points) - 1, 2):
                context.line_to(points[index], points[index + 1])
            context.close_path()
            _paint(context, style, colour)
    elif tag == "text":
        content = _white_space(element.text or "")
        _text(context, cairo, content, _number(get("x")), _number(get("y")), style, colour)
    for child in element:
        _draw(context, cairo, child, style, colour)


def _rectangle(context: Any, x: float, y: float, w: float, h: float, r: float) -> None:
    """CairoSVG's rectangle, its corners rounded as it rounds them."""
    if r == 0:
        context.rectangle(x, y, w, h)
        return
    rx, ry = min(r, w / 2), min(r, h / 2)
    c1, c2 = ARC_TO_BEZIER * rx, ARC_TO_BEZIER * ry
    context.new_path()
    context.move_to(x + rx, y)
    context.rel_line_to(w - 2 * rx, 0)
    context.rel_curve_to(c1, 0, rx, c2, rx, ry)
    context.rel_line_to(0, h - 2 * ry)
    context.rel_curve_to(0, c2, c1 - rx, ry, -rx, ry)
    context.rel_line_to(-w + 2 * rx, 0)
    context.rel_curve_to(-c1, 0, -rx, -c2, -rx, -ry)
    context.rel_line_to(0, -h + 2 * ry)
    context.rel_curve_to(0, -c2, rx - c1, -ry, rx, -ry)
    context.close_path()


def _paint(context: Any, style: dict[str, str], colour: Source) -> None:
    """Fill, then stroke, the path made (SVG's painting order), and clear it."""
    fill = colour(style["fill"])
    if fill is not None:
        context.set_source_rgb(*fill)
        context.fill_preserve()
    stroke = colour(style["stroke"])
    width = _number(style["stroke-width"])
    if stroke is not None and width > 0:
        context.save()
        context.set_source_rgb(*stroke)
        context.set_line_width(width)
        dashes = _numbers(style["stroke-dasharray"])
        if sum(dashes):
            context.set_dash(dashes, 0)
        context.stroke_preserve()
        context.restore()
    context.new_path()


def _text(
    context: Any,
    cairo: Any,
    content: str,
    x: float,
    y: float,
    style: dict[str, str],
    colour: Source,
) -> None:
    """One line of text, anchored as CairoSVG anchors it (by the ink's extents)."""
    fill = colour(style["fill"])
    if not content or fill is None:
        return
    family = style["font-family"].split(",")[0].strip("\"' ")
    weight = style["font-weight"]
    bold = weight.lower() == "bold" or (weight.isdigit() and int(weight) >= 550)
    context.select_font_face(
        family,
        cairo.FONT_SLANT_NORMAL,
        cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL,
    )
    context.set_font_size(_number(style["font-size"]))
    anchor = style["text-anchor"]
    if anchor in ("middle", "end"):
        x_bearing, _, ink_width, *_ = context.text_extents(content)
        x -= ink_width / 2 + x_bearing if anchor == "middle" else ink_width + x_bearing
    context.set_source_rgb(*fill)
    context.move_to(x, y)
    context.show_text(content)
    context.new_path()


def _white_space(text: str) -> str:
    """SVG's default white space handling, as CairoSVG does it: line breaks removed, tabs
    made spaces, runs of spaces made one, none at either end."""
    text = text.replace("\n", "").replace("\r", "").replace("\t", " ")
    return re.sub(" +", " ", text).strip(" ")


# A board repeats a few dozen colours and numbers over thousands of elements: each is read
# once (what raises is read again, and raises again).
@lru_cache(maxsize=1024)
def _colour(value: str) -> tuple[float, float, float] | None:
    if value == "none":
        return None
    if value == "black":
        return (0.0, 0.0, 0.0)
    match = COLOUR.fullmatch(value.strip())
    if match is None:
        raise Unsupported(f"the colour {value!r}")
    digits = match.group(1)
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return tuple(int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


@lru_cache(maxsize=1024)
def _exchanged(value: str) -> tuple[float, float, float] | None:
    rgb = _colour(value)
    return None if rgb is None else (rgb[2], rgb[1], rgb[0])


@lru_cache(maxsize=4096)
def _number(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        number = float(value)
    except ValueError:
        raise Unsupported(f"the number {value!r}") from None
    if not math.isfinite(number):
        raise Unsupported(f"the number {value!r}")
    return number


def _numbers(value: str) -> list[float]:
    return [_number(part) for part in value.replace(",", " ").split()]
