package io.kes.jobs.decode.registry;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.ProtoFile;
import com.squareup.wire.schema.Schema;
import com.squareup.wire.schema.SchemaLoader;
import com.squareup.wire.schema.internal.SchemaEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * protobuf-java descriptors made from .proto text, as Confluent's registry holds Protobuf schemas
 * ({@code schemaType: PROTOBUF}, the schema as .proto source, each import a reference named by its
 * import path). The text is parsed and linked by Wire's schema loader (Square's
 * {@code wire-schema}, the parser Confluent's own {@code ProtobufSchema} uses), which reads files:
 * the schema and its references are written to a temporary folder for the parse and deleted after.
 * Wire's {@code SchemaEncoder} then writes each file as a {@code FileDescriptorProto}, from which
 * protobuf-java builds the {@link FileDescriptor}, its imports first. Google's well-known types
 * ({@code google/protobuf/timestamp.proto} and the rest that Wire ships) need no reference.
 */
final class ProtobufDescriptors {

    private static final String MAIN = "kes_registry_schema.proto";

    private ProtobufDescriptors() {}

    /**
     * @param text       the schema's .proto source
     * @param references the .proto sources of its imports, by import path
     * @throws IllegalArgumentException when the text does not parse or link, naming why
     */
    static FileDescriptor file(String text, Map<String, String> references) {
        Path folder;
        try {
            folder = Files.createTempDirectory("kes-proto");
        } catch (IOException e) {
            throw new UncheckedIOException("no temporary folder to parse a .proto schema in", e);
        }
        try {
            write(folder, MAIN, text);
            for (Map.Entry<String, String> reference : references.entrySet()) {
                write(folder, reference.getKey(), reference.getValue());
            }
            SchemaLoader loader = new SchemaLoader(FileSystems.getDefault());
            loader.initRoots(List.of(Location.get(folder.toString())), List.of());
            Schema schema = loader.loadSchema();
            return build(schema, schema.protoFile(MAIN), new HashMap<>());
        } catch (IOException e) {
            throw new UncheckedIOException("a .proto schema could not be written to " + folder, e);
        } catch (RuntimeException e) { // Wire's SchemaException and the parser's IllegalStateException
            throw new IllegalArgumentException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
        } finally {
            deleteAll(folder);
        }
    }

    /** The message that Confluent's message indexes name: the n-th top-level message, then nested ones. */
    static Descriptor message(FileDescriptor file, List<Integer> indexes) {
        List<Descriptor> candidates = file.getMessageTypes();
        Descriptor message = null;
        for (int index : indexes) {
            if (index < 0 || index >= candidates.size()) {
                return null;
            }
            message = candidates.get(index);
            candidates = message.getNestedTypes();
        }
        return message;
    }

    private static FileDescriptor build(Schema schema, ProtoFile file, Map<String, FileDescriptor> built) {
        String name = file.getLocation().getPath();
        FileDescriptor done = built.get(name);
        if (done != null) {
            return done;
        }
        FileDescriptorProto proto;
        try {
            proto = FileDescriptorProto.parseFrom(
                    new SchemaEncoder(schema).encode(file).toByteArray());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("Wire wrote a descriptor protobuf-java cannot read: " + e.getMessage(), e);
        }
        FileDescriptor[] imports = new FileDescriptor[proto.getDependencyCount()];
        for (int i = 0; i < imports.length; i++) {
            ProtoFile imported = schema.protoFile(proto.getDependency(i));
            if (imported == null) {
                throw new IllegalArgumentException(
                        name + " imports " + proto.getDependency(i) + ", which no reference of the schema provides");
            }
            imports[i] = build(schema, imported, built);
        }
        try {
            FileDescriptor descriptor = FileDescriptor.buildFrom(proto, imports);
            built.put(name, descriptor);
            return descriptor;
        } catch (DescriptorValidationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static void write(Path folder, String name, String text) throws IOException {
        Path file = folder.resolve(name).normalize();
        if (!file.startsWith(folder) || name.isBlank()) {
            throw new IllegalArgumentException("the reference name '" + name + "' is not a relative .proto path");
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static void deleteAll(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary folder is harmless
        }
    }
}
