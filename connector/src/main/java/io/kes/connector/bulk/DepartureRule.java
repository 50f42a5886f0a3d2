package io.kes.connector.bulk;

/**
 * When a buffer that is not full leaves: the one rule, pure (the slot, its node's room and the time
 * in; go or not, and when to look again, out). A full buffer leaves at once, without asking.
 *
 * <p>By default a buffer waits as long as its index hides documents anyway: half its
 * {@code index.refresh_interval} (500 ms at Elasticsearch's default 1 s), at most
 * {@code bulk.linger}; then it goes once its node has a free place in flight, and while the node has
 * none it keeps filling. A document becomes searchable at the first refresh after it is indexed; with
 * the refresh's phase unknown, a wait of {@code w} moves that moment by about {@code w} on average,
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
 * ({@link SlotBuffers.Room#idle}), and at its linger once its node has a free place.
 *
 * <p>Either way a buffer a checkpoint waits for goes at its {@link Slot#dueAtMillis} whatever its
 * node's room (it then queues there as a full one): left to room alone it could wait behind other
 * slots' full bulks for as long as they come, and its checkpoint with it.
 */
final class DepartureRule {

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

    /** Whether the buffer of {@code slot}, not full, goes at {@code nowMillis}. */
    boolean goesNow(Slot slot, long nowMillis, SlotBuffers.Room room) {
        if (nowMillis >= slot.dueAtMillis) {
            return true;
        }
        long age = nowMillis - slot.firstDocAtMillis;
        return age >= roomWait(slot) ? room.hasRoom(slot) : age >= idleWait(slot) && room.idle(slot);
    }

    /**
     * When a buffer that does not go now could go whatever happens meanwhile: at its idle wait if
     * its slot and node are idle, at its room wait if its node's budget has room, else when a
     * checkpoint needs it ({@link Slot#dueAtMillis}; {@link Long#MAX_VALUE} when none does: the end
     * of a bulk that holds the room looks again). A buffer whose node has no room counts only on
     * that: under full load that is most buffers, and a deadline for each was a timer that fired
     * only to find no room.
     */
    long nextLook(Slot slot, long nowMillis, SlotBuffers.Room room) {
        long age = nowMillis - slot.firstDocAtMillis;
        long idleWait = idleWait(slot);
        if (age < idleWait && room.idle(slot)) {
            return Math.min(slot.firstDocAtMillis + idleWait, slot.dueAtMillis);
        }
        long roomWait = roomWait(slot);
        if (age < roomWait && room.hasRoom(slot)) {
            return Math.min(slot.firstDocAtMillis + roomWait, slot.dueAtMillis);
        }
        return slot.dueAtMillis;
    }

    /** How long a buffer waits for more documents once its slot and node are idle. */
    private long idleWait(Slot slot) {
        return coalesceMillis >= 0 ? coalesceMillis : refreshWait(slot);
    }

    /** How long a buffer waits for more documents while its node has a free place in flight. */
    private long roomWait(Slot slot) {
        return coalesceMillis >= 0 ? lingerMillis : refreshWait(slot);
    }

    /** Half the index's refresh interval, at most the linger; the linger for an index that does not refresh. */
    private long refreshWait(Slot slot) {
        long refresh = slot.refreshIntervalMillis;
        return refresh < 0 ? lingerMillis : Math.min(refresh / 2, lingerMillis);
    }
}
