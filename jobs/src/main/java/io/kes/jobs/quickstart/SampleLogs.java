package io.kes.jobs.quickstart;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;

/**
 * A realistic stream of JSON application logs, about 500 bytes each. Record {@code i} depends only
 * on the seed and {@code i}, so a second quick start, or a rerun after a crash, produces exactly
 * the same records.
 */
public final class SampleLogs {

    private static final String[] SERVICES = {
        "checkout", "payments", "search", "catalog", "auth", "shipping", "cart", "reviews"
    };
    private static final String[] LEVELS = {"INFO", "INFO", "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN", "ERROR"};
    private static final String[] METHODS = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};
    private static final String[] PATHS = {
        "/api/v2/orders",
        "/api/v2/orders/{id}",
        "/api/v2/cart",
        "/api/v1/search",
        "/api/v2/payments/authorize",
        "/api/v1/products/{id}",
        "/api/v1/login",
        "/api/v2/shipments/{id}/track"
    };
    private static final String[] REGIONS = {"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-1"};
    private static final String[] MESSAGES = {
        "request completed", "cache miss, loading from primary store", "upstream responded slowly",
        "retrying idempotent call after timeout", "user session refreshed", "payment authorization declined by issuer",
        "inventory reservation released", "rate limit close to threshold for client"
    };
    private static final String[] AGENTS = {
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
        "okhttp/4.12.0",
        "python-requests/2.32.3"
    };
    private static final long START_EPOCH_MILLIS =
            Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

    private final long seed;

    public SampleLogs(long seed) {
        this.seed = seed;
    }

    /** The JSON of record {@code i}. */
    public byte[] record(long i) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
        String service = pick(r, SERVICES);
        String level = pick(r, LEVELS);
        int status = "ERROR".equals(level) ? 500 + r.nextInt(4) : "WARN".equals(level) ? 429 : 200 + r.nextInt(2);
        String path = pick(r, PATHS).replace("{id}", Long.toString(100000 + r.nextInt(900000)));
        String ts =
                DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(START_EPOCH_MILLIS + i * 3 + r.nextInt(3)));
        StringBuilder json = new StringBuilder(560)
                .append("{\"@timestamp\":\"")
                .append(ts)
                .append("\",\"service\":\"")
                .append(service)
                .append("\",\"level\":\"")
                .append(level)
                .append("\",\"host\":\"")
                .append(service)
                .append("-")
                .append(Integer.toHexString(0x1000 + r.nextInt(0xF000)))
                .append("\",\"region\":\"")
                .append(pick(r, REGIONS))
                .append("\",\"trace_id\":\"")
                .append(hex(r, 32))
                .append("\",\"span_id\":\"")
                .append(hex(r, 16))
                .append("\",\"user_id\":\"u")
                .append(r.nextInt(5_000_000))
                .append("\",\"http\":{\"method\":\"")
                .append(pick(r, METHODS))
                .append("\",\"path\":\"")
                .append(path)
                .append("\",\"status\":")
                .append(status)
                .append(",\"duration_ms\":")
                .append(1 + r.nextInt(status >= 500 ? 5000 : 400))
                .append(",\"bytes\":")
                .append(200 + r.nextInt(20000))
                .append(",\"user_agent\":\"")
                .append(pick(r, AGENTS))
                .append("\"},\"message\":\"")
                .append(pick(r, MESSAGES))
                .append(" [order=")
                .append(r.nextInt(10_000_000))
                .append(" attempt=")
                .append(1 + r.nextInt(3))
                .append("]\",\"sequence\":")
                .append(i)
                .append("}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String pick(SplittableRandom r, String[] values) {
        return values[r.nextInt(values.length)];
    }

    private static String hex(SplittableRandom r, int digits) {
        StringBuilder s = new StringBuilder(digits);
        while (s.length() < digits) {
            s.append(Long.toHexString(r.nextLong() | Long.MIN_VALUE));
        }
        return s.substring(0, digits);
    }
}
