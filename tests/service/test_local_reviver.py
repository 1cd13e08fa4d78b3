"""`burro local` starts a worker or `serve` again when it dies (issue #33): a worker
gone, on one machine with no orchestrator, left every game stuck."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from cli.local import FIRST_PAUSE, Reviver


@dataclass
class Process:
    code: int | None = None  # None: running

    def poll(self) -> int | None:
        return self.code


@dataclass
class FakeStack:
    processes: dict[str, Process] = field(default_factory=dict)
    started: list[str] = field(default_factory=list)

    def start_serve(self) -> None:
        self.started.append("serve")
        self.processes["serve"] = Process()

    def start_worker(self, index: int = 0) -> None:
        self.started.append(f"worker{index}")
        self.processes[f"worker{index}"] = Process()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_dead_worker_is_started_again_after_a_pause() -> None:
    stack = FakeStack({"emulator": Process(), "serve": Process(), "worker0": Process(-9)})
    clock = Clock()
    reviver = Reviver(stack, clock)  # type: ignore[arg-type]

    assert reviver.revive() == []  # found dead: started after a pause
    clock.now += FIRST_PAUSE
    assert reviver.revive() == ["worker0"]
    assert stack.started == ["worker0"]
    assert reviver.revive() == []  # running again


def test_one_that_keeps_dying_waits_longer_each_time() -> None:
    stack = FakeStack({"serve": Process(1)})
    clock = Clock()
    reviver = Reviver(stack, clock)  # type: ignore[arg-type]
    starts = []
    for _second in range(20):
        started = reviver.revive()
        if started:
            starts.append(clock.now)
            stack.processes["serve"].code = 1  # dies as it starts
        clock.now += 1
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert len(starts) >= 3
    assert gaps == sorted(gaps) and gaps[-1] > gaps[0]


def test_the_emulator_is_left_alone() -> None:
    stack = FakeStack({"emulator": Process(0)})
    clock = Clock()
    reviver = Reviver(stack, clock)  # type: ignore[arg-type]
    clock.now += 100
    assert reviver.revive() == [] and stack.started == []
