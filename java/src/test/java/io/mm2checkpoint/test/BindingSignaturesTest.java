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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every binding follows the header. The JNI bridge is C: gcc compiles it against the header with
 * warnings as errors, so its calls are type-checked there; what is checked here is that it calls
 * only functions the header declares. The Panama bindings describe each C function to the JVM
 * by hand (a {@code downcall("mm_x", RESULT, PARAMS...)}): each description must match the
 * header's prototype, kind by kind.
 */
@Timeout(60)
public final class BindingSignaturesTest {
    private static final Pattern DOWNCALL = Pattern.compile("downcall\\(\\s*\"(mm_\\w+)\"\\s*((?:,\\s*\\w+\\s*)*)\\)");

    @Test
    public void theHeaderParsesIntoSignatures() throws IOException {
        Map<String, Signature> header = HeaderSignatures.parse(HeaderSignatures.header());
        Check.isTrue(header.size() >= 80, "functions in the header: " + header.size());
        Check.equal("ADDRESS mm_task_new[ADDRESS, ADDRESS, LONG]", String.valueOf(header.get("mm_task_new")),
                "a known prototype");
        Check.equal("LONG mm_batch_len[ADDRESS]", String.valueOf(header.get("mm_batch_len")), "size_t is LONG");
    }

    /** The Java 22+ binding's descriptors are generated from the header and committed. */
    @Test
    public void theGeneratedDescriptorsAreTheHeaders() throws IOException {
        String generated = HeaderSignatures.generateJava(HeaderSignatures.parse(HeaderSignatures.header()));
        Path committed = Path.of(System.getProperty("mm2checkpoint.sources"), HeaderSignatures.GENERATED);
        if ("1".equals(System.getenv("MM2_BLESS"))) {
            Files.writeString(committed, generated);
        }
        Check.isTrue(Files.exists(committed) && Files.readString(committed).equals(generated),
                committed + " is stale: the header changed; run the suite with MM2_BLESS=1 to regenerate it");
    }

    @Test
    public void everyPanamaDowncallMatchesTheHeader() throws IOException {
        Map<String, Signature> header = HeaderSignatures.parse(HeaderSignatures.header());
        List<Path> sources = javaSources();
        int checked = 0;
        List<String> mismatches = new ArrayList<>();
        for (Path source : sources) {
            Matcher m = DOWNCALL.matcher(Files.readString(source));
            while (m.find()) {
                String name = m.group(1);
                List<String> kinds = new ArrayList<>();
                for (String k : m.group(2).split(",")) {
                    if (!k.isBlank()) {
                        kinds.add(k.trim());
                    }
                }
                Signature expected = header.get(name);
                if (expected == null) {
                    mismatches.add(source.getFileName() + ": " + name + " is not in the header");
                    continue;
                }
                List<String> want = new ArrayList<>();
                want.add(expected.result() == Kind.VOID ? "null" : layout(expected.result()));
                expected.params().forEach(p -> want.add(layout(p)));
                if (!want.equals(kinds)) {
                    mismatches.add(source.getFileName() + ": " + name + " declared " + kinds + ", header says " + want);
                }
                checked++;
            }
        }
        Check.equal(List.of(), mismatches, "Panama descriptions that disagree with the header");
        Check.isTrue(checked >= 60, "downcalls checked: " + checked);
    }

    @Test
    public void theJniBridgeCallsOnlyFunctionsOfTheHeader() throws IOException {
        Map<String, Signature> header = HeaderSignatures.parse(HeaderSignatures.header());
        Path bridge = Path.of(System.getProperty("mm2checkpoint.sources"), "c", "mm2_checkpoint_jni.c");
        Set<String> called = new TreeSet<>();
        Matcher m = Pattern.compile("\\b(mm_[a-z_]+)\\s*\\(").matcher(Files.readString(bridge));
        while (m.find()) {
            called.add(m.group(1));
        }
        Set<String> unknown = new TreeSet<>(called);
        unknown.removeAll(header.keySet());
        Check.equal(Set.of(), unknown, "functions the JNI bridge calls that the header lacks");
        Check.isTrue(called.size() >= 60, "functions the bridge calls: " + called.size());
    }

    /** The Java names the Panama bindings use for the kinds (Ffm's constants, ValueLayout's). */
    private static String layout(Kind k) {
        switch (k) {
            case ADDRESS:
                return "ADDRESS";
            case INT:
                return "INT";
            case LONG:
                return "LONG";
            case BYTE:
                return "BYTE";
            default:
                return "null";
        }
    }

    private static List<Path> javaSources() throws IOException {
        Path main = Path.of(System.getProperty("mm2checkpoint.sources"));
        List<Path> out = new ArrayList<>();
        for (String dir : new String[] {"java", "java22"}) {
            Path root = main.resolve(dir);
            if (Files.isDirectory(root)) {
                try (Stream<Path> files = Files.walk(root)) {
                    files.filter(p -> p.toString().endsWith(".java")).forEach(out::add);
                }
            }
        }
        return out;
    }
}
