"""`burro admin`: look after a running service from a shell that reaches its Redis.

    burro admin games [--all] [--json]          games in play (--all: every room kept)
    burro admin show ROOM [--show-hands]        one room; hands as counts unless asked
    burro admin end ROOM [--message TEXT]       cancel a stuck game, tell its chat
    burro admin export [ROOM ...] [--all]       burro-record/1 records of finished hands
    burro admin purge [--dry-run]               drop index entries of vanished rooms and
                                                old failed jobs; prints the counts

Everything goes through `service.infra.store.Store`, so an ended game is changed by the same
compare-and-set as a move (a move racing the operator either lands first or is refused
as stale), and the workers redraw its chat message as they would after any change.
A hand still in play is private: `show` prints card counts and `export` finished hands,
unless `--show-hands` / `--include-current` say otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import redis
    import rq

    from service.infra.store import Store
    from service.table.room import Room

END_MESSAGE = "The game was cancelled."  # an existing, translated message id


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "admin",
        help="operate a running service: list, show, end, export, purge",
        description="Operator commands against the service's Redis (BURRO_REDIS_URL).",
    )
    parser.add_argument("--redis-url", help="overrides BURRO_REDIS_URL")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    games = actions.add_parser("games", help="list games in play")
    games.add_argument("--all", action="store_true", help="every room kept: lobbies, ended")
    games.add_argument("--json", action="store_true", help="one JSON object per line")
    games.set_defaults(run=run_games)

    show = actions.add_parser("show", help="show one room")
    show.add_argument("room")
    show.add_argument("--show-hands", action="store_true", help="print the cards in each hand")
    show.set_defaults(run=run_show)

    end = actions.add_parser("end", help="cancel a stuck game and tell its chat")
    end.add_argument("room")
    end.add_argument("--message", help="what to tell the chat (default: a translated notice)")
    end.add_argument("--silent", action="store_true", help="tell the chat nothing")
    end.set_defaults(run=run_end)

    export = actions.add_parser("export", help="write burro-record/1 records")
    export.add_argument("rooms", nargs="*", metavar="ROOM")
    export.add_argument("--all", action="store_true", help="every room kept")
    export.add_argument(
        "--include-current", action="store_true", help="also the hand in play (shows hands)"
    )
    export.add_argument(
        "--out", default="-", help="a folder for one file per hand; '-' (default): JSON lines"
    )
    export.set_defaults(run=run_export)

    purge = actions.add_parser("purge", help="remove stale index entries and old failed jobs")
    purge.add_argument("--dry-run", action="store_true", help="count, remove nothing")
    purge.add_argument(
        "--failed-older-than",
        type=float,
        default=7 * 24 * 3600,
        metavar="SECONDS",
        help="failed jobs that ended longer ago are deleted (default 7 days)",
    )
    purge.add_argument("--json", action="store_true")
    purge.set_defaults(run=run_purge)


# ----- reading rooms -----------------------------------------------------------------


def rooms_in_play(store: Store) -> list[tuple[Room, float]]:
    """Playing rooms with when each is next due, from the index the sweeper keeps."""
    from service.infra import indexes
    from service.infra.keys import DUE_KEY

    found = []
    for room_id, due in indexes.due(store.redis, DUE_KEY, float("inf"), 1 << 30):
        room = store.load(room_id)
        if room is not None:
            found.append((room, due))
    return found


def all_rooms(store: Store) -> Iterator[Room]:
    from service.infra.keys import ROOM_PATTERN, room_of_key
    from service.infra.store import text

    for key in store.redis.scan_iter(match=ROOM_PATTERN, count=500):
        room = store.load(room_of_key(text(key)))
        if room is not None:
            yield room


def summary(room: Room, due: float | None, now: float) -> dict[str, Any]:
    """One line's worth about a room (no cards)."""
    from service.table.games import game_of

    game = game_of(room.settings.preset)
    movers = game.to_act(room.game) if room.status == "playing" else ()
    return {
        "id": room.id,
        "status": room.status,
        "chat_id": room.chat_id,
        "thread_id": room.thread_id,
        "preset": room.settings.preset,
        "players": [s.name + (" (bot)" if s.bot else "") for s in room.seats],
        "hand_no": game.finished_hands(room.game) + 1 if room.game is not None else None,
        "to_move": ", ".join(room.seats[s].name for s in movers) or None,
        "version": room.version,
        "idle_seconds": round(now - room.updated) if room.updated else None,
        "due_in_seconds": round(due - now) if due is not None else None,
    }


