//! The per-function part of the bindings: for every C function of the header, one Java method
//! (`NativeCalls.java`), its JNI implementation (`JniCalls.java` and the C of
//! `mm2_checkpoint_calls.h`) and its Panama implementation (`PanamaCalls.java`).
//!
//! A function crosses by rule, read from its declaration alone:
//! - inputs: a handle (`struct mm_x_t *`) is a `long` address, `const char *` a `String`, a C
//!   integer a Java `int` or `long` (a `size_t` a `long` crossing as its bits: -1 is `SIZE_MAX`,
//!   which the C function refuses or reports as it would from C), and `const int64_t *` arrays
//!   are `long[]` whose common length is the `size_t count` that follows;
//! - an output parameter (named `*_out`, or the `dest`/`dest_size` pair) is the Java result: a
//!   handle (`struct mm_x_t **`) or a number as `long`/`int`, a counter struct as the `long[]` of
//!   its fields (`NativeStructs`), lent text (`const char **`, `size_t *`) or a text read into a
//!   caller's buffer (`char *dest`, `size_t *dest_size`, asked for its size first, again while it
//!   grows; `MM_RESULT_NOT_FOUND` reads as null) as a `String`;
//! - an `mm_result` other than OK throws `Mm2Exception`, except the outcomes [`FALSE_ON`] names,
//!   which make a function without outputs return `false` (and `true` on OK);
//! - the mock clusters' functions (declared under `MM2_CHECKPOINT_EMBEDDED`) may be missing from
//!   a library: calling one then throws `IllegalStateException`.
//!
//! List rows cross through the row kinds (the rest of this generator), and [`HAND_BOUND`] lists
//! the functions each binding calls by hand. Any other function that fits no rule stops the
//! generator, naming it.

use super::{camel, javadoc, wrap, DocComments, Item};

/// A parameter of a C function: its type (`const struct mm_conf_t *`) and name.
pub(super) struct CParam {
    pub c_type: String,
    pub name: String,
}

/// A function the header declares, with its doc comment.
pub(super) struct CFunction {
    pub name: String,
    pub result: String,
    pub params: Vec<CParam>,
    pub doc: String,
    /// Declared only under `MM2_CHECKPOINT_EMBEDDED` (the test kit's mock clusters).
    pub embedded: bool,
}

/// Functions each binding calls by hand, and why.
const HAND_BOUND: &[(&str, &str)] = &[
    (
        "mm_last_error",
        "the error channel, read by each binding right after a failed call",
    ),
    (
        "mm_last_error_kafka_code",
        "the error channel, read by each binding right after a failed call",
    ),
    (
        "mm_set_log_callback",
        "takes a callback: the bindings' log bridges",
    ),
    ("mm_task_set_stats_cb", "takes a callback"),
];

/// Outcomes that a function without outputs reports as `false` rather than as an exception.
const FALSE_ON: &[(&str, &str)] = &[
    ("mm_task_stop", "MM_RESULT_ALREADY_STOPPED"),
    ("mm_flows_stop", "MM_RESULT_ALREADY_STOPPED"),
    (
        "mm_offset_sync_writer_wait_for_capacity",
        "MM_RESULT_TIMED_OUT",
    ),
];

/// Every function the header declares, in header order.
pub(super) fn c_functions(header: &str) -> Vec<CFunction> {
    let mut out = Vec::new();
    let mut doc = String::new();
    let mut comments = DocComments::default();
    let mut embedded = false;
    let mut pending: Option<(String, String)> = None;
    for line in header.lines() {
        let t = line.trim();
        if let Some((text, _)) = pending.as_mut() {
            text.push(' ');
            text.push_str(t);
        } else if comments.read(t, &mut doc) {
            continue;
        } else if t == "#if defined(MM2_CHECKPOINT_EMBEDDED)" {
            embedded = true;
            continue;
        } else if t.starts_with("#endif") {
            embedded = false;
            continue;
        } else if line.starts_with(|c: char| c.is_ascii_alphabetic())
            && !line.starts_with("typedef")
            && t.contains("mm_")
            && t.contains('(')
        {
            pending = Some((t.to_string(), std::mem::take(&mut doc)));
        } else {
            if !t.is_empty() {
                doc.clear();
            }
            continue;
        }
        if t.ends_with(';') {
            let (text, doc) = pending.take().expect("a declaration under way");
            out.push(parse_declaration(&text, doc, embedded));
        }
    }
    out
}

