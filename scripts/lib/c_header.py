"""Reads the parts of include/mm2_checkpoint.h the compatibility gate compares (the header is
cbindgen's output, so its shapes are regular): what lies outside `#if defined(MM2_CHECKPOINT_EMBEDDED)`
blocks, without comments; its structs with their fields, its enums with their constants, its
function declarations."""
import re


def stable_text(path):
    """The header without comments and without the test-only (embedded) blocks."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    out, depth_skipped, depth = [], [], 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#if"):
            depth += 1
            if "MM2_CHECKPOINT_EMBEDDED" in stripped or depth_skipped:
                depth_skipped.append(depth)
            continue
        if stripped.startswith("#endif"):
            if depth_skipped and depth_skipped[-1] == depth:
                depth_skipped.pop()
            depth -= 1
            continue
        if depth_skipped or stripped.startswith("#"):
            continue
        out.append(line)
    return "\n".join(out)


def structs(text):
    """(name, [field names]) of every struct with a body."""
    found = []
    for name, body in re.findall(r"typedef struct (\w+) \{(.*?)\} \w+;", text, flags=re.S):
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if pointer:
                fields.append(pointer.group(1))
                continue
            match = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", decl)
            if match:
                fields.append(match.group(1))
        found.append((name, fields))
    return found


def enum_constants(text):
    """(enum name, constant) of every enum."""
    found = []
    for name, body in re.findall(r"typedef enum (\w+) \{(.*?)\} \w+;", text, flags=re.S):
        for constant in re.findall(r"\b([A-Z][A-Z0-9_]+)\s*(?:=[^,]*)?,", body):
            found.append((name, constant))
    return found


def function_declarations(text):
    """Every function declaration, as one normalised line ending in `;`."""
    decls = []
    for decl in re.findall(r"^(?:enum |const |void |struct |uint|int|size_t|bool|char)[^;{}#]*\([^;{}]*\)\s*;",
                           text, flags=re.M):
        if decl.startswith("typedef"):
            continue
        decls.append(" ".join(decl.split()))
    return decls
