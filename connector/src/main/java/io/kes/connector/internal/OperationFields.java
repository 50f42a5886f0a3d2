package io.kes.connector.internal;

import io.kes.connector.RecordOrigin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The parts of {@link DocumentOperationSerializer}'s records that hold no state: length-prefixed
 * fields, written and read with every length checked against the bytes that arrived.
 */
final class OperationFields {

    /** A record buffer grows to this at once; past it, only as far as the record's bytes actually arrive. */
    private static final int TRUSTED_RECORD_BYTES = 16 << 20;

    private OperationFields() {}

    /**
     * Reads a record of {@code length} bytes into {@code buffer}, or a larger one it returns: in one copy when it fits, else
     * into a buffer grown only as far as the bytes arrive (a corrupt length then fails on the end
     * of the data, not by allocating it).
     */
    static byte[] readRecord(DataInputView in, int length, byte[] buffer) throws IOException {
        if (length < 0) {
            throw corrupt("a record length of " + length);
        }
        if (length > buffer.length) {
            buffer = new byte[Math.min(length, Math.max(buffer.length * 2, TRUSTED_RECORD_BYTES))];
        }
        int read = 0;
        while (true) {
            int chunk = Math.min(length, buffer.length) - read;
            in.readFully(buffer, read, chunk);
            read += chunk;
            if (read == length) {
                return buffer;
            }
            buffer = Arrays.copyOf(buffer, (int) Math.min(length, 2L * buffer.length));
        }
    }

    static IOException corrupt(String what) {
        return new IOException("kes: a DocumentOperation record is corrupt (" + what + "). Operations are read"
                + " only by the same kes build that wrote them: check that every TaskManager runs the same kes"
                + " build; if they do, report it as a bug with this message.");
    }

    /** A length {@code in} reads next, checked against the bytes left in the record. */
    static int checkedLength(DataInputDeserializer in) throws IOException {
        return checked(in.readInt(), in);
    }

    static int checked(int length, DataInputDeserializer in) throws IOException {
        if (length < 0 || length > in.available()) {
            throw corrupt("a field of " + length + " bytes where " + in.available() + " are left");
        }
        return length;
    }

    static void writeBytes(byte[] bytes, DataOutputSerializer out) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** A count, then each header's name and its value (length -1: null, which Kafka allows). */
    static void writeHeaders(List<RecordOrigin.Header> headers, DataOutputSerializer out) throws IOException {
        out.writeInt(headers.size());
        for (RecordOrigin.Header h : headers) {
            writeBytes(h.key().getBytes(StandardCharsets.UTF_8), out);
            if (h.value() == null) {
                out.writeInt(-1);
            } else {
                writeBytes(h.value(), out);
            }
        }
    }

    static byte[] readBytes(DataInputDeserializer in) throws IOException {
        byte[] bytes = new byte[checkedLength(in)];
        in.readFully(bytes);
        return bytes;
    }

    /**
     * Moves {@code in} past the length-prefixed byte string it reads next; returns where that string
     * starts in {@link #buffer} (it ends at {@code in}'s position). A length past the record's end
     * is an EOFException here, as every other short read is, not an index error later.
     */
    static int stepOverString(DataInputDeserializer in) throws IOException {
        int length = checkedLength(in);
        int at = in.getPosition();
        in.skipBytesToRead(length);
        return at;
    }

    static List<RecordOrigin.Header> readHeaders(DataInputDeserializer in, byte[] record) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > in.available() / 8) { // a header is two lengths at least
            throw corrupt(count + " headers where " + in.available() + " bytes are left");
        }
        RecordOrigin.Header[] headers = new RecordOrigin.Header[count];
        for (int i = 0; i < headers.length; i++) {
            String key = readString(in, record);
            int length = in.readInt();
            byte[] value = null;
            if (length >= 0) {
                value = new byte[checked(length, in)];
                in.readFully(value);
            }
            headers[i] = new RecordOrigin.Header(key, value);
        }
        return List.of(headers);
    }

    /** A length-prefixed string, decoded where it lies in {@code record}. */
    static String readString(DataInputDeserializer in, byte[] record) throws IOException {
        int at = stepOverString(in);
        return new String(record, at, in.getPosition() - at, StandardCharsets.UTF_8);
    }
}
