"""Prints the function declarations of a header (outside its test-only blocks), for
scripts/compat-check.sh to compile after the current header: a declaration that changed is a
conflicting one."""
import sys

from c_header import function_declarations, stable_text

for decl in function_declarations(stable_text(sys.argv[1])):
    print(decl)
