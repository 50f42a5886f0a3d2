package io.kes.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.config.ConfigException;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.decode.avro.AvroTestData;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import io.kes.stack.tls.CertificateAuthority;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The schema registry as users run it: credentials, bearer tokens, TLS with their own CA, several URLs. */
class SchemaRegistryAccessTest {

    private static final String BASIC = "Basic " + Base64.getEncoder().encodeToString("sr-user:s3cret!".getBytes());
    private static final byte[] ORDER =
            AvroTestData.confluent(7, AvroTestData.order("o-1", 2.5, "NEW", null, 1_700_000_000_000L));

    private static KesConfig config(String registryUrls, String registrySection) {
        return KesConfig.parse(
                "elasticsearch: {hosts: [http://localhost:9200]}\nkafka: {bootstrap_servers: localhost:9092}\n"
                        + registrySection
                        + "routes:\n  - {topics: [orders], index: o, format: confluent-avro, schema_registry_url: \""
                        + registryUrls + "\"}\n",
                Map.of("SR_USER_INFO", "sr-user:s3cret!", "SR_TOKEN", "t0ken"));
    }

    private static String decode(KesConfig config) throws DecodeException {
        DocumentBuilder builder = new DocumentBuilder(config.routes.get(0), config.schemaRegistry);
        byte[] source = builder.build(new KafkaRecord("orders", 0, 1, 0L, null, ORDER, List.of()))
                .source();
        return new String(source, StandardCharsets.UTF_8);
    }

    static Stream<Arguments> credentials() {
        return Stream.of(
                Arguments.of("schema_registry: {basic_auth_user_info: \"${SR_USER_INFO}\"}\n", BASIC),
                Arguments.of("schema_registry: {username: sr-user, password: \"s3cret!\"}\n", BASIC),
                Arguments.of("schema_registry: {bearer_token: \"${SR_TOKEN}\"}\n", "Bearer t0ken"));
    }

    @ParameterizedTest(name = "{2}: {0}")
    @MethodSource
    void credentials(String section, String header) throws Exception {
        try (TestSchemaRegistry registry =
                new TestSchemaRegistry().register(7, AvroTestData.ORDER_SCHEMA).requireAuthorization(header)) {
            assertThat(decode(config(registry.url(), section))).contains("\"id\":\"o-1\"");
        }
    }

    @Test
    void refusedCredentialsStopTheJobNamingTheSettingNeverTheSecret() throws Exception {
        try (TestSchemaRegistry registry =
                new TestSchemaRegistry().register(7, AvroTestData.ORDER_SCHEMA).requireAuthorization("Basic other")) {
            KesConfig config = config(registry.url(), "schema_registry: {basic_auth_user_info: \"sr-user:s3cret!\"}\n");
            assertThatThrownBy(() -> decode(config))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("HTTP 401")
                    .hasMessageContaining("schema_registry")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        }
    }

    @Test
    void theNextUrlIsTriedWhenOneDoesNotAnswer() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        try (TestSchemaRegistry registry = new TestSchemaRegistry().register(7, AvroTestData.ORDER_SCHEMA)) {
            assertThat(decode(config("http://127.0.0.1:" + closed + ", " + registry.url(), "")))
                    .contains("\"id\":\"o-1\"");
        }
    }

    @Test
    void httpsWithTheUsersOwnCa(@TempDir Path dir) throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir, "CN=kes test registry CA", "changeit", 30);
        Path keyStore = ca.issueKeystore("registry", "CN=localhost", "san=ip:127.0.0.1,dns:localhost");
        try (TestSchemaRegistry registry =
                TestSchemaRegistry.https(keyStore, ca.password()).register(7, AvroTestData.ORDER_SCHEMA)) {
            String section = "schema_registry: {tls_ca_file: \"" + ca.certificatePem() + "\"}\n";
            assertThat(decode(config(registry.url(), section))).contains("\"id\":\"o-1\"");
        }
    }

    /** As for Elasticsearch's hosts: URLs are printed (logs, messages), so credentials stay out of them. */
    @Test
    void secretsAreMaskedWhereTheSettingsArePrintedAndRefusedInUrls() {
        KesConfig config =
                config("http://registry:8081", "schema_registry: {basic_auth_user_info: \"${SR_USER_INFO}\"}\n");
        assertThat(config.schemaRegistry.toString()).doesNotContain("s3cret").contains("****");
        assertThatThrownBy(() -> config("http://registry:8081,https://sr-user:s3cret!@other:8081", ""))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'https://****@other:8081' holds credentials")
                .hasMessageContaining("schema_registry.basic_auth_user_info")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    }

    static Stream<Arguments> settingsThatCannotWork() {
        return Stream.of(
                Arguments.of(
                        "schema_registry: {basic_auth_user_info: \"a:b\", bearer_token: t}\n",
                        "schema_registry takes one of basic_auth_user_info, username/password or bearer_token"),
                Arguments.of("schema_registry: {username: u}\n", "schema_registry.password is"),
                Arguments.of(
                        "schema_registry: {basic_auth_user_info: nocolon}\n",
                        "schema_registry.basic_auth_user_info must be <user>:<password>"),
                Arguments.of("schema_registry: {tls_ca_file: /no/such/ca.pem}\n", "/no/such/ca.pem cannot be read"),
                Arguments.of("schema_registry: {bearer_tokn: t}\n", "unknown key 'schema_registry.bearer_tokn'"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource
    void settingsThatCannotWork(String section, String problem) {
        assertThatThrownBy(() -> config("http://registry:8081", section))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(problem);
    }

    @Test
    void severalUrlsAreCheckedEachAndARegistryWithoutAvroRoutesIsRefused() {
        assertThatThrownBy(() -> config("http://registry:8081,ftp://other", ""))
                .hasMessageContaining("'ftp://other' must be an http:// or https:// URL");
        assertThatThrownBy(() -> KesConfig.parse(
                        "elasticsearch: {hosts: [http://localhost:9200]}\nkafka: {bootstrap_servers: localhost:9092}\n"
                                + "schema_registry: {bearer_token: t}\nroutes:\n  - {topics: [orders], index: o}\n",
                        Map.of()))
                .hasMessageContaining("schema_registry only applies to routes that read from a schema registry");
    }
}
