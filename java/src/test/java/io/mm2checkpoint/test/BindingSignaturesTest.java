package io.mm2checkpoint.test;

import io.mm2checkpoint.test.HeaderSignatures.Kind;
import io.mm2checkpoint.test.HeaderSignatures.Signature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every binding follows the header. The JNI bridge is C: gcc compiles it against the header with
 * warnings as errors, so its calls are type-checked there; what is checked here is that it calls
 * only functions the header declares. The Panama binding describes C functions to the JVM only
 * through {@code NativeFunctions}, which tests/bindings/generate.rs generates from the header.
 */
@Timeout(60)
public final class BindingSignaturesTest {
    @Test
    public void theHeaderParsesIntoSignatures() throws IOException {
        Map<String, Signature> header = HeaderSignatures.parse(HeaderSignatures.header());
        Check.isTrue(header.size() >= 60, "functions in the header: " + header.size());
        Check.isTrue(header.containsKey("mm_task_new") && header.containsKey("mm_set_log_callback"),
                "known functions parsed: " + header.keySet());
        // The parser itself, on declarations shaped as cbindgen writes them.
        Map<String, Signature> sample = HeaderSignatures.parseText(String.join("\n",
                "/** doc */", "struct mm_task_t *mm_task_new(struct mm_conf_t *conf,",
                "                             char *errstr, size_t errstr_size);",
                "enum mm_result mm_batch_len(const struct mm_batch_t *batch, size_t *len_out);",
                "void mm_batch_destroy(struct mm_batch_t *batch);", "const char *mm_version(void);",
                "int32_t mm_x(uint8_t flag, int64_t v, uint64_t u, int level);"));
        Check.equal("ADDRESS mm_task_new[ADDRESS, ADDRESS, LONG]", String.valueOf(sample.get("mm_task_new")), "pointer result");
        Check.equal("INT mm_batch_len[ADDRESS, ADDRESS]", String.valueOf(sample.get("mm_batch_len")), "enum result");
        Check.equal("VOID mm_batch_destroy[ADDRESS]", String.valueOf(sample.get("mm_batch_destroy")), "void");
        Check.equal("ADDRESS mm_version[]", String.valueOf(sample.get("mm_version")), "(void) parameters");
        Check.equal("INT mm_x[BYTE, LONG, LONG, INT]", String.valueOf(sample.get("mm_x")), "integer kinds");
    }

    /**
     * The Panama binding binds C functions only through the generated descriptors, and its one
     * hand-written descriptor, the log callback's, matches the header's {@code mm_log_cb}.
     */
    @Test
    public void thePanamaBindingUsesOnlyGeneratedDescriptors() throws IOException {
        Map<String, Signature> header = HeaderSignatures.parse(HeaderSignatures.header());
        Path binding = Path.of(System.getProperty("mm2checkpoint.sources"), "java22", "io", "mm2checkpoint",
                "PanamaBinding.java");
        String source = Files.readString(binding);
        Set<String> bound = new TreeSet<>();
        Matcher m = Pattern.compile("\\b(bind|bindIfPresent)\\((MM_\\w+)\\)").matcher(source);
        while (m.find()) {
            String function = m.group(2).toLowerCase(java.util.Locale.ROOT);
            bound.add(function);
            // Only the test kit's mock clusters may be missing from a library.
            Check.equal(function.startsWith("mm_embedded_"), m.group(1).equals("bindIfPresent"),
                    function + " is bound with " + m.group(1));
        }
        // The list-row functions, bound through the generated PanamaRows.
        Matcher rows = Pattern.compile("NativeFunctions\\.(MM_\\w+)").matcher(Files.readString(
                binding.resolveSibling("PanamaRows.java")));
        while (rows.find()) {
            bound.add(rows.group(1).toLowerCase(java.util.Locale.ROOT));
        }
        Set<String> unknown = new TreeSet<>(bound);
        unknown.removeAll(header.keySet());
        Check.equal(Set.of(), unknown, "functions bound that the header lacks");
        Check.isTrue(bound.size() >= 50, "functions bound: " + bound.size());
        // One place makes downcall handles: for the library's functions through bindIfPresent (the
        // generated descriptors), and for the two libc functions that name a native thread.
        Check.equal(1, count(source, "downcallHandle("), "downcall handles made outside downcall()");
        Check.equal(2, count(source, "downcall(address"), "callers of downcall(): bindIfPresent and libc");
        Matcher libc = Pattern.compile("libc\\(\"(\\w+)\"").matcher(source);
        Set<String> libcFunctions = new TreeSet<>();
        while (libc.find()) {
            libcFunctions.add(libc.group(1));
        }
        Check.equal(Set.of("pthread_getname_np", "pthread_self"), libcFunctions, "libc functions bound");
        Check.isTrue(!source.contains("java.lang.reflect"), "no reflection");

        Matcher typedef = Pattern.compile("typedef void \\(\\*mm_log_cb\\)\\(([^)]*)\\);")
                .matcher(Files.readString(HeaderSignatures.header()));
        Check.isTrue(typedef.find(), "mm_log_cb in the header");
        List<String> params = new ArrayList<>();
        for (String p : typedef.group(1).split(",")) {
            params.add(javaLayout(HeaderSignatures.kind(p.trim().replaceAll("\\b\\w+$", "").trim())));
        }
        Check.isTrue(source.contains("FunctionDescriptor.ofVoid(" + String.join(", ", params) + ")"),
                "the upcall's descriptor is ofVoid(" + String.join(", ", params) + ")");
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    private static String javaLayout(Kind k) {
        switch (k) {
            case ADDRESS:
                return "ADDRESS";
            case INT:
                return "JAVA_INT";
            case LONG:
                return "JAVA_LONG";
            case BYTE:
                return "JAVA_BYTE";
            default:
                return "void";
        }
    }

    @Test
    public void theJniBridgeCallsOnlyFunctionsOfTheHeader() throws IOException {
        Map<String, Signature> header = HeaderSignatures.parse(HeaderSignatures.header());
        Path bridge = Path.of(System.getProperty("mm2checkpoint.sources"), "c", "mm2_checkpoint_jni.c");
        Set<String> called = new TreeSet<>();
        // The bridge and its generated list-row part (mm2_checkpoint_rows.h, which it includes).
        String sources = Files.readString(bridge) + Files.readString(bridge.resolveSibling("mm2_checkpoint_rows.h"));
        Matcher m = Pattern.compile("\\b(mm_[a-z_]+)\\s*\\(").matcher(sources);
        while (m.find()) {
            called.add(m.group(1));
        }
        Set<String> unknown = new TreeSet<>(called);
        unknown.removeAll(header.keySet());
        Check.equal(Set.of(), unknown, "functions the JNI bridge calls that the header lacks");
        Check.isTrue(called.size() >= 50, "functions the bridge calls: " + called.size());
    }
}
