"""The outbox sends each request once: a re-post (`:new`) or a nudge run again (by the
sweeper, while a 429 held the first job back) neither posts twice nor loses the change."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
from rq import SimpleWorker
from rq.registry import ScheduledJobRegistry

from service.infra import forget, indexes, queue
from service.infra.keys import PENDING_SYNC, live_key, msgs_key, sent_key
from service.infra.queue import QUEUE
from service.infra.store import text
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import JobKind, Outcome
from service.table.room import Room, RoomSettings
from tests.service.conftest import FakeApi
from workers import jobs, outbox
from workers.runtime import Runtime
from workers.sweeper import sweep_once


def started_room(rt: Runtime) -> Room:
    ana, ben = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
    now = time.time()
    room = lobby.create_room(-100, None, ana, now, settings=RoomSettings(preset="spanish"))
    lobby.join(room, ben)
    assert rt.svc.store.create(room, lobby.start(room, ana, now, 0.0), None)
    indexes.clear(rt.redis, PENDING_SYNC)
    return room


def request(rt: Runtime, room: Room, *targets: str) -> None:
    """What a reminder does: no move, the targets posted afresh."""

    def change(fresh: Room) -> Outcome:
        fresh.reminded = True
        return Outcome(changed=True, sync=set(targets))

    assert rt.svc.store.update(room.id, change) is not None


def test_a_repost_run_twice_posts_once(rt: Runtime) -> None:
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    outbox.sync(rt, room.id, "table")
    assert api.sent() == 1
    request(rt, room, "table:new")
    outbox.sync(rt, room.id, "table:new")
    outbox.sync(rt, room.id, "table:new")  # the sweeper's copy, after the first went out
    assert api.sent() == 2
    assert indexes.count(rt.redis, PENDING_SYNC) == 0
    request(rt, room, "table:new")  # a new request posts again
    outbox.sync(rt, room.id, "table:new")
    assert api.sent() == 3


def test_a_nudge_run_twice_posts_once(rt: Runtime) -> None:
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    request(rt, room, "nudge")
    outbox.sync(rt, room.id, "nudge")
    outbox.sync(rt, room.id, "nudge")
    assert api.sent() == 1
    request(rt, room, "nudge")  # the same player's turn again: the same words, a new nudge
    outbox.sync(rt, room.id, "nudge")
    assert api.sent() == 2


def test_a_table_posted_anew_calls_again_who_plays_from_the_group(rt: Runtime) -> None:
    """Called for their turn by the table in the group, a member who plays from the
    group is called again by the table posted anew on request (the group became a
    supergroup: the first call stayed in the old group); an edit calls nobody twice."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    [user] = [room.seats[s].user_id for s in play.waiting_humans(room)]
    assert user is not None

    def from_group(fresh: Room) -> Outcome:
        fresh.blocked = [user]
        return Outcome(changed=True)

    rt.svc.store.update(room.id, from_group)
    outbox.sync(rt, room.id, "table")
    assert called(api) == [user]
    request(rt, room, "table")  # an edit: called for this turn already
    outbox.sync(rt, room.id, "table")
    assert called(api) == []
    request(rt, room, "table:new")
    outbox.sync(rt, room.id, "table:new")
    assert called(api) == [user]


def called(api: FakeApi) -> list[int]:
    """Whom the last message sent or edited names (its mentions; an old message retired
    after it aside)."""
    shown = ("sendMessage", "editMessageText")
    params = next(params for method, params in reversed(api.calls) if method in shown)
    mentions = [e for e in params.get("entities", []) if e["type"] == "text_mention"]
    return [e["user"]["id"] for e in mentions]


