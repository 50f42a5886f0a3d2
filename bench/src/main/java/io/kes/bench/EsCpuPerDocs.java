package io.kes.bench;

/**
 * Elasticsearch's CPU for the documents of the load window: the node processes' CPU (utime + stime
 * from /proc, every process of each node) from the producer's first paced record to its last, over
 * the documents the nodes indexed in that time: CPU and documents over the same window, so the
 * prelude (the job's start-up) and the drain (a few documents and the nodes' idle time) stay out.
 * The searches that measure the visible lag run in it, alike for every system.
 */
record EsCpuPerDocs(long cpuMillis, long docsIndexed) {

    /** CPU seconds per 1,000 documents, the unit the report uses; NaN when nothing was indexed. */
    double secondsPerThousandDocs() {
        return docsIndexed <= 0 ? Double.NaN : cpuMillis / (double) docsIndexed;
    }
}
