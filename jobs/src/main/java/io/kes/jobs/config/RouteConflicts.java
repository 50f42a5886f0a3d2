package io.kes.jobs.config;

import io.kes.jobs.config.Route.IdSpec;
import io.kes.jobs.config.Route.KeyFormat;
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
        if (op == Op.CREATE || op.upserts() || dataStream != null) {
            node.problems()
                    .add(node.keyPath("version") + " kafka-offset needs op index or delete-on-tombstone: Elasticsearch "
                            + "versions no "
                            + (dataStream != null ? "data stream write (op create)" : "op " + op.yaml())
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
        if (op.deletesOnTombstone() && id.kind() != IdSpec.Kind.KEY && id.kind() != IdSpec.Kind.KEY_FIELD) {
            node.problems()
                    .add(node.keyPath("id") + " must be key or {key_field: ...} with op " + op.yaml()
                            + ": a tombstone has no value, so only its key can name the document to delete");
            return;
        }
        if (op.deletesOnTombstone() && routing != null) {
            // A delete sent without the routing its document was indexed with goes to another shard: Elasticsearch
            // answers 404, which counts as done, and the document stays. Routing by the key instead would change
            // nothing: with id: key the default routing is the _id, which is the key.
            node.problems()
                    .add(node.keyPath("routing") + " cannot be used with op " + op.yaml() + ": a tombstone "
                            + "has no value to read the routing field '" + routing
                            + "' from, so its delete would go to the wrong "
                            + "shard (Elasticsearch answers 404) and the document would stay; remove routing (with id: key, "
                            + "Elasticsearch already places each document by its key), or keep routing and use op: index or upsert "
                            + "without deletes");
            return;
        }
        if ((op.upserts() || op.deletesOnTombstone()) && id.kind() == IdSpec.Kind.NONE) {
            node.problems()
                    .add(node.keyPath("id") + " none cannot " + (op.upserts() ? "upsert" : "delete")
                            + ": those need the document's id; use id: key, {field: ...} or {hash: [...]}");
        }
    }

    /** A bulk update names no pipeline, so {@code pipeline:} cannot go with {@code op: upsert}. */
    static void pipelineAndOp(ConfigNode node, String pipeline, Op op, String dataStream) {
        if (op.upserts() && dataStream == null) {
            node.problems()
                    .add(
                            node.keyPath("pipeline") + " '" + pipeline + "' cannot be used with op upsert: a bulk "
                                    + "update names no pipeline; use op: index, or set index.default_pipeline on the index instead");
        }
    }

    /** {@code key_format} says how to read keys, so it needs ids from keys; {@code key_field} needs keys with fields. */
    static void keyFormatAndId(ConfigNode node, KeyFormat keyFormat, IdSpec id) {
        boolean fromKeys = id.kind() == IdSpec.Kind.KEY || id.kind() == IdSpec.Kind.KEY_FIELD;
        if (node.has("key_format") && !fromKeys) {
            node.problems()
                    .add(node.keyPath("key_format") + " only applies to ids made from record keys (id: key or "
                            + "{key_field: ...}); this route's ids are "
                            + id.kind().name().toLowerCase().replace('_', '-')
                            + ": remove key_format or take ids from keys");
        } else if (id.kind() == IdSpec.Kind.KEY_FIELD && keyFormat.kind() == KeyFormat.Kind.STRING) {
            node.problems()
                    .add(node.keyPath("id") + " {key_field: " + id.fields().get(0) + "} needs keys with fields: set "
                            + "key_format to json, connect-json, confluent-avro, protobuf or json-schema (key_format string, the default, "
                            + "takes the key's bytes as one text)");
        }
    }

    /**
     * {@code cdc} decides each record's op itself (index the {@code after} image, delete on {@code d}),
     * and its deletes name documents by key, as tombstones do.
     */
    static void cdc(ConfigNode node, IdSpec id, String routing, String dataStream) {
        if (node.has("op")) {
            node.problems()
                    .add(node.keyPath("op") + " cannot be set with cdc: each change event says its op (c, r and u "
                            + "index the after image, d and tombstones delete the document); remove op");
        }
        if (dataStream != null) {
            node.problems()
                    .add(node.keyPath("cdc") + " cannot write to a data stream, which takes no deletes: use index");
        }
        if (id.kind() != IdSpec.Kind.KEY && id.kind() != IdSpec.Kind.KEY_FIELD) {
            node.problems()
                    .add(node.keyPath("id") + " must be key or {key_field: <column>} with cdc: a delete event's "
                            + "document is named by the record key (Debezium keys hold the row's primary key), e.g. "
                            + "id: {key_field: id} with key_format: json");
        }
        if (routing != null) {
            node.problems()
                    .add(node.keyPath("routing") + " cannot be used with cdc: a tombstone has no value to read the "
                            + "routing field '" + routing + "' from, so its delete would miss the document's shard; "
                            + "remove routing");
        }
    }
}
