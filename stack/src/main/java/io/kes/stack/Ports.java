package io.kes.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports: free ones for tests, and a check for the fixed ones {@code bin/kes local} uses.
 *
 * <p>A free port is taken below the kernel's ephemeral range, never from it, and never handed out
 * twice by one JVM. A port from the ephemeral range (what binding port 0 gives) is released before
 * its server binds it, and meanwhile any outgoing connection may take it as its local port: a
 * node that dials a seed not yet listening can even connect to itself on that very port. On
 * 2026-12-03 the third node of a 3-node cluster died with "Address already in use" on its
 * transport port that way.
 */
public final class Ports {

    /** The lowest port handed out: above the well-known and most registered service ports. */
    static final int LOWEST = 20_000;

    /** The first port of the kernel's ephemeral range, read once: it does not change under a running JVM. */
    static final int EPHEMERAL_LOW = ephemeralLow();

    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private Ports() {}

    /** A loopback port nothing listens on, below the ephemeral range, not handed out before by this JVM. */
    public static synchronized int free() {
        int candidates = EPHEMERAL_LOW - LOWEST;
        int start = ThreadLocalRandom.current().nextInt(candidates);
        for (int i = 0; i < candidates; i++) {
            int port = LOWEST + (start + i) % candidates;
            if (!HANDED_OUT.contains(port) && bindable(port)) {
                HANDED_OUT.add(port);
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port between " + LOWEST + " and " + EPHEMERAL_LOW);
    }

    public static boolean isListening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the kernel's ephemeral range (Linux's default 32768 when it cannot be read). */
    private static int ephemeralLow() {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            int low = Integer.parseInt(Files.readString(range).trim().split("\\s+")[0]);
            return low > LOWEST + 1_000 ? low : 32_768;
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
