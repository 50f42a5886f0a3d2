package io.kes.connector.routing;

import io.kes.connector.cluster.IndexMetadata;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calibration of each concrete index, kept per identity (uuid, shard count,
 * {@code routing_num_shards}, partition size, index pipelines): a re-created or resharded index is
 * calibrated again. A calibration object is also its layouts' {@link IndexLayout#generation()}:
 * replacing one makes the writers predict again. Concurrent: a background read looks up whether
 * its index is calibrated already; every change happens on the table's owner thread.
 */
final class Calibrations {

    /**
     * How soon an index is calibrated again when it has no routing only because an index pipeline
     * could not be read (a 503 while the cluster elects a master must not end single-shard bulks
     * until a restart).
     */
    static final long UNREADABLE_RETRY_MILLIS = 5_000;

    /** What identifies an index for routing: its calibration holds while these stay the same. */
    private record Identity(
            String uuid,
            String name,
            int shards,
            int routingNumShards,
            int partitionSize,
            boolean routedByDocument,
            List<String> indexPipelines) {
        static Identity of(IndexMetadata m) {
            return new Identity(
                    m.uuid(),
                    m.name(),
                    m.numberOfShards(),
                    m.routingNumShards(),
                    m.routingPartitionSize(),
                    m.routedByDocument(),
                    m.indexPipelines());
        }
    }

    /** A calibration result; the object itself is the layouts' {@link IndexLayout#generation()}. */
    static final class Calibration {
        /** How the index routes; null: it cannot be predicted. */
        final IndexRouting routing;
        /** When to calibrate again: never ({@code Long.MAX_VALUE}) for an answer, soon for an unreadable pipeline. */
        final long recalibrateAtMillis;

        long lastUsedMillis;

        Calibration(IndexRouting routing, long recalibrateAtMillis, long now) {
            this.routing = routing;
            this.recalibrateAtMillis = recalibrateAtMillis;
            this.lastUsedMillis = now;
        }
    }

    private final Map<Identity, Calibration> byIdentity = new ConcurrentHashMap<>();

    /** The calibration of {@code index}'s identity, or null. */
    Calibration of(IndexMetadata index) {
        return byIdentity.get(Identity.of(index));
    }

    /** Whether {@code index} is to be calibrated (again) at {@code now}: never yet, or its retry is due. */
    boolean due(IndexMetadata index, long now) {
        Calibration known = of(index);
        return known == null || now >= known.recalibrateAtMillis;
    }

    /** Keeps what a calibration of {@code index} found: a new generation of its layouts. */
    Calibration install(IndexMetadata index, IndexCalibrator.Outcome outcome, long now) {
        return put(index, outcome.routing(), outcome.unreadable(), now);
    }

    /**
     * Replaces {@code index}'s calibration with one without routing (a new generation); one that
     * has no routing only because a pipeline was {@code unreadable} is calibrated again soon.
     */
    Calibration withoutRouting(IndexMetadata index, boolean unreadable, long now) {
        return put(index, null, unreadable, now);
    }

    private Calibration put(IndexMetadata index, IndexRouting routing, boolean unreadable, long now) {
        Calibration calibration =
                new Calibration(routing, unreadable ? now + UNREADABLE_RETRY_MILLIS : Long.MAX_VALUE, now);
        byIdentity.put(Identity.of(index), calibration);
        return calibration;
    }

    /**
     * Replaces calibration {@code generation}, if it still routes, with one without routing for
     * good (a pipeline moved a document: no re-read would see it).
     *
     * @return whether it was replaced
     */
    boolean dropRouting(Object generation, long now) {
        boolean replaced = false;
        for (Map.Entry<Identity, Calibration> e : byIdentity.entrySet()) {
            if (e.getValue() == generation && e.getValue().routing != null) {
                e.setValue(new Calibration(null, Long.MAX_VALUE, now));
                replaced = true;
            }
        }
        return replaced;
    }

    /** Forgets the calibrations last used before {@code cutoff}. */
    void forgetUnusedSince(long cutoff) {
        byIdentity.values().removeIf(c -> c.lastUsedMillis < cutoff);
    }

    /** The concrete indices calibrated. */
    Set<String> indices() {
        Set<String> names = new HashSet<>();
        byIdentity.keySet().forEach(identity -> names.add(identity.name()));
        return names;
    }
}
