"""Lists the public API of a crate from rustdoc's JSON output (`--output-format json`), one
line per item reachable from the crate root: its kind and path, and for functions and methods
their parameter names and whether they return something. scripts/compat-check.sh compares the
list with a release's baseline and with the committed list of the current API; the ids of the
JSON are per build, so only names are kept.

Usage: public-api.py CRATE.json [OTHER.json ...]. An item another crate defines and CRATE
re-exports is listed under CRATE's paths like CRATE's own when that crate's JSON is among
OTHER.json (the workspace's lower layers), and otherwise as a `use` line naming where it is
defined.

It also checks that every type of this workspace's crates that a listed item names (in a
signature, a public field or a variant) is itself listed: a type a user meets but cannot name
is a gap in the API. Such types are printed to stderr and the exit status is 2."""
import json
import sys


class Doc:
    """One crate's rustdoc JSON: its items, and its own items by path."""

    def __init__(self, path):
        self.json = json.load(open(path, encoding="utf-8"))
        self.index = self.json["index"]
        self.name = self.index[str(self.json["root"])]["name"]
        self.by_path = {
            tuple(entry["path"]): item_id
            for item_id, entry in self.json["paths"].items()
            if entry.get("crate_id") == 0
        }

    def get(self, item_id):
        return self.index.get(str(item_id))

    def defined_at(self, item_id, use):
        """Where a re-exported item is defined: its canonical path, else the `use`'s text."""
        entry = self.json["paths"].get(str(item_id)) if item_id is not None else None
        return "::".join(entry["path"]) if entry else use.get("source")

    def foreign(self, item_id, others):
        """The crate and id of an item this crate re-exports from one of `others`."""
        entry = self.json["paths"].get(str(item_id))
        if entry is None:
            return None
        crate = self.json["external_crates"].get(str(entry.get("crate_id")), {}).get("name")
        other = others.get(crate)
        if other is None:
            return None
        target = other.by_path.get(tuple(entry["path"]))
        return (other, target) if target is not None and str(target) in other.index else None


docs = [Doc(path) for path in sys.argv[1:]]
main, others = docs[0], {d.name: d for d in docs[1:]}
lines = set()
# The workspace items the list reaches, as (crate, canonical path); and the workspace types the
# listed items name, as (crate, canonical path) -> the listed item that names it.
listed = set()
named = {}


def canonical(doc, item_id):
    """The crate and path where an item is defined, if `doc` knows it."""
    entry = doc.json["paths"].get(str(item_id))
    if entry is None:
        return None
    crate_id = entry.get("crate_id")
    crate = doc.name if crate_id == 0 else doc.json["external_crates"].get(str(crate_id), {}).get("name")
    return crate, tuple(entry["path"])


def note_names(doc, value, where):
    """Records every workspace type that `value` (part of an item's JSON) names."""
    if isinstance(value, dict):
        resolved = value.get("resolved_path")
        if isinstance(resolved, dict) and resolved.get("id") is not None:
            found = canonical(doc, resolved["id"])
            if found is not None and (found[0] == main.name or found[0] in others):
                named.setdefault(found, where)
        for v in value.values():
            note_names(doc, v, where)
    elif isinstance(value, list):
        for v in value:
            note_names(doc, v, where)


def kind_and_inner(item):
    inner = item.get("inner") or {}
    if isinstance(inner, dict) and len(inner) == 1:
        return next(iter(inner.items()))
    return "unknown", inner


def signature(inner):
    sig = inner.get("sig") or inner.get("decl") or {}
    params = [p[0] for p in sig.get("inputs", [])]
    output = "-> _" if sig.get("output") else ""
    return f"({', '.join(params)}) {output}".rstrip()


def emit_impls(doc, path, impl_ids):
    for impl_id in impl_ids:
        impl = doc.get(impl_id)
        if impl is None:
            continue
        _, inner = kind_and_inner(impl)
        trait = inner.get("trait")
        if inner.get("synthetic") or inner.get("blanket_impl"):
            continue
        if trait is not None:
            trait_name = trait.get("path") or trait.get("name") or "?"
            lines.add(f"impl {trait_name} for {path}")
            continue
        for member_id in inner.get("items", []):
            member = doc.get(member_id)
            if member is None or member.get("visibility") != "public":
                continue
            kind, member_inner = kind_and_inner(member)
            extra = signature(member_inner) if kind == "function" else ""
            lines.add(f"{kind} {path}::{member['name']}{extra}")
            note_names(doc, member_inner, f"{path}::{member['name']}")