/// `result name(type a, type b);` as a function.
fn parse_declaration(text: &str, doc: String, embedded: bool) -> CFunction {
    let open = text.find('(').expect("a parameter list");
    let close = text.rfind(')').expect("a parameter list");
    let (result, name) = split_declarator(&text[..open]);
    let list = text[open + 1..close].trim();
    let params = if list.is_empty() || list == "void" {
        Vec::new()
    } else {
        list.split(',')
            .map(|p| {
                let (c_type, name) = split_declarator(p);
                CParam { c_type, name }
            })
            .collect()
    };
    CFunction {
        name,
        result,
        params,
        doc,
        embedded,
    }
}

/// `const struct mm_conf_t *conf` as (`const struct mm_conf_t *`, `conf`).
fn split_declarator(decl: &str) -> (String, String) {
    let decl = decl.trim();
    let at = decl
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    (decl[..at].trim().to_string(), decl[at..].to_string())
}

/// How one input parameter crosses.
#[derive(Clone, Copy, PartialEq)]
enum Input {
    Handle,
    Text,
    Int,
    Long,
    /// A `size_t`: a Java `long`, crossing as its bits.
    Size,
    /// `const int64_t *`: a `long[]`.
    Longs,
    /// The `size_t count` of the arrays: their length, not a Java parameter.
    Count,
}

/// What the output parameters make of the Java result.
enum Output {
    Nothing,
    /// `struct mm_x_t **`: the new handle; the C type without the pointer.
    Handle(String),
    /// `size_t *` or `uint64_t *`: the C type without the pointer.
    Long(String),
    /// `int *` or `enum mm_x *`: the C type without the pointer.
    Int(String),
    /// A counter struct: its C type and its name in the header.
    Counter(String, String),
    /// `const char **`, `size_t *`: text the library lends.
    LentText,
    /// `char *dest`, `size_t *dest_size`: text read into a buffer the caller sizes.
    BufferText,
}

/// What the C result is.
enum Result {
    Void,
    /// An `mm_result`, checked.
    Checked,
    /// An `mm_result` where this outcome reads as `false`.
    FalseOn(&'static str),
    /// `const char *`, static text.
    Text,
    /// A C integer.
    Int,
}

/// A function with the way each of its parts crosses.
struct Call<'a> {
    f: &'a CFunction,
    inputs: Vec<(Input, &'a CParam)>,
    output: Output,
    result: Result,
}

/// The crossing of every function that crosses by rule: all but the hand-bound ones and the
/// list-row functions.
fn calls<'a>(functions: &'a [CFunction], structs: &[&Item]) -> Vec<Call<'a>> {
    let mut out = Vec::new();
    for f in functions {
        if HAND_BOUND.iter().any(|(name, _)| *name == f.name) {
            continue;
        }
        let is_row = f
            .params
            .last()
            .is_some_and(|p| p.c_type.trim_end_matches('*').trim().ends_with("_row"));
        if is_row {
            continue;
        }
        out.push(call(f, structs).unwrap_or_else(|why| {
            panic!(
                "{} fits no binding rule ({why}): give tests/bindings/calls.rs a rule for it, or list it in HAND_BOUND",
                f.name
            )
        }));
    }
    out
}

fn call<'a>(f: &'a CFunction, structs: &[&Item]) -> std::result::Result<Call<'a>, String> {
    let mut params: Vec<&CParam> = f.params.iter().collect();
    let output = output(&mut params, structs)?;
    let has_arrays = params.iter().any(|p| p.c_type == "const int64_t *");
    let mut inputs = Vec::new();
    for p in params {
        let kind = match p.c_type.as_str() {
            "const char *" => Input::Text,
            "int" | "int32_t" | "uint32_t" => Input::Int,
            "int64_t" | "uint64_t" => Input::Long,
            "size_t" if has_arrays && p.name == "count" => Input::Count,
            "size_t" => Input::Size,
            "const int64_t *" => Input::Longs,
            t if is_handle(t, 1) => Input::Handle,
            t => return Err(format!("parameter `{}` of type `{t}`", p.name)),
        };
        inputs.push((kind, p));
    }
    let result = match f.result.as_str() {
        "void" => Result::Void,
        "enum mm_result" => match FALSE_ON.iter().find(|(name, _)| *name == f.name) {
            Some((_, code)) if matches!(output, Output::Nothing) => Result::FalseOn(code),
            Some(_) => return Err("a FALSE_ON outcome on a function with outputs".into()),
            None => Result::Checked,
        },
        "const char *" => Result::Text,
        "int" | "int32_t" | "uint32_t" => Result::Int,
        t => return Err(format!("result type `{t}`")),
    };
    if !matches!(output, Output::Nothing) && !matches!(result, Result::Checked) {
        return Err("outputs without an mm_result".into());
    }
    Ok(Call {
        f,
        inputs,
        output,
        result,
    })
}

