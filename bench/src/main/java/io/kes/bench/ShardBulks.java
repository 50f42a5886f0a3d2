package io.kes.bench;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The loaders' single-shard {@code _bulk} bodies as they fill: per shard, one open body of action
 * lines ({@code {"index":{"_id":...}}}, no {@code _index}: the request's path names the index) and
 * sources, cut when it holds {@code docsPerBulk} documents. Both loaders build their bodies here, so
 * the pre-serialized one and the topic-reading one send byte for byte the same bulks.
 */
final class ShardBulks {

    /** One body ready to send: the shard all its documents route to, and how many they are. */
    record Bulk(int shard, byte[] body, int docs) {}

    private final ByteArrayOutputStream[] open;
    private final int[] count;
    private final int docsPerBulk;

    ShardBulks(int shards, int docsPerBulk) {
        if (shards < 1 || docsPerBulk < 1) {
            throw new IllegalArgumentException(
                    "shards and docsPerBulk must be at least 1, got " + shards + " and " + docsPerBulk);
        }
        this.open = new ByteArrayOutputStream[shards];
        this.count = new int[shards];
        this.docsPerBulk = docsPerBulk;
        for (int s = 0; s < shards; s++) {
            open[s] = new ByteArrayOutputStream(docsPerBulk * 600);
        }
    }

    /** Appends one document to its shard's body; returns that body when this document filled it, else null. */
    Bulk add(int shard, String id, byte[] source) {
        ByteArrayOutputStream out = open[shard];
        out.writeBytes(("{\"index\":{\"_id\":\"" + id + "\"}}\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(source);
        out.write('\n');
        if (++count[shard] < docsPerBulk) {
            return null;
        }
        return cut(shard);
    }

    /** Every body that holds documents, in shard order, each then empty: what is left at the end. */
    List<Bulk> drain() {
        List<Bulk> left = new ArrayList<>();
        for (int s = 0; s < open.length; s++) {
            if (count[s] > 0) {
                left.add(cut(s));
            }
        }
        return left;
    }

    private Bulk cut(int shard) {
        Bulk bulk = new Bulk(shard, open[shard].toByteArray(), count[shard]);
        open[shard].reset();
        count[shard] = 0;
        return bulk;
    }
}
