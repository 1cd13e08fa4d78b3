"""Entry point of the `burro` console script.

Each subcommand lives in its own module of this package and exposes
`register(subparsers)`, which adds its parser and sets `run` (a function taking the
parsed arguments and returning an exit status). Modules are imported only when listed
here, so adding a command is one line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Module names under cli/, in the order `burro --help` lists them.
COMMANDS: tuple[str, ...] = (
    "local", "serve", "worker", "replay", "arena", "emulator", "admin", "set_webhook",
    "doctor", "whatsapp",
)  # fmt: skip


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that command's module is imported (fast start)."""
    parser = argparse.ArgumentParser(
        prog="burro",
        description="Burro, the donkey card game, played in chat.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        module = importlib.import_module(f"cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    module = argv[0].replace("-", "_") if argv else None  # `set-webhook` lives in set_webhook
    parser = build_parser(module if module in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `burro replay x.json | head`: the reader left, not an error
        sys.stderr.close()
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
