//! The generator of every binding file that follows from the C header: the layout file, the
//! layout table of ffi-tests/test_abi.c, the list-row and counter-struct parts of the JNI bridge,
//! of the shared Java code and of the Panama binding, and the Panama binding's function
//! descriptors. Input is the header text cbindgen writes; output is a list of (path relative to
//! the repository root, contents). crates/capi/tests/ffi_header.rs compares the committed files
//! with it and rewrites them under `MM2_BLESS=1`.
//!
//! A list row is a `typedef struct mm_<kind>_row { ... }` of the header, read by the one function
//! whose last parameter is `struct mm_<kind>_row *`. Its fields are `uint64_t struct_size`, then
//! numbers (`int64_t`/`uint64_t`) and texts (`const char *x` followed by `uint64_t x_len`). Adding
//! a field to a row's Rust struct and re-blessing is all a new field needs in C and Java.
//!
//! A counter struct is any other struct of `uint64_t struct_size` and 64-bit numbers only
//! (`mm_task_stats`, `mm_diagnostics`, …). The JNI bridge copies its numbers into a `long[]` and
//! the Panama binding reads them, both in the order the generated field lists give, and Java
//! reads each by its field name (`NativeStructs.Values.get`), never by position.
//!
//! Every function of the header gets its Panama descriptor in `NativeFunctions.java`: each
//! parameter and the result reduced to how the JVM passes it (a pointer, a 32-bit or 64-bit
//! integer, a byte, or nothing).

#[path = "calls.rs"]
mod calls;

/// One field of a header struct, with its doc comment (without the comment markers).
struct Field {
    c_type: String,
    name: String,
    doc: String,
}

/// A `typedef struct` or `typedef enum` of the header.
struct Item {
    name: String,
    doc: String,
    /// Struct fields; empty for an enum.
    fields: Vec<Field>,
    /// Enum constants and their values; empty for a struct.
    constants: Vec<(String, i64)>,
}

/// A list row: its struct and the function that fills it.
struct Row<'a> {
    item: &'a Item,
    function: String,
}

/// What a row field is to the bindings.
enum Value<'a> {
    Number(&'a Field),
    Text(&'a Field),
}

/// Follows the header's `/** ... */` doc comments line by line.
#[derive(Default)]
struct DocComments {
    inside: bool,
}

impl DocComments {
    /// Whether trimmed line `t` belongs to a doc comment; if so its text joins `doc` (which a
    /// comment's first line clears).
    fn read(&mut self, t: &str, doc: &mut String) -> bool {
        if t.starts_with("/**") {
            self.inside = true;
            doc.clear();
        }
        if !self.inside {
            return false;
        }
        let text = t
            .trim_start_matches("/**")
            .trim_end_matches("*/")
            .trim_start_matches('*')
            .trim();
        if !text.is_empty() {
            if !doc.is_empty() {
                doc.push(' ');
            }
            doc.push_str(text);
        }
        if t.ends_with("*/") {
            self.inside = false;
        }
        true
    }
}

/// Every struct and enum of the header, in header order.
fn items(header: &str) -> Vec<Item> {
    let mut out = Vec::new();
    let mut doc = String::new();
    let mut comments = DocComments::default();
    let mut current: Option<Item> = None;
    for line in header.lines() {
        let t = line.trim();
        if comments.read(t, &mut doc) {
            continue;
        }
        if let Some(rest) = line
            .strip_prefix("typedef struct ")
            .or_else(|| line.strip_prefix("typedef enum "))
        {
            if let Some(name) = rest.strip_suffix(" {") {
                current = Some(Item {
                    name: name.to_string(),
                    doc: std::mem::take(&mut doc),
                    fields: Vec::new(),
                    constants: Vec::new(),
                });
            }
            continue;
        }
        if line.starts_with('}') {
            out.extend(current.take());
            continue;
        }
        let Some(item) = current.as_mut() else {
            doc.clear();
            continue;
        };
        if t.starts_with("MM_") {
            let (name, value) = t.trim_end_matches(',').split_once(" = ").unwrap();
            item.constants
                .push((name.to_string(), value.parse().unwrap()));
        } else if let Some(decl) = t.strip_suffix(';') {
            let split = decl.rfind([' ', '*']).unwrap() + 1;
            item.fields.push(Field {
                c_type: decl[..split].trim().to_string(),
                name: decl[split..].to_string(),
                doc: std::mem::take(&mut doc),
            });
        }
        doc.clear();
    }
    out
}

/// The row structs of the header with the function filling each.
fn rows<'a>(header: &str, items: &'a [Item]) -> Vec<Row<'a>> {
    let flat = header.replace('\n', " ");
    items
        .iter()
        .filter(|i| i.name.ends_with("_row") && !i.fields.is_empty())
        .map(|item| {
            let param = format!("struct {} *row_out)", item.name);
            let end = flat
                .find(&param)
                .unwrap_or_else(|| panic!("no function fills {}", item.name));
            let open = flat[..end].rfind('(').unwrap();
            let function = flat[..open].rsplit(' ').next().unwrap().to_string();
            Row { item, function }
        })
        .collect()
}

