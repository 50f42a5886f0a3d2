package io.kes.jobs.config;

import io.kes.jobs.config.Route.IdSpec;
import io.kes.jobs.config.Route.Op;
import java.util.List;

/**
 * Checks between the keys of one route, each readable on its own ({@link RouteKeys}) but not
 * together with the others: each adds a problem that names the keys that conflict and keeps going,
 * so that a route with several mistakes reports them all.
 */
final class RouteConflicts {

    private RouteConflicts() {}

    /**
     * {@code version: kafka-offset} needs writes Elasticsearch can version externally (index and
     * delete; not create, not a bulk update) of documents whose id repeats (else there is nothing
     * to go back in time).
     */
    static void versionByOffset(ConfigNode node, Op op, IdSpec id, String dataStream) {
        if (op == Op.CREATE || op == Op.UPSERT || dataStream != null) {
            node.problems()
                    .add(node.keyPath("version") + " kafka-offset needs op index or delete-on-tombstone: Elasticsearch "
                            + "versions no "
                            + (dataStream != null
                                    ? "data stream write (op create)"
                                    : "op " + op.name().toLowerCase())
                            + "; leave version out");
        } else if (id.kind() == IdSpec.Kind.KAFKA
                || id.kind() == IdSpec.Kind.KAFKA_CONNECT
                || id.kind() == IdSpec.Kind.NONE) {
            node.problems()
                    .add(node.keyPath("version")
                            + " kafka-offset needs ids that repeat (id: key, {field: ...} or {hash: "
                            + "[...]}): with id " + id.kind().name().toLowerCase()
                            + " every record is its own document, which no replay "
                            + "takes back in time; leave version out");
        }
    }

    /** {@code version: kafka-offset} needs a route of one topic. */
    static void versionOnOneTopic(ConfigNode node, List<String> topics, String pattern) {
        if (topics.size() > 1 || pattern != null) {
            // offsets order the records of one partition only; Kafka orders nothing across topics
            node.problems()
                    .add(node.keyPath("version") + " kafka-offset needs a route of one topic: an id written from "
                            + (pattern != null
                                    ? "the topics topic_pattern '" + pattern + "' matches"
                                    : "topics " + topics)
                            + " carries offsets of unrelated partitions, so its newer value may carry a lower version, be"
                            + " refused with a 409 and be lost. Give each topic a route (one route per topic, topics: [name])"
                            + " and an index of its own, or leave version out");
        }
    }

    /** What the op needs of the id, the routing and the target. */
    static void opAndId(ConfigNode node, Op op, IdSpec id, String routing, String dataStream) {
        if (dataStream != null && op != Op.INDEX && op != Op.CREATE) {
            node.problems()
                    .add(node.keyPath("op") + " " + op.name().toLowerCase() + " is not possible on a data stream: "
                            + "data streams only take create (kes uses create for them)");
            return;
        }
        if (op == Op.DELETE_ON_TOMBSTONE && id.kind() != IdSpec.Kind.KEY) {
            node.problems()
                    .add(node.keyPath("id") + " must be key with op delete-on-tombstone: a tombstone has no value, "
                            + "so only its key can name the document to delete");
            return;
        }
        if (op == Op.DELETE_ON_TOMBSTONE && routing != null) {
            // A delete sent without the routing its document was indexed with goes to another shard: Elasticsearch
            // answers 404, which counts as done, and the document stays. Routing by the key instead would change
            // nothing: with id: key the default routing is the _id, which is the key.
            node.problems()
                    .add(node.keyPath("routing") + " cannot be used with op delete-on-tombstone: a tombstone "
                            + "has no value to read the routing field '" + routing
                            + "' from, so its delete would go to the wrong "
                            + "shard (Elasticsearch answers 404) and the document would stay; remove routing (with id: key, "
                            + "Elasticsearch already places each document by its key), or keep routing and use op: index or upsert "
                            + "without deletes");
            return;
        }
        if ((op == Op.UPSERT || op == Op.DELETE_ON_TOMBSTONE) && id.kind() == IdSpec.Kind.NONE) {
            node.problems()
                    .add(node.keyPath("id") + " none cannot " + (op == Op.UPSERT ? "upsert" : "delete")
                            + ": those need the document's id; use id: key, {field: ...} or {hash: [...]}");
        }
    }

    /** A bulk update names no pipeline, so {@code pipeline:} cannot go with {@code op: upsert}. */
    static void pipelineAndOp(ConfigNode node, String pipeline, Op op, String dataStream) {
        if (op == Op.UPSERT && dataStream == null) {
            node.problems()
                    .add(
                            node.keyPath("pipeline") + " '" + pipeline + "' cannot be used with op upsert: a bulk "
                                    + "update names no pipeline; use op: index, or set index.default_pipeline on the index instead");
        }
    }
}
