"""Writes every ```java block of the given Markdown files as a Java source file of its own, for
scripts/test.sh to compile against the jar, so a document cannot fall behind the Java API.

A block is a fragment of a method body: it becomes the body of `static void snippet() throws
Exception` in class `DocSnippetN`, which imports the API's package, java.time and java.util.
Usage: java-snippets.py OUT_DIR FILE.md...; prints how many blocks it wrote to stderr."""
import os
import sys

HEADER = """import io.mm2checkpoint.*;
import java.time.*;
import java.util.*;

/** The ```java block at %s:%d. */
final class DocSnippet%d {
    private DocSnippet%d() {}

    static void snippet() throws Exception {
"""

out_dir, paths = sys.argv[1], sys.argv[2:]
os.makedirs(out_dir, exist_ok=True)
count = 0
for path in paths:
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```java":
            i += 1
            continue
        start = i + 1
        i = start
        block = []
        while i < len(lines) and lines[i].strip() != "```":
            block.append(lines[i])
            i += 1
        count += 1
        with open(os.path.join(out_dir, f"DocSnippet{count}.java"), "w", encoding="utf-8") as f:
            f.write(HEADER % (path, start + 1, count, count))
            for line in block:
                f.write("        " + line + "\n")
            f.write("    }\n}\n")
print(f"java-snippets: {count} Java blocks", file=sys.stderr)
if count == 0:
    sys.exit("java-snippets: no ```java block found")
