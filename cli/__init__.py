"""The `burro` command line: one subcommand per module in this package."""
