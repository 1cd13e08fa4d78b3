"""What WhatsApp costs a family: messages per move, templates per idle day, tap to prompt.

    python -m bench.whatsapp [--games 3] [--days 5] [--json out.json]

The whole product in this process (tests/service/inproc.py `running_service`: the webhook
app and a worker on threads, Redis, the emulator's local WhatsApp and Telegram), played
as people play through the local WhatsApp (tests/service/whatsapp/play.py). Every figure
counts the Graph API's `POST /messages` calls that send something (not mark-as-read),
from the local WhatsApp's call log.

1. One-to-one against 3 bots: WhatsApp messages per decision of the person, over whole
   games of the Spanish preset played in a row: the first asked for by a greeting
   ("hola": dealt at once), each next one by the last one's "Play again". A decision is
   a move of theirs (a tap or a choice), a game they started (the greeting, a "play
   again") or a folded suit they opened (a list holds 10 rows: the smallest suits of a
   bigger hand fold into a row each, and opening one is a second message). Also per move
   of theirs only, and per move of their seat (a single legal move is made without
   asking).
2. A table of four: two WhatsApp players, one Telegram player and a bot at a table in the
   Telegram group (tests/service/whatsapp/test_mixed_table.py), whole games: WhatsApp
   messages per move of every person, and per WhatsApp player's decision (a move,
   joining the table, a folded suit opened) and per their move only.
3. An idle player: a one-to-one game whose player stops answering; the emulator's and
   the service's clocks go on a day at a time, the table's turn timer (12 h) lets a bot
   play for them. Templates (and free-form messages) sent to them per day.
4. Tap to next prompt: the emulator's time of the person's tap to that of the prompt
   that answers it (both on its clock), in one-to-one games against 3 bots that move at
   once, with everything in one process on this machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from emulator.whatsapp.driver import WhatsAppDriver
from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import act, choices, newest_prompt, pick, play_game
from tests.service.whatsapp.test_mixed_table import play_mixed_table
from tests.service.whatsapp.test_whatsapp_game import open_game

DAY = 24 * 3600


def sent(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Of Graph calls, those that sent the business's messages (not mark-as-read)."""
    return [
        c
        for c in calls
        if c["method"] == "POST"
        and c["path"].endswith("/messages")
        and (c.get("body") or {}).get("status") != "read"
    ]


def sent_since(wa: WhatsAppDriver, mark: int) -> list[dict[str, Any]]:
    """What the business sent since the local WhatsApp's `mark`-th call."""
    return sent(wa.calls()[mark:])


def one_to_one(hook: Hook, games: int) -> dict[str, Any]:
    """Games against 3 bots in a row, the first by a greeting, each next by "play
    again": the messages per decision of the person, per move of theirs, and per move
    of their seat (those played for them at once included)."""
    wa, user = hook.emu.whatsapp, "Abuela"
    moves = opened = seat_moves = 0
    before = len(wa.calls())
    after = open_game(wa, user, "hola")
    for index in range(games):
        played = play_game(wa, user, after=after)
        moves, opened = moves + played.moves, opened + played.opened
        seat_moves += moves_of(latest_room(hook), {0})
        assert played.final is not None
        if index + 1 < games:
            again = next(i for i, title in choices(played.final) if "🔁" in title)
            act(wa, user, played.final, again)
            after = played.final.seq
    assert hook.worker is not None
    hook.worker.settle()
    messages = len(sent_since(wa, before))
    decisions = moves + games + opened
    return {
        "games": games,
        "decisions": decisions,
        "moves": moves,
        "suits_opened": opened,
        "seat_moves": seat_moves,
        "messages": messages,
        "messages_per_decision": round(messages / decisions, 3),
        "messages_per_move": round(messages / moves, 3),
        "messages_per_seat_move": round(messages / seat_moves, 3),
    }


def latest_room(hook: Hook) -> Any:
    keys = [k.decode() for k in hook.redis.scan_iter("game:{*}:room")]
    rooms = [hook.store().load(k.split("{")[1].split("}")[0]) for k in keys]
    return max((r for r in rooms if r is not None), key=lambda r: r.updated)


