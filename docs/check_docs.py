"""Check the documentation against the code (stdlib only; run from anywhere).

    python docs/check_docs.py

Checks:

1. Every rule ID cited in ``src/`` or ``tests/`` (and in the other docs pages) is explained
   by a heading of ``docs/semantics.md``, and no rule is explained twice.
2. Every relative link in ``docs/*.md`` and ``README.md`` resolves: the file exists, a
   ``#fragment`` names a heading of the target page (with the same anchor on GitHub and in
   the MkDocs site), and no docs page links outside ``docs/`` (the site must stand alone).
3. The API reference (``docs/reference/*.md``, rendered from docstrings by mkdocstrings):
   every ``::: target`` names a module (or an object of one) that exists; every public
   subpackage (and ``errors``) has a page ``docs/reference/<name>.md``; every name in the
   ``__all__`` of a public module is rendered, either by a directive for its module or by one
   for a package above it that re-exports it; and the root namespace section of
   ``docs/api.md`` lists exactly the names of ``kueue_preempt.__all__``.

Exits 0 when everything holds, 1 with a list of every problem otherwise.
"""

from __future__ import annotations

import ast
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SEMANTICS = DOCS / "semantics.md"
API = DOCS / "api.md"
REFERENCE = DOCS / "reference"
ROOT_SECTION = "The root namespace"
# Packages whose modules are an implementation, not an API: only the package's ``__all__`` is
# rendered (the command line is documented in docs/cli.md).
IMPLEMENTATION_PACKAGES = {"cli"}
PACKAGE = ROOT / "src" / "kueue_preempt"
CITATION_DIRS = ("src", "tests")
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".ini"}
SKIP_DIRS = {"__pycache__", ".mypy_cache", ".pytest_cache", ".hypothesis", ".git", ".venv", "site"}

# A rule ID: an upper-case family (possibly hyphenated, e.g. "CL-VAR", "FS-DRS"), a number and
# an optional lower-case letter ("FS-DRS-1a", "CL-GEN-7a"). The look-arounds keep "FS-DRS-1"
# from matching inside "FS-DRS-1a"/"FS-DRS-10" and "DRS-1" inside "FS-DRS-1".
RULE_ID = re.compile(r"(?<![A-Za-z0-9_-])([A-Z]{1,6}(?:-[A-Z]+)*-\d+[a-z]?)(?![A-Za-z0-9_])")
# Same shape, but not rule IDs: KEP numbers, encodings, RFCs and similar.
NOT_RULE_FAMILIES = {"KEP", "UTF", "RFC", "ISO", "PEP", "SHA", "CVE", "PR", "FNV"}

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
DEFINITION = re.compile(r"^\*\*([A-Z]{1,6}(?:-[A-Z]+)*-\d+[a-z]?)\b")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


# --------------------------------------------------------------------------- helpers


