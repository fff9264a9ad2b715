"""The event-based YAML reader (io/_yaml.py) and the input rules YAML and JSON share.

* It builds what ``yaml.safe_load_all`` builds (property test over random documents, both
  libyaml's and the pure-Python parser, plus YAML 1.1 scalars, anchors and merge keys).
* Its guards act while events arrive: hostile nesting and alias bombs are clear errors, never
  a crash (the node-graph loader segfaults on 100,000 nested ``[``).
* Issue 17 item 8: the same mistake gets the same answer in YAML and JSON — duplicate keys,
  over-long numbers, huge and non-finite quantities.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import kueue_preempt.io.read as read_module
from kueue_preempt.io import Limits, ManifestError, ManifestSyntaxError, ManifestTooLarge, parse_documents, parse_dump
from kueue_preempt.io._yaml import MAX_NUMBER_DIGITS, has_libyaml, load_all

SRC = Path(__file__).resolve().parent.parent / "src"
PARSERS = [pytest.param(False, id="libyaml"), pytest.param(True, id="pure-python")]


@pytest.fixture(params=PARSERS)
def pure(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[bool]:
    """Run a test with libyaml's parser and with the pure-Python fallback."""
    if not request.param and not has_libyaml():
        pytest.skip("PyYAML without libyaml")
    monkeypatch.setattr(read_module, "_FORCE_PURE_YAML", request.param)
    yield request.param


def load(text: str, pure: bool = False) -> list[Any]:
    return list(load_all(text, max_depth=100, max_nodes=10**6, pure=pure))


# --------------------------------------------------------------------------- same as safe_load

_keys = st.text(alphabet="abcxyz_-./: 01<'\"#&*!?", min_size=1, max_size=8)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.text(max_size=12),
    st.sampled_from(["yes", "No", "on", "0x1F", "0o17", "017", "1_000", "1:30", "~", "null", "1e3", ".5", "2026-01-02"]),
)
_documents = st.recursive(
    _scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)), max_leaves=25
)


@settings(max_examples=150, deadline=None)
@given(doc=_documents, flow=st.booleans(), pure=st.booleans())
def test_builds_what_safe_load_builds(doc: Any, flow: bool, pure: bool) -> None:
    """Any document safe_dump writes (strings that look like YAML 1.1 values get quoted, plain
    ones resolve) loads to the object safe_load gives, with both parsers."""
    text = yaml.safe_dump(doc, default_flow_style=flow, allow_unicode=True)
    assert load(text, pure) == [yaml.safe_load(text)]


YAML_11 = """\
bools: [yes, No, on, OFF, true]
ints: [0x1F, 0o17, 017, 1_000, 1:30, -0b101, +5]
floats: [1.5, -2.5e+3, 1_0.25, 1:30.5]
nulls: [~, null, ""]
quoted: ["yes", '0x1F', "1.5"]
explicit: [!!str 5, !!int "7", !!float "2", ! 5]
time: 2026-01-02T03:04:05.5Z
day: 2026-01-02
base: &base {k: 1, j: 2}
merged:
  z: 0
  <<: *base
  k: 3
merged_list:
  <<: [{p: 1}, {p: 2, q: 3}]
quoted_merge_key: {'<<': plain}
anchored_scalar: &s hello
again: *s
"""


def test_yaml_1_1_scalars_anchors_and_merge_keys(pure: bool) -> None:
    """Plain scalars resolve as SafeLoader resolves them; ``<<`` merges as safe_load merges
    (own keys win, the first mapping of a list wins, merged keys come first)."""
    (got,) = load(YAML_11, pure)
    expected = yaml.safe_load(YAML_11)
    assert got == expected
    assert list(got["merged"]) == list(expected["merged"]) == ["k", "j", "z"]
    assert got["merged"]["k"] == 3 and got["merged_list"] == {"p": 1, "q": 3}
    assert got["quoted_merge_key"] == {"<<": "plain"}


def test_floats_are_exact_decimals() -> None:
    """A YAML float is the Decimal it spells, as a JSON number is (no binary rounding)."""
    (got,) = load("a: 0.1\nb: 1.0e+400\nc: -.inf\nd: .nan\n")
    assert got["a"] == Decimal("0.1") and type(got["a"]) is Decimal
    assert got["b"] == Decimal("1.0e+400")
    assert got["c"] == Decimal("-Infinity") and got["d"].is_nan()


