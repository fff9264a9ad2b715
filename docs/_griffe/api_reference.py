"""A Griffe extension for the API reference (loaded by mkdocs.yml's mkdocstrings options).

1. reST cross-reference roles become code spans. The docstrings are written for ``help()`` and
   Sphinx-style readers: ``:class:`Snapshot```, ``:func:`~kueue_preempt.cycle.schedule_cycle```,
   ``:mod:`.quantity```. Markdown has no roles, so the reference would show the role names;
   each becomes the code span a reader expects (``~`` keeps the last component, as in Sphinx).
2. Implementation hooks of classes (``__attrs_post_init__``, ``__str__``, ``__eq__``, ...) are
   left out. With ``filters: public`` a module shows exactly its ``__all__``, but Griffe counts
   every special method as public; the ones a caller uses (``__call__`` of a protocol,
   ``__iter__``, ``__len__``, ``__getitem__``, ...) stay, and ``__init__`` is merged into its
   class (``merge_init_into_class``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const|ref):`(~?)([^`<]+?)(?:\s*<[^>]*>)?`")
HOOKS = frozenset(
    {
        "__attrs_post_init__", "__post_init__", "__init_subclass__", "__class_getitem__",
        "__str__", "__repr__", "__format__", "__hash__", "__bool__",
        "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
        "__getstate__", "__setstate__", "__reduce__", "__reduce_ex__", "__copy__", "__deepcopy__",
        "__slots__", "__match_args__", "__attrs_attrs__",
    }
)


def _code(match: re.Match[str]) -> str:
    target = match.group(2).strip()
    if match.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _tidy(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        obj.docstring.value = ROLE.sub(_code, obj.docstring.value)
    if obj.is_class:
        for name in [n for n in obj.members if n in HOOKS]:
            del obj.members[name]
    for member in list(obj.members.values()):
        if not member.is_alias and isinstance(member, griffe.Object):
            _tidy(member)


class ApiReference(griffe.Extension):
    """Rewrite reST roles in every docstring and drop classes' implementation hooks."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _tidy(pkg)
