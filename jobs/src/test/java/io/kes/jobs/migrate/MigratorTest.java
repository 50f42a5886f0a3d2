package io.kes.jobs.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.config.Route.IdSpec;
import io.kes.jobs.config.Route.Op;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bin/kes migrate}, one nested class per family of the migration guide's table. Every
 * migrated job is loaded by {@link KesConfig#parse} (the loader {@code bin/kes run} uses), so a
 * test shows what the job will do, not only what the text says.
 */
class MigratorTest {

    static Map<String, String> connector(String... keyValues) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("name", "orders-sink");
        c.put("connector.class", ConnectOptions.CONNECTOR_CLASS);
        c.put("topics", "orders");
        c.put("connection.url", "http://es:9200");
        c.put("key.ignore", "true");
        c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("value.converter.schemas.enable", "false");
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] == null) {
                c.remove(keyValues[i]);
            } else {
                c.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return c;
    }

    static String yaml(String... keyValues) {
        return Migrator.migrate(connector(keyValues), null);
    }

    static KesConfig job(String... keyValues) {
        return KesConfig.parse(
                yaml(keyValues),
                Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS",
                        "kafka:9092",
                        "ES_PASSWORD",
                        "from-the-env",
                        "SR_USER_INFO",
                        "sr:pw"));
    }

    static Route route(String... keyValues) {
        return job(keyValues).routes.get(0);
    }

    static List<String> refused(String... keyValues) {
        try {
            yaml(keyValues);
        } catch (MigrationException e) {
            return e.problems();
        }
        throw new AssertionError("the migration was not refused");
    }

    @Nested
    class General {
        @Test
        void theNameBecomesTheJobAndConnectsGroupSoCommittedOffsetsCarryOver() {
            KesConfig job = job("tasks.max", "3");
            assertThat(job.job.name()).isEqualTo("orders-sink");
            assertThat(job.kafka.groupId()).isEqualTo("connect-orders-sink");
            assertThat(job.job.parallelism()).isEqualTo(3);
            assertThat(job.kafka.bootstrapServers()).isEqualTo("kafka:9092");
        }

        @Test
        void everySettingGetsACommentLineAndSecretsAreMasked() {
            String yaml = yaml("connection.username", "kes", "connection.password", "s3cret", "type.name", "_doc");
            assertThat(yaml).contains("#   connection.password = ****  ->  elasticsearch.password");
            assertThat(yaml)
                    .contains("#   type.name = _doc  (not carried over: Elasticsearch 8 and 9 have no mapping types)");
            assertThat(yaml.lines().filter(l -> l.startsWith("#   ")).count())
                    .isEqualTo(connector(
                                    "connection.username", "kes", "connection.password", "s3cret", "type.name", "_doc")
                            .size());
            assertThat(yaml.lines().filter(l -> !l.startsWith("#")).filter(l -> l.contains("s3cret")))
                    .hasSize(1);
        }

        @Test
        void anUnknownOptionOrAnotherConnectorIsRefused() {
            assertThat(refused("conection.url", "http://x:9200"))
                    .anySatisfy(p -> assertThat(p).startsWith("conection.url is not an option"));
            assertThat(refused("connector.class", "io.aiven.connect.elasticsearch.ElasticsearchSinkConnector"))
                    .anySatisfy(p -> assertThat(p).contains("Confluent's Elasticsearch sink"));
        }

        @Test
        void everyProblemIsListedAtOnce() {
            assertThat(refused(
                            "proxy.host",
                            "proxy",
                            "external.version.header",
                            "v",
                            "transforms",
                            "x",
                            "transforms.x.type",
                            "org.apache.kafka.connect.transforms.InsertField$Value"))
                    .hasSize(3);
        }
    }

    @Nested
    class Topics {
        @Test
        void eachTopicGetsARouteToItsLowercasedIndex() {
            KesConfig job = job("topics", "Orders, _payments");
            assertThat(job.routes).extracting(Route::topics).containsExactly(List.of("Orders"), List.of("_payments"));
            assertThat(job.routes).extracting(Route::index).containsExactly("orders", "payments");
        }

        @Test
        void aRegexBecomesATopicPatternWritingToTheRecordsTopic() {
            Route r = route("topics", null, "topics.regex", "logs-.*");
            assertThat(r.topicPattern()).isEqualTo("logs-.*");
            assertThat(r.index()).isEqualTo("{_topic}");
        }

        @Test
        void consumerOverridesGoToKafkaProperties() {
            KesConfig job = job("consumer.override.max.poll.records", "100", "consumer.override.group.id", "g");
            assertThat(job.kafka.properties()).containsEntry("max.poll.records", "100");
            assertThat(job.kafka.groupId()).isEqualTo("g");
            assertThat(refused("consumer.override.auto.offset.reset", "latest"))
                    .anySatisfy(p -> assertThat(p).contains("'latest' in kes would also skip"));
        }
    }

    @Nested
    class Connection {
        @Test
        void urlsUserPasswordTimeoutsAndCompressionCarryOver() {
            KesConfig job = job(
                    "connection.url", "es1:9200, https://es2:9200",
                    "connection.username", "kes",
                    "connection.password", "${ES_PASSWORD}",
                    "connection.timeout.ms", "2000",
                    "read.timeout.ms", "30000",
                    "connection.compression", "true");
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.HOSTS))
                    .containsExactly("https://es1:9200", "https://es2:9200");
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.CONNECT_TIMEOUT))
                    .isEqualTo(Duration.ofSeconds(2));
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.SOCKET_TIMEOUT))
                    .isEqualTo(Duration.ofSeconds(30));
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.GZIP)).isTrue();
            assertThat(yaml("connection.password", "${file:/run/secrets/es}"))
                    .contains("password: \"${file:/run/secrets/es}\"");
        }

        @Test
        void configProviderReferencesProxiesAndKerberosAreRefused() {
            assertThat(refused("connection.password", "${file:/etc/secrets.properties:es.password}"))
                    .anySatisfy(p -> assertThat(p).contains("Connect config provider reference"));
            assertThat(refused("proxy.host", "proxy.local"))
                    .anySatisfy(p -> assertThat(p).startsWith("proxy.host"));
            assertThat(refused("kerberos.user.principal", "kes@REALM"))
                    .anySatisfy(p -> assertThat(p).contains("basic auth or an API key"));
            assertThat(yaml("proxy.host", "")).doesNotContain("proxy_");
        }
    }

    @Nested
    class Tls {
        @Test
        void aPemTrustStoreBecomesTheCaFile(@TempDir Path dir) throws Exception {
            Path ca = Files.writeString(dir.resolve("ca.pem"), "a PEM file");
            KesConfig job = job(
                    "elastic.security.protocol", "SSL",
                    "elastic.https.ssl.truststore.location", ca.toString(),
                    "elastic.https.ssl.truststore.type", "PEM");
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.TLS_CA_FILE))
                    .isEqualTo(ca.toString());
        }

        @Test
        void aJksTrustStoreAKeyStoreAndNoHostNameCheckAreRefusedWithTheWayOut() {
            assertThat(refused(
                            "elastic.security.protocol", "SSL",
                            "elastic.https.ssl.truststore.location", "/certs/truststore.jks",
                            "elastic.https.ssl.truststore.password", "changeit",
                            "elastic.https.ssl.keystore.location", "/certs/client.p12",
                            "elastic.https.ssl.endpoint.identification.algorithm", ""))
                    .satisfiesExactlyInAnyOrder(
                            p -> assertThat(p).contains("presents no client certificate"),
                            p -> assertThat(p).contains("always verifies that the certificate names the host"),
                            p -> assertThat(p).contains("keytool -exportcert -rfc -keystore /certs/truststore.jks"));
        }

        @Test
        void plaintextIgnoresTheTrustStoreAsConnectDoes() {
            assertThat(job("elastic.https.ssl.truststore.location", "/certs/truststore.jks")
                            .sinkOptions
                            .getOptional(ElasticsearchSinkOptions.TLS_CA_FILE))
                    .isEmpty();
        }
    }

    @Nested
    class Writes {
        @Test
        void keyIgnoreGivesConnectsCoordinateIdsAndKeysGiveKeyIdsVersionedByOffset() {
            Route coordinates = route();
            assertThat(coordinates.id().kind()).isEqualTo(IdSpec.Kind.KAFKA_CONNECT);
            assertThat(coordinates.versionByOffset()).isFalse();
            Route keyed =
                    route("key.ignore", "false", "key.converter", "org.apache.kafka.connect.storage.StringConverter");
            assertThat(keyed.id().kind()).isEqualTo(IdSpec.Kind.KEY);
            assertThat(keyed.op()).isEqualTo(Op.INDEX);
            assertThat(keyed.versionByOffset()).isTrue();
        }

        @Test
        void topicKeyIgnoreSetsCoordinateIdsForItsTopicsOnly() {
            KesConfig job = job("topics", "orders,clicks", "key.ignore", "false", "topic.key.ignore", "clicks");
            assertThat(job.routes)
                    .extracting(r -> r.id().kind())
                    .containsExactly(IdSpec.Kind.KEY, IdSpec.Kind.KAFKA_CONNECT);
        }

        @ParameterizedTest
        @CsvSource({
            "insert, fail, false, INDEX, true",
            "insert, delete, false, DELETE_ON_TOMBSTONE, true",
            "upsert, fail, false, UPSERT, false",
            "upsert, delete, false, UPSERT_DELETE_ON_TOMBSTONE, false",
        })
        void writeMethodAndNullValuesBecomeTheOp(String write, String nulls, String keyIgnore, Op op, boolean version) {
            Route r = route("key.ignore", keyIgnore, "write.method", write, "behavior.on.null.values", nulls);
            assertThat(r.op()).isEqualTo(op);
            assertThat(r.versionByOffset()).isEqualTo(version);
        }

        @Test
        void whatKesCannotDoIsRefused() {
            assertThat(refused("behavior.on.null.values", "delete"))
                    .anySatisfy(p -> assertThat(p).contains("deletes nothing in Connect"));
            assertThat(refused("behavior.on.null.values", "ignore"))
                    .anySatisfy(p -> assertThat(p).contains("kes drops no record silently"));
            assertThat(refused("key.ignore", "false", "external.version.header", "version"))
                    .anySatisfy(p -> assertThat(p).contains("versions documents by their record's Kafka offset only"));
            assertThat(refused(
                            "key.ignore",
                            "false",
                            "key.converter",
                            "org.apache.kafka.connect.converters.ByteArrayConverter"))
                    .anySatisfy(p -> assertThat(p).contains("ByteArrayConverter"));
        }

        @Test
        void autogeneratedIdsAndResourceMappings() {
            assertThat(route("use.autogenerated.ids", "true").id().kind()).isEqualTo(IdSpec.Kind.NONE);
            Route mapped = route(
                    "external.resource.usage",
                    "ALIAS_INDEX",
                    "topic.to.external.resource.mapping",
                    "orders:orders-write");
            assertThat(mapped.index()).isEqualTo("orders-write");
        }
    }

    @Nested
    class DataStreams {
        @Test
        void typeDatasetAndNamespaceNameTheDataStream() {
            Route r = route(
                    "data.stream.type",
                    "logs",
                    "data.stream.dataset",
                    "shop",
                    "data.stream.timestamp.field",
                    "created_at");
            assertThat(r.dataStream()).isEqualTo("logs-shop-orders");
            assertThat(r.op()).isEqualTo(Op.CREATE);
            assertThat(r.timestampField()).isEqualTo("created_at");
            assertThat(route(
                                    "data.stream.type",
                                    "metrics",
                                    "data.stream.dataset",
                                    "cpu",
                                    "data.stream.namespace",
                                    "prod")
                            .dataStream())
                    .isEqualTo("metrics-cpu-prod");
        }

        @Test
        void severalTimestampFieldsAndHalfADataStreamAreRefused() {
            assertThat(refused(
                            "data.stream.type",
                            "logs",
                            "data.stream.dataset",
                            "shop",
                            "data.stream.timestamp.field",
                            "a,b"))
                    .anySatisfy(p -> assertThat(p).contains("from one field"));
            assertThat(refused("data.stream.type", "logs"))
                    .anySatisfy(p -> assertThat(p).contains("go together"));
        }
    }

    @Nested
    class Bulks {
        @Test
        void batchLingerInFlightBytesAndRetriesCarryOver() {
            KesConfig job = job(
                    "batch.size", "500",
                    "linger.ms", "50",
                    "max.in.flight.requests", "2",
                    "bulk.size.bytes", "2097152",
                    "retry.backoff.ms", "200",
                    "max.retries", "3");
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.BULK_MAX_DOCS))
                    .isEqualTo(500);
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.BULK_LINGER))
                    .isEqualTo(Duration.ofMillis(50));
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.BULK_MAX_IN_FLIGHT))
                    .isEqualTo(2);
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.BULK_MAX_BYTES))
                    .isEqualTo(MemorySize.parse("2mb"));
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.RETRY_INITIAL_BACKOFF))
                    .isEqualTo(Duration.ofMillis(200));
            assertThat(job.sinkOptions.get(ElasticsearchSinkOptions.RETRY_MAX_TIME))
                    .isEqualTo(Duration.ofMillis(200 + 400 + 800));
        }

        @Test
        void unboundedBulksAreRefused() {
            assertThat(refused("bulk.size.bytes", "-1"))
                    .anySatisfy(p -> assertThat(p).contains("1kb..100mb"));
        }
    }

    @Nested
    class Errors {
        @Test
        void toleranceAllWithATopicDeadLetters() {
            KesConfig job = job(
                    "errors.tolerance",
                    "all",
                    "errors.deadletterqueue.topic.name",
                    "dlq",
                    "behavior.on.malformed.documents",
                    "warn",
                    "drop.invalid.message",
                    "true");
            assertThat(job.errors.deadLetters()).isTrue();
            assertThat(job.errors.deadLetterTopic()).isEqualTo("dlq");
        }

        @Test
        void skippingWithoutADeadLetterTopicIsRefused() {
            assertThat(refused(
                            "errors.tolerance",
                            "all",
                            "behavior.on.malformed.documents",
                            "ignore",
                            "drop.invalid.message",
                            "true"))
                    .hasSize(3)
                    .allSatisfy(p -> assertThat(p).contains("errors.deadletterqueue.topic.name"));
        }

        @Test
        void theDefaultsStop() {
            assertThat(job().errors.deadLetters()).isFalse();
        }
    }

    @Nested
    class Converters {
        @Test
        void avroWithARegistryBecomesConfluentAvro() {
            Route r = route(
                    "value.converter",
                    "io.confluent.connect.avro.AvroConverter",
                    "value.converter.schemas.enable",
                    null,
                    "value.converter.schema.registry.url",
                    "http://registry:8081");
            assertThat(r.format().kind()).isEqualTo(Route.ValueFormat.Kind.CONFLUENT_AVRO);
            assertThat(r.format().registryUrl()).isEqualTo("http://registry:8081");
        }

        @ParameterizedTest
        @CsvSource({
            "io.confluent.connect.protobuf.ProtobufConverter, PROTOBUF",
            "io.confluent.connect.json.JsonSchemaConverter, JSON_SCHEMA",
        })
        void protobufAndJsonSchemaWithARegistryBecomeTheirFormats(String converter, Route.ValueFormat.Kind format) {
            Route r = route(
                    "value.converter",
                    converter,
                    "value.converter.schemas.enable",
                    null,
                    "value.converter.schema.registry.url",
                    "http://registry:8081");
            assertThat(r.format().kind()).isEqualTo(format);
            assertThat(r.format().registryUrl()).isEqualTo("http://registry:8081");
            assertThat(refused("value.converter", converter))
                    .anySatisfy(p -> assertThat(p).contains("value.converter.schema.registry.url is missing"));
        }

        @ParameterizedTest
        @CsvSource({
            "org.apache.kafka.connect.json.JsonConverter, true, CONNECT_JSON",
            "org.apache.kafka.connect.json.JsonConverter, false, JSON",
            "org.apache.kafka.connect.json.JsonConverter, , CONNECT_JSON", // schemas.enable's default is true
            "org.apache.kafka.connect.storage.StringConverter, , STRING",
        })
        void jsonWithAndWithoutSchemasAndStringsBecomeTheirFormat(
                String converter, String schemas, Route.ValueFormat.Kind format) {
            Route r = route("value.converter", converter, "value.converter.schemas.enable", schemas);
            assertThat(r.format().kind()).isEqualTo(format);
        }

        @ParameterizedTest
        @CsvSource({
            "org.apache.kafka.connect.storage.StringConverter, , STRING",
            "org.apache.kafka.connect.json.JsonConverter, , CONNECT_JSON",
            "org.apache.kafka.connect.json.JsonConverter, false, JSON",
            "io.confluent.connect.avro.AvroConverter, , CONFLUENT_AVRO",
            "io.confluent.connect.protobuf.ProtobufConverter, , PROTOBUF",
            "io.confluent.connect.json.JsonSchemaConverter, , JSON_SCHEMA",
        })
        void keysOfEveryConverterBecomeIds(String converter, String schemas, Route.KeyFormat.Kind format) {
            Route r = route(
                    "key.ignore",
                    "false",
                    "key.converter",
                    converter,
                    "key.converter.schemas.enable",
                    schemas,
                    "key.converter.schema.registry.url",
                    format.fromARegistry() ? "http://registry:8081" : null);
            assertThat(r.id().kind()).isEqualTo(IdSpec.Kind.KEY);
            assertThat(r.keyFormat().kind()).isEqualTo(format);
        }

        private static final String AVRO = "io.confluent.connect.avro.AvroConverter";

        @Test
        void theRegistrysCredentialsAndCaBecomeTheSchemaRegistrySection() {
            KesConfig basic = job(
                    "value.converter", AVRO,
                    "value.converter.schemas.enable", null,
                    "value.converter.schema.registry.url", "https://r1:8081,https://r2:8081",
                    "value.converter.basic.auth.credentials.source", "USER_INFO",
                    "value.converter.basic.auth.user.info", "${SR_USER_INFO}");
            assertThat(basic.routes.get(0).format().registryUrl()).isEqualTo("https://r1:8081,https://r2:8081");
            assertThat(basic.schemaRegistry.authorization())
                    .isEqualTo(io.kes.jobs.config.RegistrySettings.basic("sr:pw"));
            assertThat(yaml(
                            "value.converter", AVRO,
                            "value.converter.schemas.enable", null,
                            "value.converter.schema.registry.url", "https://r1:8081",
                            "value.converter.schema.registry.ssl.truststore.location", "/certs/registry-ca.pem",
                            "value.converter.schema.registry.ssl.truststore.type", "PEM"))
                    .contains("schema_registry:\n  tls_ca_file: \"/certs/registry-ca.pem\"");
            String yaml = yaml(
                    "value.converter", AVRO,
                    "value.converter.schemas.enable", null,
                    "value.converter.schema.registry.url", "https://r1:8081",
                    "value.converter.bearer.auth.credentials.source", "STATIC_TOKEN",
                    "value.converter.bearer.auth.token", "t0ken-secret");
            assertThat(yaml).contains("schema_registry:\n  bearer_token: \"t0ken-secret\"");
            assertThat(yaml.lines().filter(l -> l.startsWith("#")).toList())
                    .as("the comments never show a secret")
                    .noneMatch(l -> l.contains("t0ken-secret"));
        }

        @Test
        void credentialsInTheRegistrysUrlMoveToTheSchemaRegistrySectionAndAreNeverShown() {
            String yaml = yaml(
                    "value.converter",
                    AVRO,
                    "value.converter.schemas.enable",
                    null,
                    "value.converter.schema.registry.url",
                    "https://sr:p%40ss@r1:8081,https://sr:p%40ss@r2:8081");
            assertThat(yaml)
                    .contains("schema_registry_url: \"https://r1:8081,https://r2:8081\"")
                    .contains("basic_auth_user_info: \"sr:p@ss\"");
            assertThat(yaml.lines().filter(l -> l.startsWith("#")).toList())
                    .noneMatch(l -> l.contains("p%40ss"))
                    .anyMatch(l -> l.contains("https://****@r1:8081"));
        }

        @Test
        void registryAuthKesCannotDoAndTwoRegistriesAreRefused() {
            String[] avro = {
                "value.converter",
                AVRO,
                "value.converter.schemas.enable",
                null,
                "value.converter.schema.registry.url",
                "http://registry:8081"
            };
            assertThat(refused(with(avro, "value.converter.basic.auth.credentials.source", "SASL_INHERIT")))
                    .anySatisfy(p -> assertThat(p).contains("SASL_INHERIT"));
            assertThat(refused(with(avro, "value.converter.bearer.auth.credentials.source", "OAUTHBEARER")))
                    .anySatisfy(p -> assertThat(p).contains("OAUTHBEARER"));
            assertThat(refused(with(
                            avro, "value.converter.schema.registry.ssl.truststore.location", "/certs/truststore.jks")))
                    .anySatisfy(
                            p -> assertThat(p).contains("keytool -exportcert -rfc -keystore /certs/truststore.jks"));
            assertThat(refused(with(avro, "value.converter.schema.registry.ssl.keystore.location", "/certs/me.p12")))
                    .anySatisfy(p -> assertThat(p).contains("client certificate"));
            assertThat(refused(
                            "key.ignore", "false",
                            "key.converter", AVRO,
                            "key.converter.schema.registry.url", "http://keys:8081",
                            "value.converter", AVRO,
                            "value.converter.schema.registry.url", "http://values:8081"))
                    .anySatisfy(p -> assertThat(p).contains("one schema registry"));
        }

        private String[] with(String[] base, String... more) {
            List<String> all = new java.util.ArrayList<>(java.util.Arrays.asList(base));
            all.addAll(java.util.Arrays.asList(more));
            return all.toArray(String[]::new);
        }

        @Test
        void aMissingValueConverterIsReadAsJsonAndSaysSo() {
            assertThat(yaml("value.converter", null, "value.converter.schemas.enable", null))
                    .contains("value.converter is not set, so the worker's applied");
        }
    }

    @Nested
    class Transforms {
        @Test
        void regexRouterAndTimestampRouterNameTheIndex() {
            Route r = route(
                    "transforms", "route,daily",
                    "transforms.route.type", Targets.REGEX_ROUTER,
                    "transforms.route.regex", "(.*)",
                    "transforms.route.replacement", "shop-$1",
                    "transforms.daily.type", Targets.TIMESTAMP_ROUTER,
                    "transforms.daily.topic.format", "${topic}-${timestamp}",
                    "transforms.daily.timestamp.format", "yyyy.MM.dd");
            assertThat(r.index()).isEqualTo("shop-orders-{@timestamp|yyyy.MM.dd}");
        }

        @Test
        void otherTransformsPredicatesAndRegexRouterOverAPatternAreRefused() {
            assertThat(refused(
                            "transforms",
                            "x",
                            "transforms.x.type",
                            "org.apache.kafka.connect.transforms.InsertField$Value"))
                    .anySatisfy(p -> assertThat(p).contains("no single message transforms"));
            assertThat(refused(
                            "topics",
                            null,
                            "topics.regex",
                            "o.*",
                            "transforms",
                            "r",
                            "transforms.r.type",
                            Targets.REGEX_ROUTER,
                            "transforms.r.regex",
                            "o(.*)",
                            "transforms.r.replacement",
                            "$1"))
                    .anySatisfy(p -> assertThat(p).contains("list the topics in topics"));
        }
    }

    @Nested
    class ChangeEvents {
        private static final String UNWRAP = "io.debezium.transforms.ExtractNewRecordState";
        private static final String KEY_FIELD = "org.apache.kafka.connect.transforms.ExtractField$Key";
        private static final String VALUE_TO_KEY = "org.apache.kafka.connect.transforms.ValueToKey";

        private String[] debezium(String... more) {
            List<String> kv = new java.util.ArrayList<>(List.of(
                    "key.ignore", "false",
                    "key.converter", "org.apache.kafka.connect.json.JsonConverter",
                    "key.converter.schemas.enable", "false",
                    "behavior.on.null.values", "delete",
                    "transforms", "unwrap,key",
                    "transforms.unwrap.type", UNWRAP,
                    "transforms.unwrap.drop.tombstones", "false",
                    "transforms.unwrap.delete.handling.mode", "none",
                    "transforms.key.type", KEY_FIELD,
                    "transforms.key.field", "id"));
            kv.addAll(java.util.Arrays.asList(more));
            return kv.toArray(String[]::new);
        }

        @Test
        void debeziumsUnwrapWithTheKeysFieldBecomesACdcRouteWithIdsFromTheKeyField() {
            Route r = route(debezium());
            assertThat(r.cdc()).isEqualTo(Route.Cdc.DEBEZIUM);
            assertThat(r.id()).isEqualTo(new IdSpec(IdSpec.Kind.KEY_FIELD, List.of("id")));
            assertThat(r.keyFormat().kind()).isEqualTo(Route.KeyFormat.Kind.JSON);
            assertThat(r.op()).isEqualTo(Op.INDEX);
            assertThat(r.versionByOffset()).isTrue();
        }

        @Test
        void theUnwrapsDefaultsDropDeletesInConnectAndTheJobSaysThatKesDeletes() {
            String yaml = yaml(debezium(
                    "transforms.unwrap.drop.tombstones", null,
                    "transforms.unwrap.delete.handling.mode", null,
                    "behavior.on.null.values", null));
            assertThat(yaml).contains("cdc: debezium").contains("Connect dropped delete events");
        }

        @Test
        void valueToKeyWithExtractFieldTakesTheIdFromTheValuesField() {
            Route r = route(
                    "key.ignore", "false",
                    "transforms", "copy,key",
                    "transforms.copy.type", VALUE_TO_KEY,
                    "transforms.copy.fields", "order_id",
                    "transforms.key.type", KEY_FIELD,
                    "transforms.key.field", "order_id");
            assertThat(r.id()).isEqualTo(new IdSpec(IdSpec.Kind.FIELD, List.of("order_id")));
            assertThat(r.cdc()).isEqualTo(Route.Cdc.NONE);
        }

        @Test
        void whatTheTransformsCannotBecomeIsRefused() {
            assertThat(refused(debezium("transforms.unwrap.delete.handling.mode", "rewrite")))
                    .anySatisfy(p -> assertThat(p).contains("__deleted").contains("delete.handling.mode=none"));
            assertThat(refused(debezium("transforms.unwrap.add.fields", "op,table")))
                    .anySatisfy(p -> assertThat(p).contains("add.fields"));
            assertThat(refused(debezium("key.ignore", "true")))
                    .anySatisfy(p -> assertThat(p).contains("key.ignore=false"));
            assertThat(refused(
                            "key.ignore", "false",
                            "transforms", "copy",
                            "transforms.copy.type", VALUE_TO_KEY,
                            "transforms.copy.fields", "a,b"))
                    .anySatisfy(p -> assertThat(p).contains("ExtractField$Key"));
            assertThat(refused(
                            "key.ignore", "false",
                            "key.converter", "org.apache.kafka.connect.storage.StringConverter",
                            "transforms", "key",
                            "transforms.key.type", KEY_FIELD,
                            "transforms.key.field", "id"))
                    .anySatisfy(p -> assertThat(p).contains("StringConverter"));
        }
    }
}