def rel(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def text_files(top: Path) -> Iterator[Path]:
    if not top.is_dir():
        return
    for path in sorted(top.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIP_DIRS.intersection(path.parts):
            yield path


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of a Markdown text outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def rule_ids(text: str) -> Iterator[str]:
    for match in RULE_ID.finditer(text):
        rule = match.group(1)
        if rule.split("-", 1)[0] not in NOT_RULE_FAMILIES:
            yield rule


# --------------------------------------------------------------------------- anchors


def heading_text(raw: str) -> str:
    """The visible text of a Markdown heading: links keep their text, markup is dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    text = re.sub(r"\{#[^}]*\}\s*$", "", text)
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*)", "", text)
    return text.strip()


def mkdocs_slug(text: str) -> str:
    """Python-Markdown's default ``toc`` slugify, which MkDocs uses."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def github_slug(text: str) -> str:
    """GitHub's heading anchors: lower-case, punctuation dropped, each space a hyphen."""
    value = text.strip().lower()
    value = "".join(ch for ch in value if ch.isalnum() or ch in " -_")
    return value.replace(" ", "-")


def anchors(path: Path) -> tuple[set[str], set[str]]:
    """The heading anchors of a Markdown file as (MkDocs, GitHub) sets, duplicates numbered."""
    mk: set[str] = set()
    gh: set[str] = set()
    mk_seen: Counter[str] = Counter()
    gh_seen: Counter[str] = Counter()
    for _, line in prose_lines(read(path)):
        m = HEADING.match(line)
        if m is None:
            continue
        explicit = re.search(r"\{#([^}\s]+)\}\s*$", m.group(2))
        text = heading_text(m.group(2))
        slug = explicit.group(1) if explicit else mkdocs_slug(text)
        mk.add(slug if mk_seen[slug] == 0 else f"{slug}_{mk_seen[slug]}")
        mk_seen[slug] += 1
        gslug = github_slug(text)
        gh.add(gslug if gh_seen[gslug] == 0 else f"{gslug}-{gh_seen[gslug]}")
        gh_seen[gslug] += 1
    return mk, gh


# --------------------------------------------------------------------------- check 1: rule IDs


def explained_rules() -> tuple[Counter[str], list[Problem]]:
    """Rule IDs that head a section (or start a definition line) of semantics.md."""
    problems: list[Problem] = []
    found: Counter[str] = Counter()
    if not SEMANTICS.is_file():
        return found, [Problem(rel(SEMANTICS), "missing")]
    for _, line in prose_lines(read(SEMANTICS)):
        heading = HEADING.match(line)
        if heading is not None and len(heading.group(1)) >= 3:
            ids = list(rule_ids(heading.group(2)))
            if ids:
                found[ids[0]] += 1  # a rule heading explains the ID it starts with
            continue
        definition = DEFINITION.match(line)
        if definition is not None:
            found[definition.group(1)] += 1
    for rule, count in sorted(found.items()):
        if count > 1:
            problems.append(Problem(rel(SEMANTICS), f"rule {rule} is explained {count} times"))
    return found, problems


def cited_rules(files: Iterable[Path]) -> dict[str, list[str]]:
    """Rule ID -> the first few places (file:line) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in files:
        for number, line in enumerate(read(path).splitlines(), start=1):
            for rule in rule_ids(line):
                places = cited.setdefault(rule, [])
                if len(places) < 3:
                    places.append(f"{rel(path)}:{number}")
    return cited


def check_rules() -> tuple[list[Problem], int, int]:
    explained, problems = explained_rules()
    sources = [p for d in CITATION_DIRS for p in text_files(ROOT / d)]
    sources += [p for p in sorted(DOCS.rglob("*.md")) if p != SEMANTICS]
    cited = cited_rules(sources)
    for rule in sorted(cited, key=sort_key):
        if rule not in explained:
            where = ", ".join(cited[rule])
            problems.append(Problem("docs/semantics.md", f"rule {rule} is cited ({where}) but not explained"))
    return problems, len(cited), len(explained)


def sort_key(rule: str) -> tuple[str, int, str]:
    m = re.fullmatch(r"(.*)-(\d+)([a-z]?)", rule)
    assert m is not None
    return m.group(1), int(m.group(2)), m.group(3)


# --------------------------------------------------------------------------- check 2: links


def links(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in prose_lines(read(path)):
        code_free = INLINE_CODE.sub("", line)
        for m in INLINE_LINK.finditer(code_free):
            yield number, m.group(1)
        ref = REFERENCE_DEF.match(code_free)
        if ref is not None:
            yield number, ref.group(1)


def check_links() -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    pages = sorted(DOCS.rglob("*.md"))
    readme = ROOT / "README.md"
    sources = pages + ([readme] if readme.is_file() else [])
    cache: dict[Path, tuple[set[str], set[str]]] = {}
    count = 0
    for page in sources:
        for number, target in links(page):
            if SCHEME.match(target):
                continue  # external URL: not checked offline
            count += 1
            where = f"{rel(page)}:{number}"
            path_part, _, fragment = target.partition("#")
            dest = page if not path_part else (page.parent / path_part).resolve()
            if not dest.is_relative_to(ROOT):
                problems.append(Problem(where, f"link {target!r} leaves the repository"))
                continue
            if page.is_relative_to(DOCS) and not dest.is_relative_to(DOCS):
                problems.append(Problem(where, f"link {target!r} leaves docs/ (the site must stand alone)"))
                continue
            if not dest.exists():
                problems.append(Problem(where, f"link {target!r}: {rel(dest)} does not exist"))
                continue
            if fragment and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest)
                mk, gh = cache[dest]
                if fragment not in mk or fragment not in gh:
                    problems.append(
                        Problem(where, f"link {target!r}: no heading with anchor #{fragment} in {rel(dest)}")
                    )
    return problems, count


# --------------------------------------------------------------------------- check 3: API reference


def all_names(path: Path) -> list[str] | None:
    """The string literals of ``__all__`` in a module (read, not imported); None without one."""
    for node in ast.parse(read(path)).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def imported_from(init: Path) -> dict[str, str]:
    """For a package ``__init__``: name -> the absolute module it is imported from."""
    found: dict[str, str] = {}
    for node in ast.parse(read(init)).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                found[alias.asname or alias.name] = node.module
    return found


def origin(mods: dict[str, Path], module: str, name: str) -> str:
    """The module that defines ``name``, following ``from X import name`` re-exports."""
    seen = {module}
    while module in mods:
        source = imported_from(mods[module]).get(name)
        if source is None or source in seen:
            break
        seen.add(source)
        module = source
    return module


def modules() -> dict[str, Path]:
    """Dotted name -> source file of every public module and package of the library."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if any(p.startswith("_") for p in parts):
            continue  # private, or __main__
        found[".".join(parts)] = path
    return found


@dataclass(frozen=True)
class Directive:
    page: str
    line: int
    target: str
    members: tuple[str, ...] | None  # None: the target's whole ``__all__``


def directives() -> list[Directive]:
    """Every ``::: target`` of the reference pages, with its ``members`` option if any."""
    found: list[Directive] = []
    for page in sorted(REFERENCE.glob("*.md")):
        lines = read(page).splitlines()
        for number, line in enumerate(lines, start=1):
            m = re.match(r"^:::\s+(\S+)\s*$", line)
            if m is None:
                continue
            members: list[str] | None = None
            in_members = False
            for option in lines[number:]:
                if not option.startswith(" ") or not option.strip():
                    break
                if option.strip() == "members:":
                    in_members, members = True, []
                elif in_members and option.strip().startswith("- ") and members is not None:
                    members.append(option.strip()[2:].strip())
                else:
                    in_members = False
            found.append(Directive(rel(page), number, m.group(1), None if members is None else tuple(members)))
    return found


def root_section_names() -> list[str]:
    """The single-identifier code spans in the bullets of api.md's root namespace section."""
    names: list[str] = []
    inside = False
    for _, line in prose_lines(read(API)):
        heading = HEADING.match(line)
        if heading is not None:
            inside = heading_text(heading.group(2)) == ROOT_SECTION
            continue
        if inside:
            names.extend(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", line))
    return names


def check_api() -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    if not API.is_file():
        return [Problem(rel(API), "missing")], 0
    mods = modules()
    found = directives()
    for d in found:
        module, _, obj = d.target, "", ""
        while module and module not in mods:
            module, _, tail = module.rpartition(".")
            obj = f"{tail}.{obj}" if obj else tail
        names = all_names(mods[module]) if module else None
        if not module or (obj and (names is None or obj.split(".")[0] not in names)):
            problems.append(Problem(f"{d.page}:{d.line}", f"{d.target} is not a public module or exported object"))
        for member in d.members or ():
            if obj or names is None or member not in names:
                problems.append(Problem(f"{d.page}:{d.line}", f"member {member!r} is not in {d.target}.__all__"))
    # One page per public subpackage (and per public top-level module with an API, e.g. errors).
    root = PACKAGE.name
    for name, path in mods.items():
        parts = name.split(".")
        if len(parts) == 2 and (path.name == "__init__.py" or all_names(path)):
            if not (REFERENCE / f"{parts[1]}.md").is_file():
                problems.append(Problem(rel(REFERENCE), f"{name} has no reference page {parts[1]}.md"))
    # Every exported name of every public module is rendered somewhere.
    whole = {d.target for d in found if d.members is None}
    partial: dict[str, set[str]] = {}
    for d in found:
        if d.members is not None:
            partial.setdefault(d.target, set()).update(d.members)
    count = 0
    for name, path in mods.items():
        if name == root or path.name == "__init__.py":
            continue
        if name.split(".")[1] in IMPLEMENTATION_PACKAGES:
            continue
        for exported in all_names(path) or []:
            if origin(mods, name, exported) != name:
                continue  # a re-export: rendered where it is defined
            count += 1
            if name in whole or exported in partial.get(name, set()):
                continue
            ancestors = [".".join(name.split(".")[:i]) for i in range(2, len(name.split(".")))]
            if any(
                a in whole and exported in (all_names(mods[a]) or []) and origin(mods, a, exported) == name
                for a in ancestors
            ):
                continue
            problems.append(Problem(rel(REFERENCE), f"{name}.{exported} is not rendered by any ::: directive"))
    # The root namespace: api.md lists exactly ``kueue_preempt.__all__``.
    root_all = all_names(PACKAGE / "__init__.py") or []
    listed = root_section_names()
    for exported in root_all:
        count += 1
        if exported not in listed:
            problems.append(Problem(rel(API), f"{exported!r} (in {root}.__all__) is missing from '{ROOT_SECTION}'"))
    for extra in sorted(set(listed) - set(root_all)):
        problems.append(Problem(rel(API), f"'{ROOT_SECTION}' lists {extra!r}, which is not in {root}.__all__"))
    return problems, count


# --------------------------------------------------------------------------- main


def main() -> int:
    rule_problems, n_cited, n_explained = check_rules()
    link_problems, n_links = check_links()
    api_problems, n_api = check_api()
    problems = rule_problems + link_problems + api_problems
    if problems:
        print(f"check_docs: {len(problems)} problem(s):", file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    print(
        f"check_docs: OK: {n_cited} rule IDs cited in {', '.join(CITATION_DIRS)} and docs, "
        f"{n_explained} explained in docs/semantics.md; {n_links} relative links resolve; "
        f"{n_api} exported names rendered by docs/reference/ or listed in docs/api.md."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
