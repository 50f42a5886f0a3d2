package io.kes.connector;

import org.apache.flink.annotation.PublicEvolving;

/**
 * How acknowledged writes become durable before a checkpoint lets Kafka offsets advance.
 *
 * <ul>
 *   <li>{@link #CHECKPOINT_FENCE} (default): for indices with {@code index.translog.durability:
 *       async}. Elasticsearch acknowledges writes before fsyncing them, which saves an fsync per
 *       bulk; at each checkpoint kes waits until every in-sync copy (primary and replicas) of every
 *       shard it wrote has fsynced its translog past kes's writes (the shard's global checkpoint, or
 *       each in-sync copy's own persisted checkpoint; Elasticsearch's own sync every
 *       {@code index.translog.sync_interval}; a {@code _flush} for indices that sync less often than
 *       {@code elasticsearch.fence_sync_wait} or do not catch up within it) and then checks that no
 *       shard's primary term moved since it acknowledged kes's writes. If one did (a crash or
 *       failover could have dropped unsynced writes), the checkpoint fails and the job replays from
 *       the previous one; ids make the replay idempotent. Guarantee: every write before a completed
 *       checkpoint's barrier is on the disk of every copy that was in sync when the checkpoint
 *       completed, so it survives any crash (also of several nodes at once) that leaves one of
 *       those copies to be promoted; a write that an ingest pipeline moved to an index kes first
 *       learned of from that write is checked against that index's primary terms as read right after
 *       (a failover within that one round trip goes unseen). Cost: checkpoints take up to one sync
 *       interval longer (a shard idle since kes's writes: up to {@code fence_sync_wait} and a
 *       {@code _flush}); the writes do not wait.
 *   <li>{@link #REQUEST}: Elasticsearch's own per-request fsync ({@code index.translog.durability:
 *       request}, its default). Acknowledged means durable; kes adds nothing at checkpoints.
 *       Costs an fsync per bulk on every shard copy.
 * </ul>
 */
@PublicEvolving
public enum Durability {
    CHECKPOINT_FENCE("checkpoint-fence"),
    REQUEST("request");

    private final String value;

    Durability(String value) {
        this.value = value;
    }

    public String value() {
        return value;
    }

    /** The config value, as Flink's enum options ({@link ElasticsearchSinkOptions#DURABILITY}) parse and print it. */
    @Override
    public String toString() {
        return value;
    }

    /**
     * Also takes the constant's name ({@code checkpoint_fence}), which configs written before the
     * option was typed may use and Flink's enum parsing does not accept.
     */
    public static Durability parse(String value) {
        for (Durability d : values()) {
            if (d.value.equalsIgnoreCase(value.trim()) || d.name().equalsIgnoreCase(value.trim())) {
                return d;
            }
        }
        throw new IllegalArgumentException(ElasticsearchSinkOptions.DURABILITY.key()
                + " must be checkpoint-fence or request, got '" + value + "'");
    }
}
