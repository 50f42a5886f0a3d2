package io.kes.stack;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/1.1 proxy on a free loopback port in front of one Elasticsearch node, which injects the
 * network faults a client must survive without losing or reordering writes:
 * <ul>
 *   <li>{@link #resetConnections()}: every open connection is closed abruptly on both sides (TCP
 *       RST), whatever it was doing, as a load balancer or a crashing node does;</li>
 *   <li>{@link #loseBulkResponses(int)}: the next {@code _bulk} requests reach Elasticsearch and are
 *       applied, but their responses never reach the client: the connection is reset instead. The
 *       client cannot tell this from a request that never arrived, so it retries an applied write;</li>
 *   <li>{@link #rejectBulksFor(Duration)}: a 429 storm: {@code _bulk} requests are answered 429
 *       with Elasticsearch's rejection body and never forwarded;</li>
 *   <li>{@link #holdBulksInElasticsearch(int, Duration)}: the next {@code _bulk} requests stay in
 *       Elasticsearch as running tasks, unapplied, past the client's socket timeout, and may be
 *       applied after it gave up on them: a bulk held by a slow node;</li>
 *   <li>{@link #answerHeldBulksWith(int, Duration)}: the proxy itself answers a held bulk with a
 *       502 or 504 after a while, as a load balancer whose read timeout ends first does, while
 *       Elasticsearch still runs the bulk and applies it later.</li>
 * </ul>
 * It understands just enough HTTP to find where each request and response ends (Content-Length,
 * chunked, bodiless responses), so it works with kept-alive connections; bodies (gzip or not) are
 * relayed as they are. Requests on one connection are relayed one at a time, as HTTP/1.1 clients
 * without pipelining send them.
 */
public final class FaultProxy implements AutoCloseable {

    private final String upstreamHost;
    private final int upstreamPort;
    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger responsesToLose = new AtomicInteger();
    private final AtomicLong rejectUntilNanos = new AtomicLong(Long.MIN_VALUE);
    private final AtomicInteger bulksToHold = new AtomicInteger();
    private volatile String holdParameters;
    private volatile String holdOnly;
    private volatile int gatewayStatus;
    private volatile Duration gatewayAfter = Duration.ZERO;
    /** Upstream connections of held bulks the proxy answered itself, still waiting for Elasticsearch. */
    private final Set<Socket> aside = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    private final AtomicLong forwarded = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong reset = new AtomicLong();
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong gatewayAnswers = new AtomicLong();

    private FaultProxy(String upstreamHost, int upstreamPort) throws IOException {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "kes-fault-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy to {@code upstreamHost:upstreamPort}, listening on a free loopback port. */
    public static FaultProxy start(String upstreamHost, int upstreamPort) {
        try {
            return new FaultProxy(upstreamHost, upstreamPort);
        } catch (IOException e) {
            throw new IllegalStateException("could not open a loopback port for the fault proxy", e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The URL clients use instead of Elasticsearch's. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** Resets every open connection now (both sides); new connections are accepted as before. */
    public void resetConnections() {
        for (Connection c : open) {
            c.reset();
            reset.incrementAndGet();
        }
    }

    /** The next {@code count} {@code _bulk} responses are dropped after Elasticsearch applied the bulk. */
    public void loseBulkResponses(int count) {
        responsesToLose.addAndGet(count);
    }

    /** Answers every {@code _bulk} with 429 for {@code duration}, forwarding none of them. */
    public void rejectBulksFor(Duration duration) {
        rejectUntilNanos.set(System.nanoTime() + duration.toNanos());
    }

    /**
     * The next {@code count} {@code _bulk} requests are forwarded with {@code wait_for_active_shards=all}:
     * Elasticsearch keeps each as a running bulk task, applying nothing, until every copy of its
     * shards is active or {@code timeout} has passed (then it answers 503 and applies nothing). On
     * an index with a replica that cannot be assigned (one node, {@code number_of_replicas: 1}) the
     * held bulk is applied when {@code number_of_replicas} is lowered to 0, whenever the test
     * chooses: after the client gave up on it, retried it and wrote newer values of its ids, as a
     * bulk held by a slow node can be.
     */
    public void holdBulksInElasticsearch(int count, Duration timeout) {
        holdBulksInElasticsearch(count, timeout, null);
    }

    /** As {@link #holdBulksInElasticsearch(int, Duration)}, only bulks whose request contains {@code bodyContains}. */
    public void holdBulksInElasticsearch(int count, Duration timeout, String bodyContains) {
        holdParameters = "wait_for_active_shards=all&timeout=" + timeout.toMillis() + "ms";
        holdOnly = bodyContains;
        bulksToHold.addAndGet(count);
    }

    /**
     * Held bulks ({@link #holdBulksInElasticsearch}) are answered {@code status} (502 or 504) by the
     * proxy after {@code after}, with an HTML body as nginx or a cloud load balancer sends, while
     * Elasticsearch keeps running them over a connection of their own: the client cannot tell from
     * the answer whether the bulk will still be applied.
     */
    public void answerHeldBulksWith(int status, Duration after) {
        gatewayAfter = after;
        gatewayStatus = status;
    }

    /** Ends any fault in progress: no more 429s, no more responses to lose or bulks to hold. */
    public void heal() {
        rejectUntilNanos.set(Long.MIN_VALUE);
        responsesToLose.set(0);
        bulksToHold.set(0);
        gatewayStatus = 0;
    }

    /**
     * Counts so far: requests relayed, responses lost, bulks rejected, connections reset, bulks
     * held, held bulks the proxy answered itself (502/504).
     */
    public Stats stats() {
        return new Stats(forwarded.get(), lost.get(), rejected.get(), reset.get(), held.get(), gatewayAnswers.get());
    }

    public record Stats(
            long forwarded,
            long lostResponses,
            long rejectedBulks,
            long resetConnections,
            long heldBulks,
            long gatewayAnswers) {}

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        resetConnections();
        aside.forEach(FaultProxy::abort);
    }

    @Override
    public String toString() {
        return "fault proxy " + url() + " -> " + upstreamHost + ":" + upstreamPort;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Connection connection = new Connection(client);
                open.add(connection);
                Thread t = new Thread(connection::relay, "kes-fault-proxy-" + client.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("[kes] fault proxy: accept failed: " + e);
                }
            }
        }
    }

    private boolean rejecting() {
        return System.nanoTime() < rejectUntilNanos.get();
    }

    private boolean takeBulkToHold(HttpMessage bulk) {
        String only = holdOnly;
        if (bulksToHold.get() == 0
                || (only != null && !new String(bulk.raw(), StandardCharsets.ISO_8859_1).contains(only))) {
            return false;
        }
        return bulksToHold.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    private boolean takeResponseToLose() {
        return responsesToLose.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    private static boolean isBulk(HttpMessage request) {
        String target = request.target();
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        return path.endsWith("/_bulk");
    }

    /** One client connection and the upstream connection it is relayed over (opened on first use). */
    private final class Connection {
        private final Socket client;
        private volatile Socket upstream;

        Connection(Socket client) {
            this.client = client;
        }

        void relay() {
            try {
                InputStream fromClient = new BufferedInputStream(client.getInputStream());
                OutputStream toClient = client.getOutputStream();
                InputStream fromUpstream = null;
                while (true) {
                    HttpMessage request = HttpMessage.readRequest(fromClient);
                    if (request == null) {
                        break;
                    }
                    boolean bulk = isBulk(request);
                    if (bulk && rejecting()) {
                        rejected.incrementAndGet();
                        toClient.write(ProxyAnswers.rejection());
                        toClient.flush();
                        continue;
                    }
                    if (bulk && takeBulkToHold(request)) {
                        request = request.withQueryParameters(holdParameters);
                        held.incrementAndGet();
                        int status = gatewayStatus;
                        if (status != 0) {
                            forwardAside(request);
                            Thread.sleep(gatewayAfter.toMillis());
                            gatewayAnswers.incrementAndGet();
                            toClient.write(ProxyAnswers.gateway(status));
                            toClient.flush();
                            continue;
                        }
                    }
                    if (upstream == null) {
                        upstream = new Socket();
                        upstream.connect(new InetSocketAddress(upstreamHost, upstreamPort), 5_000);
                        fromUpstream = new BufferedInputStream(upstream.getInputStream());
                    }
                    upstream.getOutputStream().write(request.raw());
                    upstream.getOutputStream().flush();
                    HttpMessage response = HttpMessage.readResponse(fromUpstream, request.method());
                    if (bulk && takeResponseToLose()) {
                        lost.incrementAndGet();
                        break; // applied upstream; the client only sees its connection reset
                    }
                    // counted before the client can read the answer, so a caller that got it sees the count
                    forwarded.incrementAndGet();
                    toClient.write(response.raw());
                    toClient.flush();
                    if (response.asksToClose() || request.asksToClose()) {
                        break;
                    }
                }
            } catch (IOException | RuntimeException | InterruptedException e) {
                // a reset by either side or by resetConnections(): nothing to relay any more
            } finally {
                reset();
                open.remove(this);
            }
        }

        void reset() {
            abort(client);
            Socket u = upstream;
            if (u != null) {
                abort(u);
            }
        }
    }

    /**
     * Sends {@code request} upstream over a connection of its own and reads its answer there, on a
     * thread of its own, into nothing: the client got the proxy's own answer instead.
     */
    private void forwardAside(HttpMessage request) throws IOException {
        Socket socket = new Socket();
        aside.add(socket);
        socket.connect(new InetSocketAddress(upstreamHost, upstreamPort), 5_000);
        socket.getOutputStream().write(request.raw());
        socket.getOutputStream().flush();
        Thread t = new Thread(
                () -> {
                    try {
                        HttpMessage.readResponse(new BufferedInputStream(socket.getInputStream()), request.method());
                    } catch (IOException | RuntimeException e) {
                        // closed with the proxy: nothing to read any more
                    } finally {
                        aside.remove(socket);
                        abort(socket);
                    }
                },
                "kes-fault-proxy-aside-" + socket.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** Closes with SO_LINGER 0: the peer gets a TCP RST, not an orderly end of stream. */
    private static void abort(Socket socket) {
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
                socket.close();
            }
        } catch (IOException ignored) {
            // already gone
        }
    }
}
