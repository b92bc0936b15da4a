"""Prints a C program that, compiled with a header force-included (gcc -include HEADER), prints
the layout of every struct of that header (size, alignment, each field's offset and size) and the
value of every enum constant, one line each, for scripts/compat-check.sh to compare."""
import sys

from c_header import enum_constants, stable_text, structs

text = stable_text(sys.argv[1])
print("#include <stddef.h>\n#include <stdio.h>\nint main(void) {")
for name, fields in structs(text):
    # Structs that begin with struct_size grow at their end by design: their size may grow.
    if not fields or fields[0] != "struct_size":
        print(f'    printf("struct {name} size %zu\\n", sizeof(struct {name}));')
    print(f'    printf("struct {name} align %zu\\n", _Alignof(struct {name}));')
    for field in fields:
        print(f'    printf("struct {name} .{field} offset %zu size %zu\\n", '
              f'offsetof(struct {name}, {field}), sizeof(((struct {name} *)0)->{field}));')
for name, constant in enum_constants(text):
    print(f'    printf("enum {name} {constant} = %lld\\n", (long long){constant});')
print("    return 0;\n}")
