package io.kes.jobs.decode.avro;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro binary decoding over one byte array, reset for every record. Unlike Avro's
 * {@code BinaryDecoder}, every length and item count is checked against the bytes that are left
 * <em>before</em> anything is allocated, so a value that does not match its schema (where a string
 * length may read as two billion) fails with an {@link IOException} instead of an out-of-memory
 * error that would take the task manager down.
 */
final class BoundedBinaryDecoder extends Decoder {

    /** Items that take no bytes (nulls, empty records) still need a cap on their count. */
    private static final int MAX_EMPTY_ITEMS = 1 << 16;

    private byte[] buf = new byte[0];
    private int pos;
    private int limit;

    BoundedBinaryDecoder reset(byte[] bytes, int offset, int length) {
        this.buf = bytes;
        this.pos = offset;
        this.limit = offset + length;
        return this;
    }

    int remaining() {
        return limit - pos;
    }

    private void need(long n, String what) throws IOException {
        if (n < 0 || n > limit - pos) {
            throw new EOFException(
                    what + " of " + n + " bytes at byte " + pos + ", but only " + (limit - pos) + " are left");
        }
    }

    private long count(long n) throws IOException {
        if (n < 0) {
            readLong(); // block size, not needed
            n = -n;
        }
        if (n > (long) (limit - pos) + MAX_EMPTY_ITEMS) {
            throw new EOFException("an array or map of " + n + " items at byte " + pos + ", but only " + (limit - pos)
                    + " bytes are left");
        }
        return n;
    }

    @Override
    public void readNull() {}

    @Override
    public boolean readBoolean() throws IOException {
        need(1, "a boolean");
        int b = buf[pos++];
        if (b != 0 && b != 1) {
            throw new IOException("a boolean must be 0 or 1, got " + b);
        }
        return b == 1;
    }

    @Override
    public int readInt() throws IOException {
        long l = readLong();
        if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
            throw new IOException("an int out of range: " + l);
        }
        return (int) l;
    }

    @Override
    public long readLong() throws IOException {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            need(1, "a varint");
            int b = buf[pos++] & 0xff;
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new IOException("a varint longer than 10 bytes");
    }

    @Override
    public float readFloat() throws IOException {
        need(4, "a float");
        int bits = (buf[pos] & 0xff)
                | (buf[pos + 1] & 0xff) << 8
                | (buf[pos + 2] & 0xff) << 16
                | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return Float.intBitsToFloat(bits);
    }

    @Override
    public double readDouble() throws IOException {
        need(8, "a double");
        long bits = 0;
        for (int i = 7; i >= 0; i--) {
            bits = bits << 8 | (buf[pos + i] & 0xff);
        }
        pos += 8;
        return Double.longBitsToDouble(bits);
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        long length = readLong();
        need(length, "a string");
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength((int) length);
        System.arraycopy(buf, pos, result.getBytes(), 0, (int) length);
        pos += (int) length;
        return result;
    }

    @Override
    public String readString() throws IOException {
        long length = readLong();
        need(length, "a string");
        String s = new String(buf, pos, (int) length, StandardCharsets.UTF_8);
        pos += (int) length;
        return s;
    }

    @Override
    public void skipString() throws IOException {
        skipBytes();
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        long length = readLong();
        need(length, "bytes");
        ByteBuffer result = old != null && old.capacity() >= length ? old.clear() : ByteBuffer.allocate((int) length);
        result.put(buf, pos, (int) length).flip();
        pos += (int) length;
        return result;
    }

    @Override
    public void skipBytes() throws IOException {
        long length = readLong();
        need(length, "bytes");
        pos += (int) length;
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        need(length, "a fixed");
        System.arraycopy(buf, pos, bytes, start, length);
        pos += length;
    }

    @Override
    public void skipFixed(int length) throws IOException {
        need(length, "a fixed");
        pos += length;
    }

    @Override
    public int readEnum() throws IOException {
        return readInt();
    }

    @Override
    public long readArrayStart() throws IOException {
        return count(readLong());
    }

    @Override
    public long arrayNext() throws IOException {
        return count(readLong());
    }

    @Override
    public long skipArray() throws IOException {
        return skipBlocks();
    }

    @Override
    public long readMapStart() throws IOException {
        return count(readLong());
    }

    @Override
    public long mapNext() throws IOException {
        return count(readLong());
    }

    @Override
    public long skipMap() throws IOException {
        return skipBlocks();
    }

    /** Skips blocks that carry their byte size; returns the item count of the first block without one. */
    private long skipBlocks() throws IOException {
        while (true) {
            long n = readLong();
            if (n >= 0) {
                return count(n);
            }
            long size = readLong();
            need(size, "an array or map block");
            pos += (int) size;
        }
    }

    @Override
    public int readIndex() throws IOException {
        return readInt();
    }
}