def describe(room: Room, show_hands: bool) -> dict[str, Any]:
    """A room for an operator: the public view of its game, each hand as a count, and
    the cards themselves only when `show_hands`."""
    from pydantic_core import to_jsonable_python

    from service.table.games import game_of

    out: dict[str, Any] = {
        "id": room.id,
        "status": room.status,
        "version": room.version,
        "chat_id": room.chat_id,
        "thread_id": room.thread_id,
        "private": room.private,
        "creator": room.creator,
        "created": _iso(room.created),
        "updated": _iso(room.updated),
        "deadline": _iso(room.deadline),
        "blocked": room.blocked,
        "settings": room.settings.model_dump(mode="json"),
        "seats": [],
    }
    game, state = game_of(room.settings.preset), room.game
    for index, seat in enumerate(room.seats):
        entry = seat.model_dump(mode="json")
        if state is not None:
            cards = game.hand(state, index)
            entry["cards"] = len(cards)
            if show_hands:
                entry["hand"] = list(cards)
        out["seats"].append(entry)
    if state is not None:
        public = to_jsonable_python(game.public_view(state))
        out["game"] = {
            **(public if isinstance(public, dict) else {}),
            "to_act": list(game.to_act(state)),
            "finished_hands": game.finished_hands(state),
            "over": game.result(state) is not None,
        }
    return out


def _iso(moment: float | None) -> str | None:
    return datetime.fromtimestamp(moment, UTC).isoformat() if moment else None


# ----- changing rooms ----------------------------------------------------------------


def end_game(store: Store, room_id: str, now: float) -> tuple[Room | None, bool]:
    """Cancel a lobby or running game atomically: (the room, whether this call ended it)."""
    from service.table import lobby
    from service.table.outcome import Outcome

    def change(room: Room) -> Outcome:
        if room.status not in ("lobby", "playing"):
            return Outcome()
        room.status = "cancelled"
        room.deadline = None
        room.updated = now
        return lobby.changed(room)  # a new version (stale buttons) and a table redraw

    result = store.update(room_id, change)
    if result is None:
        return None, False
    room, outcome = result
    return room, outcome.changed


def hand_records(room: Room, include_current: bool) -> list[tuple[int, dict[str, Any]]]:
    """(hand number, record) for each finished hand, and the hand in play if asked."""
    from service.table.games import game_of

    game, state = game_of(room.settings.preset), room.game
    if state is None:
        return []
    done = game.finished_hands(state)
    hands = done + (1 if include_current and game.result(state) is None else 0)
    return [(number, game.hand_record(state, number - 1)) for number in range(1, hands + 1)]


