package io.kes.bench;

/**
 * How the paced records of one run reached the shards, from the nodes' own counters: the
 * {@code _bulk} HTTP requests they received ({@code _nodes/stats/http} routes) and the shard-level
 * bulk operations on the index's primaries ({@code <index>/_stats/bulk}, {@code total_operations}).
 * A coordinating node splits a {@code _bulk} into one operation per shard it touches: a single-shard
 * bulk is one shard operation, a bulk over N shards is N. Each operation pays its own fixed cost (the
 * write thread's task, the translog write, the shard's locks), so documents per shard operation is
 * what that cost is spread over.
 */
record BulkShape(long docs, long bulkRequests, long shardOperations) {

    double docsPerBulk() {
        return Stats.ratio(docs, bulkRequests);
    }

    double docsPerShardOperation() {
        return Stats.ratio(docs, shardOperations);
    }

    /** Shard operations per {@code _bulk}: 1 for single-shard bulks, up to the index's shards for mixed ones. */
    double shardsPerBulk() {
        return Stats.ratio(shardOperations, bulkRequests);
    }
}