impl Row<'_> {
    /// The fields after `struct_size`, a text's `_len` folded into it.
    fn values(&self) -> Vec<Value<'_>> {
        let fields = &self.item.fields;
        assert_eq!(
            fields[0].name, "struct_size",
            "{} is not growable",
            self.item.name
        );
        let mut out = Vec::new();
        let mut i = 1;
        while i < fields.len() {
            let f = &fields[i];
            match f.c_type.as_str() {
                "const char *" => {
                    let len = fields.get(i + 1).map(|l| l.name.as_str());
                    assert_eq!(
                        len,
                        Some(format!("{}_len", f.name).as_str()),
                        "{}.{}: a text is followed by its length",
                        self.item.name,
                        f.name
                    );
                    out.push(Value::Text(f));
                    i += 2;
                }
                "int64_t" | "uint64_t" => {
                    out.push(Value::Number(f));
                    i += 1;
                }
                other => panic!("{}.{}: no binding for {other}", self.item.name, f.name),
            }
        }
        out
    }

    fn numbers(&self) -> Vec<&Field> {
        self.values()
            .into_iter()
            .filter_map(|v| match v {
                Value::Number(f) => Some(f),
                Value::Text(_) => None,
            })
            .collect()
    }

    fn texts(&self) -> Vec<&Field> {
        self.values()
            .into_iter()
            .filter_map(|v| match v {
                Value::Text(f) => Some(f),
                Value::Number(_) => None,
            })
            .collect()
    }

    /// `mm_checkpoint_row` -> `Checkpoint`.
    fn java_stem(&self) -> String {
        camel(
            self.item
                .name
                .strip_prefix("mm_")
                .unwrap()
                .strip_suffix("_row")
                .unwrap(),
            true,
        )
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

fn camel(snake: &str, upper_first: bool) -> String {
    let mut out = String::new();
    for (i, part) in snake.split('_').enumerate() {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            if i > 0 || upper_first {
                out.extend(first.to_uppercase());
            } else {
                out.push(first);
            }
            out.push_str(chars.as_str());
        }
    }
    out
}

/// A header doc comment as Java doc text (backquotes become `{@code}`).
fn javadoc(doc: &str) -> String {
    let mut out = String::new();
    for (i, part) in doc.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("{{@code {part}}}"));
        } else {
            out.push_str(&part.replace('<', "&lt;").replace('>', "&gt;"));
        }
    }
    out
}

/// Words of `text` wrapped at `width`, each line starting with `prefix`.
fn wrap(text: &str, prefix: &str, width: usize) -> String {
    let words: Vec<String> = text.split_whitespace().map(String::from).collect();
    packed(&words, " ", width - prefix.len())
        .iter()
        .map(|line| format!("{}\n", format!("{prefix}{line}").trim_end()))
        .collect()
}

const LAYOUT_COMMENT: &str = "# Layout of the public structs and enums of include/mm2_checkpoint.h (C ABI {abi}): sizes and\n\
# field offsets in bytes, enum constant values. Generated from the header by tests/bindings/generate.rs\n\
# (MM2_BLESS=1 cargo test --test ffi_header), checked by ffi-tests/test_abi.c against the\n\
# compiler, and read by the Java bindings.\n";