/// `struct mm_x_t` followed by `stars` pointers, const or not.
fn is_handle(c_type: &str, stars: usize) -> bool {
    let t = c_type.trim_start_matches("const ");
    t.starts_with("struct mm_")
        && t.ends_with(&"*".repeat(stars))
        && t.trim_end_matches('*').trim().ends_with("_t")
        && t.matches('*').count() == stars
}

/// Takes the output parameters off the end of `params`.
fn output(params: &mut Vec<&CParam>, structs: &[&Item]) -> std::result::Result<Output, String> {
    let n = params.len();
    let pair = |a: &str, b: &str| n >= 2 && params[n - 2].c_type == a && params[n - 1].c_type == b;
    if pair("char *", "size_t *") && params[n - 2].name == "dest" {
        params.truncate(n - 2);
        return Ok(Output::BufferText);
    }
    if pair("const char **", "size_t *") {
        params.truncate(n - 2);
        return Ok(Output::LentText);
    }
    let Some(last) = params.last() else {
        return Ok(Output::Nothing);
    };
    if !last.name.ends_with("_out") {
        return Ok(Output::Nothing);
    }
    let pointee = last
        .c_type
        .strip_suffix('*')
        .unwrap_or_default()
        .trim()
        .to_string();
    let output = match pointee.as_str() {
        _ if is_handle(&last.c_type, 2) => {
            Output::Handle(pointee.trim_end_matches('*').trim().into())
        }
        "size_t" | "uint64_t" => Output::Long(pointee),
        "int" => Output::Int(pointee),
        t if t.starts_with("enum mm_") => Output::Int(pointee),
        t => match structs
            .iter()
            .find(|s| t == s.name || t == format!("struct {}", s.name))
        {
            Some(s) => Output::Counter(pointee.clone(), s.name.clone()),
            None => return Err(format!("output `{}` of type `{}`", last.name, last.c_type)),
        },
    };
    params.pop();
    Ok(output)
}

