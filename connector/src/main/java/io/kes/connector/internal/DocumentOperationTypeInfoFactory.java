package io.kes.connector.internal;

import io.kes.connector.DocumentOperation;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** Tells Flink to use {@link DocumentOperationSerializer} for {@link DocumentOperation}. */
@Internal
public final class DocumentOperationTypeInfoFactory extends TypeInfoFactory<DocumentOperation> {

    @Override
    public TypeInformation<DocumentOperation> createTypeInfo(
            Type t, Map<String, TypeInformation<?>> genericParameters) {
        return new AtomicType<>(DocumentOperation.class, DocumentOperationSerializer::new);
    }
}