/// include/mm2_checkpoint.layout. Every struct field is 8 bytes wide (the ABI's growable-struct
/// rule), so offsets follow from the order; ffi-tests/test_abi.c checks them against the compiler.
fn layout_file(items: &[Item], abi: &str) -> String {
    let mut out = LAYOUT_COMMENT.replace("{abi}", abi);
    for item in items.iter().filter(|i| !i.fields.is_empty()) {
        out.push_str(&format!("{}.size={}\n", item.name, 8 * item.fields.len()));
        for (i, f) in item.fields.iter().enumerate() {
            assert!(
                matches!(f.c_type.as_str(), "uint64_t" | "int64_t" | "const char *"),
                "{}.{} is {}: every field of a public struct is 8 bytes wide",
                item.name,
                f.name,
                f.c_type
            );
            out.push_str(&format!("{}.{}={}\n", item.name, f.name, 8 * i));
        }
    }
    for item in items.iter().filter(|i| i.fields.is_empty()) {
        out.push_str(&format!("{}.size=4\n", item.name));
        for (name, value) in &item.constants {
            out.push_str(&format!("{name}={value}\n"));
        }
    }
    out
}

/// ffi-tests/layout_table.h: the entries test_abi.c compares with the layout file.
fn layout_table(items: &[Item]) -> String {
    let mut out = String::from(
        "/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.\n \
         * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by test_abi.c inside\n \
         * its LAYOUT table: one entry per struct size, field offset and enum constant. */\n",
    );
    for item in items.iter().filter(|i| !i.fields.is_empty()) {
        out.push_str(&format!("SIZE({}),\n", item.name));
        for f in &item.fields {
            out.push_str(&format!("FIELD({}, {}),\n", item.name, f.name));
        }
    }
    for item in items.iter().filter(|i| i.fields.is_empty()) {
        out.push_str(&format!("SIZE({}),\n", item.name));
        for (name, _) in &item.constants {
            out.push_str(&format!("CONSTANT({name}),\n"));
        }
    }
    out
}

/// java/src/main/c/mm2_checkpoint_rows.h: `JniBinding.nRow`, included by the JNI bridge.
fn jni_rows(rows: &[Row]) -> String {
    let mut out = String::from(
        "/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.\n \
         * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by\n \
         * mm2_checkpoint_jni.c after its helpers (check, java_bytes, ptr).\n \
         *\n \
         * JniBinding.nRow(kind, list, index, numbers): calls the row function of row kind `kind`\n \
         * (NativeRows.Kind.id), writes the row's numbers to `numbers` in field order and returns its\n \
         * texts in field order as a byte[][] (an element is NULL for text the entry does not have);\n \
         * NULL with an exception pending on failure. */\n\n\
         /* The texts of a row as a new byte[][]; NULL with an exception pending on failure. */\n\
         static jobjectArray row_texts(JNIEnv *env, const char *const *texts, const uint64_t *lens, jsize n) {\n\
         \x20   jclass bytes = (*env)->FindClass(env, \"[B\");\n\
         \x20   if (bytes == NULL) {\n\
         \x20       return NULL;\n\
         \x20   }\n\
         \x20   jobjectArray out = (*env)->NewObjectArray(env, n, bytes, NULL);\n\
         \x20   for (jsize i = 0; out != NULL && i < n; i++) {\n\
         \x20       if (texts[i] == NULL) {\n\
         \x20           continue;\n\
         \x20       }\n\
         \x20       jbyteArray a = java_bytes(env, texts[i], (size_t)lens[i]);\n\
         \x20       if (a == NULL) {\n\
         \x20           return NULL;\n\
         \x20       }\n\
         \x20       (*env)->SetObjectArrayElement(env, out, i, a);\n\
         \x20       (*env)->DeleteLocalRef(env, a);\n\
         \x20   }\n\
         \x20   return out;\n\
         }\n\n\
         JNIEXPORT jobjectArray JNICALL Java_io_mm2checkpoint_JniBinding_nRow(JNIEnv *env, jclass cls, jint kind,\n\
         \x20                                                                jlong list, jlong index, jlongArray numbers) {\n\
         \x20   (void)cls;\n\
         \x20   switch (kind) {\n",
    );
    for (id, row) in rows.iter().enumerate() {
        let name = &row.item.name;
        let numbers = row.numbers();
        let texts = row.texts();
        out.push_str(&format!(
            "    case {id}: {{ /* {name}, {} */\n",
            row.function
        ));
        out.push_str(&format!(
            "        struct {name} row = {{.struct_size = sizeof row}};\n"
        ));
        out.push_str(&format!(
            "        if (!check(env, {}(ptr(list), (size_t)index, &row))) {{\n            return NULL;\n        }}\n",
            row.function
        ));
        if !numbers.is_empty() {
            let values: Vec<String> = numbers
                .iter()
                .map(|f| format!("(jlong)row.{}", f.name))
                .collect();
            out.push_str(&format!(
                "        jlong n[{}] = {{{}}};\n",
                numbers.len(),
                values.join(", ")
            ));
            out.push_str(&format!(
                "        (*env)->SetLongArrayRegion(env, numbers, 0, {}, n);\n",
                numbers.len()
            ));
        }
        let ptrs: Vec<String> = texts.iter().map(|f| format!("row.{}", f.name)).collect();
        let lens: Vec<String> = texts
            .iter()
            .map(|f| format!("row.{}_len", f.name))
            .collect();
        // A zero-length C array is not allowed: a row without text passes one unused slot.
        let n = texts.len();
        let (ptrs, lens) = if n == 0 {
            ("NULL".to_string(), "0".to_string())
        } else {
            (ptrs.join(", "), lens.join(", "))
        };
        out.push_str(&format!(
            "        const char *t[{}] = {{{ptrs}}};\n",
            n.max(1)
        ));
        out.push_str(&format!(
            "        uint64_t len[{}] = {{{lens}}};\n",
            n.max(1)
        ));
        out.push_str(&format!(
            "        return row_texts(env, t, len, {n});\n    }}\n"
        ));
    }
    out.push_str(
        "    default: {\n\
         \x20       jclass e = (*env)->FindClass(env, \"java/lang/IllegalArgumentException\");\n\
         \x20       if (e != NULL) {\n\
         \x20           (*env)->ThrowNew(env, e, \"unknown row kind\");\n\
         \x20       }\n\
         \x20       return NULL;\n\
         \x20   }\n\
         \x20   }\n\
         }\n",
    );
    out
}