impl Call<'_> {
    /// The Java method's name: the C name without `mm_`, in camel case.
    fn java_name(&self) -> String {
        camel(self.f.name.trim_start_matches("mm_"), false)
    }

    /// The Java parameters (`long conf, String key`), the array count left out.
    fn java_params(&self, native: bool) -> String {
        self.inputs
            .iter()
            .filter(|(kind, _)| *kind != Input::Count)
            .map(|(kind, p)| {
                let t = match kind {
                    Input::Text if native => "byte[]",
                    Input::Text => "String",
                    Input::Int => "int",
                    Input::Longs => "long[]",
                    Input::Handle | Input::Long | Input::Size | Input::Count => "long",
                };
                format!("{t} {}", camel(&p.name, false))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The Java result type (as the native method gives it when `native`).
    fn java_result(&self, native: bool) -> &'static str {
        let text = if native { "byte[]" } else { "String" };
        match (&self.result, &self.output) {
            (Result::Void, _) | (Result::Checked, Output::Nothing) => "void",
            (Result::FalseOn(_), _) => "boolean",
            (Result::Text, _) | (Result::Checked, Output::LentText | Output::BufferText) => text,
            (Result::Int, _) | (Result::Checked, Output::Int(_)) => "int",
            (Result::Checked, Output::Handle(_) | Output::Long(_)) => "long",
            (Result::Checked, Output::Counter(..)) => "long[]",
        }
    }

    /// The Javadoc: the C name and the first sentence of its doc.
    fn javadoc(&self) -> String {
        let doc = &self.f.doc;
        let end = doc
            .match_indices(". ")
            .map(|(i, _)| i)
            .find(|&i| !doc[..i].ends_with("e.g") && !doc[..i].ends_with("i.e"));
        let first = end.map_or(doc.as_str(), |i| &doc[..=i]).trim();
        wrap(
            &format!("{{@code {}}}: {}", self.f.name, javadoc(first)),
            "     * ",
            100,
        )
    }

    /// Java statements that reject what C cannot take: arrays of unequal length.
    fn java_preconditions(&self) -> String {
        let mut out = String::new();
        let fail = |why: String| {
            format!(
                "            throw NativeLibrary.failure(Mm2Exception.INVALID_ARGUMENT, \"{}: {why}\", 0);\n",
                self.f.name
            )
        };
        let mut first_array: Option<String> = None;
        for (kind, p) in &self.inputs {
            let name = camel(&p.name, false);
            if *kind == Input::Longs {
                match &first_array {
                    None => first_array = Some(name),
                    Some(first) => out.push_str(&format!(
                        "        if ({name}.length != {first}.length) {{\n{}        }}\n",
                        fail("the arrays differ in length".into())
                    )),
                }
            }
        }
        out
    }

    /// The name of the first array parameter (whose length is the count).
    fn first_array(&self) -> Option<&CParam> {
        self.inputs
            .iter()
            .find(|(kind, _)| *kind == Input::Longs)
            .map(|(_, p)| *p)
    }
}

const GENERATED: &str = "// Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs (calls.rs); do not edit.\n\
                         // Regenerate: MM2_BLESS=1 cargo test --test ffi_header.\n";

/// java/src/main/java/io/mm2checkpoint/NativeCalls.java: one method per function.
fn native_calls(calls: &[Call]) -> String {
    let mut out = format!(
        "{GENERATED}package io.mm2checkpoint;\n\n\
         /**\n\
         \x20* Every C function of {{@code mm2_checkpoint.h}} that crosses by rule, in Java types: a handle is\n\
         \x20* a {{@code long}} address, text a {{@link String}}, an output parameter the result, and an\n\
         \x20* {{@code mm_result}} other than OK an {{@link Mm2Exception}} (tests/bindings/calls.rs has the\n\
         \x20* rules). Implemented over JNI by {{@link JniCalls}} and over java.lang.foreign by\n\
         \x20* {{@code PanamaCalls}}. Thread rules are the C ones (see the header).\n\
         \x20*/\n\
         interface NativeCalls {{\n"
    );
    for (i, c) in calls.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!(
            "    /**\n{}     */\n    {} {}({});\n",
            c.javadoc(),
            c.java_result(false),
            c.java_name(),
            c.java_params(false)
        ));
    }
    out.push_str("}\n");
    out
}

/// java/src/main/java/io/mm2checkpoint/JniCalls.java: each method over its native twin.
fn jni_calls(calls: &[Call]) -> String {
    let mut out = format!(
        "{GENERATED}package io.mm2checkpoint;\n\n\
         /**\n\
         \x20* {{@link NativeCalls}} over JNI: each method calls its native twin, which\n\
         \x20* {{@code mm2_checkpoint_calls.h}} (generated with this class) implements in C. Text crosses as\n\
         \x20* byte arrays: NUL-terminated UTF-8 going in ({{@link NativeText#cString}}), UTF-8 coming out.\n\
         \x20*/\n\
         abstract class JniCalls implements NativeCalls {{\n"
    );
    for c in calls {
        let name = c.java_name();
        let native = format!("n{}", camel(c.f.name.trim_start_matches("mm_"), true));
        let args: Vec<String> = c
            .inputs
            .iter()
            .filter(|(kind, _)| *kind != Input::Count)
            .map(|(kind, p)| match kind {
                Input::Text => format!("NativeText.cString({})", camel(&p.name, false)),
                _ => camel(&p.name, false),
            })
            .collect();
        let invoke = format!("{native}({})", args.join(", "));
        let body = match c.java_result(false) {
            "void" => format!("        {invoke};\n"),
            "String" => format!("        return NativeText.decode({invoke});\n"),
            _ => format!("        return {invoke};\n"),
        };
        out.push_str(&format!(
            "\n    @Override\n    public final {} {name}({}) {{\n{}{body}    }}\n\n    private static native {} {native}({});\n",
            c.java_result(false),
            c.java_params(false),
            c.java_preconditions(),
            c.java_result(true),
            c.java_params(true),
        ));
    }
    out.push_str("}\n");
    out
}

