"""Kueue fields that the preemption model does not read but a dump carries: parsed, defaulted as
the API server does (API-1..API-7) and validated as Kueue's API does (API-8..API-27), so that
every release's dumps load and the ones Kueue would reject are rejected, naming the object.

Field tables per kind and apiVersion: docs/manifests.md.
"""

from __future__ import annotations

import re

from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement
from kueue_preempt.io._fields import Field, Meta
from kueue_preempt.io.objects import ResourceFlavorSpec, Taint, Toleration
from kueue_preempt.model.flavors import FlavorFungibility
from kueue_preempt.model.queues import AdmissionCheckRule, ClusterQueueSettings

__all__ = [
    "cluster_queue_settings",
    "resource_flavor_spec",
    "check_resource_group_shape",
    "label_selector",
    "toleration",
    "MAX_POD_SETS",
]

MAX_POD_SETS = 18
_QUEUEING = ("StrictFIFO", "BestEffortFIFO")
_STOP = ("None", "Hold", "HoldAndDrain")
_FUNGIBILITY = ("MayStopSearch", "TryNextFlavor")
_PREFERENCE = ("BorrowingOverPreemption", "PreemptionOverBorrowing")
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")
_LABEL_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _label_key(f: Field, key: str) -> None:
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        f.fail(f"label key {key[:60]!r} has an invalid prefix (a DNS subdomain)")
    if not _LABEL_NAME.fullmatch(name):
        f.fail(f"label key {key[:60]!r} is not a valid label name (63 characters: alphanumerics, '-', '_', '.')")


def _label_value(f: Field, value: str) -> None:
    if not _LABEL_VALUE.fullmatch(value):
        f.fail(f"{value[:60]!r} is not a valid label value")


def label_selector(f: Field) -> LabelSelector | None:
    """A label selector; ``None`` when absent (a CQ ``namespaceSelector`` then matches no namespace)."""
    if not f.present:
        return None
    f.mapping()
    labels = f.get("matchLabels")
    match_labels = labels.string_map()
    for key, value in match_labels.items():
        _label_key(labels.get(key), key)
        _label_value(labels.get(key), value)
    requirements = []
    for e in f.get("matchExpressions").list():
        key = e.get("key").string(required=True)
        _label_key(e.get("key"), key)
        op = e.get("operator").choice(_SELECTOR_OPS, "")
        if not op:
            e.get("operator").fail("required field is missing")
        values = [v.string() for v in e.get("values").list()]
        if op in ("In", "NotIn") and not values:
            e.get("values").fail(f"must not be empty for operator {op}")
        if op in ("Exists", "DoesNotExist") and values:
            e.get("values").fail(f"must be empty for operator {op}")
        requirements.append(LabelSelectorRequirement(key=key, operator=op, values=values))
    return LabelSelector(match_labels=match_labels, match_expressions=requirements)


# --------------------------------------------------------------------------- ClusterQueue / Cohort


def check_resource_group_shape(groups: Field, *, cluster_queue: bool) -> None:
    """API-8 and API-10 (size limits, resources in ``coveredResources`` order); API-9 and the
    rest of API-8 are checked while the quotas are read."""
    items = groups.list()
    if len(items) > 16:
        groups.fail(f"has {len(items)} resource groups, at most 16 (API-8)")
    flavors_total = 0
    resources_total = 0
    for group in items:
        covered_field = group.get("coveredResources")
        covered = [c.string(required=True) for c in covered_field.list(required=True)]
        if not 1 <= len(covered) <= 64:
            covered_field.fail(f"must list 1 to 64 resources, got {len(covered)} (API-8)")
        flavors = group.get("flavors").list(required=True)
        if not 1 <= len(flavors) <= 64:
            group.get("flavors").fail(f"must list 1 to 64 flavors, got {len(flavors)} (API-8)")
        flavors_total += len(flavors)
        resources_total += len(covered)
        if cluster_queue and len(flavors) * len(covered) > 512:
            group.fail(f"has {len(flavors) * len(covered)} flavor x resource entries, at most 512 (API-10)")
        for flavor in flavors:
            resources = flavor.get("resources")
            names = [r.get("name").string() for r in resources.list(required=True)]
            if len(names) == len(covered) and set(names) == set(covered) and names != covered:
                resources.fail(f"resources must follow coveredResources order {covered}, got {names} (API-8)")
    if cluster_queue and flavors_total > 256:
        groups.fail(f"lists {flavors_total} flavors in all, at most 256 (API-10)")
    if cluster_queue and resources_total > 256:
        groups.fail(f"covers {resources_total} resources in all, at most 256 (API-10)")