def test_the_sweeper_resends_a_lost_repost_once(rt: Runtime) -> None:
    """A re-post whose job was lost goes out through the sweeper's copy; the original,
    if only held back, then finds it served."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    request(rt, room, "table:new")
    assert sweep_once(rt.svc.store, time.time() + 60, grace=30) == 1
    assert indexes.count(rt.redis, PENDING_SYNC) == 1  # still pending: looked at again later
    outbox.sync(rt, room.id, "table:new")  # the sweeper's job
    outbox.sync(rt, room.id, "table:new")  # the original one, held back until now
    assert api.sent() == 1
    assert indexes.count(rt.redis, PENDING_SYNC) == 0


def test_a_retry_retried_again_takes_another_id(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retry that must wait again (another 429) is not scheduled under its own id: RQ
    deletes the running job's hash as it finishes, and a same-id job with it."""
    # rq leaves ScheduledJobRegistry.__init__ unannotated (*args, **kwargs).
    scheduled = ScheduledJobRegistry(QUEUE, connection=rt.redis)  # type: ignore[no-untyped-call]
    due = time.time() + 900
    queue.later(rt.redis, JobKind.SYNC, "r1", "table", due)
    queue.later(rt.redis, JobKind.SYNC, "r1", "table", due)  # asked twice: one job
    first = f"sync-r1-table-later{int(due)}"
    assert scheduled.get_job_ids() == [first]
    monkeypatch.setattr(queue, "get_current_job", lambda: SimpleNamespace(id=first))
    queue.later(rt.redis, JobKind.SYNC, "r1", "table", due)
    assert f"sync-r1-table-again{int(due)}" in scheduled.get_job_ids()
    queue.later(rt.redis, JobKind.SYNC, "r1", "table", due + 1)  # a second later: its own
    assert f"sync-r1-table-later{int(due + 1)}" in scheduled.get_job_ids()


def test_a_retry_asked_while_another_worker_runs_one_is_kept(rt: Runtime) -> None:
    """Found by bench.move_e2e: a press's sync found its target locked by another
    worker's retry and asked for one a second later; the retry running then finished,
    and RQ deleted its hash (no result kept), the new one with it when they shared an
    id. The table waited for the sweeper (30 s)."""
    room = started_room(rt)
    rt.jobs.delete(f"rq:queue:{QUEUE}")  # the start's own sync: not this test's
    queue.later(rt.jobs, JobKind.SYNC, room.id, "table", time.time() - 1)  # due: queued now
    asked: list[str] = []

    def another_worker_asks(*args: Any) -> None:
        queue.later(rt.jobs, JobKind.SYNC, room.id, "table", None)  # as a locked target does
        asked.append("again")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "sync", lambda *args: another_worker_asks())
        patch.setattr(queue, "get_current_job", lambda: None)  # the asker is another job
        SimpleWorker([QUEUE], connection=rt.jobs).work(burst=True, with_scheduler=False)
    assert asked == ["again"]
    scheduled = ScheduledJobRegistry(QUEUE, connection=rt.jobs)  # type: ignore[no-untyped-call]
    waiting = scheduled.get_job_ids()
    assert len(waiting) == 1 and rt.jobs.exists(f"rq:job:{waiting[0]}")


