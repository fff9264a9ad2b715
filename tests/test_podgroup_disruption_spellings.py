"""KEP-5710's ``disruptionMode`` in both releases' spellings (PG-4): 1.36's string (``Pod`` /
``PodGroup``, and the API names ``Single`` / ``All``) and 1.37's one-member object
(``{single: {}}`` / ``{all: {}}``) read as the same mode and give the same decisions; an object
that sets neither, both, or an unknown member is a ``ManifestError`` naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_helpers import run_cli
from kueue_preempt.io import ManifestError, parse_dump
from kueue_preempt.podgroup import DisruptionMode, select_podgroup_victims

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "examples" / "podgroup.yaml").read_text(encoding="utf-8")
ETL = "    name: etl-nightly\n    namespace: batch\n"

ALL_SPELLINGS: list[Any] = ["All", "PodGroup", {"all": {}}]
SINGLE_SPELLINGS: list[Any] = ["Single", "Pod", {"single": {}}, None]


def example_with_etl_mode(mode: Any) -> str:
    """examples/podgroup.yaml with the batch gang etl-nightly's ``disruptionMode`` respelt
    (``None``: the field left out)."""
    start = EXAMPLE.index(ETL)
    line = EXAMPLE.index("    disruptionMode: All\n", start)
    end = line + len("    disruptionMode: All\n")
    new = "" if mode is None else "    disruptionMode: " + json.dumps(mode) + "\n"
    return EXAMPLE[:line] + new + EXAMPLE[end:]


def decision(text: str, mode: str) -> tuple[Any, ...]:
    dump = parse_dump(text, source="podgroup.yaml")
    result = select_podgroup_victims(dump.pod_group_preemptor("ml/llm-train"), dump.cluster(), mode=mode)
    victims = tuple(f"{p.namespace}/{p.name}" for p in result.victims)
    units = tuple(str(u.unit) for u in result.victim_units)
    return result.status.code, victims, units, tuple(sorted(result.nominations.items())), result.num_podgroup_disruptions


def etl_mode(text: str) -> DisruptionMode:
    (group,) = [g for g in parse_dump(text).pod_groups if g.name == "etl-nightly"]
    return group.disruption_mode


@pytest.mark.parametrize("mode", ["kep", "kube"])
def test_every_spelling_of_a_mode_gives_the_same_decision(mode: str) -> None:
    whole = {json.dumps(s): decision(example_with_etl_mode(s), mode) for s in ALL_SPELLINGS}
    single = {json.dumps(s): decision(example_with_etl_mode(s), mode) for s in SINGLE_SPELLINGS}
    assert len(set(whole.values())) == 1, whole
    assert len(set(single.values())) == 1, single
    for s in ALL_SPELLINGS:
        assert etl_mode(example_with_etl_mode(s)) is DisruptionMode.ALL
    for s in SINGLE_SPELLINGS:
        assert etl_mode(example_with_etl_mode(s)) is DisruptionMode.SINGLE


def test_the_spellings_matter_the_two_modes_decide_differently() -> None:
    """The comparison above has teeth: in kube mode a whole All gang is one victim unit, a
    Single group's pods are units of their own."""
    whole = decision(example_with_etl_mode({"all": {}}), "kube")
    single = decision(example_with_etl_mode({"single": {}}), "kube")
    assert whole != single


def test_cli_output_is_identical_for_the_136_and_137_spellings(tmp_path: Path) -> None:
    outputs: list[Any] = []
    spellings: list[Any] = ["PodGroup", {"all": {}}]
    for spelling in spellings:
        path = tmp_path / f"pg-{len(outputs)}.yaml"
        path.write_text(example_with_etl_mode(spelling), encoding="utf-8")
        result = run_cli("podgroup", str(path), "--group", "ml/llm-train", "--mode", "kube", "-o", "json")
        assert result.returncode == 0, result.stderr
        outputs.append(json.loads(result.stdout))
    assert outputs[0] == outputs[1]
    assert [u["unit"] for u in outputs[0]["victimUnits"]] == ["PodGroup/batch/etl-nightly"]


def group(mode: Any, kind: str = "PodGroup", version: str = "v1beta1") -> str:
    spec: dict[str, Any] = {"priority": 1, "disruptionMode": mode}
    if kind == "PodGroup":
        spec["schedulingPolicy"] = {"gang": {"minCount": 2}}
    doc = {"apiVersion": f"scheduling.k8s.io/{version}", "kind": kind, "metadata": {"name": "g", "namespace": "ns"}, "spec": spec}
    return yaml.safe_dump(doc)


@pytest.mark.parametrize("kind", ["PodGroup", "CompositePodGroup"])
@pytest.mark.parametrize("version", ["v1alpha2", "v1alpha3", "v1beta1"])
def test_both_spellings_are_read_in_every_version(kind: str, version: str) -> None:
    for spelling, expected in (("PodGroup", DisruptionMode.ALL), ({"all": {}}, DisruptionMode.ALL),
                               ("Pod", DisruptionMode.SINGLE), ({"single": {}}, DisruptionMode.SINGLE),
                               ({"single": None}, DisruptionMode.SINGLE)):  # fmt: skip
        dump = parse_dump(group(spelling, kind, version))
        (g,) = dump.pod_groups if kind == "PodGroup" else dump.composite_pod_groups
        assert g.disruption_mode is expected, spelling


@pytest.mark.parametrize(
    ("mode", "path", "message"),
    [
        ({}, "spec.disruptionMode", "sets neither of single and all; exactly one is required"),
        ({"single": {}, "all": {}}, "spec.disruptionMode", "sets both of single and all; exactly one is required"),
        ({"whole": {}}, "spec.disruptionMode.whole", "unknown member 'whole'; the object sets exactly one of single, all"),
        ({"all": {"minCount": 2}}, "spec.disruptionMode.all", "must be an empty object ({}), got fields minCount"),
        ({"all": "yes"}, "spec.disruptionMode.all", "expected a mapping, got"),
        (3, "spec.disruptionMode", "expected a string (Single, All, Pod, PodGroup) or an object ({single: {}} or {all: {}}), got"),
        ("Sometimes", "spec.disruptionMode", "'Sometimes' is not one of Single, All, Pod, PodGroup"),
    ],
)
@pytest.mark.parametrize("kind", ["PodGroup", "CompositePodGroup"])
def test_an_invalid_mode_is_a_typed_error_naming_the_field(mode: Any, path: str, message: str, kind: str) -> None:
    with pytest.raises(ManifestError) as info:
        parse_dump(group(mode, kind), source="pg.yaml")
    assert (info.value.kind, info.value.name, info.value.path) == (kind, "ns/g", path)
    assert message in str(info.value)
    assert str(info.value).startswith(f"pg.yaml: {kind} ns/g: {path}: ")


def test_pg_val_1_names_the_object_spelling() -> None:
    """PG-VAL-1 holds for the 1.37 spelling too, and the message quotes what the manifest said."""
    doc = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "ns"},
           "spec": {"disruptionMode": {"all": {}}, "schedulingPolicy": {"basic": {}}}}  # fmt: skip
    with pytest.raises(ManifestError) as info:
        parse_dump(yaml.safe_dump(doc))
    assert info.value.path == "spec.disruptionMode"
    assert "{all: {}} (the whole group is disrupted) is only allowed with schedulingPolicy.gang" in str(info.value)