def purge(
    client: redis.Redis,
    now: float,
    failed_older_than: float,
    dry_run: bool,
    jobs: redis.Redis | None = None,
) -> dict[str, int]:
    """Remove what points at rooms that no longer exist, and failed jobs that ended long
    ago (on `jobs`, RQ's Redis, if not the same); the counts of what was (or, dry, would
    be) removed."""
    from rq import Queue

    from service.infra import indexes
    from service.infra.keys import (
        CHAT_PATTERN,
        DUE_KEY,
        PENDING_SYNC,
        Index,
        index_key,
        msgs_pattern,
        room_key,
        room_of_key,
    )
    from service.infra.queue import QUEUES
    from service.infra.store import text

    def missing(room_ids: list[str]) -> set[str]:
        with client.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                pipe.exists(room_key(room_id))
            answers = pipe.execute()
        return {r for r, there in zip(room_ids, answers, strict=True) if not there}

    def drop(index: Index, members: list[str]) -> None:
        if members and not dry_run:
            with client.pipeline(transaction=False) as pipe:
                for member in members:
                    pipe.zrem(index_key(index, member.split("|", 1)[0]), member)
                pipe.execute()

    counts: dict[str, int] = {}
    gone_due = sorted(missing(indexes.members(client, DUE_KEY)))
    drop(DUE_KEY, gone_due)
    counts[DUE_KEY] = len(gone_due)

    pending = indexes.members(client, PENDING_SYNC)
    gone = missing(sorted({m.split("|", 1)[0] for m in pending}))
    stale = [m for m in pending if m.split("|", 1)[0] in gone]
    drop(PENDING_SYNC, stale)
    counts[PENDING_SYNC] = len(stale)

    chat_keys = [text(k) for k in client.scan_iter(match=CHAT_PATTERN, count=500)]
    with client.pipeline(transaction=False) as pipe:
        for key in chat_keys:
            pipe.get(key)
        values = pipe.execute()
    targets = [text(v) if v is not None else "" for v in values]
    gone = missing(sorted({t for t in targets if t}))
    stale = [k for k, t in zip(chat_keys, targets, strict=True) if t in gone]
    if stale and not dry_run:
        client.delete(*stale)
    counts["chat"] = len(stale)

    message_keys = [
        text(k)
        for pattern in (msgs_pattern("msgs"), msgs_pattern("sent"))
        for k in client.scan_iter(match=pattern, count=500)
    ]
    owners = [room_of_key(k) for k in message_keys]
    gone = missing(sorted(set(owners)))
    stale = [k for k, owner in zip(message_keys, owners, strict=True) if owner in gone]
    if stale and not dry_run:
        client.delete(*stale)
    counts["messages"] = len(stale)

    rq = jobs if jobs is not None else client
    counts["failed_jobs"] = sum(
        drop_failed(Queue(name, connection=rq), now - failed_older_than, dry_run) for name in QUEUES
    )
    return counts


def drop_failed(queue: rq.Queue, before: float, dry_run: bool) -> int:
    """Drop a queue's failed jobs that ended before `before` (or lost their record);
    how many."""
    from rq.job import Job
    from rq.registry import clean_registries

    registry = queue.failed_job_registry
    ids = registry.get_job_ids(cleanup=not dry_run)
    found = Job.fetch_many(ids, connection=queue.connection) if ids else []
    old = [
        job_id
        for job_id, job in zip(ids, found, strict=True)
        if job is None or job.ended_at is None or job.ended_at.timestamp() < before
    ]
    if not dry_run:
        for job_id in old:
            registry.remove(job_id, delete_job=True)
        clean_registries(queue)  # RQ's own expiry of its started/finished/failed lists
    return len(old)


# ----- the command line --------------------------------------------------------------


def _store(args: argparse.Namespace) -> Store:
    """The store of BURRO_REDIS_URL (`--redis-url` instead), a cluster's with
    BURRO_REDIS_CLUSTER=1 (RQ's Redis then BURRO_JOBS_REDIS_URL)."""
    from service.infra.redis_server import connect_jobs, connect_state, embedded_url
    from service.infra.store import Store
    from service.settings import Settings

    settings = Settings()
    url = args.redis_url or settings.redis_url or embedded_url(settings.data_dir)
    settings.redis_url = url
    return Store.of(connect_state(settings), settings, jobs=connect_jobs(settings))


def run_games(args: argparse.Namespace) -> int:
    store = _store(args)
    now = time.time()
    if args.all:
        rows = [summary(room, None, now) for room in all_rooms(store)]
        rows.sort(key=lambda row: row["idle_seconds"] or 0)
    else:
        rows = [summary(room, due, now) for room, due in rooms_in_play(store)]
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    print(f"{'room':8}  {'status':9}  {'chat':>15}  {'preset':11}  {'hand':>4}  "
          f"{'idle':>7}  {'due':>7}  to move / players")  # fmt: skip
    for row in rows:
        who = row["to_move"] or ", ".join(row["players"])
        print(
            f"{row['id']:8}  {row['status']:9}  {row['chat_id']:>15}  {row['preset']:11}  "
            f"{row['hand_no'] or '-':>4}  {_ago(row['idle_seconds']):>7}  "
            f"{_ago(row['due_in_seconds']):>7}  {who}"
        )
    print(f"{len(rows)} {'room' if len(rows) == 1 else 'rooms'}", file=sys.stderr)
    return 0


