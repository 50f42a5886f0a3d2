package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.RecordOrigin;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the first version conflict that is no replay. With externally versioned writes ({@code
 * version: kafka-offset}) a 409 means a write of a higher version reached the document first, and
 * kes counts it as an accepted replay ({@link ItemOutcomes}). That holds while an id's records stay
 * in one partition. When they move (partitions added, a re-created or mirrored topic), the newer
 * value carries a lower offset, gets the same 409 and is lost: the stored version is then far
 * above anything its partition has reached, where a replay's is at most the records written after
 * the last checkpoint above it. "Far": more than twice the highest offset this writer had
 * answered for that partition, plus 1,000; a young partition's moves below that go unseen, which
 * is why {@code kafka-offset} is refused on routes of several topics (the job's config) and a change
 * of partition counts is warned of at start. Task thread only.
 */
final class VersionConflicts {

    private static final long SLACK = 1_000;
    private static final Pattern CURRENT_VERSION = Pattern.compile("current version \\[(\\d+)]");

    /** topic → partition → the highest version answered for it. */
    private final Map<String, Map<Integer, Long>> highest = new HashMap<>();

    private boolean reported;

    /** The warning for the first conflict far above its partition's offsets, or null (none, or one was reported). */
    String check(BulkBody sent, BulkResponse response) {
        if (reported) {
            return null;
        }
        String warning = null;
        for (int i = 0; i < response.size() && warning == null; i++) {
            if (!sent.versioned(i)) {
                continue;
            }
            DocumentOperation op = sent.operation(i);
            RecordOrigin origin = op.origin();
            Map<Integer, Long> partitions =
                    origin.topic() == null ? null : highest.computeIfAbsent(origin.topic(), t -> new HashMap<>());
            long reached = op.version();
            if (partitions != null) {
                reached = partitions.merge(origin.partition(), op.version(), Math::max);
            }
            if (response.status[i] == 409) {
                long stored = storedVersion(response.errorReason[i]);
                if (stored > 2 * reached + SLACK) {
                    warning = warning(op, stored, reached);
                }
            }
        }
        reported = warning != null;
        return warning;
    }

    private static String warning(DocumentOperation op, long stored, long reached) {
        RecordOrigin origin = op.origin();
        String from = origin.topic() == null
                ? "version " + op.version()
                : origin.topic() + "-" + origin.partition() + " offset " + op.version();
        return "Index " + op.index() + ", id " + op.id() + ": Elasticsearch holds version " + stored
                + ", far above the offsets this writer has seen of its partition (up to " + reached + "), and"
                + " refused the write from " + from + " with a version conflict; kes counts it as a replay, so this"
                + " value is not applied. With version: kafka-offset an id's records must stay in one partition:"
                + " were partitions added, or the topic re-created or mirrored? Reported once per writer;"
                + " replaysAccepted counts every conflict";
    }

    private static long storedVersion(String reason) {
        if (reason == null) {
            return -1;
        }
        Matcher m = CURRENT_VERSION.matcher(reason);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
