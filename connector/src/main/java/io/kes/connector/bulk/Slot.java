package io.kes.connector.bulk;

/**
 * The buffer of one (index, shard) slot: everything in it goes to one shard, so the bulk it
 * becomes never waits on another shard. With shard grouping off there is a single mixed slot.
 */
final class Slot {

    final String index;
    final int shard;
    BulkBody body;
    long firstDocAtMillis;
    /** Size of this slot's last body: the next one starts that big, so it never grows by copying. */
    int lastBodyBytes;

    Slot(String index, int shard) {
        this.index = index;
        this.shard = shard;
    }

    BulkBody take() {
        BulkBody taken = body;
        body = null;
        lastBodyBytes = taken.sizeInBytes();
        return taken;
    }

    @Override
    public String toString() {
        return index == null ? "mixed slot" : "slot " + index + "[" + shard + "]";
    }
}
