package io.kes.connector.exchange;

/**
 * The ids {@link SlotKeys} keeps on an earlier rule of their target: per (target, fingerprint of
 * the id), that rule and the last barrier passed when the id was routed by it. An id stays there
 * until a checkpoint whose barrier came after that one completes.
 *
 * <p>Bounded by its owner ({@link SlotKeys#MAX_REMEMBERED_IDS} entries): an open-addressing table
 * (linear probing) of at most twice as many slots, grown by doubling and shrunk when entries are
 * dropped. A slot is 20 bytes (fingerprint, barrier, a reference to the rule), so the table never
 * holds more than 2 x 65,536 x 20 bytes = 2.5 MB, whatever the ids' length. No per-entry objects.
 * Task thread only.
 */
final class IdsOnOldRules {

    private static final int MIN_SLOTS = 64;

    /** What {@link #removeIf} drops. */
    interface Condition {
        boolean test(long fingerprint, KeyRule rule, long barrier);
    }

    /** 0: an empty slot (fingerprints are never 0). */
    private long[] fingerprints = new long[MIN_SLOTS];

    private long[] barriers = new long[MIN_SLOTS];
    private KeyRule[] rules = new KeyRule[MIN_SLOTS];
    private int size;

    int size() {
        return size;
    }

    /** The slot of {@code target}'s id with {@code fingerprint}, or -1. */
    int find(SlotKeys.Target target, long fingerprint) {
        int mask = fingerprints.length - 1;
        for (int slot = start(target, fingerprint, mask); ; slot = (slot + 1) & mask) {
            long found = fingerprints[slot];
            if (found == 0) {
                return -1;
            }
            if (found == fingerprint && rules[slot].owner == target) {
                return slot;
            }
        }
    }

    KeyRule rule(int slot) {
        return rules[slot];
    }

    /** The id of {@code slot} was routed by its rule again, after {@code barrier}. */
    void routedAfter(int slot, long barrier) {
        barriers[slot] = Math.max(barriers[slot], barrier);
    }

    /** Adds an id that is not in the table; the caller keeps the size within its bound. */
    void add(long fingerprint, KeyRule rule, long barrier) {
        if (2 * (size + 1) > fingerprints.length) {
            rebuild(fingerprints.length * 2, (f, r, b) -> false);
        }
        insert(fingerprint, rule, barrier);
        rule.owner.remembered++;
        size++;
    }

    /** Drops the entries that match, and shrinks the table to fit those left. */
    void removeIf(Condition drop) {
        int left = 0;
        for (int slot = 0; slot < fingerprints.length; slot++) {
            if (fingerprints[slot] != 0 && !drop.test(fingerprints[slot], rules[slot], barriers[slot])) {
                left++;
            }
        }
        if (left == size) {
            return;
        }
        int slots = MIN_SLOTS;
        while (slots < 2 * left) {
            slots *= 2;
        }
        rebuild(slots, drop);
    }

    private void rebuild(int slots, Condition drop) {
        long[] oldFingerprints = fingerprints;
        long[] oldBarriers = barriers;
        KeyRule[] oldRules = rules;
        fingerprints = new long[slots];
        barriers = new long[slots];
        rules = new KeyRule[slots];
        size = 0;
        for (int slot = 0; slot < oldFingerprints.length; slot++) {
            if (oldFingerprints[slot] == 0) {
                continue;
            }
            if (drop.test(oldFingerprints[slot], oldRules[slot], oldBarriers[slot])) {
                oldRules[slot].owner.remembered--;
            } else {
                insert(oldFingerprints[slot], oldRules[slot], oldBarriers[slot]);
                size++;
            }
        }
    }

    private void insert(long fingerprint, KeyRule rule, long barrier) {
        int mask = fingerprints.length - 1;
        int slot = start(rule.owner, fingerprint, mask);
        while (fingerprints[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        fingerprints[slot] = fingerprint;
        rules[slot] = rule;
        barriers[slot] = barrier;
    }

    /** Fingerprints are well mixed; the target's seed starts two targets' equal ids at different slots. */
    private static int start(SlotKeys.Target target, long fingerprint, int mask) {
        return (int) (fingerprint ^ (fingerprint >>> 32) ^ target.seed) & mask;
    }
}
