package io.kes.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The records of one schedule, in the order they are produced, drawn from its seed: a keyed change
 * stream of {@code updates} changes over {@code keys} keys (every key first appears in order, then
 * changes pick a key at random, a third of them from a hot twentieth of the keys so that some keys
 * change many times within one bulk's reach), each with a per-key increasing {@code v}; about 5%
 * of later changes are tombstones. The deletes topic gets every change, the upserts topic every
 * change that is not a tombstone, and each append-only topic one record per four changes.
 */
final class ChangeStream {

    /** One record: topic, key and value (null: a tombstone). */
    record Out(String topic, String key, String value) {}

    private static final String PAD_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    private ChangeStream() {}

    static List<Out> draw(Names names, long seed, int keys, int updates) {
        Random random = new Random(seed);
        long[] versions = new long[keys];
        int hot = Math.max(1, keys / 20);
        List<Out> out = new ArrayList<>(updates * 2);
        long appended = 0;
        for (int i = 0; i < updates; i++) {
            int k = i < keys ? i : (random.nextInt(3) == 0 ? random.nextInt(hot) : random.nextInt(keys));
            String key = "key-" + k;
            boolean tombstone = versions[k] > 0 && random.nextInt(20) == 0;
            long v = ++versions[k];
            if (tombstone) {
                out.add(new Out(names.deletes(), key, null));
            } else {
                String value = "{\"k\":\"" + key + "\",\"v\":" + v + ",\"pad\":\"" + pad(random) + "\"}";
                out.add(new Out(names.deletes(), key, value));
                out.add(new Out(names.upserts(), key, value));
            }
            if (i % 4 == 0) {
                long n = appended++;
                String value = "{\"n\":" + n + ",\"k\":\"" + key + "\",\"pad\":\"" + pad(random) + "\"}";
                out.add(new Out(names.appends(), key, value));
                out.add(new Out(names.events(), key, value));
                out.add(new Out(names.rolled(), key, value));
            }
        }
        return out;
    }

    private static String pad(Random random) {
        char[] pad = new char[20 + random.nextInt(200)];
        for (int i = 0; i < pad.length; i++) {
            pad[i] = PAD_ALPHABET.charAt(random.nextInt(PAD_ALPHABET.length()));
        }
        return new String(pad);
    }
}