/// The C (JNI) type of a Java type of a native method.
fn jni_type(java: &str) -> &'static str {
    match java {
        "void" => "void",
        "boolean" => "jboolean",
        "int" => "jint",
        "long" => "jlong",
        "byte[]" => "jbyteArray",
        "long[]" => "jlongArray",
        other => panic!("no JNI type for {other}"),
    }
}

/// java/src/main/c/mm2_checkpoint_calls.h: the native methods of `JniCalls`, each calling its C
/// function.
fn jni_c_calls(calls: &[Call]) -> String {
    let mut out = String::from(
        "/* Generated from include/mm2_checkpoint.h by tests/bindings/generate.rs (calls.rs); do not edit.\n \
         * Regenerate: MM2_BLESS=1 cargo test --test ffi_header. Included by mm2_checkpoint_jni.c, after\n \
         * its helpers: the native methods of io.mm2checkpoint.JniCalls, each calling one mm_* function.\n \
         *\n \
         * The mock clusters are in the test kit's library only (java/README.md, \"What the jar holds\"):\n \
         * weak references, so that the bridge links and loads against either library; calling one the\n \
         * library lacks throws (no_mock_clusters). */\n",
    );
    for c in calls.iter().filter(|c| c.f.embedded) {
        out.push_str(&format!("#pragma weak {}\n", c.f.name));
    }
    for c in calls {
        out.push('\n');
        out.push_str(&jni_c_function(c));
    }
    out
}

