"""Games that live only in the tests. Importing this package registers them with
`engine.registry` and their screens with `service.ui.games`, so every registry-driven
test (the engine's contract suite, the table's) plays them too. Nothing outside a test
game's own files changes to add it: that is what proves the seam."""

from engine.registry import register
from service.ui import games
from tests.games.tiny import GAME as TINY
from tests.games.tiny.screens import TinyPainter, rules_text

register(TINY)
games.register(TINY.name, games.GameScreens(TinyPainter, rules_text))
