package io.kes.jobs.migrate;

import java.util.Locale;

/** The comment lines at the top of a migrated job: one per Connect setting, saying what became of it. */
final class Comments {

    private Comments() {}

    /** A secret's value is never printed: a migrated file is often pasted into tickets and chats. */
    static String shown(String key, String value) {
        String k = key.toLowerCase(Locale.ROOT);
        boolean secret = k.contains("password")
                || k.contains("jaas")
                || k.contains("secret")
                || k.contains("user.info")
                || k.contains("token");
        // a registry URL may carry Confluent's URL credentials: kes moves them out, and never shows them
        return secret ? "****" : value.replaceAll("://[^/@,]*@", "://****@");
    }

    static String line(ConnectOption option, String key, String value) {
        String target = option.kes().replace("`", "");
        String line = key + " = " + shown(key, value) + (target.equals("—") ? "" : "  ->  " + target);
        return option.note().isEmpty() ? line : line + "  (" + option.note().replace("`", "") + ")";
    }
}
