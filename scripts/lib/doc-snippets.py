"""Writes every ```c block of the given Markdown files as one C file, for ffi-tests/run.sh to
compile and link against the library, so a document cannot fall behind the C API.

A block is a fragment: its function definitions (a line at column 0 that opens a function,
through the `}` at column 0 that closes it) stay at file scope, and its other lines become the
body of a function of their own. Names a fragment uses without declaring them are declared once
in the prelude below (a configuration, a task, a callback's state)."""
import re
import sys

PRELUDE = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm2_checkpoint.h"
/* Names the documents' fragments use as given. */
extern mm_conf_t *source_conf;
extern void *my_state;
"""

FUNCTION_START = re.compile(
    r"^(?!(?:if|else|for|while|switch|do|return)\b)(?:static\s+)?(?:const\s+)?\w+[\s\*]+\w+\s*\([^;]*\)\s*\{\s*$")

out = [PRELUDE]
count = 0
for path in sys.argv[1:]:
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```c":
            i += 1
            continue
        start = i + 1
        i = start
        block = []
        while i < len(lines) and lines[i].strip() != "```":
            block.append(lines[i])
            i += 1
        count += 1
        top, body, in_function = [], [], False
        for line in block:
            if not in_function and FUNCTION_START.match(line):
                in_function = True
            (top if in_function else body).append(line)
            if in_function and line.startswith("}"):
                in_function = False
        out.append(f'#line {start + 1} "{path}"')
        out.extend(top)
        out.append(f"void mm_doc_snippet_{count}(void);")
        out.append(f"void mm_doc_snippet_{count}(void) {{")
        out.append(f'#line {start + 1} "{path}"')
        out.extend(body)
        out.append("}")
out.append("void *my_state;\nmm_conf_t *source_conf;")
out.append("int main(void) { return 0; }")
print("\n".join(out))
print(f"doc-snippets: {count} C blocks", file=sys.stderr)
