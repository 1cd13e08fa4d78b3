"""The table side of passing Burro (`cuartetos`, docs/rules.md).

The follow-suit table (`service.table.moves`) plays one turn at a time; here everyone
acts at once, against the clock. The differences live in this package and in
`service.ui.cuartetos` (its screens), reached from the few places that dispatch on the
room's game (`service.table.family`):

- `actions`: compact button tokens for the engine's actions, and refusal messages;
- `moves`: start a game, apply an action with its receive time, close a window, bots'
  turns, and `settle`: the jobs each phase needs (the window's close, bots, reminders);
- `lobby`: the settings a passing table has (pace, letters, suits).
"""