def walk(doc, item_id, path, seen):
    key = (doc.name, str(item_id))
    if key in seen or doc.get(item_id) is None:
        return
    seen = seen | {key}
    item = doc.get(item_id)
    kind, inner = kind_and_inner(item)
    found = canonical(doc, item_id)
    if found is not None:
        listed.add(found)
    if kind == "module":
        for child in inner.get("items", []):
            child_item = doc.get(child)
            if child_item is None or child_item.get("visibility") != "public":
                continue
            child_kind, child_inner = kind_and_inner(child_item)
            if child_kind == "use":
                target = child_inner.get("id")
                if child_inner.get("is_glob"):
                    if target is not None and doc.get(target) is not None:
                        target_kind, target_inner = kind_and_inner(doc.get(target))
                        if target_kind == "module":
                            for grandchild in target_inner.get("items", []):
                                g = doc.get(grandchild)
                                if g is not None and g.get("visibility") == "public":
                                    walk(doc, grandchild, f"{path}::{g.get('name')}", seen)
                    else:
                        lines.add(f"use {path}::{child_inner.get('source')}::*")
                elif target is not None and doc.get(target) is not None:
                    walk(doc, target, f"{path}::{child_inner.get('name')}", seen)
                else:
                    name = f"{path}::{child_inner.get('name')}"
                    found = doc.foreign(target, others) if target is not None else None
                    if found is not None:
                        walk(found[0], found[1], name, seen)
                    else:
                        lines.add(f"use {name} = {doc.defined_at(target, child_inner)}")
                        reexported = canonical(doc, target) if target is not None else None
                        if reexported is not None:
                            listed.add(reexported)
            else:
                walk(doc, child, f"{path}::{child_item.get('name')}", seen)
        lines.add(f"mod {path}")
    elif kind == "function":
        lines.add(f"fn {path}{signature(inner)}")
        note_names(doc, inner, path)
    elif kind == "struct":
        lines.add(f"struct {path}")
        struct_kind = inner.get("kind") or {}
        if isinstance(struct_kind, dict) and "plain" in struct_kind:
            for field_id in struct_kind["plain"].get("fields", []):
                field = doc.get(field_id)
                if field is not None and field.get("visibility") == "public":
                    lines.add(f"field {path}::{field['name']}")
                    note_names(doc, field.get("inner"), f"{path}::{field['name']}")
        emit_impls(doc, path, inner.get("impls", []))
    elif kind == "enum":
        lines.add(f"enum {path}")
        for variant_id in inner.get("variants", []):
            variant = doc.get(variant_id)
            if variant is not None:
                lines.add(f"variant {path}::{variant['name']}")
                variant_kind = (kind_and_inner(variant)[1] or {}).get("kind")
                fields = []
                if isinstance(variant_kind, dict):
                    fields = variant_kind.get("tuple") or (variant_kind.get("struct") or {}).get("fields") or []
                for field_id in fields:
                    field = doc.get(field_id) if field_id is not None else None
                    if field is not None:
                        note_names(doc, field.get("inner"), f"{path}::{variant['name']}")
        emit_impls(doc, path, inner.get("impls", []))
    elif kind == "trait":
        lines.add(f"trait {path}")
        for member_id in inner.get("items", []):
            member = doc.get(member_id)
            if member is not None:
                member_kind, member_inner = kind_and_inner(member)
                extra = signature(member_inner) if member_kind == "function" else ""
                lines.add(f"{member_kind} {path}::{member['name']}{extra}")
    else:
        lines.add(f"{kind} {path}")


walk(main, main.json["root"], main.name, frozenset())
for line in sorted(lines):
    print(line)
unnameable = sorted((crate, path, where) for (crate, path), where in named.items() if (crate, path) not in listed)
for crate, path, where in unnameable:
    print(f"public-api.py: {'::'.join(path)} is named by {where} but is not in the API", file=sys.stderr)
sys.exit(2 if unnameable else 0)
