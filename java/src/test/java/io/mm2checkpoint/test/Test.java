package io.mm2checkpoint.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Marks a public no-argument method of a test class as a test; {@link TestRunner} runs it. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Test {
    /** Seconds after which the test counts as hung and failed. */
    int timeoutSeconds() default 120;
}