fn jni_c_function(c: &Call) -> String {
    let native = format!("n{}", camel(c.f.name.trim_start_matches("mm_"), true));
    let result_type = jni_type(c.java_result(true));
    let mut params = vec!["JNIEnv *env".to_string(), "jclass cls".to_string()];
    for (kind, p) in &c.inputs {
        let t = match kind {
            Input::Count => continue,
            Input::Text => "jbyteArray",
            Input::Longs => "jlongArray",
            Input::Int => "jint",
            Input::Handle | Input::Long | Input::Size => "jlong",
        };
        params.push(format!("{t} {}", p.name));
    }
    let mut body = String::from("    (void)env;\n    (void)cls;\n");
    let zero = match result_type {
        "void" => None,
        "jboolean" => Some("JNI_FALSE"),
        "jbyteArray" | "jlongArray" => Some("NULL"),
        _ => Some("0"),
    };
    if c.f.embedded {
        body.push_str(&format!(
            "    if ({} == NULL) {{\n        no_mock_clusters(env);\n        return{};\n    }}\n",
            c.f.name,
            zero.map_or(String::new(), |z| format!(" {z}"))
        ));
    }
    // Text and arrays are copied into malloc'd memory, each only when the one before succeeded.
    let mut resources: Vec<String> = Vec::new();
    for (kind, p) in &c.inputs {
        let (t, copy) = match kind {
            Input::Text => ("char", "c_text"),
            Input::Longs => ("int64_t", "c_longs"),
            _ => continue,
        };
        let var = format!("c_{}", p.name);
        let copy = format!("{copy}(env, {})", p.name);
        match resources.last() {
            None => body.push_str(&format!("    {t} *{var} = {copy};\n")),
            Some(before) => body.push_str(&format!(
                "    {t} *{var} = {before} == NULL ? NULL : {copy};\n"
            )),
        }
        resources.push(var);
    }
    if let Some(z) = zero {
        body.push_str(&format!("    {result_type} ret = {z};\n"));
    }
    let mut args: Vec<String> = c
        .inputs
        .iter()
        .map(|(kind, p)| match kind {
            Input::Handle => format!("ptr({})", p.name),
            Input::Text => format!("c_{}", p.name),
            Input::Longs => format!("c_{}", p.name),
            Input::Count => format!(
                "(size_t)(*env)->GetArrayLength(env, {})",
                c.first_array().expect("a count follows arrays").name
            ),
            Input::Int | Input::Long | Input::Size => format!("({}){}", p.c_type, p.name),
        })
        .collect();
    let indent = if resources.is_empty() {
        "    "
    } else {
        "        "
    };
    let mut call = String::new();
    let mut line = |text: &str| {
        for l in text.lines() {
            call.push_str(indent);
            call.push_str(l);
            call.push('\n');
        }
    };
    let name = &c.f.name;
    match (&c.result, &c.output) {
        (Result::Void, _) => line(&format!("{name}({});", args.join(", "))),
        (Result::Text, _) => line(&format!(
            "const char *text = {name}({});\nret = text == NULL ? NULL : java_bytes(env, text, strlen(text));",
            args.join(", ")
        )),
        (Result::Int, _) => line(&format!("ret = (jint){name}({});", args.join(", "))),
        (Result::FalseOn(code), _) => line(&format!(
            "enum mm_result r = {name}({});\nret = r == {code} ? JNI_FALSE : (check(env, r) ? JNI_TRUE : JNI_FALSE);",
            args.join(", ")
        )),
        (Result::Checked, Output::Nothing) => line(&format!("check(env, {name}({}));", args.join(", "))),
        (Result::Checked, Output::BufferText) => {
            let mut first = args.clone();
            first.extend(["NULL".into(), "&size".into()]);
            args.extend(["text".into(), "&size".into()]);
            line(&format!(
                "size_t size = 0; /* first the size (a NULL buffer), then the text, again while it grows */\n\
                 char *text = NULL;\n\
                 enum mm_result r = {name}({});\n\
                 while (r == MM_RESULT_OK) {{\n\
                 \x20   free(text);\n\
                 \x20   text = malloc_or_throw(env, size, \"the text of {name}\");\n\
                 \x20   if (text == NULL) {{\n\
                 \x20       break;\n\
                 \x20   }}\n\
                 \x20   r = {name}({});\n\
                 \x20   if (r == MM_RESULT_OK) {{\n\
                 \x20       ret = java_bytes(env, text, strlen(text));\n\
                 \x20       break;\n\
                 \x20   }}\n\
                 \x20   if (r == MM_RESULT_BUFFER_TOO_SMALL) {{\n\
                 \x20       r = MM_RESULT_OK;\n\
                 \x20   }}\n\
                 }}\n\
                 if (r != MM_RESULT_OK && r != MM_RESULT_NOT_FOUND) {{\n\
                 \x20   check(env, r);\n\
                 }}\n\
                 free(text);",
                first.join(", "),
                args.join(", ")
            ));
        }
        (Result::Checked, Output::LentText) => {
            args.extend(["&text".into(), "&len".into()]);
            line(&format!(
                "const char *text = NULL;\nsize_t len = 0;\nenum mm_result r = {name}({});\nret = text_of(env, r, &text, &len);",
                args.join(", ")
            ));
        }
        (Result::Checked, output) => {
            let (declare, convert) = match output {
                Output::Handle(t) => (format!("{t} *out = NULL;"), "handle_of(out)".to_string()),
                Output::Long(t) => (format!("{t} out = 0;"), "(jlong)out".to_string()),
                Output::Int(t) => (format!("{t} out = 0;"), "(jint)out".to_string()),
                Output::Counter(t, s) => (
                    format!("{t} out = {{.struct_size = sizeof out}};"),
                    format!(
                        "java_longs(env, (jlong[]){{MM2_FIELDS_{s}(MM2_JLONG_OF_OUT)}}, MM2_COUNT_{s})"
                    ),
                ),
                _ => unreachable!("matched above"),
            };
            args.push("&out".into());
            line(&format!(
                "{declare}\nif (check(env, {name}({}))) {{\n    ret = {convert};\n}}",
                args.join(", ")
            ));
        }
    }
    match resources.last() {
        None => body.push_str(&call),
        Some(last) => {
            body.push_str(&format!("    if ({last} != NULL) {{\n{call}    }}\n"));
            for var in resources.iter().rev() {
                body.push_str(&format!("    free({var});\n"));
            }
        }
    }
    if zero.is_some() {
        body.push_str("    return ret;\n");
    }
    format!(
        "JNIEXPORT {result_type} JNICALL Java_io_mm2checkpoint_JniCalls_{native}({}) {{\n{body}}}\n",
        params.join(", ")
    )
}

