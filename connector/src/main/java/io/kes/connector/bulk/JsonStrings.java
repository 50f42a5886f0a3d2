package io.kes.connector.bulk;

import java.nio.charset.StandardCharsets;

/**
 * JSON string literals in a bulk body's bytes, escaped per RFC 8259 and read back. Escaped byte by
 * byte of the UTF-8 encoding: a multi-byte character's bytes are all 0x80 and above, so the ASCII
 * ones that need escaping are never part of one; and a loop over bytes costs C1 less than one of
 * {@code charAt}.
 */
final class JsonStrings {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private JsonStrings() {}

    /** The most bytes {@link #write} may take for {@code utf8}: six per byte (a control character) and the quotes. */
    static int maxEncodedLength(byte[] utf8) {
        return utf8.length * 6 + 2;
    }

    /** Writes {@code utf8} as a string literal at {@code at}, which has room for {@link #maxEncodedLength}; returns its end. */
    static int write(byte[] utf8, byte[] bytes, int at) {
        bytes[at++] = '"';
        for (byte b : utf8) {
            if (b == '"' || b == '\\') {
                bytes[at++] = '\\';
                bytes[at++] = b;
            } else if (b >= 0 && b < 0x20) {
                bytes[at++] = '\\';
                bytes[at++] = 'u';
                bytes[at++] = '0';
                bytes[at++] = '0';
                bytes[at++] = HEX[b >> 4];
                bytes[at++] = HEX[b & 0xf];
            } else {
                bytes[at++] = b;
            }
        }
        bytes[at++] = '"';
        return at;
    }

    /** The string {@link #write} wrote at {@code at} (its opening quote), unescaped; it ends before {@code limit}. */
    static String read(byte[] bytes, int at, int limit) {
        at++; // the opening quote
        byte[] utf8 = new byte[limit - at];
        int n = 0;
        for (byte b = bytes[at]; b != '"'; b = bytes[++at]) {
            if (b != '\\') {
                utf8[n++] = b;
            } else if (bytes[++at] == 'u') { // backslash, u, two zeros, two hex digits: a control character
                utf8[n++] = (byte) Integer.parseInt(new String(bytes, at + 3, 2, StandardCharsets.US_ASCII), 16);
                at += 4;
            } else {
                utf8[n++] = bytes[at]; // an escaped quote or backslash
            }
        }
        return new String(utf8, 0, n, StandardCharsets.UTF_8);
    }
}
