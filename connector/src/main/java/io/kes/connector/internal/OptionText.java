package io.kes.connector.internal;

import java.util.EnumSet;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.Formatter;
import org.apache.flink.configuration.description.TextElement;

/**
 * An option's description, written once in the Markdown the reference docs show ({@code `code`},
 * {@code [text](page.md#anchor)} relative to docs/), read two ways: as written, for the generated
 * "meaning" cells of docs/config-reference.md, and as plain text, for messages that explain a key.
 */
@Internal
public final class OptionText {

    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)]\\(([^)]+)\\)");

    private OptionText() {}

    /** The description as written, Markdown included. */
    public static String asWritten(ConfigOption<?> option) {
        return new Sentences().format(option.description());
    }

    /** The description without Markdown: code is plain text, a link its text with the page in brackets. */
    public static String plain(ConfigOption<?> option) {
        String text = LINK.matcher(asWritten(option))
                .replaceAll(m -> m.group(1) + " (" + (m.group(2).startsWith("http") ? "" : "docs/") + m.group(2) + ")");
        return text.replace("`", "");
    }

    /** Flink formats descriptions for its HTML docs only; kes wants the sentences as written. */
    private static final class Sentences extends Formatter {
        @Override
        protected void formatLink(StringBuilder state, String link, String description) {
            state.append('[').append(description).append("](").append(link).append(')');
        }

        @Override
        protected void formatLineBreak(StringBuilder state) {
            state.append(' ');
        }

        @Override
        protected void formatText(
                StringBuilder state, String format, String[] elements, EnumSet<TextElement.TextStyle> styles) {
            state.append(String.format(format, (Object[]) elements));
        }

        @Override
        protected void formatList(StringBuilder state, String[] entries) {
            state.append(String.join("; ", entries));
        }

        @Override
        protected Formatter newInstance() {
            return new Sentences();
        }
    }
}
