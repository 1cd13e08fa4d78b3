"""Moved to `service.table.games`: kept only until service.table.lobby imports `table_of`
from there; then delete it."""

from service.table.games import register_table as register_table
from service.table.games import table_of as table_of
