package io.kes.connector.bulk;

/**
 * When a buffer that is not full leaves: the one rule, pure (the slot, its node's room and the time
 * in; whether it goes and why, or when to look again, out). A full buffer leaves at once, without
 * asking.
 *
 * <p>By default a buffer waits as long as its index hides documents anyway: half its
 * {@code index.refresh_interval} (500 ms at Elasticsearch's default 1 s), at most {@code bulk.linger};
 * then it goes once its node has a free place in flight, and while the node has none it keeps
 * filling. A document becomes searchable at the first refresh after it is indexed; with the
 * refresh's phase unknown, a wait of {@code w} moves that moment by about {@code w} on average,
 * while every bulk's fixed cost in Elasticsearch (the request, the shard-level operation, its
 * translog write and replication) is paid once per bulk. Measured on 3 nodes at 3,000 records/s
 * (6 shards, refresh 1 s): leaving as soon as the node had room made bulks of 27 documents and cost
 * Elasticsearch 2.4x the CPU per document of the official sink's 750-document bulks, for an indexed
 * lag no search could see; a 500 ms wait made bulks of 140 and cost 0.66x, with the count a search
 * returns 0.9 s behind the producer (p50) as the official sink's. An index that does not refresh by
 * itself ({@code -1}) shows nothing sooner for an early bulk: its buffers wait out the linger.
 *
 * <p>With {@code bulk.coalesce} set, the eager rule instead: a buffer goes that long after its first
 * document once neither its node nor its slot has a bulk of this writer in flight or queued
 * ({@link NodeBudgets#idle}).
 *
 * <p>Either way {@code bulk.linger} is an upper bound: a buffer that old goes whatever its node's
 * room (it then queues there as a full one would). Left to room alone it could wait behind other
 * slots' full bulks for as long as they come, and its documents with it; so a checkpoint, which
 * does not cut buffers short, waits at most a linger for the buffers filling at its barrier.
 */
final class DepartureRule {

    /** Why a buffer that is not full goes now, or {@link #STAYS}. */
    enum Why {
        STAYS,
        /** It is {@code bulk.linger} old. */
        LINGER,
        /** It waited half its index's refresh interval and its node has a free place. */
        REFRESH,
        /** It waited {@code bulk.coalesce} and its slot and node are idle. */
        COALESCED
    }

    /** {@code bulk.coalesce} in milliseconds; negative: not set, the wait comes from each index's refresh. */
    private final long coalesceMillis;

    private final long lingerMillis;

    /**
     * @param coalesceMillis {@code bulk.coalesce}, at most the linger; negative when not set
     * @param lingerMillis   {@code bulk.linger}
     */
    DepartureRule(long coalesceMillis, long lingerMillis) {
        this.coalesceMillis = coalesceMillis;
        this.lingerMillis = lingerMillis;
    }

    /**
     * Whether the buffer of {@code slot}, not full, goes at {@code nowMillis}, and why.
     *
     * @param idle    neither its slot nor its node has a bulk of this writer in flight or queued
     * @param hasRoom its node's budget has a free place
     */
    Why decide(Slot slot, long nowMillis, boolean idle, boolean hasRoom) {
        long age = nowMillis - slot.firstDocAtMillis;
        if (age >= lingerMillis) {
            return Why.LINGER;
        }
        if (coalesceMillis < 0) {
            return age >= refreshWait(slot) && hasRoom ? Why.REFRESH : Why.STAYS;
        }
        return age >= coalesceMillis && idle ? Why.COALESCED : Why.STAYS;
    }

    /**
     * When a buffer that stays could go whatever happens meanwhile: at its wait if its node allows
     * it now, else at its linger. A node that
     * makes room meanwhile (a bulk ends) is looked at then, without a timer: under full load that is
     * most buffers, and a deadline for each was a timer that fired only to find no room.
     */
    long nextLook(Slot slot, long nowMillis, boolean idle, boolean hasRoom) {
        long age = nowMillis - slot.firstDocAtMillis;
        long bound = slot.firstDocAtMillis + lingerMillis;
        long wait = coalesceMillis < 0 ? refreshWait(slot) : coalesceMillis;
        boolean allowed = coalesceMillis < 0 ? hasRoom : idle;
        return age < wait && allowed ? Math.min(slot.firstDocAtMillis + wait, bound) : bound;
    }

    /** Half the index's refresh interval, at most the linger; the linger for an index that does not refresh. */
    private long refreshWait(Slot slot) {
        long refresh = slot.refreshIntervalMillis;
        return refresh < 0 ? lingerMillis : Math.min(refresh / 2, lingerMillis);
    }
}
