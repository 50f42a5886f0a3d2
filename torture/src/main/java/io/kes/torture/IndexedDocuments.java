package io.kes.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.Http;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Every document of an index, alias or data stream (all backing indices), read with a scroll after a refresh. */
final class IndexedDocuments {

    /** One document: the concrete index it sits in, its id, and its source (null when not fetched). */
    record Doc(String index, String id, JsonNode source) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private IndexedDocuments() {}

    static List<Doc> read(Http es, String target, boolean withSource) throws IOException {
        List<Doc> docs = new ArrayList<>();
        Http.Response refresh = es.send("POST", "/" + target + "/_refresh?ignore_unavailable=true", null);
        if (refresh.status() == 404) {
            return docs;
        }
        refresh.requireOk("refresh of " + target);
        Http.Response page = es.send(
                        "POST",
                        "/" + target + "/_search?scroll=1m",
                        "{\"size\":5000,\"sort\":[\"_doc\"],\"_source\":" + withSource + "}")
                .requireOk("search of " + target);
        while (true) {
            JsonNode body = JSON.readTree(page.body());
            JsonNode hits = body.path("hits").path("hits");
            for (JsonNode hit : hits) {
                docs.add(new Doc(
                        hit.path("_index").asText(), hit.path("_id").asText(), withSource ? hit.get("_source") : null));
            }
            String scrollId = body.path("_scroll_id").asText(null);
            if (hits.isEmpty() || scrollId == null) {
                if (scrollId != null) {
                    es.send("DELETE", "/_search/scroll", "{\"scroll_id\":\"" + scrollId + "\"}");
                }
                return docs;
            }
            page = es.send("POST", "/_search/scroll", "{\"scroll\":\"1m\",\"scroll_id\":\"" + scrollId + "\"}")
                    .requireOk("scroll of " + target);
        }
    }
}
