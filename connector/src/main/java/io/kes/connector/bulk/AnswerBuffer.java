package io.kes.connector.bulk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.http.ContentTooLongException;
import org.apache.http.HttpEntity;
import org.apache.http.HttpException;
import org.apache.http.HttpResponse;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.ContentDecoder;
import org.apache.http.nio.IOControl;
import org.apache.http.nio.protocol.AbstractAsyncResponseConsumer;
import org.apache.http.protocol.HttpContext;
import org.elasticsearch.client.HttpAsyncResponseConsumerFactory;

/**
 * Holds a bulk's answer in one buffer sized for the answer expected. The REST client's own
 * consumer starts at 4 KB whenever the length is not given, and Elasticsearch sends a bulk's answer
 * chunked: a 1,000-item answer of ~100 KB then grows by doubling through six buffers, ~250 KB
 * allocated, a third of every byte a keyed job allocated in steady state (docs/benchmark.md, "The
 * answer's buffer"). What {@link BulkResponse#FILTER_PATH} leaves of an item is its index name and
 * ~80 bytes; an answer with errors is larger and grows by doubling. The same limit as the client's
 * default. The array is the entity's ({@link Body}): the answer is parsed where it was read.
 */
final class AnswerBuffer extends AbstractAsyncResponseConsumer<HttpResponse> {

    /** The REST client's default limit of a buffered response. */
    static final int LIMIT = 100 * 1024 * 1024;

    /** Bytes an item takes in the filtered answer, besides its index name. */
    static final int ITEM_BYTES = 80;

    private final int expectedBytes;
    private volatile HttpResponse response;
    private volatile ContentType contentType;
    private byte[] bytes;
    private ByteBuffer free;

    private AnswerBuffer(int expectedBytes) {
        this.expectedBytes = expectedBytes;
    }

    /** Consumers for the answer of a bulk of {@code items} items written to {@code index} (null: several). */
    static HttpAsyncResponseConsumerFactory expecting(int items, String index) {
        long bytes = 64 + (long) items * (ITEM_BYTES + (index == null ? 64 : index.length()));
        int expected = (int) Math.min(bytes, LIMIT);
        return () -> new AnswerBuffer(expected);
    }

    /** An answer's body as the array it was read into: parsed where it lies ({@link BulkResponse#parse(byte[], int, int)}). */
    static final class Body extends ByteArrayEntity {
        private final byte[] array;
        private final int length;

        Body(byte[] array, int length, ContentType contentType) {
            super(array, 0, length, contentType);
            this.array = array;
            this.length = length;
        }

        byte[] array() {
            return array;
        }

        int length() {
            return length;
        }
    }

    @Override
    protected void onResponseReceived(HttpResponse received) throws HttpException, IOException {
        this.response = received;
    }

    @Override
    protected void onEntityEnclosed(HttpEntity entity, ContentType type) throws IOException {
        long length = entity.getContentLength();
        if (length > LIMIT) {
            throw new ContentTooLongException(
                    "entity content is too long [" + length + "] for the configured buffer limit [" + LIMIT + "]");
        }
        contentType = type;
        bytes = new byte[Math.max(length >= 0 ? (int) length : expectedBytes, 256)];
        free = ByteBuffer.wrap(bytes);
    }

    @Override
    protected void onContentReceived(ContentDecoder decoder, IOControl ioControl) throws IOException {
        while (true) {
            if (!free.hasRemaining()) {
                if (bytes.length >= LIMIT) {
                    throw new ContentTooLongException(
                            "entity content is too long for the configured buffer limit [" + LIMIT + "]");
                }
                int filled = free.position();
                bytes = Arrays.copyOf(bytes, (int) Math.min(2L * bytes.length, LIMIT));
                free = ByteBuffer.wrap(bytes);
                free.position(filled);
            }
            if (decoder.read(free) <= 0) {
                return;
            }
        }
    }

    @Override
    protected HttpResponse buildResult(HttpContext context) {
        if (bytes != null) {
            response.setEntity(new Body(bytes, free.position(), contentType));
        }
        return response;
    }

    @Override
    protected void releaseResources() {
        response = null;
        bytes = null;
        free = null;
    }
}
