"""The chat side of passing Burro (`cuartetos`, docs/rules.md).

The follow-suit service (`service.moves`, `service.screens`) plays one turn at a time;
here everyone acts at once, against the clock. The differences live in this package,
reached from the few places that dispatch on the room's family (`service.family`):

- `actions`: compact button tokens for the engine's actions, and refusal messages;
- `moves`: start a game, apply an action with its receive time, close a window, bots'
  turns, and `settle`: the jobs each phase needs (the window's close, bots, reminders);
- `screens`: the group table, each player's private hand, lobby and settings;
- `lobby`: the settings a passing table has (pace, letters, suits).
"""