def _fungibility(f: Field, version: str) -> FlavorFungibility:
    f.mapping()
    allowed_borrow = _FUNGIBILITY + (("Borrow",) if version == "v1beta1" else ())
    allowed_preempt = _FUNGIBILITY + (("Preempt",) if version == "v1beta1" else ())
    borrow = f.get("whenCanBorrow").choice(allowed_borrow, "MayStopSearch")
    preempt = f.get("whenCanPreempt").choice(allowed_preempt, "TryNextFlavor")
    # API-30: v1beta1's deprecated Borrow / Preempt convert to MayStopSearch.
    borrow = "MayStopSearch" if borrow == "Borrow" else borrow
    preempt = "MayStopSearch" if preempt == "Preempt" else preempt
    preference_field = f.get("preference")
    preference = preference_field.choice(_PREFERENCE, "") or None
    if preference is not None and (borrow, preempt) != ("TryNextFlavor", "TryNextFlavor"):
        preference_field.fail("needs whenCanBorrow and whenCanPreempt both TryNextFlavor (API-15)")
    return FlavorFungibility(when_can_borrow=borrow, when_can_preempt=preempt, preference=preference)


def _admission_checks(spec: Field, version: str, flavors: list[str]) -> list[AdmissionCheckRule]:
    rules: list[AdmissionCheckRule] = []
    strategy = spec.get("admissionChecksStrategy")
    entries = strategy.get("admissionChecks").list()
    if version == "v1beta2" and strategy.present and not 1 <= len(entries) <= 64:
        strategy.get("admissionChecks").fail(f"must list 1 to 64 checks, got {len(entries)} (API-17)")
    for e in entries:
        name = e.get("name").string(required=True)
        if len(name) > 316:
            e.get("name").fail("longer than 316 characters (API-17)")
        on = e.get("onFlavors")
        on_items = on.list()
        if len(on_items) > 64:
            on.fail(f"lists {len(on_items)} flavors, at most 64 (API-17)")
        on_flavors = []
        for item in on_items:
            flavor = item.string(required=True)
            if flavor not in flavors:
                item.fail(f"flavor {flavor!r} is not a flavor of this ClusterQueue (API-17)")
            on_flavors.append(flavor)
        rules.append(AdmissionCheckRule(name=name, on_flavors=on_flavors))
    if version == "v1beta1":
        names = [x.string(required=True) for x in spec.get("admissionChecks").list()]
        if names:  # API-30: a non-empty list replaces the strategy
            rules = [AdmissionCheckRule(name=n) for n in names]
    elif spec.has("admissionChecks"):
        spec.get("admissionChecks").fail(
            "is the v1beta1 name of this field; in v1beta2 it is spec.admissionChecksStrategy.admissionChecks"
        )
    return rules


