"""deploy/: every manifest valid against the Kubernetes schemas (kubernetes-validate,
strict: unknown fields fail), and consistent with itself and with the service: probes
on /healthz, resource requests everywhere, selectors that select, the HPA and PDBs on
the right pods, Secrets and settings that exist, shutdown grace that fits. The
components (deploy/components: the state on a cluster, workers scaled by KEDA) are
checked the same way, alone and as `kubectl kustomize` builds them into the whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]  # ships neither hints nor stubs
import pytest
import yaml

from tests.deploy.conftest import ROOT, unknown_settings

DEPLOY = ROOT / "deploy"
VERSIONS = ("1.29.0", "1.33.0")  # an older supported cluster and a recent one
CUSTOM = {"keda.sh/v1alpha1"}  # KEDA's kinds: no schema here, checked by their own tests
Resource = dict[str, Any]


def manifests() -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*.yaml") if p.name != "kustomization.yaml")


def resources() -> Iterator[tuple[Path, Resource]]:
    for path in manifests():
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                yield path, doc


def applied() -> list[Resource]:
    """What `kubectl apply -k deploy/` creates (the example Secret is applied by hand)."""
    return [doc for path, doc in resources() if path.name != "secret.example.yaml"]


def find(kind: str, name: str) -> Resource:
    for doc in applied():
        if doc["kind"] == kind and doc["metadata"]["name"] == name:
            return doc
    raise AssertionError(f"no {kind} {name}")


def workloads() -> list[Resource]:
    return [d for d in applied() if d["kind"] in ("Deployment", "StatefulSet", "Job")]


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_is_valid(version: str) -> None:
    count = 0
    for _path, doc in resources():
        if doc["apiVersion"] not in CUSTOM:
            kubernetes_validate.validate(doc, version, strict=True)
            count += 1
    assert count >= 26


def test_the_validator_catches_a_mistake() -> None:
    deployment = yaml.safe_load((DEPLOY / "serve.yaml").read_text().split("---")[0])
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}  # a typo
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[-1], strict=True)


def test_kustomization_lists_every_manifest() -> None:
    listed = set()
    for kustomization in DEPLOY.rglob("kustomization.yaml"):
        data = yaml.safe_load(kustomization.read_text())
        for entry in data.get("components") or []:
            assert (kustomization.parent / entry / "kustomization.yaml").exists(), entry
        for entry in data.get("resources", []):
            target = (kustomization.parent / entry).resolve()
            assert target.exists(), f"{kustomization}: {entry}"
            if target.is_file():
                listed.add(target)
        for generator in data.get("configMapGenerator", []):
            for file in generator["files"]:
                assert (kustomization.parent / file).exists(), file
    expected = {p.resolve() for p in manifests() if p.name != "secret.example.yaml"}
    assert listed == expected


def test_serve_probes_healthz_and_drains_before_the_kill() -> None:
    serve = find("Deployment", "burro-serve")
    pod = serve["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz", probe
    assert container["args"] == ["serve"]
    config = find("ConfigMap", "burro-config")["data"]
    sleep = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert sleep + int(config["BURRO_SHUTDOWN_GRACE"]) < pod["terminationGracePeriodSeconds"]
    assert serve["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_worker_probes_its_metrics_port_and_has_time_to_finish_a_job() -> None:
    worker = find("Deployment", "burro-worker")
    pod = worker["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    port = int(find("ConfigMap", "burro-config")["data"]["BURRO_WORKER_METRICS_PORT"])
    assert container["ports"][0]["containerPort"] == port
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert pod["terminationGracePeriodSeconds"] >= 30  # > a Bot API call's 10 s timeout
    assert worker["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"] == str(port)


def test_every_container_requests_resources_and_runs_unprivileged() -> None:
    for workload in workloads():
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, workload["metadata"]["name"]
        for container in pod.get("initContainers", []) + pod["containers"]:
            name = f"{workload['metadata']['name']}/{container['name']}"
            assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
            assert "memory" in container["resources"]["limits"], name
            assert container["securityContext"]["allowPrivilegeEscalation"] is False, name


def test_services_hpas_and_pdbs_point_at_real_pods() -> None:
    pods = {
        w["metadata"]["name"]: (w["spec"]["template"]["metadata"]["labels"], w) for w in workloads()
    }
    for doc in applied():
        kind = doc["kind"]
        if kind == "Service":
            chosen = [
                n for n, (labels, _) in pods.items() if selects(doc["spec"]["selector"], labels)
            ]
            assert chosen, doc["metadata"]["name"]
            ports = {p.get("name") for n in chosen
                     for c in pods[n][1]["spec"]["template"]["spec"]["containers"]
                     for p in c.get("ports", [])}  # fmt: skip
            for port in doc["spec"]["ports"]:
                assert port["targetPort"] in ports, (doc["metadata"]["name"], port)
        if kind == "PodDisruptionBudget":
            selector = doc["spec"]["selector"]["matchLabels"]
            assert any(selects(selector, labels) for labels, _ in pods.values()), doc
        if kind == "HorizontalPodAutoscaler":
            target = doc["spec"]["scaleTargetRef"]
            assert target["name"] in pods and doc["spec"]["minReplicas"] >= 2
        if kind == "ScaledObject":
            assert doc["spec"]["scaleTargetRef"]["name"] in pods
    covered = {
        n for n, (labels, w) in pods.items()
        for doc in applied() if doc["kind"] == "PodDisruptionBudget"
        if selects(doc["spec"]["selector"]["matchLabels"], labels)
    }  # fmt: skip
    assert {"burro-serve", "burro-worker", "burro-redis", "burro-redis-proxy",
            "burro-valkey"} <= covered  # fmt: skip
    assert find("HorizontalPodAutoscaler", "burro-serve")["spec"]["scaleTargetRef"]["name"] == (
        "burro-serve"
    )


def test_the_ingress_exposes_only_the_webhooks() -> None:
    ingress = find("Ingress", "burro")
    (rule,) = ingress["spec"]["rules"]
    paths = rule["http"]["paths"]
    assert [p["path"] for p in paths] == ["/telegram/webhook", "/whatsapp/webhook", "/view"]
    assert [p["pathType"] for p in paths] == ["Exact", "Exact", "Prefix"]  # the view's requests
    assert all(p["backend"]["service"]["name"] == "burro-serve" for p in paths)
    config = find("ConfigMap", "burro-config")["data"]
    assert config["BURRO_PUBLIC_URL"] == f"https://{rule['host']}"
    assert rule["host"] in ingress["spec"]["tls"][0]["hosts"]


def example_secrets() -> dict[str, set[str]]:
    """The keys of each Secret the examples make (burro-secrets has two: one Redis, or the
    state on a cluster)."""
    examples: dict[str, set[str]] = {}
    for _path, doc in resources():
        if doc["kind"] == "Secret":
            examples.setdefault(doc["metadata"]["name"], set()).update(doc["stringData"])
    return examples


def test_secrets_come_from_secrets_with_those_keys() -> None:
    examples = example_secrets()
    assert {"BURRO_TELEGRAM_TOKEN", "BURRO_WEBHOOK_SECRET", "BURRO_REDIS_URL",
            "BURRO_JOBS_REDIS_URL"} <= examples["burro-secrets"]  # fmt: skip
    assert not any(doc["kind"] == "Secret" for doc in applied())  # no secret in the repo
    for workload in workloads():
        pod = workload["spec"]["template"]["spec"]
        for container in pod.get("initContainers", []) + pod["containers"]:
            for source in container.get("envFrom", []):
                if "secretRef" in source:
                    assert source["secretRef"]["name"] in examples
            for env in container.get("env", []):
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["key"] in examples[ref["name"]], (env["name"], ref)
            names = {e["name"] for e in container.get("env", [])}
            assert not unknown_settings(names)
    assert not unknown_settings(find("ConfigMap", "burro-config")["data"])
    assert not unknown_settings(examples["burro-secrets"])
