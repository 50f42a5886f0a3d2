package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;
import org.junit.jupiter.api.Test;

class ClassPathRpcSystemTest {

    /** Unpacked by the build from flink-rpc-akka-loader, the jar bin/kes puts on the class path. */
    private static final Path RPC_JAR = Path.of("target/rpc/flink-rpc-akka.jar");

    @Test
    void findsFlinksRpcSystemInTheJarOnItsClassPath() throws Exception {
        assertThat(RPC_JAR).as("the build unpacks it before the tests").isRegularFile();
        try (URLClassLoader withJar =
                new URLClassLoader(new URL[] {RPC_JAR.toUri().toURL()}, RpcSystem.class.getClassLoader())) {
            RpcSystem rpc = new ClassPathRpcSystem(withJar).loadRpcSystem(new Configuration());
            assertThat(rpc.getClass().getName()).isEqualTo("org.apache.flink.runtime.rpc.pekko.PekkoRpcSystem");
            assertThat(rpc.getClass().getClassLoader()).isSameAs(withJar);
        }
    }

    @Test
    void withoutTheJarFlinksOwnLoaderComesNext() throws Exception {
        // the tests' class path is a Flink cluster's: flink-rpc-akka only inside flink-rpc-akka-loader
        assertThatThrownBy(() -> new ClassPathRpcSystem().loadRpcSystem(new Configuration()))
                .isInstanceOf(RpcLoaderException.class)
                .hasMessageContaining("Flink's own loader comes next");
        Path tmp = Files.createTempDirectory("rpc");
        Configuration flink = new Configuration();
        flink.setString("io.tmp.dirs", tmp.toString());
        try (RpcSystem rpc = RpcSystem.load(flink)) {
            // Flink's loader: its copy of the jar in the temporary folder, loaded from there
            try (Stream<Path> copies = Files.list(tmp)) {
                assertThat(copies.map(p -> p.getFileName().toString()))
                        .singleElement()
                        .satisfies(name -> assertThat(name).startsWith("flink-rpc-akka"));
            }
        }
        Files.delete(tmp); // closed, Flink's loader deleted its copy: the folder is empty again
    }
}
