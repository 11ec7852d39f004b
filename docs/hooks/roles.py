"""Sphinx cross-reference roles in the docstrings, as links on the API pages.

A griffe extension (``extensions:`` of the mkdocstrings Python handler in ``mkdocs.yml``).
The docstrings are numpydoc and name other objects with Sphinx roles (``:func:`values```,
``:class:`~catembed.stats.ValueStatistics```), which mkdocstrings would print as written.
Once the package is loaded, every role in a docstring is rewritten:

* a name found in catembed (as written, or relative to the object, its class, its module or
  the package) becomes an *optional* autorefs link: a link where the object has an API page,
  its name in code font where it has none (never a build warning);
* any other name (``sklearn.cluster.KMeans``) becomes its name in code font;
* on a parameter's type line (``metric : as in :class:`KModes```), where mkdocstrings shows
  the text as code, the role becomes the bare name.

``~a.b.c`` shows ``c``; ``title <target>`` shows ``title``, as in Sphinx.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|obj|exc|const|type):"
                  r"`(?P<target>[^`]+)`")
# a numpydoc parameter line "name, other : type" (not indented: descriptions are), which
# mkdocstrings shows as code
TYPE_LINE = re.compile(r"^\*{0,2}\w[\w*, ]* : ")


def _split(target: str) -> tuple[str, str]:
    """(text shown, dotted name) of a role's target."""
    titled = re.fullmatch(r"(?s)(?P<title>.*?)\s*<(?P<name>[^<>]+)>", target)
    if titled:
        return titled["title"], titled["name"].lstrip("~.")
    name = target.lstrip(".")
    if name.startswith("~"):
        name = name[1:]
        return name.rsplit(".", 1)[-1], name
    return name, name


def _lookup(root: griffe.Module, path: str) -> str | None:
    """The canonical path of ``path`` (dotted, from ``root``), or None when it is not found."""
    if path == root.path:
        return root.path
    if not path.startswith(root.path + "."):
        return None
    try:
        found = root[path[len(root.path) + 1:]]
        if found.is_alias:
            found = found.final_target
        return found.path
    except Exception:  # noqa: BLE001 - KeyError, an alias to an unloaded package, ...
        return None


def resolve(obj: griffe.Object, root: griffe.Module, name: str) -> str | None:
    """The canonical path ``name`` refers to in ``obj``'s docstring, or None."""
    scopes: list[str] = []
    scope: Any = obj if (obj.is_class or obj.is_module) else obj.parent
    while scope is not None:
        scopes.append(scope.path)
        scope = scope.parent
    for prefix in ["", *(f"{s}." for s in scopes)]:
        if (found := _lookup(root, prefix + name)) is not None:
            return found
    return None


def rewrite(text: str, obj: griffe.Object, root: griffe.Module) -> str:
    """``text`` with its roles as links (or plain names on a parameter's type line)."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if ":`" not in line:
            continue
        if TYPE_LINE.match(line):
            lines[n] = ROLE.sub(lambda m: _split(m["target"])[0], line)
        else:
            lines[n] = ROLE.sub(lambda m: _link(m, obj, root), line)
    return "\n".join(lines)


def _link(m: re.Match, obj: griffe.Object, root: griffe.Module) -> str:
    shown, name = _split(m["target"])
    path = resolve(obj, root, name)
    if path is None:
        return f"`{shown}`"
    return f'<autoref identifier="{path}" optional><code>{shown}</code></autoref>'



def _walk(obj: griffe.Object, seen: set[int]) -> Any:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    for member in list(obj.members.values()):
        if not member.is_alias:
            yield from _walk(member, seen)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring of a loaded package (see the module)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _walk(pkg, set()):
            doc = obj.docstring
            if doc is not None and ":`" in doc.value:
                doc.value = rewrite(doc.value, obj, pkg)