def cluster_queue_settings(
    meta: Meta, spec: Field, version: str, flavors: list[str]
) -> tuple[ClusterQueueSettings, FlavorFungibility]:
    """A ClusterQueue's queueing settings and its flavor fungibility (which the model's
    ClusterQueue holds, FAS-8), defaulted (API-2) and validated (API-15, API-17) in field
    order; v1beta1 spellings converted (API-30)."""
    if version == "v1beta1" and spec.has("concurrentAdmissionPolicy"):
        spec.get("concurrentAdmissionPolicy").fail("is a v1beta2 field; v1beta1 has no concurrentAdmissionPolicy")
    mode = spec.get("admissionScope").get("admissionMode")
    if version == "v1beta1" and spec.has("admissionScope") and not mode.present:
        mode.fail("required when admissionScope is set")
    queueing_strategy = spec.get("queueingStrategy").choice(_QUEUEING, "BestEffortFIFO")
    stop_policy = spec.get("stopPolicy").choice(_STOP, "None")
    namespace_selector = label_selector(spec.get("namespaceSelector"))
    fungibility = _fungibility(spec.get("flavorFungibility"), version)
    settings = ClusterQueueSettings(
        name=meta.name,
        queueing_strategy=queueing_strategy,
        stop_policy=stop_policy,
        namespace_selector=namespace_selector,
        admission_checks=_admission_checks(spec, version, flavors),
        terminating=meta.metadata.get("deletionTimestamp").time() is not None,
    )
    return settings, fungibility


# --------------------------------------------------------------------------- ResourceFlavor


def resource_flavor_spec(meta: Meta) -> ResourceFlavorSpec:
    """A ResourceFlavor's ``spec`` (API-18)."""
    spec = meta.root.get("spec")
    spec.mapping()
    labels_field = spec.get("nodeLabels")
    labels = labels_field.string_map()
    if len(labels) > 8:
        labels_field.fail(f"has {len(labels)} labels, at most 8 (API-18)")
    for key, value in labels.items():
        _label_key(labels_field.get(key), key)
        _label_value(labels_field.get(key), value)
    taints: list[Taint] = []
    taints_field = spec.get("nodeTaints")
    seen: set[tuple[str, str]] = set()
    for t in taints_field.list():
        key = t.get("key").string(required=True)
        _label_key(t.get("key"), key)
        effect = t.get("effect").choice(_EFFECTS, "")
        if not effect:
            t.get("effect").fail("required field is missing")
        if (key, effect) in seen:
            t.fail(f"a taint with key {key!r} and effect {effect} is listed twice (API-18)")
        seen.add((key, effect))
        taints.append(Taint(key=key, value=t.get("value").string(), effect=effect))
    if len(taints) > 8:
        taints_field.fail(f"has {len(taints)} taints, at most 8 (API-18)")
    tolerations = [toleration(t) for t in spec.get("tolerations").list()]
    if len(tolerations) > 8:
        spec.get("tolerations").fail(f"has {len(tolerations)} tolerations, at most 8 (API-18)")
    topology = spec.get("topologyName").optional_string()
    if topology is not None and not labels:
        spec.get("topologyName").fail("needs at least one nodeLabel (API-18)")
    return ResourceFlavorSpec(
        name=meta.name, node_labels=labels, node_taints=taints, tolerations=tolerations, topology_name=topology
    )


def toleration(t: Field) -> Toleration:
    """A toleration, defaulted and validated as the API server does (API-18; pods alike)."""
    key = t.get("key").string()
    if key:
        _label_key(t.get("key"), key)
    operator = t.get("operator").choice(("Equal", "Exists"), "Exists" if not key else "Equal")
    if not key and operator != "Exists":
        t.get("operator").fail("must be Exists when key is empty (API-18)")
    value = t.get("value").string()
    if operator == "Exists" and value:
        t.get("value").fail("must be empty when operator is Exists (API-18)")
    effect = t.get("effect").choice(_EFFECTS, "")
    seconds = t.get("tolerationSeconds").integer(low=-(2**63), high=2**63 - 1)
    if seconds is not None and effect != "NoExecute":
        t.get("tolerationSeconds").fail("only allowed with effect NoExecute (API-18)")
    # tolerationSeconds is validated but not kept: flavor matching never reads it (FAS-5b).
    return Toleration(key=key, operator=operator, value=value, effect=effect)
