package io.kes.stack;

import io.kes.stack.NodeSecurity.ApiKey;
import java.io.IOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls to a secured node's security API as its superuser ({@link ElasticsearchNode#http()}):
 * roles, native-realm users and API keys, for kes ({@link NodeSecurity}) and for tests that need
 * credentials with fewer privileges, or revoked, or expired.
 */
public final class SecurityApi {

    private static final Pattern API_KEY_ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern API_KEY_ENCODED = Pattern.compile("\"encoded\"\\s*:\\s*\"([^\"]+)\"");

    private SecurityApi() {}

    /** A role with these cluster privileges and these index privileges on every index. */
    public static void createRole(Http admin, String role, List<String> cluster, List<String> indices)
            throws IOException {
        admin.send("PUT", "/_security/role/" + role, roleDescriptor(cluster, indices))
                .requireOk("creating role " + role);
    }

    public static void createUser(Http admin, String user, String password, String... roles) throws IOException {
        admin.send(
                        "PUT",
                        "/_security/user/" + user,
                        "{\"password\":\"" + password + "\",\"roles\":" + json(List.of(roles)) + "}")
                .requireOk("creating user " + user);
    }

    /**
     * An API key limited to these privileges (on every index), expiring after {@code expiration}
     * (an Elasticsearch time value such as {@code 1s} or {@code 1d}) or never when null.
     */
    public static ApiKey createApiKey(
            Http admin, String name, List<String> cluster, List<String> indices, String expiration) throws IOException {
        String body =
                "{\"name\":\"" + name + "\"," + (expiration != null ? "\"expiration\":\"" + expiration + "\"," : "")
                        + "\"role_descriptors\":{\"" + name + "\":" + roleDescriptor(cluster, indices) + "}}";
        String answer = admin.send("POST", "/_security/api_key", body)
                .requireOk("creating API key " + name)
                .body();
        return new ApiKey(group(API_KEY_ID, answer), group(API_KEY_ENCODED, answer));
    }

    /** Invalidates (revokes) an API key: Elasticsearch answers 401 to it from then on. */
    public static void invalidateApiKey(Http admin, ApiKey key) throws IOException {
        String answer = admin.send("DELETE", "/_security/api_key", "{\"ids\":[\"" + key.id() + "\"]}")
                .requireOk("invalidating API key " + key.id())
                .body();
        if (!answer.contains(key.id())) {
            throw new IllegalStateException("Elasticsearch did not invalidate API key " + key.id() + ": " + answer);
        }
    }

    private static String roleDescriptor(List<String> cluster, List<String> indices) {
        String onIndices = indices.isEmpty() ? "" : "{\"names\":[\"*\"],\"privileges\":" + json(indices) + "}";
        return "{\"cluster\":" + json(cluster) + ",\"indices\":[" + onIndices + "]}";
    }

    private static String json(List<String> values) {
        return values.stream().map(v -> "\"" + v + "\"").collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }

    private static String group(Pattern pattern, String json) {
        Matcher m = pattern.matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in " + json);
        }
        return m.group(1);
    }
}
