"""Check the documentation against the code (stdlib only; run from anywhere).

    python docs/check_docs.py

Checks:

1. Every rule ID cited in ``src/`` or ``tests/`` (and in the other docs pages) is explained
   by a heading of ``docs/semantics.md``, and no rule is explained twice.
2. Every relative link in ``docs/*.md`` and ``README.md`` resolves: the file exists, a
   ``#fragment`` names a heading of the target page (with the same anchor on GitHub and in
   the MkDocs site), and no docs page links outside ``docs/`` (the site must stand alone).
3. Every name in the ``__all__`` of ``src/kueue_preempt/__init__.py`` (and of its public
   subpackages) has a heading in ``docs/api.md``.

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
    sources += [p for p in sorted(DOCS.glob("*.md")) if p != SEMANTICS]
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
    pages = sorted(DOCS.glob("*.md"))
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
            if page.parent == DOCS and not dest.is_relative_to(DOCS):
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


# --------------------------------------------------------------------------- check 3: API names


def exported_names(init: Path) -> list[str]:
    """The string literals of ``__all__`` in a package ``__init__.py`` (read, not imported)."""
    for node in ast.parse(read(init)).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def check_api() -> tuple[list[Problem], int]:
    if not API.is_file():
        return [Problem(rel(API), "missing")], 0
    documented = set()
    for _, line in prose_lines(read(API)):
        heading = HEADING.match(line)
        if heading is not None:
            documented.update(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", heading.group(2)))
    problems: list[Problem] = []
    count = 0
    for init in sorted(PACKAGE.rglob("__init__.py")):
        if any(part.startswith("_") for part in init.relative_to(PACKAGE).parts[:-1]):
            continue  # private subpackage
        for name in exported_names(init):
            count += 1
            if name not in documented:
                problems.append(Problem(rel(API), f"{name!r} (exported by {rel(init)}) has no heading"))
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
        f"{n_api} exported names documented in docs/api.md."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
