"""Extracts the code blocks of the given Markdown files for CI to compile, so a document cannot
fall behind the API.

  doc-snippets.py FILE.md...               every ```c block, as one C file on stdout, which
                                           ffi-tests/run.sh compiles and links against the library
  doc-snippets.py --java OUT_DIR FILE.md...
                                           every ```java block, as a Java source file of its own in
                                           OUT_DIR, which scripts/test.sh compiles against the jar

A C block is a fragment: its function definitions (a line at column 0 that opens a function,
through the `}` at column 0 that closes it) stay at file scope, and its other lines become the
body of a function of their own. Names a fragment uses without declaring them are declared once
in the prelude below (a configuration, a task, a callback's state). A Java block is a fragment of
a method body: it becomes the body of `static void snippet() throws Exception` in class
`DocSnippetN`, which imports the API's package, java.time and java.util."""
import os
import re
import sys

PRELUDE = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm2_checkpoint.h"
/* Names the documents' fragments use as given. */
extern mm_conf_t *source_conf;
extern mm_conf_t *flow_conf;
extern void *my_state;
"""

FUNCTION_START = re.compile(
    r"^(?!(?:if|else|for|while|switch|do|return)\b)(?:static\s+)?(?:const\s+)?\w+[\s\*]+\w+\s*\([^;]*\)\s*\{\s*$")

JAVA_CLASS = """import io.mm2checkpoint.*;
import java.time.*;
import java.util.*;

/** The ```java block at %s:%d. */
final class DocSnippet%d {
    private DocSnippet%d() {}

    static void snippet() throws Exception {
"""


def blocks(paths, lang):
    """Yields (path, line of the block's first line, its lines) for every ```lang block."""
    for path in paths:
        lines = open(path, encoding="utf-8").read().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() != "```" + lang:
                i += 1
                continue
            start = i + 1
            i = start
            block = []
            while i < len(lines) and lines[i].strip() != "```":
                block.append(lines[i])
                i += 1
            yield path, start + 1, block


def write_java(out_dir, paths):
    os.makedirs(out_dir, exist_ok=True)
    count = 0
    for path, line, block in blocks(paths, "java"):
        count += 1
        with open(os.path.join(out_dir, f"DocSnippet{count}.java"), "w", encoding="utf-8") as f:
            f.write(JAVA_CLASS % (path, line, count, count))
            for code in block:
                f.write("        " + code + "\n")
            f.write("    }\n}\n")
    print(f"doc-snippets: {count} Java blocks", file=sys.stderr)
    if count == 0:
        sys.exit("doc-snippets: no ```java block found")


def print_c(paths):
    out = [PRELUDE]
    count = 0
    for path, line, block in blocks(paths, "c"):
        count += 1
        top, body, in_function = [], [], False
        for code in block:
            if not in_function and FUNCTION_START.match(code):
                in_function = True
            (top if in_function else body).append(code)
            if in_function and code.startswith("}"):
                in_function = False
        out.append(f'#line {line} "{path}"')
        out.extend(top)
        out.append(f"void mm_doc_snippet_{count}(void);")
        out.append(f"void mm_doc_snippet_{count}(void) {{")
        out.append(f'#line {line} "{path}"')
        out.extend(body)
        out.append("}")
    out.append("void *my_state;\nmm_conf_t *source_conf;\nmm_conf_t *flow_conf;")
    out.append("int main(void) { return 0; }")
    print("\n".join(out))
    print(f"doc-snippets: {count} C blocks", file=sys.stderr)


if len(sys.argv) > 2 and sys.argv[1] == "--java":
    write_java(sys.argv[2], sys.argv[3:])
else:
    print_c(sys.argv[1:])
