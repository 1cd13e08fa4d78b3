"""The follow-suit Burro (`spanish` … `cangkul`, docs/rules.md): follow suit, or draw from
the stock until you can; the last one holding cards is the burro.

The public API is immutable: `new_game`, `apply`, `legal_actions`, `player_view`,
`public_view`, records. The hot path (`hand.HandSim`) is a mutable simulator on bit
sets that bots clone and play out; the public API wraps it.
"""
