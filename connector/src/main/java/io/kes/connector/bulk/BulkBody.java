package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.connector.routing.PredictedShard;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The NDJSON body of one {@code _bulk} request, built incrementally. Each document's source bytes
 * are copied as they are (no parse, no re-serialization); only newlines, which JSON allows as
 * whitespace but NDJSON uses as a separator, are turned into spaces. Item boundaries are kept so
 * that a retry can resend just the rejected items.
 *
 * <p>The body is the only copy of a source it holds: the operation it keeps for each item (for
 * ids, responses and retries) leaves its source behind, and {@link #document(int)} reads the source
 * back out of the body for the failure handler, the one reader that needs it. A bulk lives for
 * seconds, queued and in flight, so a second copy of every source would double the bytes the
 * collector copies and marks while it waits ("GC, the largest share left", docs/benchmark.md).
 */
final class BulkBody {

    private static final byte[] UPSERT_PREFIX = "{\"doc\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] UPSERT_SUFFIX = ",\"doc_as_upsert\":true}".getBytes(StandardCharsets.UTF_8);

    // The action line's fixed parts, encoded once: a loop of String.charAt per part and document
    // showed in the steady profile under C1 (bin/kes run's JIT inlines little and checks every index)
    private static final byte[] ID_FIELD = ascii(",\"_id\":");
    private static final byte[] ROUTING_FIELD = ascii(",\"routing\":");
    private static final byte[] PIPELINE_FIELD = ascii(",\"pipeline\":");
    private static final byte[] VERSION_FIELD = ascii(",\"version\":");
    private static final byte[] EXTERNAL_GTE = ascii(",\"version_type\":\"external_gte\"");
    private static final byte[] RETRY_ON_CONFLICT = ascii(",\"retry_on_conflict\":3");
    private static final byte[] ACTION_END = ascii("}}\n");

    /** What an item's operation holds instead of its source: the source is in the body (see {@link #document}). */
    static final byte[] SOURCE_IN_BODY = new byte[0];

    /**
     * What one item may hold on the heap besides its bytes here, an upper estimate: one kept whole
     * holds its operation, id and origin; a plain one only its share of {@link BodyItems}' arrays
     * (about 40 bytes). Left at the whole item's figure: the memory bound stays a bound.
     */
    private static final int ITEM_OVERHEAD_BYTES = 160;

    /** A document's two lines take about this many bytes or more (a guess to size {@link #items} by). */
    private static final int TYPICAL_ITEM_BYTES = 512;

    private byte[] bytes;
    private int size;
    /** The bytes the kept operations reference (source, original key and value), and their overhead. */
    private long retainedBytes;

    private final BodyItems items;

    private byte[] actionPrefix;
    private OpType actionPrefixOpType;
    private String actionPrefixIndex;

    BulkBody(int initialCapacity) {
        this(new byte[Math.max(initialCapacity, 256)]);
    }

    /** A body written into {@code array} from its start (what it held before is overwritten). */
    BulkBody(byte[] array) {
        this.bytes = array;
        this.items = new BodyItems(array.length / TYPICAL_ITEM_BYTES);
    }

    void add(DocumentOperation op, PredictedShard prediction) {
        int start = size;
        writeActionLine(op);
        boolean lineBreaksReplaced = switch (op.opType()) {
            case INDEX, CREATE -> writeSourceLine(op.source(), null, null);
            case UPSERT -> writeSourceLine(op.source(), UPSERT_PREFIX, UPSERT_SUFFIX);
            case DELETE -> false;
        };
        // a source whose line breaks became spaces keeps its own bytes: a dead letter replays the record as it was
        boolean sourceInBody = op.source() != null && !lineBreaksReplaced;
        items.add(start, prediction, op, sourceInBody);
        retainedBytes += retainedBy(sourceInBody ? null : op.source(), op.origin());
    }

    static DocumentOperation withoutSource(DocumentOperation op) {
        return withSource(op, SOURCE_IN_BODY);
    }

    private static DocumentOperation withSource(DocumentOperation op, byte[] source) {
        return DocumentOperation.write(op.opType(), op.index())
                .id(op.id())
                .routing(op.routing())
                .source(source)
                .origin(op.origin())
                .pipeline(op.pipeline())
                .version(op.version())
                .idUnique(op.idUnique())
                .build();
    }

    /**
     * The item's operation as it was added, its source read back out of the body: what a failure
     * handler gets. {@link #operation(int)} is the same without the source, for everything else.
     */
    DocumentOperation document(int item) {
        DocumentOperation op = operation(item);
        if (op.source() != SOURCE_IN_BODY) {
            return op;
        }
        int start = items.start(item);
        while (bytes[start] != '\n') {
            start++; // past the action line: its strings are escaped, so its first line break ends it
        }
        start++;
        int end = itemEnd(item) - 1; // the source line's own line break
        if (op.opType() == OpType.UPSERT) {
            start += UPSERT_PREFIX.length;
            end -= UPSERT_SUFFIX.length;
        }
        return withSource(op, Arrays.copyOfRange(bytes, start, end));
    }

    private int itemEnd(int item) {
        return item + 1 < items.size() ? items.start(item + 1) : size;
    }

    /** Appends an already encoded item of another body (retries). */
    void addEncoded(BulkBody from, int item) {
        int start = from.items.start(item);
        int end = from.itemEnd(item);
        items.addCopy(from.items, item, size);
        DocumentOperation whole = from.items.whole(item);
        retainedBytes += retainedBy(whole != null ? whole.source() : null, from.items.origin(item));
        ensure(end - start);
        System.arraycopy(from.bytes, start, bytes, size, end - start);
        size += end - start;
    }

    /** Items {@code from} (inclusive) to {@code to} (exclusive) as a body of their own. */
    BulkBody slice(int from, int to) {
        int bytesFrom = items.start(from);
        int bytesTo = to < items.size() ? items.start(to) : size;
        BulkBody part = new BulkBody(bytesTo - bytesFrom);
        for (int i = from; i < to; i++) {
            part.addEncoded(this, i);
        }
        return part;
    }

    private void writeActionLine(DocumentOperation op) {
        if (op.opType() != actionPrefixOpType || !op.index().equals(actionPrefixIndex)) {
            actionPrefix = actionPrefix(op);
            actionPrefixOpType = op.opType();
            actionPrefixIndex = op.index();
        }
        write(actionPrefix);
        if (op.id() != null) {
            write(ID_FIELD);
            writeJsonString(op.id());
        }
        if (op.routing() != null) {
            write(ROUTING_FIELD);
            writeJsonString(op.routing());
        }
        if (op.pipeline() != null) {
            write(PIPELINE_FIELD);
            writeJsonString(op.pipeline());
        }
        if (op.version() != DocumentOperation.NO_VERSION) {
            write(VERSION_FIELD);
            write(ascii(Long.toString(op.version())));
            write(EXTERNAL_GTE);
        }
        if (op.opType() == OpType.UPSERT) {
            // Two writers may upsert the same id between a refresh; let Elasticsearch retry those.
            write(RETRY_ON_CONFLICT);
        }
        write(ACTION_END);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private void write(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
    }

    /**
     * The start of an action line, e.g. <code>{"index":{"_index":"logs"</code>, encoded once per
     * (action, index): a single-shard body repeats it for every document.
     */
    private static byte[] actionPrefix(DocumentOperation op) {
        BulkBody encoder = new BulkBody(64);
        encoder.write(ascii("{\"" + op.opType().bulkAction() + "\":{\"_index\":"));
        encoder.writeJsonString(op.index());
        return Arrays.copyOf(encoder.bytes, encoder.size);
    }

    /** Returns whether the source had line breaks (they are spaces in the body). */
    private boolean writeSourceLine(byte[] source, byte[] prefix, byte[] suffix) {
        ensure(source.length + 1 + (prefix != null ? prefix.length + suffix.length : 0));
        if (prefix != null) {
            System.arraycopy(prefix, 0, bytes, size, prefix.length);
            size += prefix.length;
        }
        int start = size;
        System.arraycopy(source, 0, bytes, size, source.length);
        size += source.length;
        boolean replaced = LineBreaks.replace(bytes, start, size);
        if (suffix != null) {
            System.arraycopy(suffix, 0, bytes, size, suffix.length);
            size += suffix.length;
        }
        bytes[size++] = '\n';
        return replaced;
    }

    private void writeJsonString(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        ensure(JsonStrings.maxEncodedLength(utf8));
        size = JsonStrings.write(utf8, bytes, size);
    }

    private void ensure(int extra) {
        if (size + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + extra));
        }
    }

    int sizeInBytes() {
        return size;
    }

    /**
     * What this body keeps on the heap: its byte array (allocated, not only filled) and the
     * operations it keeps for responses, retries and failure handling (a source only where its
     * line breaks were replaced). The writer's memory bound counts this, not the size.
     */
    long heapBytes() {
        return bytes.length + retainedBytes;
    }

    private static long retainedBy(byte[] source, RecordOrigin origin) {
        long n = ITEM_OVERHEAD_BYTES;
        if (source != null) {
            n += source.length;
        }
        if (origin.originalValue() != null) {
            n += origin.originalValue().length;
        }
        if (origin.originalKey() != null) {
            n += origin.originalKey().length;
        }
        return n;
    }

    int itemCount() {
        return items.size();
    }

    boolean isEmpty() {
        return items.size() == 0;
    }

    PredictedShard prediction(int item) {
        return items.prediction(item);
    }

    /**
     * The item's operation without its source (see {@link #document(int)}), made again for a plain
     * item ({@link BodyItems}): for the rare paths. The per-item paths ask what they need below.
     */
    DocumentOperation operation(int item) {
        return items.operation(item, id(item));
    }

    /** Every item's {@link #operation}. */
    List<DocumentOperation> operations() {
        List<DocumentOperation> all = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            all.add(operation(i));
        }
        return all;
    }

    OpType opType(int item) {
        return items.opType(item);
    }

    String index(int item) {
        return items.index(item);
    }

    /** The item's id if {@link InFlightIds} holds it while it is in flight (it is not unique), else null. */
    String heldId(int item) {
        return items.heldId(item);
    }

    /** Whether the item names an external version. */
    boolean versioned(int item) {
        return items.versioned(item);
    }

    /** The item's id, or null: a unique id of a plain item is read back out of its action line. */
    String id(int item) {
        DocumentOperation whole = items.whole(item);
        if (whole != null) {
            return whole.id();
        }
        if (!items.hasId(item)) {
            return null;
        }
        String held = items.heldId(item);
        return held != null ? held : idInActionLine(item);
    }

    /** The id as {@link #writeJsonString} wrote it after the action line's first {@link #ID_FIELD} (an index name holds no comma). */
    private String idInActionLine(int item) {
        int at = items.start(item);
        while (!startsWith(at, ID_FIELD)) {
            at++;
        }
        return JsonStrings.read(bytes, at + ID_FIELD.length, itemEnd(item));
    }

    private boolean startsWith(int at, byte[] prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    byte[] array() {
        return bytes;
    }

    /** Shards the documents were predicted for; 0 when some are not predicted. */
    int distinctShards() {
        return items.distinctShards();
    }
}
