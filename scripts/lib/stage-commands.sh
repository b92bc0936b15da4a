# Sourced, not run, by scripts/test.sh: the commands of its late lanes' stages that take more
# than one line (run_stage runs each as one command).
#
# Uses: BUILD_INFO (scripts/lib/build.sh), JAVA_HOME (.tools/env.sh, loaded after the setup); run
# from ROOT, the working directory.

# Every ```java block of the documents, compiled against the jar (scripts/lib/doc-snippets.py).
java_doc_snippets() {
    local jar="$1" dir="$BUILD_INFO/java-snippets"
    rm -rf "$dir"
    mkdir -p "$dir/classes"
    python3 scripts/lib/doc-snippets.py --java "$dir/src" README.md docs/*.md examples/jvm/README.md || return 1
    mvn -B -q -o -f java/pom.xml dependency:build-classpath -Dmdep.includeScope=compile \
        -Dmdep.outputFile="$dir/classpath.txt" || return 1
    "$JAVA_HOME/bin/javac" --release 17 -Xlint:all -Werror -d "$dir/classes" \
        -cp "$jar:$(cat "$dir/classpath.txt")" "$dir"/src/*.java
}

# What crates.io takes: the published crates' documentation builds without a warning, and each
# packs (`cargo package`: metadata, files; its verifying build is a release step,
# docs/VERSIONING.md, as it compiles every crate and librdkafka again).
crates_ready() {
    # (The Rust API crate's documentation is the compatibility gate's rustdoc run, -D warnings.)
    RUSTDOCFLAGS="-D warnings" cargo doc -q -p mm2-checkpoint-core -p mm2-checkpoint-kafka -p mm2-checkpoint-ffi \
        -p mm2-checkpoint-capi --no-deps \
        && cargo package -q --workspace --exclude mm2-checkpoint-test-support --no-verify --allow-dirty
}