def test_documents_and_empty_documents(pure: bool) -> None:
    assert load("---\na: 1\n---\n---\n- x\n", pure) == [{"a": 1}, None, ["x"]]
    assert load("", pure) == []


# --------------------------------------------------------------------------- guards

HOSTILE = {
    "flow-sequences": ("[" * 100_000, "nesting deeper than 100 levels"),
    "flow-mappings": ("{a: " * 100_000, "nesting deeper than 100 levels"),
    "block-mappings": ("".join("  " * i + "a:\n" for i in range(150)), "nesting deeper than 100 levels"),
    "alias-bomb": (
        "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
        "nodes (too large, or YAML aliases expanding it)",
    ),
    "alias-deepens": ("a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n", "nesting deeper than 100"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_documents_are_rejected_as_too_large(name: str, pure: bool) -> None:
    text, reason = HOSTILE[name]
    with pytest.raises(ManifestTooLarge) as info:
        parse_documents(text, source="evil.yaml")
    assert reason in str(info.value) and str(info.value).startswith("evil.yaml: ")


def test_deep_flow_nesting_does_not_crash_the_interpreter() -> None:
    """A 200 KB document of 100,000 ``[`` kills safe_load with a segmentation fault; here it is a
    ManifestTooLarge in a child interpreter that exits normally."""
    code = textwrap.dedent(
        """
        from kueue_preempt.io import ManifestTooLarge, parse_documents
        try:
            parse_documents("[" * 100_000 + "]" * 100_000, source="deep.yaml")
        except ManifestTooLarge as exc:
            print("rejected:", exc)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={"PYTHONPATH": str(SRC)}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "rejected: deep.yaml: nesting deeper than 100 levels"


def test_limits_are_the_callers() -> None:
    with pytest.raises(ManifestTooLarge, match="nesting deeper than 3 levels"):
        parse_documents("a: {b: {c: {d: 1}}}\n", limits=Limits(max_depth=3))
    assert parse_documents("a: {b: {c: 1}}\n", limits=Limits(max_depth=3))[0].data == {"a": {"b": {"c": 1}}}


REJECTED = {
    "recursive-alias": ("a: &a [1, *a]\n", "line 1, column 11: alias *a refers to a node that contains it"),
    "undefined-alias": ("a: *nope\n", "line 1, column 4: found undefined alias *nope"),
    "python-tag": ("a: !!python/object/apply:os.system [ls]\n", "tag !!python/object/apply:os.system is not supported"),
    "local-tag": ("a: !secret x\n", "tag !secret is not supported"),
    "binary-tag": ("a: !!binary aGk=\n", "tag !!binary is not supported"),
    "set-tag": ("a: !!set {x}\n", "tag !!set is not supported"),
    "bad-timestamp": ("a: 2026-13-01\n", "invalid !!timestamp '2026-13-01'"),
    "list-as-key": ("? [a]\n: 1\n", "line 1, column 3: a mapping key must be a scalar"),
    "alias-list-as-key": ("x: &l [1]\n? *l\n: 1\n", "a mapping key must be a scalar"),
    "bad-merge": ("a: {<<: 5}\n", "a merge key '<<' needs a mapping or a list of mappings"),
    "syntax": ("a: [1, 2\n", "YAML syntax error at line 2"),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_unsupported_yaml_is_a_syntax_error_with_its_position(name: str, pure: bool) -> None:
    text, reason = REJECTED[name]
    with pytest.raises(ManifestSyntaxError) as info:
        parse_documents(text, source="in.yaml")
    assert reason in str(info.value)


# --------------------------------------------------------------------------- one rule, both formats


def _cq(quota: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "team-a"},
        "spec": {
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": quota}]}]}
            ]
        },
    }


def test_duplicate_key_is_rejected_in_yaml_and_json(pure: bool) -> None:
    """Item 8: a key twice in one object is an error in both formats (safe_load keeps the last)."""
    yaml_text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n"
    json_text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "b"}}'
    with pytest.raises(ManifestSyntaxError) as y:
        parse_documents(yaml_text, source="d.yaml")
    with pytest.raises(ManifestSyntaxError) as j:
        parse_documents(json_text, source="d.json")
    assert "duplicate key 'name' in one mapping" in str(y.value) and "line 5, column 3" in str(y.value)
    assert "duplicate key 'name' in one object" in str(j.value)


@pytest.mark.parametrize("digits", [MAX_NUMBER_DIGITS + 1, 5000])
def test_overlong_number_is_one_rule_in_both_formats(digits: int, pure: bool) -> None:
    """Item 8: a number literal over 1000 characters is rejected the same way, and the message
    is ours (no advice about ``sys.set_int_max_str_digits``)."""
    number = "9" * digits
    reason = f"number with {digits} characters is too long (at most {MAX_NUMBER_DIGITS})"
    for text, fmt in ((f"a: {number}\n", "yaml"), (f'{{"a": {number}}}', "json")):
        with pytest.raises(ManifestSyntaxError) as info:
            parse_documents(text, format=fmt)
        assert str(info.value).endswith(reason), str(info.value)
        assert "set_int_max_str_digits" not in str(info.value)
    for text, fmt in ((f"a: {number}.5\n", "yaml"), (f'{{"a": {number}.5}}', "json")):
        with pytest.raises(ManifestSyntaxError, match="too long"):
            parse_documents(text, format=fmt)


def test_a_number_of_1000_characters_still_loads() -> None:
    number = "9" * MAX_NUMBER_DIGITS
    assert parse_documents(f"a: {number}\n")[0].data["a"] == int(number)
    assert parse_documents(f'{{"a": {number}}}')[0].data["a"] == int(number)


def _nominal(dump_text: str, fmt: str) -> int:
    return parse_dump(dump_text, format=fmt).cluster_queues[0].quotas.values().__iter__().__next__().nominal


@pytest.mark.parametrize("spelling", ["1.0e+400", "1e400", "1E+400"])
def test_huge_quantity_is_the_same_amount_in_yaml_json_and_strings(spelling: str) -> None:
    """Item 8: a huge quantity is a huge amount (UNLIMITED for a quota, Q-1) whether written as
    a YAML number, a JSON number or a string; YAML no longer turns 1.0e+400 into inf."""
    from kueue_preempt.model.quantity import UNLIMITED

    as_string = _nominal(json.dumps(_cq(spelling)), "json")
    as_json_number = _nominal(json.dumps(_cq(0)).replace('"nominalQuota": 0', f'"nominalQuota": {spelling}'), "json")
    yaml_text = yaml.safe_dump(_cq(0)).replace("nominalQuota: 0", f"nominalQuota: {spelling}")
    as_yaml = _nominal(yaml_text, "yaml")
    assert as_string == as_json_number == as_yaml == UNLIMITED


@pytest.mark.parametrize("yaml_value,json_value", [(".inf", "Infinity"), ("-.inf", "-Infinity"), (".nan", "NaN")])
def test_non_finite_numbers_are_never_quantities(yaml_value: str, json_value: str) -> None:
    """Item 8: YAML .inf/.nan are rejected at the field (not finite); JSON has no such numbers
    and rejects the constants outright."""
    yaml_text = yaml.safe_dump(_cq(0)).replace("nominalQuota: 0", f"nominalQuota: {yaml_value}")
    with pytest.raises(ManifestError) as info:
        parse_dump(yaml_text, source="cq.yaml")
    assert "ClusterQueue team-a: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota" in str(info.value)
    assert "not a finite number" in str(info.value)
    json_text = json.dumps(_cq(0)).replace('"nominalQuota": 0', f'"nominalQuota": {json_value}')
    with pytest.raises(ManifestSyntaxError, match=f"{json_value} is not valid JSON"):
        parse_dump(json_text, source="cq.json")


def test_decimal_quantity_written_as_yaml_number_is_exact() -> None:
    """Q-0: ``0.1`` as a YAML number is exactly 1/10 (100m), as the string "0.1" is."""
    quota = parse_dump(yaml.safe_dump(_cq(0)).replace("nominalQuota: 0", "nominalQuota: 0.1")).cluster_queues[0]
    assert [q.nominal for q in quota.quotas.values()] == [100]
