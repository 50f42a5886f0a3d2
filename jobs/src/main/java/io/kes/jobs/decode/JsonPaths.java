package io.kes.jobs.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Dotted field paths ({@code http.status}) over Jackson trees; a top-level key containing dots wins. */
final class JsonPaths {

    private JsonPaths() {}

    static JsonNode get(JsonNode doc, String path) {
        JsonNode direct = doc.get(path);
        if (direct != null) {
            return direct;
        }
        JsonNode node = doc;
        for (String part : path.split("\\.")) {
            if (node == null || !node.isObject()) {
                return null;
            }
            node = node.get(part);
        }
        return node;
    }

    /** Removes the field at {@code path}; returns it, or null when absent. */
    static JsonNode remove(ObjectNode doc, String path) {
        if (doc.has(path)) {
            return doc.remove(path);
        }
        int dot = path.lastIndexOf('.');
        if (dot < 0) {
            return null;
        }
        JsonNode parent = get(doc, path.substring(0, dot));
        return parent instanceof ObjectNode object ? object.remove(path.substring(dot + 1)) : null;
    }
}
