package io.kes.stack;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 request or response as it crossed the wire, kept byte for byte (head and body,
 * chunked framing included) so that {@link FaultProxy} can relay it unchanged. Only as much
 * framing is understood as it takes to find where a message ends: Content-Length, chunked, and
 * the responses that never have a body (HEAD, 1xx, 204, 304).
 */
final class HttpMessage {

    private static final int MAX_HEAD = 64 * 1024;

    private final String startLine;
    private final String head;
    private final byte[] raw;

    private HttpMessage(String startLine, String head, byte[] raw) {
        this.startLine = startLine;
        this.head = head;
        this.raw = raw;
    }

    /** The next request on a kept-alive connection, or null when the client closed it cleanly before one. */
    static HttpMessage readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String head = readHead(in, out);
        if (head == null) {
            return null;
        }
        HttpMessage shape = new HttpMessage(firstLine(head), head, null);
        readBody(in, out, shape, false);
        return new HttpMessage(shape.startLine, head, out.toByteArray());
    }

    /** The response to a request made with {@code requestMethod}. */
    static HttpMessage readResponse(InputStream in, String requestMethod) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String head = readHead(in, out);
        if (head == null) {
            throw new EOFException("the server closed the connection before answering");
        }
        HttpMessage shape = new HttpMessage(firstLine(head), head, null);
        int status = shape.status();
        boolean bodiless = "HEAD".equals(requestMethod) || status / 100 == 1 || status == 204 || status == 304;
        if (!bodiless) {
            readBody(in, out, shape, true);
        }
        return new HttpMessage(shape.startLine, head, out.toByteArray());
    }

    String method() {
        return startLine.substring(0, startLine.indexOf(' '));
    }

    /** The request target, e.g. {@code /logs/_bulk?timeout=1m}. */
    String target() {
        String[] parts = startLine.split(" ", 3);
        return parts.length > 1 ? parts[1] : "";
    }

    int status() {
        String[] parts = startLine.split(" ", 3);
        try {
            return Integer.parseInt(parts[1]);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The value of the first header called {@code name} (case-insensitive), or null. */
    String header(String name) {
        String wanted = name.toLowerCase(Locale.ROOT) + ":";
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith(wanted)) {
                return line.substring(wanted.length()).trim();
            }
        }
        return null;
    }

    boolean asksToClose() {
        String connection = header("Connection");
        return connection != null && connection.equalsIgnoreCase("close");
    }

    byte[] raw() {
        return raw;
    }

    /** This request with {@code parameters} ({@code a=1&b=2}) added to its target's query string, byte for byte otherwise. */
    HttpMessage withQueryParameters(String parameters) {
        String[] parts = startLine.split(" ", 3);
        String target = parts[1] + (parts[1].contains("?") ? "&" : "?") + parameters;
        String line = parts[0] + " " + target + (parts.length > 2 ? " " + parts[2] : "");
        byte[] lineBytes = line.getBytes(StandardCharsets.ISO_8859_1);
        int oldLength = startLine.getBytes(StandardCharsets.ISO_8859_1).length;
        byte[] rewritten = new byte[lineBytes.length + raw.length - oldLength];
        System.arraycopy(lineBytes, 0, rewritten, 0, lineBytes.length);
        System.arraycopy(raw, oldLength, rewritten, lineBytes.length, raw.length - oldLength);
        return new HttpMessage(line, line + head.substring(startLine.length()), rewritten);
    }

    private static String firstLine(String head) {
        int end = head.indexOf("\r\n");
        return end < 0 ? head : head.substring(0, end);
    }

    /** Reads up to and including the blank line; null on a clean end of stream before any byte. */
    private static String readHead(InputStream in, ByteArrayOutputStream out) throws IOException {
        int last4 = 0; // the last four bytes read, to spot \r\n\r\n
        int read = 0;
        while (last4 != 0x0D0A0D0A) {
            int b = in.read();
            if (b < 0) {
                if (read == 0) {
                    return null;
                }
                throw new EOFException("connection closed inside an HTTP head");
            }
            out.write(b);
            if (++read > MAX_HEAD) {
                throw new IOException("HTTP head longer than " + MAX_HEAD + " bytes");
            }
            last4 = (last4 << 8) | b;
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    private static void readBody(InputStream in, ByteArrayOutputStream out, HttpMessage shape, boolean isResponse)
            throws IOException {
        String transferEncoding = shape.header("Transfer-Encoding");
        if (transferEncoding != null
                && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked")) {
            readChunked(in, out);
            return;
        }
        String length = shape.header("Content-Length");
        if (length != null) {
            copy(in, out, Long.parseLong(length.trim()));
        } else if (isResponse) {
            // Neither length nor chunks: the body ends when the server closes the connection.
            in.transferTo(out);
        }
    }

    private static void readChunked(InputStream in, ByteArrayOutputStream out) throws IOException {
        while (true) {
            String sizeLine = readLine(in, out);
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                // trailers, if any, then the blank line
                while (!readLine(in, out).isEmpty()) {
                    // a trailer header: relayed as it is
                }
                return;
            }
            copy(in, out, size);
            readLine(in, out); // the CRLF after the chunk's data
        }
    }

    private static String readLine(InputStream in, ByteArrayOutputStream out) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed inside a chunked body");
            }
            out.write(b);
            if (b == '\n') {
                int len = line.length();
                return len > 0 && line.charAt(len - 1) == '\r' ? line.substring(0, len - 1) : line.toString();
            }
            line.append((char) b);
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out, long length) throws IOException {
        byte[] buffer = new byte[8192];
        long left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException(
                        "connection closed " + left + " bytes before the end of a " + length + "-byte body");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
    }
}
