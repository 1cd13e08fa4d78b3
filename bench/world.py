"""A local Telegram for the soak: the emulator in its own process, with as many users
and groups as the soak's games need.

    python -m bench.world --plan plan.json --port 8090

`plan.json`: {"users": [[id, first_name, language_code, started], …],
              "groups": [[id, title, [member first names …], type], …]}
(type: "supergroup", or "group" for a basic group that may be upgraded).
Flood limits off, quick webhook retries (the emulator's `fast_config`), and a call log
big enough to check a whole soak afterwards.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from emulator.config import Cast, GroupSpec, UserSpec, fast_config
from emulator.server import serve


def cast_of(plan: dict[str, Any]) -> Cast:
    users = tuple(
        UserSpec(uid, name, language_code=lang, username=f"u{uid}", started_bot=started)
        for uid, name, lang, started in plan["users"]
    )
    groups = tuple(
        GroupSpec(gid, title, members=tuple(members), owner=members[0], type=kind)
        for gid, title, members, kind in plan["groups"]
    )
    return Cast(users=users, groups=groups)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-limit", type=int, default=3_000_000)
    args = parser.parse_args()
    plan = json.loads(args.plan.read_text())
    config = fast_config(cast=cast_of(plan), log_limit=args.log_limit)
    serve(config, "127.0.0.1", args.port)


if __name__ == "__main__":
    main()