def moves_of(room: Any, seats: set[int]) -> int:
    """Moves of `seats` in the room's finished hands (records)."""
    from engine.registry import find_game

    game = find_game(room.settings.preset)[0]
    return sum(
        action["seat"] in seats
        for hand in range(game.finished_hands(room.game))
        for action in game.hand_record(room.game, hand)["actions"]
    )


def table_of_four(folder: Path, games: int) -> dict[str, Any]:
    """Two WhatsApp players, one on Telegram and a bot, at a table in the Telegram group:
    WhatsApp messages per move of every person, and per WhatsApp player's decision (their
    moves, their joining the table, the folded suits they opened) and move."""
    made: dict[str, int] = {}
    messages = 0
    for index in range(games):
        with running_service(folder / f"four{index}", whatsapp_pair_rate=0.0) as hook:
            for key, count in play_mixed_table(hook).items():
                made[key] = made.get(key, 0) + count
            messages += len(sent(hook.emu.whatsapp.calls()))
    everyone = made["whatsapp"] + made["telegram"]
    whatsapp = made["whatsapp"] + made["whatsapp_joined"] + made["whatsapp_opened"]
    return {
        "games": games,
        "decisions": made,
        "whatsapp_messages": messages,
        "messages_per_decision": round(messages / everyone, 3),
        "messages_per_whatsapp_decision": round(messages / whatsapp, 3),
        "messages_per_whatsapp_move": round(messages / made["whatsapp"], 3),
    }


def idle_player(hook: Hook, days: int) -> dict[str, Any]:
    wa, worker = hook.emu.whatsapp, hook.worker
    assert worker is not None and hook.clock is not None
    asked = open_game(wa, "Grandma", "new spanish")
    wa.wait_for(partial(newest_prompt, wa, "Grandma", asked), timeout=20)
    per_day: list[dict[str, int]] = []
    for _day in range(days):
        start = len(wa.calls())
        for _hour in range(24):  # a day, an hour at a time: each timer comes when due
            wa.advance(3600)
            worker.reach(hook.clock() + 3600)
            worker.settle()
        day = sent_since(wa, start)
        templates = sum(1 for c in day if (c.get("body") or {}).get("type") == "template")
        per_day.append({"templates": templates, "messages": len(day)})
    return {
        "days": days,
        "per_day": per_day,
        "templates_per_day": round(statistics.mean(d["templates"] for d in per_day), 3),
        "messages_per_day": round(statistics.mean(d["messages"] for d in per_day), 3),
    }


def tap_to_prompt(hook: Hook, taps: int) -> dict[str, Any]:
    wa = hook.emu.whatsapp
    seen, times = open_game(wa, "Avó", "jogar spanish"), list[float]()
    while len(times) < taps:
        prompt = wa.wait_for(partial(newest_prompt, wa, "Avó", seen), timeout=20)
        if "🔁" in str(prompt.raw):
            seen = open_game(wa, "Avó", "jogar spanish")
            continue
        seen = prompt.seq
        choice = pick(prompt)
        act(wa, "Avó", prompt, choice)
        tap = [m for m in wa.messages("Avó") if m.direction == "in"][-1]
        answer = wa.wait_for(partial(newest_prompt, wa, "Avó", seen), timeout=20)
        times.append((answer.time - tap.time) * 1000)
        seen = tap.seq
    ordered = sorted(times)
    return {
        "taps": len(times),
        "median_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
    }


def measure(games: int, days: int, taps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        quick: dict[str, Any] = {"whatsapp_pair_rate": 0.0, "turn_timeout": 12 * 3600}
        with running_service(folder / "one", **quick) as hook:
            results: dict[str, Any] = {"one_to_one": one_to_one(hook, games)}
            results["tap_to_prompt"] = tap_to_prompt(hook, taps)
        results["table_of_four"] = table_of_four(folder, games)
        with running_service(folder / "idle", **quick) as hook:
            results["idle_player"] = idle_player(hook, days)
    return results


def main(argv: list[str] | None = None, run: Callable[..., dict[str, Any]] = measure) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = run(args.games, args.days, args.taps)
    text = json.dumps(results, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
