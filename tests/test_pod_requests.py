"""FAS-1: effective per-pod requests, checked against hand-computed Kubernetes results."""

from __future__ import annotations

from kueue_preempt.model.pod_requests import ContainerResources, effective_pod_requests


def test_app_containers_are_summed_and_limits_stand_in() -> None:
    """FAS-1: app containers add up; a resource with only a limit uses the limit."""
    got = effective_pod_requests(
        [ContainerResources({"cpu": 500}), ContainerResources({"cpu": 250}, limits={"cpu": 1000, "memory": 64})]
    )
    assert got == {"cpu": 750, "memory": 64}


def test_init_containers_raise_the_floor() -> None:
    """FAS-1: the pod needs max(app sum, largest init container)."""
    got = effective_pod_requests([ContainerResources({"cpu": 500, "memory": 100})], [ContainerResources({"cpu": 2000})])
    assert got == {"cpu": 2000, "memory": 100}


def test_sidecars_add_to_the_sum_and_to_later_init_containers() -> None:
    """FAS-1: a restartable init container runs alongside: app 1 + sidecar 1 = 2 CPUs, and the
    later init container (2) runs next to the sidecar (1) = 3 CPUs, the peak."""
    got = effective_pod_requests(
        [ContainerResources({"cpu": 1000})],
        [ContainerResources({"cpu": 1000}, restartable=True), ContainerResources({"cpu": 2000})],
    )
    assert got == {"cpu": 3000}


def test_pod_level_requests_replace_and_overhead_adds() -> None:
    """FAS-1: pod-level cpu/memory replace the container sum; other resources stay; overhead on top."""
    got = effective_pod_requests(
        [ContainerResources({"cpu": 500, "memory": 100, "example.com/gpu": 1})],
        overhead={"cpu": 100},
        pod_requests={"cpu": 2000, "example.com/gpu": 5},
    )
    assert got == {"cpu": 2100, "memory": 100, "example.com/gpu": 1}


def test_negative_values_become_zero() -> None:
    """FAS-1: negative per-pod values are clamped to 0."""
    assert effective_pod_requests([ContainerResources({"cpu": -5})]) == {"cpu": 0}
