"""Moved to `service.table.games`: kept only until the modules still importing it from
here switch; then delete it."""

from service.table.games import finished_hands as finished_hands
from service.table.games import hand_record as hand_record
from service.table.games import initial_options as initial_options
from service.table.games import preset_named as preset_named
from service.table.games import preset_names as preset_names
from service.table.games import rules_for as rules_for