def _ago(seconds: int | None) -> str:
    """A short duration: 45s, 12m, 3h05m, 2d04h; negative when overdue."""
    if seconds is None:
        return "-"
    sign, left = ("-" if seconds < 0 else ""), abs(seconds)
    if left < 60:
        return f"{sign}{left}s"
    if left < 3600:
        return f"{sign}{left // 60}m"
    if left < 86400:
        return f"{sign}{left // 3600}h{left % 3600 // 60:02d}m"
    return f"{sign}{left // 86400}d{left % 86400 // 3600:02d}h"


def run_show(args: argparse.Namespace) -> int:
    room = _store(args).load(args.room)
    if room is None:
        print(f"burro admin: no room {args.room!r}", file=sys.stderr)
        return 1
    print(json.dumps(describe(room, args.show_hands), indent=1, ensure_ascii=False))
    return 0


def run_end(args: argparse.Namespace) -> int:
    from service.i18n import Translator
    from service.services import Services
    from service.settings import Settings

    store = _store(args)
    room, ended = end_game(store, args.room, time.time())
    if room is None:
        print(f"burro admin: no room {args.room!r}", file=sys.stderr)
        return 1
    if not ended:
        print(f"burro admin: room {room.id} is {room.status} already", file=sys.stderr)
        return 1
    print(f"room {room.id} cancelled (version {room.version}); its table is being redrawn")
    if args.silent:
        return 0
    settings = Settings()
    text = args.message or Translator(Services(settings, store).room_lang(room)).gettext(
        END_MESSAGE
    )
    try:
        tell_chat(settings, room, text)
    except Exception as error:  # the game is ended either way: say what failed
        print(f"burro admin: could not tell chat {room.chat_id}: {error}", file=sys.stderr)
        return 3
    print(f"told chat {room.chat_id}: {text}")
    return 0


def tell_chat(settings: Any, room: Room, text: str) -> None:
    from service.platforms.telegram.botapi import BotApi

    if settings.telegram_token is None:
        raise RuntimeError("BURRO_TELEGRAM_TOKEN is not set")
    api = BotApi(settings.telegram_token.get_secret_value(), settings.telegram_api_url)
    extra = {"message_thread_id": room.thread_id} if room.thread_id and room.chat_id < 0 else {}
    try:
        api.call("sendMessage", chat_id=room.chat_id, text=text, **extra)
    finally:
        api.close()


def run_export(args: argparse.Namespace) -> int:
    store = _store(args)
    if args.all:
        rooms = list(all_rooms(store))
    elif args.rooms:
        rooms = []
        for room_id in args.rooms:
            room = store.load(room_id)
            if room is None:
                print(f"burro admin: no room {room_id!r}", file=sys.stderr)
                return 1
            rooms.append(room)
    else:
        print("burro admin export: name rooms, or --all", file=sys.stderr)
        return 2
    folder = None if args.out == "-" else Path(args.out)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for room in rooms:
        for number, record in hand_records(room, args.include_current):
            count += 1
            if folder is None:
                print(json.dumps(record, separators=(",", ":")))
            else:
                path = folder / f"burro-{room.id}-hand{number}.json"
                path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{count} {'record' if count == 1 else 'records'} exported", file=sys.stderr)
    return 0


def run_purge(args: argparse.Namespace) -> int:
    store = _store(args)
    counts = purge(store.redis, time.time(), args.failed_older_than, args.dry_run, store.jobs)
    if args.json:
        print(json.dumps({"dry_run": args.dry_run, **counts}))
        return 0
    verb = "would remove" if args.dry_run else "removed"
    for name, count in counts.items():
        print(f"{name:14} {verb} {count}")
    return 0
