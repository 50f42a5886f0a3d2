package io.kes.connector.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

class OneInputOperatorFactoryTest {

    /** Stands in for kes's operators; built without parameters, which this test does not need. */
    private static final class Labelled extends AbstractStreamOperator<String>
            implements OneInputStreamOperator<String, String> {
        final String label;

        Labelled(String label) {
            this.label = label;
        }

        @Override
        public void processElement(StreamRecord<String> element) {}
    }

    @Test
    void whatTheConstructorCapturedTravelsWithTheJobGraphToEverySubtask() throws Exception {
        String label = "settings of this sink";
        OneInputOperatorFactory<String, String> factory =
                new OneInputOperatorFactory<>(Labelled.class, parameters -> new Labelled(label));

        // Flink ships the factory to the task managers with Java serialization
        OneInputOperatorFactory<String, String> shipped =
                InstantiationUtil.clone(factory, getClass().getClassLoader());

        assertThat(shipped.getStreamOperatorClass(getClass().getClassLoader())).isEqualTo(Labelled.class);
        Labelled first = shipped.createStreamOperator(null);
        Labelled second = shipped.createStreamOperator(null);
        assertThat(first.label).isEqualTo(label);
        assertThat(first).isNotSameAs(second);
    }
}
