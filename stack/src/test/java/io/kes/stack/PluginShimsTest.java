package io.kes.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What decides which plugins a node gets; compiling and loading them is proven by the ITs on real nodes. */
class PluginShimsTest {

    @Test
    void eachShimsSourceIsAResourceDeclaringItsClass() throws IOException {
        for (PluginShims.Shim shim : List.of(PluginShims.SECURITY_ANALYSIS, PluginShims.FAILURE_STORE)) {
            try (InputStream in =
                    PluginShims.class.getResourceAsStream("/plugin-shims/" + shim.className() + ".java.txt")) {
                assertThat(in).as(shim.name()).isNotNull();
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .contains("package io.kes.stack.shim;")
                        .contains("public final class " + shim.className() + " extends Plugin");
            }
        }
    }

    @Test
    void securedNodesGetTheAnalysisShimAndNodesOf9Point1AndNewerTheFailureStoreShim() {
        assertThat(node("8.19.21", false).shims()).isEmpty();
        assertThat(node("8.19.21", true).shims()).containsExactly(PluginShims.SECURITY_ANALYSIS);
        assertThat(node("9.0.3", false).shims()).isEmpty();
        assertThat(node("9.1.0", false).shims()).containsExactly(PluginShims.FAILURE_STORE);
        assertThat(node("9.5.4", true).shims())
                .containsExactly(PluginShims.SECURITY_ANALYSIS, PluginShims.FAILURE_STORE);
        assertThat(node("10.0.0-SNAPSHOT", false).shims()).containsExactly(PluginShims.FAILURE_STORE);
    }

    private static ElasticsearchNode node(String version, boolean secured) {
        SearchNode.Builder<ElasticsearchNode> b = ElasticsearchNode.builder().version(version);
        return (secured ? b.secured() : b).build();
    }
}
