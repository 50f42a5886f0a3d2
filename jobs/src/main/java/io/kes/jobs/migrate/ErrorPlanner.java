package io.kes.jobs.migrate;

import java.util.List;

/**
 * {@code errors:} of a migrated job. Connect has three switches for a record it cannot write
 * ({@code errors.tolerance} for converter failures, {@code drop.invalid.message} for records it
 * cannot turn into a document, {@code behavior.on.malformed.documents} for documents Elasticsearch
 * refuses); kes has one: stop, or send the record to the dead-letter topic and go on. Whatever
 * Connect would skip, kes dead-letters; without a dead-letter topic that cannot be honoured (kes
 * drops no record silently) and the migration is refused.
 */
final class ErrorPlanner {

    private ErrorPlanner() {}

    /** Whether Connect's config sends failed records to a dead-letter topic (tolerance all and a topic). */
    static boolean deadLetters(ConnectConfig c) {
        return c.get("errors.tolerance", "none").equalsIgnoreCase("all") && c.has("errors.deadletterqueue.topic.name");
    }

    static void plan(Migration m) {
        ConnectConfig c = m.config;
        String tolerance = c.choice("errors.tolerance", "none", List.of("none", "all"));
        String malformed = c.choice("behavior.on.malformed.documents", "fail", List.of("ignore", "warn", "fail"));
        boolean dropInvalid = c.bool("drop.invalid.message", false);
        boolean deadLetters = deadLetters(c);
        String fix = "; set errors.tolerance=all and errors.deadletterqueue.topic.name, so that kes sends such "
                + "records to that topic and goes on, or leave the option out so that the job stops at such a record";
        if (tolerance.equals("all") && !deadLetters) {
            m.refuse("errors.tolerance=all without errors.deadletterqueue.topic.name skips records that cannot be "
                    + "converted, silently; kes drops no record silently" + fix);
        }
        if (!malformed.equals("fail") && !deadLetters) {
            m.refuse("behavior.on.malformed.documents=" + malformed + " skips documents Elasticsearch refuses; "
                    + "kes drops no document silently" + fix);
        }
        if (dropInvalid && !deadLetters) {
            m.refuse("drop.invalid.message=true skips records that cannot become documents; kes drops no record "
                    + "silently" + fix);
        }
        if (deadLetters) {
            m.job.set("errors", "tolerance", "all");
            m.job.set("errors", "dead_letter_topic", c.get("errors.deadletterqueue.topic.name", ""));
        }
    }
}
