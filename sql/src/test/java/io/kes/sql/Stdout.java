package io.kes.sql;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What a run of {@link SqlFile} prints (its job lines), passed on to the test's output too. */
final class Stdout {

    private Stdout() {}

    interface Run {
        void run() throws Exception;
    }

    static String of(Run run) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        original.print(out);
        return out;
    }

    /** How many jobs the run waited for to the end. */
    static int finishedJobs(String out) {
        return out.split("finished in", -1).length - 1;
    }
}
