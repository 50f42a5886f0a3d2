package io.kes.connector.table;

import java.io.Serializable;

/**
 * How the values of a PRIMARY KEY of several columns make one document id.
 *
 * <p>By default they are joined by the delimiter, as Flink's Elasticsearch and OpenSearch
 * connectors join them, so a job moved from those connectors writes the same ids and overwrites
 * its documents. That join is not injective: {@code ("a_b", "c")} and {@code ("a", "b_c")} both
 * make {@code a_b_c}, and the second row overwrites the first. With {@code escape}, a backslash
 * and the delimiter's first character are escaped with a backslash inside each value: every
 * unescaped occurrence of that character in the id then starts a delimiter, so the values can be
 * read back and two different keys never share an id. Values that contain neither keep the id
 * they had without escaping.
 *
 * @param delimiter the text between the values; with {@code escape}, non-empty and not starting
 *                  with a backslash (checked by the factory)
 * @param escape    whether to escape the values
 */
record CompositeKeyId(String delimiter, boolean escape) implements Serializable {

    /** The id of one key's values, in key order. */
    String of(String[] values) {
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                id.append(delimiter);
            }
            if (escape) {
                appendEscaped(id, values[i]);
            } else {
                id.append(values[i]);
            }
        }
        return id.toString();
    }

    private void appendEscaped(StringBuilder id, String value) {
        char special = delimiter.charAt(0);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' || c == special) {
                id.append('\\');
            }
            id.append(c);
        }
    }
}
