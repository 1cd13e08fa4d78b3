"""Games that live only in the tests. Importing this package registers them with
`engine.registry`, so every registry-driven test (the contract suite above all) plays
them too."""

from engine.registry import register
from tests.games.tiny import GAME as TINY

register(TINY)
