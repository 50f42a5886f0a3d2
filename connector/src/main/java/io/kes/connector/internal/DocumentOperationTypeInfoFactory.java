package io.kes.connector.internal;

import io.kes.connector.DocumentOperation;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Tells Flink to use {@link DocumentOperationSerializer} for {@link DocumentOperation}. */
@Internal
public final class DocumentOperationTypeInfoFactory extends TypeInfoFactory<DocumentOperation> {

    @Override
    public TypeInformation<DocumentOperation> createTypeInfo(
            Type t, Map<String, TypeInformation<?>> genericParameters) {
        return new DocumentOperationTypeInfo();
    }

    /** Type information for {@link DocumentOperation}: an atomic, non-key type. */
    public static final class DocumentOperationTypeInfo extends TypeInformation<DocumentOperation> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isBasicType() {
            return false;
        }

        @Override
        public boolean isTupleType() {
            return false;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public int getTotalFields() {
            return 1;
        }

        @Override
        public Class<DocumentOperation> getTypeClass() {
            return DocumentOperation.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<DocumentOperation> createSerializer(SerializerConfig config) {
            return new DocumentOperationSerializer();
        }

        @Override
        public String toString() {
            return "DocumentOperation";
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof DocumentOperationTypeInfo;
        }

        @Override
        public int hashCode() {
            return DocumentOperationTypeInfo.class.hashCode();
        }

        @Override
        public boolean canEqual(Object obj) {
            return obj instanceof DocumentOperationTypeInfo;
        }
    }
}
