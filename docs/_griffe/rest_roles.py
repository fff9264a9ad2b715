"""A Griffe extension for the API reference: reST cross-reference roles become code spans.

The docstrings are written for ``help()`` and Sphinx-style readers: ``:class:`Snapshot```,
``:func:`~kueue_preempt.cycle.schedule_cycle```, ``:mod:`.quantity```. Markdown has no roles, so
the reference would show the role names; this turns each into the code span a reader expects
(``~`` keeps the last component, as in Sphinx). Loaded by mkdocs.yml's mkdocstrings options.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const|ref):`(~?)([^`<]+?)(?:\s*<[^>]*>)?`")


def _code(match: re.Match[str]) -> str:
    target = match.group(2).strip()
    if match.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


class RestRoles(griffe.Extension):
    """Rewrite reST roles in every docstring the handler loads."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_code, obj.docstring.value)
