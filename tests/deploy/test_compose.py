"""docker-compose.yml: valid against the Compose Specification's JSON schema (through
check-jsonschema's vendored copy), and the product as the issue asks: Redis with an
fsynced append-only file on a volume, two `serve` and two `worker` copies, the
webhook registered by `burro set-webhook`, rq-dashboard as an optional profile."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli.main import build_parser
from tests.deploy.conftest import ROOT, unknown_settings

COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def test_valid_against_the_compose_spec() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(COMPOSE)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_catches_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace("restart: unless-stopped", "restart: 3", 1))
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(broken)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0


def test_redis_keeps_an_fsynced_append_only_file_on_a_volume(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and "--appendfsync everysec" in command
    volume = redis["volumes"][0].split(":")
    assert volume[1] == "/data" and volume[0] in compose["volumes"]
    assert redis["healthcheck"]["test"][-1] == "ping"


def test_two_serve_and_two_worker_copies(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("serve", "worker"):
        assert services[name]["deploy"]["replicas"] == 2
        assert "ports" not in services[name]  # copies share the network; nothing collides
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
        assert services[name]["environment"]["BURRO_REDIS_URL"] == "redis://redis:6379/0"
        assert "healthz" in " ".join(services[name]["healthcheck"]["test"])
    assert services["worker"]["environment"]["BURRO_WORKER_METRICS_PORT"] == "9100"
    assert "9100" in " ".join(services["worker"]["healthcheck"]["test"])
    grace = {name: services[name]["stop_grace_period"] for name in ("serve", "worker")}
    assert grace == {"serve": "30s", "worker": "60s"}  # drain / warm shutdown fit in it


def test_one_redis_holds_everything_on_one_server(compose: dict[str, Any]) -> None:
    """The game state and RQ's queues on the same Redis: no cluster, no jobs Redis apart
    (those are for Kubernetes: docs/scaling.md)."""
    services = compose["services"]
    redis_images = [n for n, s in services.items() if s.get("image", "").startswith("redis")]
    assert redis_images == ["redis"]
    for service in services.values():
        env = service.get("environment", {})
        assert not {"BURRO_REDIS_CLUSTER", "BURRO_JOBS_REDIS_URL"} & set(env), service
    assert "docs/scaling.md" in COMPOSE.read_text().split("name: burro")[0]


def test_the_webhook_is_registered_by_the_command(compose: dict[str, Any]) -> None:
    job = compose["services"]["set-webhook"]
    assert job["command"] == ["set-webhook"] and job["restart"] == "on-failure"
    env = job["environment"]
    assert env["BURRO_PUBLIC_URL"].startswith("https://${BURRO_DOMAIN")
    assert {"BURRO_TELEGRAM_TOKEN", "BURRO_WEBHOOK_SECRET", "BURRO_WEBHOOK_MAX_CONNECTIONS"} <= set(
        env
    )
    assert job["depends_on"]["serve"]["condition"] == "service_healthy"


def test_every_burro_command_parses(compose: dict[str, Any]) -> None:
    parser = build_parser()
    for name, service in compose["services"].items():
        if service.get("image", "").startswith("burro"):
            args = parser.parse_args(service["command"])
            assert callable(args.run), name


def test_every_setting_name_is_one_burro_reads(compose: dict[str, Any]) -> None:
    burro = [s for s in compose["services"].values() if s.get("image", "").startswith("burro")]
    assert len(burro) == 4  # serve, the worker, the bots' worker, set-webhook
    for service in burro:
        assert not unknown_settings(service.get("environment", {})), service["command"]


def test_only_the_proxy_is_public_and_the_dashboard_is_optional(compose: dict[str, Any]) -> None:
    services = compose["services"]
    published = {name for name, s in services.items() if s.get("ports")}
    assert published == {"proxy", "rq-dashboard"}
    dashboard = services["rq-dashboard"]
    assert dashboard["profiles"] == ["dashboard"]
    assert all(port.startswith("127.0.0.1:") for port in dashboard["ports"])
    caddyfile = compose["configs"]["caddyfile"]["content"]
    assert "@webhooks path /telegram/webhook /whatsapp/webhook /view /view/open" in caddyfile
    assert "handle @webhooks" in caddyfile and "dynamic a serve 8080" in caddyfile


@pytest.mark.skipif(
    shutil.which("caddy") is None, reason="caddy not installed (apt-get install caddy)"
)
def test_the_caddyfile_is_valid(compose: dict[str, Any], tmp_path: Path) -> None:
    caddyfile = tmp_path / "Caddyfile"
    caddyfile.write_text(compose["configs"]["caddyfile"]["content"].replace("$$", "$"))
    done = subprocess.run(
        ["caddy", "adapt", "--config", str(caddyfile), "--adapter", "caddyfile", "--validate"],
        capture_output=True, text=True, timeout=60,
        env={"BURRO_DOMAIN": "burro.example.org", "HOME": str(tmp_path),
             "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