/// java/src/main/java22/io/mm2checkpoint/PanamaCalls.java: each method one downcall.
fn panama_calls(calls: &[Call]) -> String {
    let mut out = format!(
        "{GENERATED}package io.mm2checkpoint;\n\n\
         import static io.mm2checkpoint.PanamaSupport.*;\n\
         import static java.lang.foreign.ValueLayout.ADDRESS;\n\
         import static java.lang.foreign.ValueLayout.JAVA_INT;\n\
         import static java.lang.foreign.ValueLayout.JAVA_LONG;\n\n\
         import java.lang.foreign.Arena;\n\
         import java.lang.foreign.MemorySegment;\n\
         import java.lang.foreign.SymbolLookup;\n\
         import java.lang.invoke.MethodHandle;\n\n\
         /**\n\
         \x20* {{@link NativeCalls}} over java.lang.foreign: each method is one downcall through the handle\n\
         \x20* bound from its {{@link NativeFunctions}} descriptor, called with {{@code invokeExact}}. The\n\
         \x20* subclass supplies {{@link #check}}, which reads the library's error channel.\n\
         \x20*/\n\
         abstract class PanamaCalls implements NativeCalls {{\n"
    );
    for c in calls {
        out.push_str(&format!(
            "    private final MethodHandle {};\n",
            c.java_name()
        ));
    }
    out.push_str(
        "\n    /** Binds every function; a mock clusters' function the library lacks stays null. */\n\
         \x20   PanamaCalls(SymbolLookup symbols) {\n",
    );
    for c in calls {
        out.push_str(&format!(
            "        {} = {}(symbols, NativeFunctions.{});\n",
            c.java_name(),
            if c.f.embedded {
                "bindIfPresent"
            } else {
                "bind"
            },
            c.f.name.to_uppercase()
        ));
    }
    out.push_str(
        "    }\n\n\
         \x20   /** Throws for a result other than OK, with this thread's error message and Kafka code. */\n\
         \x20   abstract void check(int result);\n",
    );
    for c in calls {
        out.push_str(&panama_method(c));
    }
    out.push_str("}\n");
    out
}

