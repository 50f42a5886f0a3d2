package io.kes.bench;

/**
 * One measured run of one mode.
 *
 * @param seconds          first record read (kes) or first request (loader) until every document is
 *                         acknowledged and counted after a refresh
 * @param cpuSeconds       Elasticsearch CPU over the run
 * @param clientCpuSeconds CPU of what fed Elasticsearch: the bench JVM and the Kafka broker
 * @param jitSeconds       of that, the bench JVM's JIT compiler threads (kes runs; NaN for the loader)
 * @param shardsPerBulk    server-side shard-level bulk operations per {@code _bulk} request
 * @param fenceMs          median of the writer's fence (translog sync wait and term check); NaN without
 * @param checkpointMs     median end-to-end duration of the job's completed checkpoints (Flink's statistics)
 * @param tailSeconds      how long the bounded job ran on after the clock stopped (last fence, final checkpoint)
 */
record Run(
        String mode,
        int round,
        long docs,
        long counted,
        double seconds,
        double cpuSeconds,
        double clientCpuSeconds,
        double jitSeconds,
        double p50,
        double p99,
        double shardsPerBulk,
        long rejections,
        double fenceMs,
        double checkpointMs,
        double tailSeconds,
        long bulks) {

    Run withMode(String other) {
        return new Run(
                other,
                round,
                docs,
                counted,
                seconds,
                cpuSeconds,
                clientCpuSeconds,
                jitSeconds,
                p50,
                p99,
                shardsPerBulk,
                rejections,
                fenceMs,
                checkpointMs,
                tailSeconds,
                bulks);
    }

    double docsPerSecond() {
        return docs / seconds;
    }

    double cpuPerMillion() {
        return cpuSeconds / (docs / 1e6);
    }

    double clientCpuPerMillion() {
        return clientCpuSeconds / (docs / 1e6);
    }

    /**
     * Elasticsearch's and the client's CPU per document together. Where node and client share the
     * machine's cores and keep them busy, docs/s is cores / this, so two modes' docs/s relate as the
     * inverse of their totals.
     */
    double totalCpuPerMillion() {
        return cpuPerMillion() + clientCpuPerMillion();
    }

    double jitPerMillion() {
        return jitSeconds / (docs / 1e6);
    }

    @Override
    public String toString() {
        return String.format(
                "%s round %d: %,d docs (%,d counted) in %.1f s = %,.0f docs/s | ES CPU %.1f s = %.1f s/M docs | "
                        + "client CPU %.1f s/M docs%s | bulk p50 %.0f ms p99 %.0f ms | shards/bulk %.2f | rejections %d | checkpoint p50 %s ms",
                mode,
                round,
                docs,
                counted,
                seconds,
                docsPerSecond(),
                cpuSeconds,
                cpuPerMillion(),
                clientCpuPerMillion(),
                Double.isNaN(jitSeconds) ? "" : String.format(" (JIT %.1f)", jitPerMillion()),
                p50,
                p99,
                shardsPerBulk,
                rejections,
                Double.isNaN(checkpointMs) ? "-" : String.format("%.0f", checkpointMs));
    }
}
