package io.kes.connector.bulk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kes.connector.OpType;
import java.io.IOException;
import java.io.InputStream;

/**
 * The per-item outcome of one {@code _bulk} response, read with a streaming parser from the slim
 * response that {@link #FILTER_PATH} asks for (the node then serializes less per bulk, too).
 * Items are in request order.
 */
final class BulkResponse {

    /**
     * Only what kes uses: status, error, and the (index, primary term) that the fence checks. The
     * concrete {@code _index} is needed because a document sent to an alias or data stream lands in
     * a backing index, and that is where the fence must look. {@code result} tells a {@code noop}
     * update, whose primary term is the stored document's, not the shard's. {@code failure_store:
     * used} (Elasticsearch 9.1+) tells a document its data stream refused and kept in its failure
     * store, with a success status.
     */
    static final String FILTER_PATH =
            "items.*._index,items.*.status,items.*._primary_term,items.*.result,items.*.failure_store,"
                    + "items.*.error.type,items.*.error.reason,items.*.error.caused_by.reason";

    private static final JsonFactory JSON = new JsonFactory();

    final int[] status;
    final long[] primaryTerm;
    final String[] index;
    final String[] errorType;
    final String[] errorReason;
    final boolean[] noop;
    /** Stored in a data stream's failure store: refused (mapping, ingest), kept aside, answered with a success status. */
    final boolean[] failureStored;

    BulkResponse(int items) {
        status = new int[items];
        primaryTerm = new long[items];
        index = new String[items];
        errorType = new String[items];
        errorReason = new String[items];
        noop = new boolean[items];
        failureStored = new boolean[items];
    }

    int size() {
        return status.length;
    }

    /**
     * The primary term under which item {@code i} was applied, or -1 when the response does not
     * say: a 409 on create carries none (the document was written earlier, perhaps by an attempt
     * whose response was lost), and a {@code noop} update reports the stored document's term,
     * which after a failover is older than the shard's.
     */
    long appliedTerm(int i, OpType opType) {
        boolean applied =
                (status[i] >= 200 && status[i] < 300 && !noop[i]) || (status[i] == 404 && opType == OpType.DELETE);
        return applied && primaryTerm[i] > 0 ? primaryTerm[i] : -1;
    }

    /**
     * Reads an answer held in {@code bytes[0, length)}: an answer of plain items (what a bulk that
     * met no error gets) by {@link PlainItems}, any other with the streaming parser.
     */
    static BulkResponse parse(byte[] bytes, int length, int expectedItems) throws IOException {
        BulkResponse plain = new PlainItems(bytes, length).read(expectedItems);
        if (plain != null) {
            return plain;
        }
        try (JsonParser p = JSON.createParser(bytes, 0, length)) {
            return parse(p, expectedItems);
        }
    }

    static BulkResponse parse(InputStream body, int expectedItems) throws IOException {
        try (JsonParser p = JSON.createParser(body)) {
            return parse(p, expectedItems);
        }
    }

    private static BulkResponse parse(JsonParser p, int expectedItems) throws IOException {
        BulkResponse r = new BulkResponse(expectedItems);
        int item = -1;
        expect(p.nextToken(), JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (!"items".equals(field)) {
                p.skipChildren();
                continue;
            }
            expect(value, JsonToken.START_ARRAY);
            while (p.nextToken() == JsonToken.START_OBJECT) {
                item++;
                if (item >= expectedItems) {
                    throw new IOException("bulk response has more items than the " + expectedItems + " sent");
                }
                r.primaryTerm[item] = -1;
                p.nextToken(); // the action name: index / create / update / delete
                expect(p.nextToken(), JsonToken.START_OBJECT);
                readItem(p, r, item);
                expect(p.nextToken(), JsonToken.END_OBJECT);
            }
        }
        if (item + 1 != expectedItems) {
            throw new IOException("bulk response has " + (item + 1) + " items for the " + expectedItems + " sent");
        }
        return r;
    }

    private static void readItem(JsonParser p, BulkResponse r, int item) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "_index" -> r.index[item] = sameOrNew(p, item > 0 ? r.index[item - 1] : null);
                case "status" -> r.status[item] = p.getIntValue();
                case "_primary_term" -> r.primaryTerm[item] = p.getLongValue();
                case "result" -> r.noop[item] = p.getTextLength() == 4 && "noop".equals(p.getText());
                case "failure_store" -> r.failureStored[item] = "used".equals(p.getText());
                case "error" -> {
                    if (value == JsonToken.START_OBJECT) {
                        readError(p, r, item);
                    } else {
                        r.errorReason[item] = p.getText();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    /**
     * The current string value; the previous item's String when equal. A single-shard bulk names
     * one index a thousand times, and a String per item would be most of what parsing allocates.
     */
    private static String sameOrNew(JsonParser p, String previous) throws IOException {
        if (previous != null && p.getTextLength() == previous.length()) {
            char[] chars = p.getTextCharacters();
            int offset = p.getTextOffset();
            int i = 0;
            while (i < previous.length() && chars[offset + i] == previous.charAt(i)) {
                i++;
            }
            if (i == previous.length()) {
                return previous;
            }
        }
        return p.getText();
    }

    private static void readError(JsonParser p, BulkResponse r, int item) throws IOException {
        String causedBy = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "type" -> r.errorType[item] = p.getText();
                case "reason" -> r.errorReason[item] = p.getText();
                case "caused_by" -> {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String inner = p.currentName();
                        p.nextToken();
                        if ("reason".equals(inner)) {
                            causedBy = p.getText();
                        } else {
                            p.skipChildren();
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (causedBy != null) {
            r.errorReason[item] = r.errorReason[item] == null ? causedBy : r.errorReason[item] + ": " + causedBy;
        }
    }

    private static void expect(JsonToken actual, JsonToken expected) throws IOException {
        if (actual != expected) {
            throw new IOException("unexpected bulk response: " + actual + " where " + expected + " was expected");
        }
    }
}
