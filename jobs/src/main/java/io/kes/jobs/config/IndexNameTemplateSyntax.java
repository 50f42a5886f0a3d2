package io.kes.jobs.config;

import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Checks {@code {field}} and {@code {field|date pattern}} placeholders of an index name template at load time. */
final class IndexNameTemplateSyntax {

    static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}|]+)(?:\\|([^}]+))?}");

    private IndexNameTemplateSyntax() {}

    static void check(String key, String template) {
        if (template.chars().filter(c -> c == '{').count() != template.chars().filter(c -> c == '}').count()) {
            throw new ConfigException(key + " '" + template + "' has unbalanced braces; placeholders look like {service} or {@timestamp|yyyy.MM.dd}");
        }
        Matcher m = PLACEHOLDER.matcher(template);
        while (m.find()) {
            if (m.group(2) != null) {
                try {
                    DateTimeFormatter.ofPattern(m.group(2));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(key + " has an invalid date pattern '" + m.group(2) + "' in {" + m.group(1) + "|" + m.group(2)
                            + "}: " + e.getMessage() + " (patterns as in java.time.format.DateTimeFormatter, e.g. yyyy.MM.dd)");
                }
            }
        }
    }
}