const JAVA_GENERATED: &str =
    "// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.\n\
// Regenerate: MM2_BLESS=1 cargo test --test ffi_header.\n";

/// java/src/main/java/io/mm2checkpoint/NativeRows.java: per list row kind, its description
/// (read by both bindings), its record and the one call that reads a row into it.
fn java_rows(rows: &[Row]) -> String {
    let mut out = String::from(JAVA_GENERATED);
    out.push_str(
        "package io.mm2checkpoint;\n\n\
         /**\n \
         * The list rows of the C header ({@code mm_<kind>_row}, filled by {@code mm_<list>_row}), as\n \
         * records. Each binding reads a row through {@link NativeBinding#row} from the {@link Kind}\n \
         * alone, so a field added to a row in the header reaches Java by regenerating this file.\n \
         * Numbers are C {@code int64_t} or {@code uint64_t} as {@code long}; text is null when the\n \
         * entry does not have it.\n \
         */\n\
         final class NativeRows {\n    \
         private NativeRows() {}\n\n    \
         /**\n     \
         * A row kind: {@code id} selects it in the JNI bridge, {@code struct} names it in the layout\n     \
         * file, {@code function} fills it; {@code numbers} and {@code texts} are its fields in order.\n     \
         */\n    \
         record Kind(int id, String struct, String function, String[] numbers, String[] texts) {}\n",
    );
    for (id, row) in rows.iter().enumerate() {
        let stem = row.java_stem();
        let constant = row.item.name.strip_prefix("mm_").unwrap().to_uppercase();
        let quoted = |fields: Vec<&Field>| {
            fields
                .iter()
                .map(|f| format!("\"{}\"", f.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push_str(&format!(
            "\n    /** {{@code {}}}, filled by {{@code {}}}. */\n    static final Kind {constant} = new Kind({id}, \"{}\", \"{}\",\n            new String[] {{{}}},\n            new String[] {{{}}});\n",
            row.item.name,
            row.function,
            row.item.name,
            row.function,
            quoted(row.numbers()),
            quoted(row.texts())
        ));
        out.push_str("\n    /**\n");
        out.push_str(&wrap(&javadoc(&row.item.doc), "     * ", 100));
        out.push_str("     *\n");
        for v in row.values() {
            let f = match v {
                Value::Number(f) | Value::Text(f) => f,
            };
            out.push_str(&wrap(
                &format!("@param {} {}", camel(&f.name, false), javadoc(&f.doc)),
                "     * ",
                100,
            ));
        }
        out.push_str("     */\n");
        let params: Vec<String> = row
            .values()
            .iter()
            .map(|v| match v {
                Value::Number(f) => format!("long {}", camel(&f.name, false)),
                Value::Text(f) => format!("String {}", camel(&f.name, false)),
            })
            .collect();
        out.push_str(&format!(
            "    record {stem}Row(\n            {}) {{}}\n",
            params.join(",\n            ")
        ));
        let (mut n, mut t) = (0, 0);
        let args: Vec<String> = row
            .values()
            .iter()
            .map(|v| match v {
                Value::Number(_) => {
                    n += 1;
                    format!("n[{}]", n - 1)
                }
                Value::Text(_) => {
                    t += 1;
                    format!("t[{}]", t - 1)
                }
            })
            .collect();
        out.push_str(&format!(
            "\n    /** Row {{@code index}} of {{@code list}} through {{@code {}}}. */\n    static {stem}Row {}(NativeBinding b, long list, int index) {{\n        long[] n = new long[{constant}.numbers().length];\n        String[] t = b.row({constant}, list, index, n);\n        return new {stem}Row({});\n    }}\n",
            row.function,
            lower_first(&stem),
            args.join(", ")
        ));
    }
    out.push_str("}\n");
    out
}

/// java/src/main/java22/io/mm2checkpoint/PanamaRows.java: the generated descriptor of each row
/// kind's function, for the Panama binding.
fn panama_rows(rows: &[Row]) -> String {
    let mut out = String::from(JAVA_GENERATED);
    out.push_str(
        "package io.mm2checkpoint;\n\n\
         /** The function of each {@link NativeRows.Kind}, as {@link NativeFunctions} describes it. */\n\
         final class PanamaRows {\n    \
         private PanamaRows() {}\n\n    \
         /** The function filling rows of kind {@code id}. */\n    \
         static NativeFunctions.Function function(int id) {\n        \
         return switch (id) {\n",
    );
    for (id, row) in rows.iter().enumerate() {
        out.push_str(&format!(
            "            case {id} -> NativeFunctions.{};\n",
            row.function.to_uppercase()
        ));
    }
    out.push_str(
        "            default -> throw new IllegalArgumentException(\"unknown row kind \" + id);\n        \
         };\n    }\n}\n",
    );
    out
}

/// The counter structs: every struct but a list row whose fields are `uint64_t struct_size` and
/// then 64-bit numbers only.
fn counter_structs(items: &[Item]) -> Vec<&Item> {
    items
        .iter()
        .filter(|i| !i.name.ends_with("_row"))
        .filter(|i| i.fields.first().is_some_and(|f| f.name == "struct_size"))
        .filter(|i| {
            i.fields
                .iter()
                .all(|f| f.c_type == "uint64_t" || f.c_type == "int64_t")
        })
        .collect()
}

/// The fields of a counter struct that the bindings copy: all but `struct_size`.
fn counter_fields(item: &Item) -> impl Iterator<Item = &Field> {
    item.fields.iter().skip(1)
}

/// java/src/main/c/mm2_checkpoint_structs.h: each counter struct's fields as an X-macro list.
fn jni_structs(structs: &[&Item]) -> String {
    let mut out = String::from(
        "/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.\n \
         * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by mm2_checkpoint_jni.c.\n \
         *\n \
         * MM2_FIELDS_<struct>(X) is X(field) for each field of a counter struct after struct_size,\n \
         * in declaration order: the order of the long[] the bridge fills, which\n \
         * NativeStructs.java names; MM2_COUNT_<struct> is how many there are. */\n",
    );
    for item in structs {
        let fields: Vec<String> = counter_fields(item)
            .map(|f| format!("X({})", f.name))
            .collect();
        out.push_str(&format!(
            "\n#define MM2_FIELDS_{}(X) \\\n    {}\n#define MM2_COUNT_{} {}\n",
            item.name,
            packed(&fields, " ", 90).join(" \\\n    "),
            item.name,
            fields.len()
        ));
    }
    out
}

/// `words` joined by `sep` into lines of at most `width` characters (a longer word alone).
fn packed(words: &[String], sep: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in words {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.len() + sep.len() + word.len() > width {
            lines.push(word.clone());
        } else {
            if !line.is_empty() {
                line.push_str(sep);
            }
            line.push_str(word);
        }
    }
    lines
}

/// java/src/main/java/io/mm2checkpoint/NativeStructs.java: each counter struct's field names.
fn java_structs(structs: &[&Item]) -> String {
    let mut out = String::from(
        "// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.\n\
         // Regenerate: MM2_BLESS=1 cargo test --test ffi_header.\n\
         package io.mm2checkpoint;\n\n\
         /**\n \
         * The fields of the header's counter structs after {@code struct_size}, in declaration order:\n \
         * the order of the {@code long[]} each {@link NativeBinding} method gives for one. Java reads\n \
         * them by name ({@link Values#get}), so a field added to a struct needs nothing here.\n \
         */\n\
         final class NativeStructs {\n",
    );
    for item in structs {
        let names: Vec<String> = counter_fields(item)
            .map(|f| format!("\"{}\",", f.name))
            .collect();
        out.push_str(&format!(
            "    /** {{@code struct {}}}. */\n    static final String[] {} = {{\n        {}\n    }};\n\n",
            item.name,
            item.name.to_uppercase(),
            packed(&names, " ", 92).join("\n        ")
        ));
    }
    out.push_str(
        "    /** One filled counter struct: its numbers, read by field name. */\n\
         \x20   static final class Values {\n\
         \x20       private final String[] names;\n\
         \x20       private final long[] values;\n\n\
         \x20       /** {@code values} in the order of {@code names}, one of the lists above. */\n\
         \x20       Values(String[] names, long[] values) {\n\
         \x20           if (names.length != values.length) {\n\
         \x20               throw new IllegalArgumentException(names.length + \" fields, \" + values.length + \" values\");\n\
         \x20           }\n\
         \x20           this.names = names;\n\
         \x20           this.values = values;\n\
         \x20       }\n\n\
         \x20       /** The value of the field {@code name} (a C uint64_t above Long.MAX_VALUE is negative). */\n\
         \x20       long get(String name) {\n\
         \x20           for (int i = 0; i < names.length; i++) {\n\
         \x20               if (names[i].equals(name)) {\n\
         \x20                   return values[i];\n\
         \x20               }\n\
         \x20           }\n\
         \x20           throw new IllegalArgumentException(\"no field \" + name);\n\
         \x20       }\n\
         \x20   }\n\n\
         \x20   private NativeStructs() {}\n\
         }\n",
    );
    out
}

/// The header's text without comments and preprocessor lines, whitespace collapsed.
fn declarations(header: &str) -> String {
    let mut text = String::new();
    let mut rest = header;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        text.push(' ');
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    text.push_str(rest);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// How a C type crosses to the JVM, as a `ValueLayout` name; `None` for `void`.
fn jvm_layout(c_type: &str) -> Option<&'static str> {
    let t = c_type.replace("const ", "");
    let t = t.trim();
    // The header's callback typedefs (`mm_log_cb`, `mm_stats_cb`) are function pointers.
    if t.contains('*') || (t.starts_with("mm_") && t.ends_with("_cb")) {
        return Some("ADDRESS");
    }
    match t {
        "void" => None,
        "int" | "int32_t" | "uint32_t" => Some("JAVA_INT"),
        "int64_t" | "uint64_t" | "size_t" => Some("JAVA_LONG"),
        "uint8_t" | "bool" => Some("JAVA_BYTE"),
        _ if t.starts_with("enum ") => Some("JAVA_INT"),
        _ => panic!("no JVM layout for the C type `{c_type}`"),
    }
}

/// Every function the header declares, by name: its result's and parameters' JVM layouts.
fn functions(
    header: &str,
) -> std::collections::BTreeMap<String, (Option<&'static str>, Vec<&'static str>)> {
    calls::c_functions(header)
        .into_iter()
        .map(|f| {
            let params = f
                .params
                .iter()
                .map(|p| jvm_layout(&p.c_type).expect("no void parameter"))
                .collect();
            (f.name, (jvm_layout(&f.result), params))
        })
        .collect()
}

/// Every callback type the header declares (`typedef void (*mm_log_cb)(...)`), by name: its
/// parameters' JVM layouts.
fn callbacks(header: &str) -> Vec<(String, Vec<&'static str>)> {
    let mut out = Vec::new();
    for statement in declarations(header).split(';') {
        let Some(rest) = statement.trim().strip_prefix("typedef void (*") else {
            continue;
        };
        let (name, list) = rest.split_once(')').expect("a callback typedef");
        let list = list.trim().trim_start_matches('(').trim_end_matches(')');
        let params = list
            .split(',')
            .map(|p| {
                let p = p.trim();
                let at = p
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |i| i + 1);
                jvm_layout(p[..at].trim()).expect("no void parameter")
            })
            .collect();
        out.push((name.to_string(), params));
    }
    out
}

/// java/src/main/java22/io/mm2checkpoint/NativeFunctions.java: every function's symbol and
/// Panama descriptor, which the Java 22+ binding binds by symbol.
fn panama_functions(header: &str) -> String {
    let mut out = String::from(
        "// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs; do not edit.\n\
         // Regenerate: MM2_BLESS=1 cargo test --test ffi_header.\n\
         package io.mm2checkpoint;\n\n\
         import static java.lang.foreign.ValueLayout.ADDRESS;\n\
         import static java.lang.foreign.ValueLayout.JAVA_BYTE;\n\
         import static java.lang.foreign.ValueLayout.JAVA_INT;\n\
         import static java.lang.foreign.ValueLayout.JAVA_LONG;\n\n\
         import java.lang.foreign.FunctionDescriptor;\n\n\
         /** Every C function of {@code mm2_checkpoint.h}: its symbol and how the FFM API calls it. */\n\
         final class NativeFunctions {\n\
         \x20   private NativeFunctions() {}\n\n\
         \x20   /** A C function of the library. */\n\
         \x20   record Function(String symbol, FunctionDescriptor descriptor) {}\n",
    );
    for (name, (result, params)) in functions(header) {
        let args = params.join(", ");
        let descriptor = match result {
            None => format!("FunctionDescriptor.ofVoid({args})"),
            Some(r) if args.is_empty() => format!("FunctionDescriptor.of({r})"),
            Some(r) => format!("FunctionDescriptor.of({r}, {args})"),
        };
        out.push_str(&format!(
            "\n    static final Function {} =\n            new Function(\"{name}\", {descriptor});\n",
            name.to_uppercase()
        ));
    }
    for (name, params) in callbacks(header) {
        out.push_str(&format!(
            "\n    /** The callback type {{@code {name}}}, as an upcall stub for it is described. */\n    static final FunctionDescriptor {} =\n            FunctionDescriptor.ofVoid({});\n",
            name.to_uppercase(),
            params.join(", ")
        ));
    }
    out.push_str("}\n");
    out
}

/// Every generated file for `header`: (path from the repository root, contents).
pub fn generate(header: &str) -> Vec<(&'static str, String)> {
    let abi = header
        .lines()
        .find_map(|l| l.strip_prefix("#define MM2_CHECKPOINT_ABI_VERSION "))
        .expect("the header defines MM2_CHECKPOINT_ABI_VERSION")
        .to_string();
    let items = items(header);
    let rows = rows(header, &items);
    assert!(rows.len() >= 5, "found only {} row structs", rows.len());
    let structs = counter_structs(&items);
    assert!(
        structs.len() >= 5,
        "found only {} counter structs",
        structs.len()
    );
    let mut files = vec![
        ("include/mm2_checkpoint.layout", layout_file(&items, &abi)),
        ("ffi-tests/layout_table.h", layout_table(&items)),
        ("java/src/main/c/mm2_checkpoint_rows.h", jni_rows(&rows)),
        (
            "java/src/main/java/io/mm2checkpoint/NativeRows.java",
            java_rows(&rows),
        ),
        (
            "java/src/main/java22/io/mm2checkpoint/PanamaRows.java",
            panama_rows(&rows),
        ),
        (
            "java/src/main/c/mm2_checkpoint_structs.h",
            jni_structs(&structs),
        ),
        (
            "java/src/main/java/io/mm2checkpoint/NativeStructs.java",
            java_structs(&structs),
        ),
        (
            "java/src/main/java22/io/mm2checkpoint/NativeFunctions.java",
            panama_functions(header),
        ),
    ];
    files.extend(calls::generate(header, &structs));
    files
}