def test_a_repost_asked_again_while_its_job_runs_is_posted(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by asking /look again and again: a re-post asked while the last one's job
    ran, the room not moved on, was a job of the same id (its version's), and RQ deleted
    its hash with the running one's; the hand waited for the sweeper (30 s)."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    rt.jobs.delete(f"rq:queue:{QUEUE}")  # the start's own sync: not this test's
    monkeypatch.setattr(jobs, "runtime", lambda: rt)
    sync_all, asked = outbox.sync_all, list[str]()

    def asked_again_meanwhile(*args: Any, **kwargs: Any) -> None:
        sync_all(*args, **kwargs)
        if not asked:  # the person asks again as this job ends, before RQ's end of it
            asked.append("again")
            request(rt, room, "table:new")

    monkeypatch.setattr(outbox, "sync_all", asked_again_meanwhile)
    request(rt, room, "table:new")
    SimpleWorker([QUEUE], connection=rt.jobs).work(burst=True, with_scheduler=False)
    assert asked == ["again"]
    assert api.sent() == 2  # posted for each ask
    assert indexes.count(rt.redis, PENDING_SYNC) == 0


def last_text(api: FakeApi) -> str:
    return str([p for m, p in api.calls if m in ("sendMessage", "editMessageText")][-1]["text"])


def test_a_job_that_read_an_older_room_never_sends_after_a_newer_one(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the chaos soak: a slow job rendered the room before a move, a quicker one
    showed the move, and the slow one's edit then put the old state back."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    outbox.sync(rt, room.id, "table")
    parse, raced = rt.svc.store.parse, list[object]()

    def rename(fresh: Room) -> Outcome:
        fresh.seats[1].name = "Benito"
        return Outcome(changed=True, sync={"table"})

    def read_then_race(data: bytes | str | None, known: Room | None = None) -> Room | None:
        if not raced:  # as this job read the room, a move lands and its job runs
            raced.append(rt.svc.store.update(room.id, rename))
            outbox.sync(rt, room.id, "table")
        return parse(data, known)

    later: list[tuple[Any, ...]] = []
    monkeypatch.setattr(rt.svc.store, "parse", read_then_race)
    monkeypatch.setattr(queue, "later", lambda *args: later.append(args))
    request(rt, room, "table")
    outbox.sync(rt, room.id, "table")
    monkeypatch.setattr(rt.svc.store, "parse", parse)
    for _client, _kind, room_id, target, _at in list(later):  # jobs put off come back
        outbox.sync(rt, room_id, target)
    assert "Benito" in last_text(api)
    assert indexes.count(rt.redis, PENDING_SYNC) == 0


def test_a_request_made_while_its_target_is_sent_is_not_cleared_unserved(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-post asked for while the previous one was being sent (a tap on the turn
    template just as the reminder's job posted it) is posted too."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    outbox.sync(rt, room.id, "table")
    settle = outbox.bring_up_to_date

    def settle_then_ask(*args: Any) -> bool:
        served = settle(*args)
        request(rt, room, "table:new")  # after this job looked at its request
        return served

    request(rt, room, "table:new")
    monkeypatch.setattr(outbox, "bring_up_to_date", settle_then_ask)
    outbox.sync(rt, room.id, "table:new")
    monkeypatch.setattr(outbox, "bring_up_to_date", settle)
    assert api.sent() == 2 and indexes.count(rt.redis, PENDING_SYNC) == 1
    outbox.sync(rt, room.id, "table:new")  # the second request's job
    assert api.sent() == 3 and indexes.count(rt.redis, PENDING_SYNC) == 0


def test_a_finished_job_leaves_no_record(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """No job's result is read: a finished job's hash and result go with it (RQ
    kept ~7 KB for each for ten minutes, 600 KB a game). A change's sync names its
    version and moment, so the next change's sync is a job of its own, at the same
    version too."""
    monkeypatch.setattr(jobs, "runtime", lambda: rt)
    room = started_room(rt)
    request(rt, room, "table")
    request(rt, room, "table")
    queued = {text(k) for k in rt.redis.keys("rq:job:sync-*")}
    assert len(queued) == 3 and all(k.split("-")[-1].startswith("v") for k in queued)
    SimpleWorker([QUEUE], connection=rt.redis).work(burst=True, with_scheduler=False)
    assert not rt.redis.keys("rq:job:sync-*") and not rt.redis.keys("rq:results:*")


@pytest.mark.parametrize("gone", ["room", "person"])
def test_a_job_sending_as_its_room_or_person_goes_leaves_no_marks(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch, gone: str
) -> None:
    """Found by CI: a forget landed while a job was sending, and the job's marks (the
    message it sent, the chat's newest message) came back after the forget's sweep."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    send = api.call

    def goes_while_sending(method: str, **params: Any) -> Any:
        if gone == "room":
            forget.delete_room(rt.svc.store, room)
        else:
            forget.drop_hand(rt.svc.store, room.id, 2)
        return send(method, **params)

    monkeypatch.setattr(api, "call", goes_while_sending)
    outbox.sync(rt, room.id, "hand:2")
    assert api.sent() == 1
    parts = [msgs_key(room.id), sent_key(room.id), live_key(room.id)]
    left = {text(f) for key in parts for f in rt.redis.hkeys(key)}
    assert not {"hand:2", "2", "2:turn", "top:2"} & left, left
    if gone == "room":
        assert not any(rt.redis.exists(key) for key in parts)
