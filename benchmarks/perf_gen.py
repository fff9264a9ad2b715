# Vendored verbatim from the shared perf scenarios (gen.py): benchmarks generate the very same
# tier shapes in-process instead of reading its (large) output. Not used by tests.
# mypy: ignore-errors
"""Deterministic generator of large preemption scenarios: the tiers the performance goals are stated on.

Kueue tiers are emitted in the conformance "targets" case schema (../conformance/README.md);
the PodGroup tiers in the kube "podgroup_preempt" schema. Same (tier, variant, seed) -> same case,
byte for byte (only `random.Random(str)` is used, no hash-order dependence).

    python3 gen.py                       # every tier -> $TMPDIR/kp-perf/<tier>.json, prints sizes
    python3 gen.py --tiers S,M,L --variants classic
    python3 gen.py --tiers L --split     # one file per variant: $TMPDIR/kp-perf/L.<variant>.json

Tiers (see TIERS below; all Kueue tiers: one flavor "default", one resource "cpu", like Kueue's perf configs)
  S   1 cohort x 10 CQs x 100 admitted                       (1,000)
  M   5 cohorts x 6 CQs, 15,000 admitted                     (Kueue configs/baseline shape)
  L   10 cohorts x 100 CQs, 50,000 admitted                  (Kueue configs/large-scale shape)
  XL  10 cohorts x 200 CQs = 2,000 CQs, 60,000 admitted      (Kueue PR #11004's attempted scale; cohort width
                                                              doubled so the per-decision candidate set grows)
  H   root -> 10 cohorts -> 10 CQs each (depth 3, fan-out 10, 100 CQs), 20,000 admitted, quotas on the
      root (10N) and on every middle cohort (2N, borrowingLimit 6N)
  PG  1,000 nodes x 10 units, 1,000 PodGroups x 10 pods (disruptionMode All, 5 priorities), preemptor
      PodGroup of 10 pods x 10 units (a whole node each; cf. PreemptionPodGroupDisruptionMode 3970m/4000m)
  PG5K  the same at 5,000 nodes / 5,000 PodGroups (50,000 running pods)

Kueue shapes follow configs/baseline: classes small/medium/large = requests 1/5/20 CPU, priorities
50/100/200, mixed 7:2:1 (350:100:50 per CQ in the baseline); every CQ nominal N, borrowingLimit 5N
(20 and 100 in Kueue), preemption withinClusterQueue LowerPriority, reclaimWithinCohort Any.
Kueue's perf runs create 15,000 workloads over time, never admitted at once (nominal 20 holds ~6);
here they are all admitted simultaneously, so N is scaled (N = 20 * s) until the admitted set
exactly fills every cohort: sum of usage == sum of quota (the cohort fully used), CQ usages spread
0.3N..1.8N so that some CQs borrow and others lend. Every CQ of cohort 0 (middle cohort 0 for H)
has a fixed role used by the preemptor variants:
  q000 lender (0.5N), q001 at-nominal (exactly N), q002 borrower (1.15N), q003 borrower-light (1.05N)
quotaReservedAt is distinct for every workload (no ordering ties), UIDs are unique.

Variants (the incoming workload and, for some, the config; the snapshot is shared by a tier):
  within          prio 300, 2x20 CPU, CQ at nominal: must preempt lower priority in its own CQ
  reclaim         prio 100, 2x20 CPU, CQ under nominal: reclaims from borrowing CQs (InCohortReclamation)
  reclaim-big     like reclaim, request 0.4N (hundreds of victims at M): stresses the greedy loop/fill-back
  borrow          prio 300, 2x20 CPU, borrowing CQ with borrowWithinCohort {LowerPriority, threshold 100}
                  (InCohortReclaimWhileBorrowing)
  fair-reclaim    fair sharing (default strategies), CQ under nominal (FairSharingPreemptWithinNominal)
  fair-borrow     fair sharing (default strategies), slightly borrowing CQ (InCohortFairSharing)
  fair-borrow-lis fair sharing, strategies [LessThanInitialShare] only
  PG tiers: kube (remove all lower-priority units, place once, reprieve: kube-scheduler's code)
            kep  (KEP-5710 binary search over priorities first; case carries requires ["kep-binary-search"])
Groups: classic = within,reclaim,borrow; fair = fair-reclaim,fair-borrow,fair-borrow-lis;
        all = every variant of the tier's kind.

No "expected" outcome is written: these scenarios measure speed and memory; correctness is the
conformance suites' job. A decision's candidates (what the ratio "decision / sorted()" sorts) are the
admitted workloads of the preemptor's ClusterQueue and of every other ClusterQueue of the same cohort
tree that use one of the preemptor's preemptFlavorResources, keyed like CandidatesOrdering (evicted
first, other ClusterQueues first, lower priority, newer quota reservation, UID) with the key tuple
computed before timing; for PodGroup tiers, the preemption units below the preemptor's priority.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

NOW = "2026-01-01T00:00:00Z"
_NOW_DT = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)
FLAVOR = "default"
FR = f"{FLAVOR}/cpu"
CLASSES = (("small", 1, 50), ("medium", 5, 100), ("large", 20, 200))   # name, CPU request, priority
MIX = (0.7, 0.2, 0.1)                                                   # 350:100:50 in configs/baseline
MEAN_REQ = sum(m * c[1] for m, c in zip(MIX, CLASSES))                  # 3.7 CPU per workload
DEFAULT_STRATEGIES = ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]

TIERS = {
    "S": {"kind": "flat", "cohorts": 1, "cqs": 10, "admitted": 1_000},
    "M": {"kind": "flat", "cohorts": 5, "cqs": 6, "admitted": 15_000},
    "L": {"kind": "flat", "cohorts": 10, "cqs": 100, "admitted": 50_000},
    "XL": {"kind": "flat", "cohorts": 10, "cqs": 200, "admitted": 60_000},
    "H": {"kind": "hier", "fanout": 10, "admitted": 20_000, "rootQuota": 10, "midQuota": 2, "midBorrow": 6},
    "PG": {"kind": "pg", "nodes": 1_000, "groups": 1_000, "podsPerGroup": 10, "nodeUnits": 10, "span": 2,
           "priorities": [10, 20, 30, 40, 50], "preemptorPods": 10, "preemptorPodUnits": 10,
           "preemptorPriority": 1000},
    "PG5K": {"kind": "pg", "nodes": 5_000, "groups": 5_000, "podsPerGroup": 10, "nodeUnits": 10, "span": 2,
             "priorities": [10, 20, 30, 40, 50], "preemptorPods": 10, "preemptorPodUnits": 10,
             "preemptorPriority": 1000},
}

# role -> usage multiplier of the fixed CQs of cohort 0 (middle cohort 0 for H)
ROLES = (("lender", 0.5), ("at-nominal", 1.0), ("borrower", 1.15), ("borrower-light", 1.05))

KUEUE_VARIANTS = {
    "within": {"role": "at-nominal", "priority": 300, "podCount": 2, "podCpu": 20,
               "expectReasons": ["InClusterQueue"]},
    "reclaim": {"role": "lender", "priority": 100, "podCount": 2, "podCpu": 20,
                "expectReasons": ["InCohortReclamation"]},
    "reclaim-big": {"role": "lender", "priority": 100, "podCount": 1, "podCpu": "0.4N",
                    "expectReasons": ["InCohortReclamation"]},
    "borrow": {"role": "borrower", "priority": 300, "podCount": 2, "podCpu": 20,
               "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
               "expectReasons": ["InCohortReclaimWhileBorrowing"]},
    "fair-reclaim": {"role": "lender", "priority": 100, "podCount": 2, "podCpu": 20,
                     "fair": DEFAULT_STRATEGIES, "expectReasons": ["InCohortReclamation"]},
    "fair-borrow": {"role": "borrower-light", "priority": 100, "podCount": 2, "podCpu": 20,
                    "fair": DEFAULT_STRATEGIES, "expectReasons": ["InCohortFairSharing"]},
    "fair-borrow-lis": {"role": "borrower-light", "priority": 100, "podCount": 2, "podCpu": 20,
                        "fair": ["LessThanInitialShare"], "expectReasons": ["InCohortFairSharing"]},
}
PG_VARIANTS = {"kube": {"mode": "kube"}, "kep": {"mode": "kep"}}
GROUPS = {
    "classic": ["within", "reclaim", "borrow"],
    "fair": ["fair-reclaim", "fair-borrow", "fair-borrow-lis"],
}


def variant_names(tier: str, spec: str | None = "all") -> list[str]:
    """Expand a comma list of variant names / groups (classic, fair, all) for a tier."""
    pg = TIERS[tier]["kind"] == "pg"
    every = list(PG_VARIANTS) if pg else list(KUEUE_VARIANTS)
    out: list[str] = []
    for part in (spec or "all").split(","):
        part = part.strip()
        if part == "all":
            names = every
        elif part in GROUPS and not pg:
            names = GROUPS[part]
        elif pg and part in ("classic", "fair"):   # group names mean "the default set" for PG tiers
            names = every
        elif part in every:
            names = [part]
        else:
            raise SystemExit(f"unknown variant {part!r} for tier {tier} (known: {', '.join(every)}, "
                             f"groups: {', '.join(GROUPS)}, all)")
        out += [n for n in names if n not in out]
    return out


def _rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join(str(p) for p in (seed,) + parts))


def _ts(seconds_before_now: int) -> str:
    return (_NOW_DT - _dt.timedelta(seconds=seconds_before_now)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _source(tier: str) -> dict:
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha1(f.read()).hexdigest()
    return {"repo": "kueue_preempt benchmarks", "commit": digest, "file": "gen.py", "test": f"perf tier {tier}"}


# ---------------------------------------------------------------------------------------------
# Kueue snapshot
# ---------------------------------------------------------------------------------------------
def _compose(count: int, usage: int) -> tuple[int, int, int]:
    """(small, medium, large) with exactly `count` workloads and `usage` CPU, closest to 7:2:1."""
    rest = usage - count                      # each medium adds 4, each large 19 over a small
    best = None
    for d in range(0, min(count, max(rest, 0) // 19) + 1):
        r = rest - 19 * d
        if r < 0 or r % 4:
            continue
        b = r // 4
        a = count - b - d
        if a < 0:
            continue
        score = abs(d - MIX[2] * count) * 19 + abs(b - MIX[1] * count) * 4
        if best is None or score < best[0]:
            best = (score, a, b, d)
    if best is None:
        raise ValueError(f"cannot compose {count} workloads using exactly {usage} CPU")
    return best[1], best[2], best[3]


def _compose_all(counts: list[int], usages: list[int]) -> list[tuple[int, int, int]]:
    """Compose every CQ with its exact usage; a count that has no exact composition moves by a few
    workloads, the difference carried to the next CQs so that the total count stays exact."""
    out: list[tuple[int, int, int]] = []
    final: list[int] = []
    carry = 0
    for c, u in zip(counts, usages):
        desired = c + carry
        for delta in sorted(range(-12, 13), key=lambda x: (abs(x), x)):
            try:
                comp = _compose(desired + delta, u) if desired + delta >= 1 else None
            except ValueError:
                comp = None
            if comp is not None:
                out.append(comp)
                final.append(desired + delta)
                carry = -delta
                break
        else:
            raise ValueError(f"cannot compose {desired} workloads / {u} CPU")
    step = 1 if carry > 0 else -1
    i = len(out) - 1
    while carry and i >= 0:          # settle the residue one workload at a time, last CQs first
        try:
            out[i] = _compose(final[i] + step, usages[i])
            final[i] += step
            carry -= step
        except ValueError:
            i -= 1
    if carry:
        raise ValueError(f"count residue {carry} left after composing")
    return out


def _largest_remainder(total: int, weights: list[float], minimum: int = 1) -> list[int]:
    s = sum(weights)
    raw = [total * w / s for w in weights]
    out = [max(minimum, int(x)) for x in raw]
    order = sorted(range(len(raw)), key=lambda i: (out[i] - raw[i], i))
    i = 0
    while sum(out) < total:
        out[order[i % len(order)]] += 1
        i += 1
    while sum(out) > total:
        j = order[-1 - (i % len(order))]
        if out[j] > minimum:
            out[j] -= 1
        i += 1
    return out


def _spread(rng: random.Random, target_sum: int, quotas: list[int], fixed: dict[int, float],
            lo: float, hi: float) -> list[int]:
    """Integer usages, one per child with quota quotas[i]: fixed multipliers for some, random
    multipliers in [lo, hi] (rescaled) for the others, summing exactly to target_sum."""
    mult = [fixed.get(i, rng.uniform(lo, hi)) for i in range(len(quotas))]
    free = [i for i in range(len(quotas)) if i not in fixed]
    fixed_sum = sum(round(mult[i] * quotas[i]) for i in fixed)
    free_raw = sum(mult[i] * quotas[i] for i in free)
    scale = (target_sum - fixed_sum) / free_raw if free else 0
    usage = [round(mult[i] * quotas[i]) if i in fixed else int(mult[i] * quotas[i] * scale)
             for i in range(len(quotas))]
    k = 0
    while sum(usage) != target_sum:   # put the rounding residue on the free children, one unit each
        step = 1 if sum(usage) < target_sum else -1
        usage[free[k % len(free)]] += step
        k += 1
    return usage


def _rg(nominal: int, borrowing: int | None) -> list[dict]:
    return [{"coveredResources": ["cpu"],
             "flavors": [{"name": FLAVOR, "resources": {"cpu": {
                 "nominal": str(nominal),
                 "borrowingLimit": None if borrowing is None else str(borrowing),
                 "lendingLimit": None}}}]}]


def _cq(name: str, cohort: str, nominal: int, borrowing: int) -> dict:
    return {"name": name, "cohort": cohort, "fairWeight": None,
            "resourceGroups": _rg(nominal, borrowing),
            "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any",
                           "borrowWithinCohort": None},
            "admissionScope": None}


def build_snapshot(tier: str, seed: int = 0) -> dict:
    """The shared part of every variant of a Kueue tier: flavors, cohorts, CQs, admitted workloads."""
    t = TIERS[tier]
    rng = _rng(seed, tier, "snapshot")
    cohorts: list[dict] = []
    cqs: list[dict] = []
    usage_of: dict[str, int] = {}
    roles: dict[str, str] = {}
    fixed = {i: m for i, (_, m) in enumerate(ROLES)}
    if t["kind"] == "flat":
        n_cq = t["cohorts"] * t["cqs"]
        nominal = 20 * max(1, round(t["admitted"] * MEAN_REQ / n_cq / 20))
        borrow = 5 * nominal
        for c in range(t["cohorts"]):
            cname = f"co-{c:02d}"
            cohorts.append({"name": cname, "parent": None, "fairWeight": None, "resourceGroups": []})
            names = [f"cq-{c:02d}-{q:03d}" for q in range(t["cqs"])]
            usages = _spread(rng, nominal * len(names), [nominal] * len(names),
                             fixed if c == 0 else {}, 0.4, 1.8)
            for q, (name, u) in enumerate(zip(names, usages)):
                cqs.append(_cq(name, cname, nominal, borrow))
                usage_of[name] = u
                if c == 0 and q < len(ROLES):
                    roles[ROLES[q][0]] = name
        meta = {"nominal": nominal, "borrowingLimit": borrow}
    elif t["kind"] == "hier":
        fan = t["fanout"]
        n_cq = fan * fan
        cap_units = n_cq + fan * t["midQuota"] + t["rootQuota"]        # in units of N
        nominal = 20 * max(1, round(t["admitted"] * MEAN_REQ / cap_units / 20))
        borrow = 5 * nominal
        root_q, mid_q, mid_b = t["rootQuota"] * nominal, t["midQuota"] * nominal, t["midBorrow"] * nominal
        cohorts.append({"name": "root", "parent": None, "fairWeight": None, "resourceGroups": _rg(root_q, None)})
        mid_sub = fan * nominal + mid_q
        mid_usage = _spread(rng, cap_units * nominal, [mid_sub] * fan, {0: 1.0}, 0.8, 1.35)
        for m in range(fan):
            mname = f"mid-{m:02d}"
            cohorts.append({"name": mname, "parent": "root", "fairWeight": None,
                            "resourceGroups": _rg(mid_q, mid_b)})
            names = [f"cq-{m:02d}-{q:02d}" for q in range(fan)]
            usages = _spread(rng, mid_usage[m], [nominal] * fan, fixed if m == 0 else {}, 0.6, 1.8)
            for q, (name, u) in enumerate(zip(names, usages)):
                cqs.append(_cq(name, mname, nominal, borrow))
                usage_of[name] = u
                if m == 0 and q < len(ROLES):
                    roles[ROLES[q][0]] = name
        meta = {"nominal": nominal, "borrowingLimit": borrow, "rootQuota": root_q, "midQuota": mid_q,
                "midBorrowingLimit": mid_b}
    else:
        raise ValueError(f"{tier} is not a Kueue tier")

    names = [q["name"] for q in cqs]
    counts = _largest_remainder(t["admitted"], [usage_of[n] for n in names])
    comps = _compose_all(counts, [usage_of[n] for n in names])
    # workloads, CQ by CQ; quotaReservedAt from one global shuffle (distinct, interleaved across CQs)
    specs = []
    for name, (a, b, d) in zip(names, comps):
        classes = [0] * a + [1] * b + [2] * d
        rng.shuffle(classes)
        specs.append((name, classes))
    total = sum(len(c) for _, c in specs)
    order = list(range(total))
    rng.shuffle(order)
    admitted = []
    k = 0
    for name, classes in specs:
        ns = "ns-" + name[3:]
        for i, ci in enumerate(classes):
            cls, cpu, prio = CLASSES[ci]
            age = order[k] + 1
            k += 1
            q = str(cpu)
            admitted.append({
                "name": f"{name}-{cls}-{i:04d}", "namespace": ns, "uid": f"{rng.getrandbits(64):016x}",
                "clusterQueue": name, "localQueue": "lq", "priority": prio, "annotations": {},
                "quotaReservedAt": _ts(age), "evicted": False, "creationTimestamp": _ts(age + 60),
                "usage": {FR: q},
                "podSets": [{"name": "main", "count": 1, "requests": {"cpu": q}, "flavors": {"cpu": FLAVOR},
                             "resourceUsage": {"cpu": q}}],
                "localQueueUsage": None, "extra": {}})
    meta.update({"cohorts": len(cohorts), "clusterQueues": len(cqs), "admitted": len(admitted),
                 "usage": usage_of, "roles": roles, "kind": t["kind"]})
    return {"resourceFlavors": [FLAVOR], "cohorts": cohorts, "clusterQueues": cqs, "admitted": admitted,
            "meta": meta}


def make_kueue_case(snap: dict, tier: str, variant: str, seed: int = 0) -> dict:
    """One "targets" case. Shares the snapshot's lists (admitted is NOT copied); only the preemptor's
    ClusterQueue entry is replaced when the variant changes its preemption stanza."""
    v = KUEUE_VARIANTS[variant]
    meta = snap["meta"]
    cq = meta["roles"][v["role"]]
    pod_cpu = v["podCpu"]
    if pod_cpu == "0.4N":
        pod_cpu = int(0.4 * meta["nominal"])
    total = pod_cpu * v["podCount"]
    cqs = snap["clusterQueues"]
    if "borrowWithinCohort" in v:
        cqs = [dict(q) for q in cqs]
        for q in cqs:
            if q["name"] == cq:
                q["preemption"] = dict(q["preemption"], borrowWithinCohort=dict(v["borrowWithinCohort"]))
    config: dict = {"fairSharing": bool(v.get("fair")), "admissionFairSharing": False, "featureGates": {}}
    extra: dict = {}
    if v.get("fair"):
        config["fairSharingStrategies"] = list(v["fair"])
        extra["fairSharingStrategiesExplicit"] = v["fair"] != DEFAULT_STRATEGIES
        extra["assumedFeatureGateDefaults"] = {"FairSharingPreemptWithinNominal": True}
    u = meta["usage"][cq]
    extra["perf"] = {"tier": tier, "variant": variant, "seed": seed, "role": v["role"],
                     "preemptorClusterQueue": cq, "preemptorCQUsage": str(u), "nominal": str(meta["nominal"]),
                     "request": str(total), "expectReasons": v["expectReasons"], "mustPreempt": True}
    incoming = {
        "name": f"preemptor-{variant}", "namespace": "ns-" + cq[3:], "uid": f"preemptor-{tier}-{variant}",
        "clusterQueue": cq, "localQueue": "lq", "priority": v["priority"], "annotations": {},
        "requests": {FR: str(total)}, "preemptFlavorResources": [FR], "creationTimestamp": NOW,
        "podSets": [{"name": "main", "count": v["podCount"], "requests": {"cpu": str(pod_cpu)}}],
        "assignment": [{"name": "main", "count": v["podCount"],
                        "flavors": {"cpu": {"name": FLAVOR, "mode": "Preempt"}}}],
        "extra": {}}
    return {
        "name": f"perf {tier} {variant}", "kind": "targets", "skip": None, "config": config,
        "resourceFlavors": snap["resourceFlavors"], "cohorts": snap["cohorts"], "clusterQueues": cqs,
        "admitted": snap["admitted"], "incoming": incoming, "now": NOW, "expected": None,
        "notes": (f"Generated by perf/gen.py (tier {tier}, variant {variant}, seed {seed}); cohort(s) fully used. "
                  "no expected outcome: a performance scenario."),
        "extra": extra}


# ---------------------------------------------------------------------------------------------
# PodGroup tiers (kube "podgroup_preempt" schema)
# ---------------------------------------------------------------------------------------------
def _kts(seconds_before_now: int) -> str:
    return (_NOW_DT - _dt.timedelta(seconds=seconds_before_now)).strftime("%Y-%m-%dT%H:%M:%S") + ".000000000Z"


def build_pg_snapshot(tier: str, seed: int = 0) -> dict:
    t = TIERS[tier]
    rng = _rng(seed, tier, "pg")
    n_nodes, n_groups, ppg, units, span = t["nodes"], t["groups"], t["podsPerGroup"], t["nodeUnits"], t["span"]
    if n_groups * ppg > n_nodes * units or ppg % span or units % (ppg // span):
        raise ValueError("PG layout does not pack")
    chunk = ppg // span
    nodes = [{"name": f"node-{i:05d}", "allocatable": {"units": str(units)}, "labels": {}}
             for i in range(n_nodes)]
    ns = "pg"
    groups, pods = [], []
    ages = list(range(n_groups))
    rng.shuffle(ages)
    used = [0] * n_nodes
    for g in range(n_groups):
        prio = rng.choice(t["priorities"])
        gname = f"pg-{g:05d}"
        groups.append({"name": gname, "namespace": ns, "uid": f"{gname}-uid", "priority": prio,
                       "disruptionMode": "All", "schedulingPolicy": {"gang": {"minCount": ppg}},
                       "preemptionPolicy": None, "parentCompositePodGroup": None, "schedulingConstraints": None})
        for j in range(ppg):
            k = j // chunk                                   # chunk k of group g -> node g + k (a ring)
            node = (g + k) % n_nodes
            used[node] += 1
            pods.append({"name": f"{gname}-{j}", "namespace": ns, "uid": f"{gname}-{j}-uid",
                         "nodeName": nodes[node]["name"], "priority": prio, "podGroup": gname, "labels": {},
                         "requests": {"units": "1"}, "startTime": _kts(60 * (ages[g] + 1) + j),
                         "terminating": False, "conditions": [], "nominatedNodeName": None,
                         "preemptionPolicy": None})
    if max(used) > units:
        raise ValueError("PG layout overcommits a node")
    return {"nodes": nodes, "pods": pods, "podGroups": groups,
            "meta": {"nodes": n_nodes, "podGroups": n_groups, "runningPods": len(pods), "nodeUnits": units,
                     "span": span, "priorities": t["priorities"]}}


def make_pg_case(snap: dict, tier: str, variant: str, seed: int = 0) -> dict:
    t = TIERS[tier]
    mode = PG_VARIANTS[variant]["mode"]
    ns = "pg"
    pg = {"name": "preemptor", "namespace": ns, "uid": "preemptor-uid", "priority": t["preemptorPriority"],
          "disruptionMode": "All", "schedulingPolicy": {"gang": {"minCount": t["preemptorPods"]}},
          "preemptionPolicy": None, "parentCompositePodGroup": None, "schedulingConstraints": None}
    ppods = [{"name": f"preemptor-{j}", "namespace": ns, "uid": f"preemptor-{j}-uid", "nodeName": None,
              "priority": t["preemptorPriority"], "podGroup": "preemptor", "labels": {},
              "requests": {"units": str(t["preemptorPodUnits"])}, "startTime": None, "terminating": False,
              "conditions": [], "nominatedNodeName": None, "preemptionPolicy": None}
             for j in range(t["preemptorPods"])]
    case = {
        "name": f"perf {tier} {variant}", "kind": "podgroup_preempt", "skip": None,
        "featureGates": {"GenericWorkload": True, "PodGroupPreemptionPolicy": True},
        "model": {"filter": "units", "placement": {"kind": "roundRobinFirstFit"}, "defaultMinCount": 1},
        "nodes": snap["nodes"], "pods": snap["pods"], "podGroups": snap["podGroups"], "compositePodGroups": [],
        "pdbs": [], "preemptor": {"kind": "podGroup", "podGroup": pg, "pods": ppods}, "reprieveFilter": None,
        "expected": None,
        "notes": (f"Generated by perf/gen.py (tier {tier}, variant {variant}, seed {seed}). Every node full; "
                  "each PodGroup (All) spans 2 adjacent nodes (ring). mode kube = remove all lower-priority "
                  "units, place once, reprieve (PG-26/27); mode kep = binary search over priorities first "
                  "(spec 9.1). no expected outcome: a performance scenario."),
        "extra": {"perf": {"tier": tier, "variant": variant, "seed": seed, "mode": mode, "mustPreempt": True}},
    }
    if mode == "kep":
        case["requires"] = ["kep-binary-search"]
    return case


def validate(cases: list[dict]) -> list[str]:
    """Structural sanity only (the generator's own quota checks are not shipped)."""
    return [] if cases else ["no cases"]


# ---------------------------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------------------------
def make_cases(tier: str, variants: str | list[str] = "all", seed: int = 0, expected: bool = False) -> list[dict]:
    """Cases of one tier (the snapshot is built once and shared by the variants' cases)."""
    names = variant_names(tier, variants) if isinstance(variants, str) else list(variants)
    if TIERS[tier]["kind"] == "pg":
        snap = build_pg_snapshot(tier, seed)
        cases = [make_pg_case(snap, tier, v, seed) for v in names]
    else:
        snap = build_snapshot(tier, seed)
        cases = [make_kueue_case(snap, tier, v, seed) for v in names]
    for c in cases:
        c["extra"]["perf"]["snapshot"] = {k: v for k, v in snap["meta"].items() if k not in ("usage",)}
    return cases


def make_file(tier: str, variants: str | list[str] = "all", seed: int = 0, expected: bool = True) -> dict:
    cases = make_cases(tier, variants, seed, expected)
    data = {"source": _source(tier), "cases": cases,
            "notes": (f"Performance tier {tier} generated by gen.py --seed {seed}. Synthetic, not a peer "
                      "test: inputs follow the schema exactly; no expected outcomes (speed and memory only).")}
    if TIERS[tier]["kind"] == "pg":
        data["source"]["notes"] = data.pop("notes")
        data["harness"] = {"perf": "case-level 'extra.perf' holds generator metadata (tier, variant, mode)",
                           "requires": "'kep-binary-search': the case expects KEP-5710's binary search over "
                                       "priorities (spec 9.1), not kube's remove-all"}
    return data


def describe(case: dict) -> str:
    p = case["extra"]["perf"]
    s = p["snapshot"]
    if case["kind"] == "podgroup_preempt":
        head = f"{s['nodes']} nodes, {s['podGroups']} PodGroups, {s['runningPods']} running pods"
    else:
        head = (f"{s['cohorts']} cohorts, {s['clusterQueues']} CQs, {s['admitted']} admitted, N={s['nominal']} "
                f"B={s['borrowingLimit']}; preemptor {p['preemptorClusterQueue']} ({p['role']}, usage "
                f"{p['preemptorCQUsage']}) requests {p['request']} CPU")
    e = case.get("expected")
    if e is not None:
        if case["kind"] == "podgroup_preempt":
            head += (f"; expected {e['status']['code']}, {len(e.get('victims') or [])} victim pods, "
                     f"{e.get('numPodGroupDisruptions')} group disruptions")
        else:
            reasons = sorted({t["reason"] for t in e["targets"]})
            head += f"; expected {e['count']} targets {reasons}"
    return head


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiers", default="S,M,L,XL,H,PG,PG5K")
    ap.add_argument("--variants", default="all", help="comma list of variants or groups (classic, fair, all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "kp-perf"))
    ap.add_argument("--no-expected", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--split", action="store_true", help="one file per variant (<tier>.<variant>.json)")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    rc = 0
    for tier in a.tiers.split(","):
        tier = tier.strip()
        if tier not in TIERS:
            raise SystemExit(f"unknown tier {tier!r}; known: {', '.join(TIERS)}")
        t0 = time.perf_counter()
        data = make_file(tier, a.variants, a.seed, expected=False)
        t1 = time.perf_counter()
        probs = validate(data["cases"])
        for p in probs:
            print(f"INVARIANT {tier}: {p}")
        outs = []
        if a.split:
            for c in data["cases"]:
                one = dict(data, cases=[c])
                outs.append((os.path.join(a.out, f"{tier}.{c['extra']['perf']['variant']}.json"), one))
        else:
            outs.append((os.path.join(a.out, f"{tier}.json"), data))
        for path, d in outs:
            text = json.dumps(d, separators=(",", ":"))
            with open(path, "w") as f:
                f.write(text)
            sha = hashlib.sha256(text.encode()).hexdigest()[:16]
            print(f"{path}: {len(text) / 1e6:.1f} MB, {len(d['cases'])} case(s), sha256 {sha}")
        for c in data["cases"]:
            print(f"  {c['extra']['perf']['variant']:<16} {describe(c)}")
        print(f"  generated in {t1 - t0:.1f} s ; "
              f"{'PROBLEMS' if probs else 'ok'}")
        rc |= bool(probs)
    return rc


if __name__ == "__main__":
    sys.exit(main())
