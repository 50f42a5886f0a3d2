package io.kes.connector.testing;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MemorySize;

/**
 * The key, type and default cells of an option's row in the reference docs (its meaning is its
 * description), as its declaration says them, spelled one way for the job's YAML tables and the
 * SQL tables alike ({@code `1s`}, {@code `1mb`}, {@code `chained` \| `keyed`}).
 */
public final class OptionCells {

    private OptionCells() {}

    private static final Map<Class<?>, String> TYPE_NAMES = Map.of(
            String.class,
            "string",
            Integer.class,
            "int",
            Long.class,
            "long",
            Double.class,
            "double",
            Boolean.class,
            "boolean",
            Duration.class,
            "duration",
            MemorySize.class,
            "size",
            Map.class,
            "map");

    /** The key, then each fallback key (the official connectors' names a SQL table reads too), backticked. */
    public static String keys(ConfigOption<?> option) {
        StringBuilder cell = new StringBuilder("`").append(option.key()).append('`');
        for (FallbackKey fallback : option.fallbackKeys()) {
            cell.append(" or `").append(fallback.getKey()).append('`');
        }
        return cell.toString();
    }

    /** {@code list}, {@code int}, {@code duration}, ... or an enum's values; {@code listType} names a list where the surface says how it is written. */
    public static String type(ConfigOption<?> option, String listType) {
        if (invoke(option, "isList").equals(Boolean.TRUE)) {
            return listType;
        }
        Class<?> declared = (Class<?>) invoke(option, "getClazz");
        if (declared.isEnum()) {
            return Arrays.stream(declared.getEnumConstants())
                    .map(v -> "`" + enumValue(v) + "`")
                    .collect(Collectors.joining(" \\| "));
        }
        String name = TYPE_NAMES.get(declared);
        if (name == null) {
            throw new AssertionError(option.key() + " is declared as " + declared.getName()
                    + ", which the reference has no type name for: add one to OptionCells.TYPE_NAMES");
        }
        return name;
    }

    /** {@code `value`} as a user would write it; without a default, {@code required} or {@code none}. */
    public static String defaultValue(ConfigOption<?> option, boolean required) {
        if (!option.hasDefaultValue()) {
            return required ? "required" : "none";
        }
        return "`" + value(option.defaultValue()) + "`";
    }

    private static String value(Object value) {
        if (value instanceof Duration duration) {
            long ms = duration.toMillis();
            return ms != 0 && ms % 3_600_000 == 0
                    ? ms / 3_600_000 + "h"
                    : ms != 0 && ms % 60_000 == 0 ? ms / 60_000 + "min" : ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
        }
        if (value instanceof MemorySize size) {
            long bytes = size.getBytes();
            return bytes != 0 && bytes % (1L << 30) == 0
                    ? (bytes >> 30) + "gb"
                    : bytes != 0 && bytes % (1L << 20) == 0
                            ? (bytes >> 20) + "mb"
                            : bytes != 0 && bytes % 1024 == 0 ? (bytes >> 10) + "kb" : bytes + "b";
        }
        if (value instanceof Enum<?> e) {
            return enumValue(e);
        }
        if (value instanceof List<?> list) {
            return list.stream().map(OptionCells::value).collect(Collectors.joining(";"));
        }
        return String.valueOf(value);
    }

    /** Flink's enum options match a value against the constants' toString() ignoring case; the docs write it in lower case. */
    private static String enumValue(Object constant) {
        return constant.toString().toLowerCase(Locale.ROOT);
    }

    /** Flink keeps an option's declared type package-private (its own docs generator lives in that package); a test may read it. */
    private static Object invoke(ConfigOption<?> option, String method) {
        try {
            Method m = ConfigOption.class.getDeclaredMethod(method);
            m.setAccessible(true);
            return m.invoke(option);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(
                    "Flink's ConfigOption." + method + "() is gone: OptionCells needs another way to read "
                            + "an option's declared type",
                    e);
        }
    }
}
