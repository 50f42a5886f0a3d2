package io.kes.connector.bulk;

import java.io.IOException;
import org.apache.http.ContentTooLongException;
import org.apache.http.HttpEntity;
import org.apache.http.HttpException;
import org.apache.http.HttpResponse;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.ContentDecoder;
import org.apache.http.nio.IOControl;
import org.apache.http.nio.entity.ContentBufferEntity;
import org.apache.http.nio.protocol.AbstractAsyncResponseConsumer;
import org.apache.http.nio.util.HeapByteBufferAllocator;
import org.apache.http.nio.util.SimpleInputBuffer;
import org.apache.http.protocol.HttpContext;
import org.elasticsearch.client.HttpAsyncResponseConsumerFactory;

/**
 * Holds a bulk's answer in one buffer sized for the answer expected. The REST client's own
 * consumer starts at 4 KB whenever the length is not given, and Elasticsearch sends a bulk's answer
 * chunked: a 1,000-item answer of ~100 KB then grows by doubling through six buffers, ~250 KB
 * allocated, a third of every byte a keyed job allocated in steady state (docs/benchmark.md, "The
 * answer's buffer"). What {@link BulkResponse#FILTER_PATH} leaves of an item is its index name and
 * ~80 bytes; an answer with errors is larger and grows as before. The same limit as the client's default.
 */
final class AnswerBuffer extends AbstractAsyncResponseConsumer<HttpResponse> {

    /** The REST client's default limit of a buffered response. */
    static final int LIMIT = 100 * 1024 * 1024;

    /** Bytes an item takes in the filtered answer, besides its index name. */
    static final int ITEM_BYTES = 80;

    private final int expectedBytes;
    private volatile HttpResponse response;
    private volatile SimpleInputBuffer buffer;

    private AnswerBuffer(int expectedBytes) {
        this.expectedBytes = expectedBytes;
    }

    /** Consumers for the answer of a bulk of {@code items} items written to {@code index} (null: several). */
    static HttpAsyncResponseConsumerFactory expecting(int items, String index) {
        long bytes = 64 + (long) items * (ITEM_BYTES + (index == null ? 64 : index.length()));
        int expected = (int) Math.min(bytes, LIMIT);
        return () -> new AnswerBuffer(expected);
    }

    @Override
    protected void onResponseReceived(HttpResponse received) throws HttpException, IOException {
        this.response = received;
    }

    @Override
    protected void onEntityEnclosed(HttpEntity entity, ContentType contentType) throws IOException {
        long length = entity.getContentLength();
        if (length > LIMIT) {
            throw new ContentTooLongException(
                    "entity content is too long [" + length + "] for the configured buffer limit [" + LIMIT + "]");
        }
        int initial = length >= 0 ? (int) length : expectedBytes;
        buffer = new SimpleInputBuffer(Math.max(initial, 256), HeapByteBufferAllocator.INSTANCE);
        response.setEntity(new ContentBufferEntity(entity, buffer));
    }

    @Override
    protected void onContentReceived(ContentDecoder decoder, IOControl ioControl) throws IOException {
        buffer.consumeContent(decoder);
    }

    @Override
    protected HttpResponse buildResult(HttpContext context) {
        return response;
    }

    @Override
    protected void releaseResources() {
        response = null;
    }
}
