"""Pictures of a position: the board as SVG and the cards as HTML faces (docs/web.md).

Drawn from views only (`engine.view`), so a picture never shows more than its viewer may
see; pure functions of the view, so the same view gives the same bytes. Imports only the
engine and the standard library: the game repository (`games`) writes `board.svg` with it
and the web pages (`web`) show it.

`svg` (escaped SVG text), `board` (the whole board), drawn from `layout` (where its parts
are), `labels` (its words), `pieces` (the map and what stands on it), `panels` (the legend
and the tracks) and `description` (the board in words), with `kept` parts drawn once;
`cards` (card faces and card texts).
"""
