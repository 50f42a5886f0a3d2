package io.kes.bench;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a process's steady window lies in its samples: from 25% of the documents indexed to 75%,
 * or sooner, to the last point where the process was surely still reading records. A client reads ahead of
 * what is indexed by what it holds (buffers, bulks queued and in flight); once it has read the
 * last record it only sends, and a window that runs on past that point counts indexed documents
 * whose reading it did not see, at a fraction of the CPU. Measured: {@code bin/kes run} at 48
 * shards, p=8, held ~150,000 documents read but not yet indexed, so at 300,000 records it had read
 * them all by 50% indexed and its 25-75% window cost 6.9 s of CPU per million documents, against
 * 10.4 at 1,000,000 records.
 */
final class SteadyWindow {

    /** A {@code bin/kes run} progress line's counts, e.g. {@code 10s read 408,510 | indexed 275,172 |}. */
    private static final Pattern PROGRESS = Pattern.compile("read ([\\d,]+) \\| indexed ([\\d,]+) \\|");

    private SteadyWindow() {}

    /**
     * Up to how many documents indexed {@code bin/kes run} was surely still reading, from its
     * progress lines: the fewest of records minus what a line shows read but not yet indexed, and
     * the indexed count of the last line that still shows records to read (what it holds grows
     * as its buffers fill, and a line comes only every 5 s); 0 when its first line shows every
     * record read, {@code docs} without such lines.
     */
    static long stillReading(List<String> console, long docs) {
        boolean anyLine = false;
        long until = docs;
        long lastReading = 0; // stays 0 when the first line already shows every record read
        for (String line : console) {
            Matcher m = PROGRESS.matcher(line);
            if (m.find()) {
                anyLine = true;
                long read = Long.parseLong(m.group(1).replace(",", ""));
                long indexed = Long.parseLong(m.group(2).replace(",", ""));
                until = Math.min(until, docs - (read - indexed));
                if (read < docs) {
                    lastReading = indexed;
                }
            }
        }
        return anyLine ? Math.min(until, lastReading) : docs;
    }

    /**
     * The documents indexed at the window's end: 75% of {@code docs}, or {@code stillReading} (up
     * to where the process surely still read records) when that comes sooner; -1 when the window
     * would then span less than a quarter of the documents (a run too short, for what the process
     * holds, to show a steady state).
     */
    static long end(long docs, long stillReading) {
        long end = Math.min(docs * 3 / 4, stillReading);
        return end - docs / 4 >= docs / 4 ? end : -1;
    }
}
