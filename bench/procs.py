"""Processes for the benchmarks: Redis, the null Bot API, `burro serve`, the floor app and
the load generator, each its own process on 127.0.0.1, stopped when the bench ends."""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cli.stack import wait_http
from service.infra.redis_server import free_port

TOKEN = "100000001:bench-token"
SECRET = "bench-secret"


def machine() -> str:
    """One line naming the machine the figures come from."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"load average {load:.2f} at the start"
    )


class Procs:
    """Named child processes, each logging to `folder/<name>.log`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def spawn(
        self,
        name: str,
        args: list[str],
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        python: str = sys.executable,
    ) -> None:
        log = (self.folder / f"{name}.log").open("ab")
        self.running[name] = subprocess.Popen(
            [python, *args],
            cwd=cwd,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self, name: str) -> None:
        process = self.running.pop(name, None)
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    def stop_all(self) -> None:
        for name in list(self.running):
            self.stop(name)

    def pid(self, name: str) -> int:
        return self.running[name].pid

    def cpu_seconds(self, name: str) -> float:
        """CPU time the process has used so far (user + system; Linux, else 0)."""
        return cpu_seconds_of(self.pid(name))


def cpu_seconds_of(pid: int) -> float:
    """CPU time a process has used so far (user + system; Linux, else 0)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def procs(folder: Path) -> Iterator[Procs]:
    running = Procs(folder)
    try:
        yield running
    finally:
        running.stop_all()


def serve_env(redis_url: str, api_url: str, **extra: str) -> dict[str, str]:
    return {
        "BURRO_TELEGRAM_TOKEN": TOKEN,
        "BURRO_WEBHOOK_SECRET": SECRET,
        "BURRO_TELEGRAM_API_URL": api_url,
        "BURRO_REDIS_URL": redis_url,
        "BURRO_BOT_DELAY": "0",
        **extra,
    }


def start_sink(running: Procs) -> str:
    port = free_port()
    running.spawn("sink", ["-m", "bench.sink", "--port", str(port)])
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/_sink/calls")
    return url


def start_servers(
    running: Procs,
    kind: str,
    count: int,
    redis_url: str,
    api_url: str,
    baseline: Path | None = None,
    floor_args: tuple[str, ...] = (),
    **env: str,
) -> list[str]:
    """`count` copies of `burro serve` (kind "ours"; "base": the same command run from
    the `baseline` source tree, e.g. a `git worktree` of an older commit) or of the floor
    app (`floor_args` on its command line: bench.floor); their host:port."""
    targets = []
    for index in range(count):
        port = free_port()
        name = f"{kind}{index}"
        if kind in ("ours", "base"):
            args = ["-m", "cli.main", "serve", "--port", str(port)]
        else:
            args = ["-m", "bench.floor", "--port", str(port), "--redis", redis_url, *floor_args]
        cwd = baseline if kind == "base" else None
        running.spawn(name, args, serve_env(redis_url, api_url, **env), cwd, python_of(cwd))
        targets.append(f"127.0.0.1:{port}")
    for target in targets:
        wait_http(f"http://{target}/healthz", timeout=60)
    return targets


def python_of(tree: Path | None) -> str:
    """The Python to run a source tree with: its own `.venv`'s if it has one (a baseline
    with the dependencies it had), else this one."""
    own = tree / ".venv" / "bin" / "python" if tree is not None else None
    return str(own) if own is not None and own.exists() else sys.executable


def loadgen(
    targets: list[str], redis_url: str, games_file: Path, *args: str, timeout: float = 300
) -> dict[str, Any]:
    """Run the load generator as its own process; its JSON result."""
    command = [
        sys.executable, "-m", "bench.loadgen", "--targets", ",".join(targets),
        "--redis", redis_url, "--games", str(games_file), "--secret", SECRET, *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"loadgen failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def settle(seconds: float = 1.0) -> None:
    """Let the machine calm down between phases (processes starting, logs flushing)."""
    time.sleep(seconds)
