"""Lists the public API of a crate from rustdoc's JSON output (`--output-format json`), one
line per item reachable from the crate root: its kind and path, and for functions and methods
their parameter names and whether they return something. scripts/compat-check.sh compares the
list with a release's baseline; the ids of the JSON are per build, so only names are kept."""
import json
import sys

doc = json.load(open(sys.argv[1], encoding="utf-8"))
index = doc["index"]
lines = set()


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


def emit_impls(path, impl_ids, seen):
    for impl_id in impl_ids:
        impl = index.get(str(impl_id))
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
            member = index.get(str(member_id))
            if member is None or member.get("visibility") != "public":
                continue
            kind, member_inner = kind_and_inner(member)
            extra = signature(member_inner) if kind == "function" else ""
            lines.add(f"{kind} {path}::{member['name']}{extra}")


def walk(item_id, path, seen):
    key = str(item_id)
    if key in seen or key not in index:
        return
    seen = seen | {key}
    item = index[key]
    kind, inner = kind_and_inner(item)
    if kind == "module":
        for child in inner.get("items", []):
            child_item = index.get(str(child))
            if child_item is None or child_item.get("visibility") != "public":
                continue
            child_kind, child_inner = kind_and_inner(child_item)
            if child_kind == "use":
                target = child_inner.get("id")
                if child_inner.get("is_glob"):
                    if target is not None and str(target) in index:
                        target_kind, target_inner = kind_and_inner(index[str(target)])
                        if target_kind == "module":
                            for grandchild in target_inner.get("items", []):
                                g = index.get(str(grandchild))
                                if g is not None and g.get("visibility") == "public":
                                    walk(grandchild, f"{path}::{g.get('name')}", seen)
                    else:
                        lines.add(f"use {path}::{child_inner.get('source')}::*")
                elif target is not None and str(target) in index:
                    walk(target, f"{path}::{child_inner.get('name')}", seen)
                else:
                    lines.add(f"use {path}::{child_inner.get('name')} = {child_inner.get('source')}")
            else:
                walk(child, f"{path}::{child_item.get('name')}", seen)
        lines.add(f"mod {path}")
    elif kind == "function":
        lines.add(f"fn {path}{signature(inner)}")
    elif kind == "struct":
        lines.add(f"struct {path}")
        struct_kind = inner.get("kind") or {}
        if isinstance(struct_kind, dict) and "plain" in struct_kind:
            for field_id in struct_kind["plain"].get("fields", []):
                field = index.get(str(field_id))
                if field is not None and field.get("visibility") == "public":
                    lines.add(f"field {path}::{field['name']}")
        emit_impls(path, inner.get("impls", []), seen)
    elif kind == "enum":
        lines.add(f"enum {path}")
        for variant_id in inner.get("variants", []):
            variant = index.get(str(variant_id))
            if variant is not None:
                lines.add(f"variant {path}::{variant['name']}")
        emit_impls(path, inner.get("impls", []), seen)
    elif kind == "trait":
        lines.add(f"trait {path}")
        for member_id in inner.get("items", []):
            member = index.get(str(member_id))
            if member is not None:
                member_kind, member_inner = kind_and_inner(member)
                extra = signature(member_inner) if member_kind == "function" else ""
                lines.add(f"{member_kind} {path}::{member['name']}{extra}")
    else:
        lines.add(f"{kind} {path}")


root = index[str(doc["root"])]
walk(doc["root"], root["name"], frozenset())
for line in sorted(lines):
    print(line)
