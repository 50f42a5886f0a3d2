package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PipelineRewritesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Optional<String> why(String pipeline, Map<String, String> others) throws Exception {
        return PipelineRewrites.why("p", JSON.readTree(pipeline), id -> {
            try {
                return others.containsKey(id) ? Optional.of(JSON.readTree(others.get(id))) : Optional.<JsonNode>empty();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Optional<String> why(String pipeline) throws Exception {
        return why(pipeline, Map.of());
    }

    @Test
    void aPipelineThatOnlyEnrichesTheSourceMovesNothing() throws Exception {
        assertThat(
                        why(
                                "{\"processors\":[{\"set\":{\"field\":\"seen\",\"value\":true}},"
                                        + "{\"rename\":{\"field\":\"a\",\"target_field\":\"b\"}},{\"script\":{\"source\":\"ctx.n = ctx.n * 2\"}}]}"))
                .isEmpty();
    }

    @Test
    void settingRoutingIndexOrIdMovesDocuments() throws Exception {
        assertThat(why("{\"processors\":[{\"set\":{\"field\":\"_routing\",\"value\":\"{{user}}\"}}]}"))
                .contains("pipeline 'p' sets _routing (set processor)");
        assertThat(why("{\"processors\":[{\"set\":{\"field\":\"_index\",\"value\":\"other\"}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"rename\":{\"field\":\"user\",\"target_field\":\"_id\"}}]}"))
                .isPresent();
    }

    @Test
    void scriptsRerouteTemplatedFieldsAndFailureHandlersCount() throws Exception {
        assertThat(why("{\"processors\":[{\"script\":{\"source\":\"ctx._routing = ctx.user\"}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"script\":{\"source\":\"ctx['_index'] = 'x'\"}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"reroute\":{\"destination\":\"logs-x\"}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"set\":{\"field\":\"{{name}}\",\"value\":1}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"set\":{\"field\":\"a\",\"value\":1,"
                        + "\"on_failure\":[{\"set\":{\"field\":\"_index\",\"value\":\"failed\"}}]}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[],\"on_failure\":[{\"set\":{\"field\":\"_index\",\"value\":\"failed\"}}]}"))
                .isPresent();
    }

    @Test
    void nestedPipelinesAreFollowed() throws Exception {
        String outer = "{\"processors\":[{\"pipeline\":{\"name\":\"inner\"}}]}";
        assertThat(why(outer, Map.of("inner", "{\"processors\":[{\"set\":{\"field\":\"_routing\",\"value\":\"x\"}}]}")))
                .contains("pipeline 'inner' sets _routing (set processor)");
        assertThat(why(outer, Map.of("inner", "{\"processors\":[{\"set\":{\"field\":\"y\",\"value\":\"x\"}}]}")))
                .isEmpty();
        assertThat(why(outer, Map.of("inner", outer))).as("a cycle ends").isPresent();
    }

    /** Issue 27 item 4: processors that name their targets in other places than field / target_field. */
    @Test
    void processorsThatWriteMetadataFieldsThroughPatternsListsOrTheRootMoveDocuments() throws Exception {
        assertThat(why(
                        "{\"processors\":[{\"foreach\":{\"field\":\"tags\",\"processor\":{\"set\":{\"field\":\"_routing\","
                                + "\"value\":\"{{_ingest._value}}\"}}}}]}"))
                .contains("pipeline 'p' sets _routing (set processor)");
        assertThat(why("{\"processors\":[{\"csv\":{\"field\":\"line\",\"target_fields\":[\"a\",\"_id\"]}}]}"))
                .isPresent();
        assertThat(
                        why(
                                "{\"processors\":[{\"grok\":{\"field\":\"msg\",\"patterns\":[\"%{WORD:_routing} %{GREEDYDATA:rest}\"]}}]}"))
                .isPresent();
        assertThat(
                        why(
                                "{\"processors\":[{\"grok\":{\"field\":\"msg\",\"patterns\":[\"(?<_id>[a-z]+) %{GREEDYDATA:rest}\"]}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"dissect\":{\"field\":\"msg\",\"pattern\":\"%{+_index} %{rest}\"}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"json\":{\"field\":\"payload\",\"add_to_root\":true}}]}"))
                .isPresent();
        assertThat(why("{\"processors\":[{\"kv\":{\"field\":\"msg\",\"field_split\":\" \",\"value_split\":\"=\"}}]}"))
                .as("keys into the root: one may be _id")
                .isPresent();
    }

    @Test
    void theSameProcessorsWritingOrdinaryFieldsMoveNothing() throws Exception {
        assertThat(
                        why(
                                "{\"processors\":[{\"foreach\":{\"field\":\"tags\",\"processor\":{\"uppercase\":{\"field\":\"_ingest._value\"}}}},"
                                        + "{\"csv\":{\"field\":\"line\",\"target_fields\":[\"a\",\"b\"]}},"
                                        + "{\"grok\":{\"field\":\"msg\",\"patterns\":[\"%{WORD:user_id} %{GREEDYDATA:rest}\"]}},"
                                        + "{\"dissect\":{\"field\":\"msg\",\"pattern\":\"%{user_id} %{rest}\"}},"
                                        + "{\"json\":{\"field\":\"payload\",\"target_field\":\"parsed\"}},"
                                        + "{\"kv\":{\"field\":\"msg\",\"field_split\":\" \",\"value_split\":\"=\",\"target_field\":\"kv\"}}]}"))
                .isEmpty();
    }

    /** Issue 37 item 2: date_index_name always sets _index (to a date-named index), though its own field is a date. */
    @Test
    void dateIndexNameMovesDocuments() throws Exception {
        assertThat(why("{\"processors\":[{\"date_index_name\":{\"field\":\"@timestamp\","
                        + "\"index_name_prefix\":\"logs-\",\"date_rounding\":\"d\"}}]}"))
                .hasValueSatisfying(why -> assertThat(why).contains("date_index_name"));
    }
}
