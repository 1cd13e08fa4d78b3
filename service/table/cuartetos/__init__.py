"""The table side of cuartetos (the passing game, docs/rules.md).

The follow-suit table (`service.table.follow_suit`) plays one turn at a time; here everyone
acts at once, against the clock. The differences live in this package and in
`service.ui.cuartetos` (its screens), found through `service.table.games`:

- `table`: its `TableGame`: the log of calls, letters and absences, bots' human-looking
  pace, refusals, when a call rings;
- `lobby`: the settings a cuartetos table has (pace, letters, suits).
"""
