package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The NDJSON body of one {@code _bulk} request, built incrementally. Each document's source bytes
 * are copied as they are (no parse, no re-serialization); only newlines, which JSON allows as
 * whitespace but NDJSON uses as a separator, are turned into spaces. Item boundaries are kept so
 * that a retry can resend just the rejected items.
 */
final class BulkBody {

    private static final byte[] UPSERT_PREFIX = "{\"doc\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] UPSERT_SUFFIX = ",\"doc_as_upsert\":true}".getBytes(StandardCharsets.UTF_8);

    private byte[] bytes;
    private int size;
    private final List<DocumentOperation> operations = new ArrayList<>();
    private int[] itemStarts = new int[64];

    BulkBody(int initialCapacity) {
        this.bytes = new byte[Math.max(initialCapacity, 256)];
    }

    void add(DocumentOperation op) {
        if (operations.size() == itemStarts.length) {
            itemStarts = Arrays.copyOf(itemStarts, itemStarts.length * 2);
        }
        itemStarts[operations.size()] = size;
        operations.add(op);
        writeActionLine(op);
        switch (op.opType()) {
            case INDEX, CREATE -> writeSourceLine(op.source(), null, null);
            case UPSERT -> writeSourceLine(op.source(), UPSERT_PREFIX, UPSERT_SUFFIX);
            case DELETE -> { }
        }
    }

    /** Appends an already encoded item of another body (retries). */
    void addEncoded(BulkBody from, int item) {
        int start = from.itemStarts[item];
        int end = item + 1 < from.operations.size() ? from.itemStarts[item + 1] : from.size;
        if (operations.size() == itemStarts.length) {
            itemStarts = Arrays.copyOf(itemStarts, itemStarts.length * 2);
        }
        itemStarts[operations.size()] = size;
        operations.add(from.operations.get(item));
        ensure(end - start);
        System.arraycopy(from.bytes, start, bytes, size, end - start);
        size += end - start;
    }

    private void writeActionLine(DocumentOperation op) {
        writeAscii("{\"");
        writeAscii(op.opType().bulkAction());
        writeAscii("\":{\"_index\":");
        writeJsonString(op.index());
        if (op.id() != null) {
            writeAscii(",\"_id\":");
            writeJsonString(op.id());
        }
        if (op.routing() != null) {
            writeAscii(",\"routing\":");
            writeJsonString(op.routing());
        }
        if (op.opType() == OpType.UPSERT) {
            // Two writers may upsert the same id between a refresh; let Elasticsearch retry those.
            writeAscii(",\"retry_on_conflict\":3");
        }
        writeAscii("}}\n");
    }

    private void writeSourceLine(byte[] source, byte[] prefix, byte[] suffix) {
        ensure(source.length + 1 + (prefix != null ? prefix.length + suffix.length : 0));
        if (prefix != null) {
            System.arraycopy(prefix, 0, bytes, size, prefix.length);
            size += prefix.length;
        }
        int start = size;
        System.arraycopy(source, 0, bytes, size, source.length);
        size += source.length;
        for (int i = start; i < size; i++) {
            byte b = bytes[i];
            if (b == '\n' || b == '\r') {
                bytes[i] = ' ';
            }
        }
        if (suffix != null) {
            System.arraycopy(suffix, 0, bytes, size, suffix.length);
            size += suffix.length;
        }
        bytes[size++] = '\n';
    }

    private void writeAscii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            bytes[size++] = (byte) s.charAt(i);
        }
    }

    /** A JSON string literal, escaped per RFC 8259; non-ASCII as UTF-8. */
    private void writeJsonString(String s) {
        ensure(s.length() * 6 + 2);
        bytes[size++] = '"';
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                bytes[size++] = '\\';
                bytes[size++] = (byte) c;
            } else if (c < 0x20) {
                String hex = String.format("\\u%04x", (int) c);
                for (int k = 0; k < hex.length(); k++) {
                    bytes[size++] = (byte) hex.charAt(k);
                }
            } else if (c < 0x80) {
                bytes[size++] = (byte) c;
            } else {
                int end = i + 1;
                if (Character.isHighSurrogate(c) && end < s.length() && Character.isLowSurrogate(s.charAt(end))) {
                    end++;
                }
                byte[] utf8 = s.substring(i, end).getBytes(StandardCharsets.UTF_8);
                System.arraycopy(utf8, 0, bytes, size, utf8.length);
                size += utf8.length;
                i = end - 1;
            }
        }
        bytes[size++] = '"';
    }

    private void ensure(int extra) {
        if (size + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + extra));
        }
    }

    int sizeInBytes() {
        return size;
    }

    int itemCount() {
        return operations.size();
    }

    boolean isEmpty() {
        return operations.isEmpty();
    }

    DocumentOperation operation(int item) {
        return operations.get(item);
    }

    List<DocumentOperation> operations() {
        return operations;
    }

    byte[] array() {
        return bytes;
    }
}
