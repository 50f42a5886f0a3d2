package io.kes.jobs.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;

/**
 * The embedded MiniCluster's REST endpoint and web UI (flink-runtime-web on bin/kes's classpath):
 * on 8081 when that is free, else on a free port, so that two jobs on one machine both get one.
 * A port set in the Flink configuration ({@code rest.port} or {@code rest.bind-port}) wins.
 */
public final class WebUi {

    static final int DEFAULT_PORT = 8081;

    private WebUi() {}

    /** Sets the REST port in {@code flink} and returns the web UI's URL, ending in '/'. */
    public static String enable(Configuration flink) throws IOException {
        int port;
        if (flink.contains(RestOptions.BIND_PORT)
                && flink.get(RestOptions.BIND_PORT).matches("\\d+")
                && Integer.parseInt(flink.get(RestOptions.BIND_PORT)) > 0) {
            port = Integer.parseInt(flink.get(RestOptions.BIND_PORT));
        } else if (flink.contains(RestOptions.PORT)) {
            port = flink.get(RestOptions.PORT);
        } else {
            port = free(DEFAULT_PORT) ? DEFAULT_PORT : anyFreePort();
        }
        flink.set(RestOptions.BIND_PORT, Integer.toString(port));
        flink.set(RestOptions.PORT, port);
        String address = flink.contains(RestOptions.ADDRESS) ? flink.get(RestOptions.ADDRESS) : "localhost";
        flink.set(RestOptions.ADDRESS, address);
        return "http://" + address + ":" + port + "/";
    }

    static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("0.0.0.0"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int anyFreePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
