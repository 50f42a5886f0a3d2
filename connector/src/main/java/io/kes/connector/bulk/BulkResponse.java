package io.kes.connector.bulk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kes.connector.OpType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

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

    private BulkResponse(int items) {
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

    /**
     * Reads, without a general JSON parser, an answer whose items hold only what a write that met
     * no error gets: {@code {"items":[{"index":{"_index":"logs","_primary_term":1,"result":"created",
     * "status":201}},...]}}, compact as Elasticsearch writes it, strings of printable ASCII without
     * escapes, numbers without sign, fraction or exponent. Parsing every answer with Jackson took
     * ~4% of the client's steady CPU (the JIT stops at C1). Anything else (an error object, an
     * escape, white space, another field, a count other than the items sent) makes it give up,
     * and the streaming parser reads the answer from the start.
     */
    static final class PlainItems {
        private static final byte[] START = ascii("{\"items\":[");
        private static final byte[] ITEM_START = ascii("{\"");
        private static final byte[] ACTION_END = ascii("\":{");
        private static final byte[] NAME_END = ascii("\":");
        private static final byte[] ITEM_END = ascii("}}");
        private static final byte[] END = ascii("]}");
        private static final byte[] INDEX = ascii("_index");
        private static final byte[] STATUS = ascii("status");
        private static final byte[] PRIMARY_TERM = ascii("_primary_term");
        private static final byte[] RESULT = ascii("result");
        private static final byte[] FAILURE_STORE = ascii("failure_store");
        private static final byte[] NOOP = ascii("noop");
        private static final byte[] USED = ascii("used");

        private final byte[] b;
        private final int end;
        private int at;
        /**
         * Where the last index name read lies in {@link #b}; the previous item's when it has a
         * String (each item's name is read here): an equal name reuses that String.
         */
        private int indexFrom;

        private int indexLength;

        PlainItems(byte[] bytes, int length) {
            this.b = bytes;
            this.end = length;
        }

        /** The answer, or null when it is not one of {@code expectedItems} plain items. */
        BulkResponse read(int expectedItems) {
            if (!skip(START)) {
                return null;
            }
            BulkResponse r = new BulkResponse(expectedItems);
            for (int item = 0; item < expectedItems; item++) {
                if ((item > 0 && !skip(',')) || !skip(ITEM_START) || !skipString() || !skip(ACTION_END)) {
                    return null;
                }
                if (!readFields(r, item)) {
                    return null;
                }
            }
            return skip(END) && at == end ? r : null;
        }

        /** The fields of item {@code item}, and the two braces that close it. */
        private boolean readFields(BulkResponse r, int item) {
            r.primaryTerm[item] = -1;
            do {
                int name = at + 1;
                if (!skip('"') || !skipString() || !skip(NAME_END) || !readField(r, item, name, at - 2 - name)) {
                    return false;
                }
            } while (skip(','));
            return skip(ITEM_END);
        }

        /** The value of the field whose name starts at {@code name}; false for a field or value not plain. */
        private boolean readField(BulkResponse r, int item, int name, int length) {
            if (is(name, length, INDEX)) {
                return readIndex(r, item);
            }
            if (is(name, length, STATUS)) {
                long status = number();
                r.status[item] = (int) status;
                return status >= 0 && status < 1000;
            }
            if (is(name, length, PRIMARY_TERM)) {
                r.primaryTerm[item] = number();
                return r.primaryTerm[item] >= 0;
            }
            if (is(name, length, RESULT)) {
                int from = string();
                r.noop[item] = from >= 0 && is(from, at - 1 - from, NOOP);
                return from >= 0;
            }
            if (is(name, length, FAILURE_STORE)) {
                int from = string();
                r.failureStored[item] = from >= 0 && is(from, at - 1 - from, USED);
                return from >= 0;
            }
            return false;
        }

        /** The item's index, the previous item's String when it is the same name. */
        private boolean readIndex(BulkResponse r, int item) {
            int from = string();
            if (from < 0) {
                return false;
            }
            int length = at - 1 - from;
            boolean same = item > 0
                    && r.index[item - 1] != null
                    && Arrays.equals(b, from, from + length, b, indexFrom, indexFrom + indexLength);
            r.index[item] = same ? r.index[item - 1] : new String(b, from, length, StandardCharsets.ISO_8859_1);
            indexFrom = from;
            indexLength = length;
            return true;
        }

        /** Skips a string's characters up to its closing quote (not skipped); false if not plain ASCII. */
        private boolean skipString() {
            while (at < end && b[at] != '"') {
                if (b[at] < 0x20 || b[at] == '\\') { // negative: not ASCII
                    return false;
                }
                at++;
            }
            return at < end;
        }

        /** A string value: the index of its first character, past its closing quote; -1 if not plain. */
        private int string() {
            int from = at + 1;
            return skip('"') && skipString() && skip('"') ? from : -1;
        }

        /** An unsigned integer of at most 18 digits; -1 if there is none. */
        private long number() {
            long value = 0;
            int from = at;
            while (at < end && at - from < 18 && b[at] >= '0' && b[at] <= '9') {
                value = value * 10 + (b[at++] - '0');
            }
            return at > from && (at == end || b[at] < '0' || b[at] > '9') ? value : -1;
        }

        private boolean skip(char expected) {
            if (at < end && b[at] == expected) {
                at++;
                return true;
            }
            return false;
        }

        private boolean skip(byte[] expected) {
            if (!is(at, Math.min(expected.length, end - at), expected)) {
                return false;
            }
            at += expected.length;
            return true;
        }

        /** Whether {@code b[from, from + length)} holds {@code expected}'s bytes. */
        private boolean is(int from, int length, byte[] expected) {
            if (length != expected.length) {
                return false;
            }
            for (int i = 0; i < length; i++) {
                if (b[from + i] != expected[i]) {
                    return false;
                }
            }
            return true;
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