fn panama_method(c: &Call) -> String {
    let handle = c.java_name();
    let mut args: Vec<String> = c
        .inputs
        .iter()
        .map(|(kind, p)| {
            let name = camel(&p.name, false);
            match kind {
                Input::Handle => format!("ptr({name})"),
                Input::Text => format!("text(arena, {name})"),
                Input::Longs => format!("arena.allocateFrom(JAVA_LONG, {name})"),
                Input::Count => format!(
                    "(long) {}.length",
                    camel(
                        &c.first_array().expect("a count follows arrays").name,
                        false
                    )
                ),
                Input::Int | Input::Long | Input::Size => name,
            }
        })
        .collect();
    let needs_arena = !matches!(c.output, Output::Nothing)
        || c.inputs
            .iter()
            .any(|(kind, _)| matches!(kind, Input::Text | Input::Longs));
    let mut body = String::new();
    let cast = |result: &Result| match result {
        Result::Void => "",
        Result::Text => "(MemorySegment) ",
        _ => "(int) ",
    };
    match (&c.result, &c.output) {
        (Result::Void, _) => body.push_str(&format!("{handle}.invokeExact({});\n", args.join(", "))),
        (Result::Text, _) => body.push_str(&format!(
            "return cString({}{handle}.invokeExact({}));\n",
            cast(&c.result),
            args.join(", ")
        )),
        (Result::Int, _) => body.push_str(&format!("return (int) {handle}.invokeExact({});\n", args.join(", "))),
        (Result::FalseOn(code), _) => body.push_str(&format!(
            "int r = (int) {handle}.invokeExact({});\nif (r == Mm2Exception.{}) {{\n    return false;\n}}\ncheck(r);\nreturn true;\n",
            args.join(", "),
            code.trim_start_matches("MM_RESULT_")
        )),
        (Result::Checked, Output::Nothing) => {
            body.push_str(&format!("check((int) {handle}.invokeExact({}));\n", args.join(", ")))
        }
        (Result::Checked, Output::BufferText) => {
            let mut first = args.clone();
            first.extend(["MemorySegment.NULL".into(), "size".into()]);
            args.extend(["text".into(), "size".into()]);
            body.push_str(&format!(
                "// First the size (a NULL buffer), then the text, again while it grows.\n\
                 MemorySegment size = arena.allocate(JAVA_LONG);\n\
                 int r = (int) {handle}.invokeExact({});\n\
                 while (r == NativeConstants.RESULT_OK) {{\n\
                 \x20   MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));\n\
                 \x20   r = (int) {handle}.invokeExact({});\n\
                 \x20   if (r == NativeConstants.RESULT_OK) {{\n\
                 \x20       return cString(text);\n\
                 \x20   }}\n\
                 \x20   if (r == Mm2Exception.BUFFER_TOO_SMALL) {{\n\
                 \x20       r = NativeConstants.RESULT_OK;\n\
                 \x20   }}\n\
                 }}\n\
                 if (r != Mm2Exception.NOT_FOUND) {{\n\
                 \x20   check(r);\n\
                 }}\n\
                 return null;\n",
                first.join(", "),
                args.join(", ")
            ));
        }
        (Result::Checked, Output::LentText) => {
            args.extend(["text".into(), "len".into()]);
            body.push_str(&format!(
                "MemorySegment text = arena.allocate(ADDRESS);\n\
                 MemorySegment len = arena.allocate(JAVA_LONG);\n\
                 check((int) {handle}.invokeExact({}));\n\
                 return text(text.get(ADDRESS, 0), len.get(JAVA_LONG, 0));\n",
                args.join(", ")
            ));
        }
        (Result::Checked, output) => {
            let (allocate, read) = match output {
                Output::Handle(_) => ("arena.allocate(ADDRESS)".to_string(), "out.get(ADDRESS, 0).address()".to_string()),
                Output::Long(_) => ("arena.allocate(JAVA_LONG)".to_string(), "out.get(JAVA_LONG, 0)".to_string()),
                Output::Int(_) => ("arena.allocate(JAVA_INT)".to_string(), "out.get(JAVA_INT, 0)".to_string()),
                Output::Counter(_, s) => (
                    format!("sized(arena, \"{s}\")"),
                    format!("fields(out, \"{s}\", NativeStructs.{})", s.to_uppercase()),
                ),
                _ => unreachable!("matched above"),
            };
            args.push("out".into());
            body.push_str(&format!(
                "MemorySegment out = {allocate};\ncheck((int) {handle}.invokeExact({}));\nreturn {read};\n",
                args.join(", ")
            ));
        }
    }
    let indent =
        |text: &str, by: &str| -> String { text.lines().map(|l| format!("{by}{l}\n")).collect() };
    let guarded = if needs_arena {
        format!(
            "        try (Arena arena = Arena.ofConfined()) {{\n{}        }} catch (Throwable t) {{\n            throw rethrow(t);\n        }}\n",
            indent(&body, "            ")
        )
    } else {
        format!(
            "        try {{\n{}        }} catch (Throwable t) {{\n            throw rethrow(t);\n        }}\n",
            indent(&body, "            ")
        )
    };
    let present = if c.f.embedded {
        format!("        requirePresent({handle});\n")
    } else {
        String::new()
    };
    format!(
        "\n    @Override\n    public final {} {}({}) {{\n{}{present}{guarded}    }}\n",
        c.java_result(false),
        c.java_name(),
        c.java_params(false),
        c.java_preconditions()
    )
}

/// The generated per-function files: (path from the repository root, contents).
pub(super) fn generate(header: &str, structs: &[&Item]) -> Vec<(&'static str, String)> {
    let functions = c_functions(header);
    let calls = calls(&functions, structs);
    assert!(
        calls.len() >= 50,
        "only {} functions cross by rule",
        calls.len()
    );
    vec![
        (
            "java/src/main/java/io/mm2checkpoint/NativeCalls.java",
            native_calls(&calls),
        ),
        (
            "java/src/main/java/io/mm2checkpoint/JniCalls.java",
            jni_calls(&calls),
        ),
        (
            "java/src/main/c/mm2_checkpoint_calls.h",
            jni_c_calls(&calls),
        ),
        (
            "java/src/main/java22/io/mm2checkpoint/PanamaCalls.java",
            panama_calls(&calls),
        ),
    ]
}
