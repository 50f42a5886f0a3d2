package io.kes.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void freePortsLieBelowTheEphemeralRangeSoNoOutgoingConnectionCanTakeOneBeforeItsServerBinds() {
        int low = Ports.EPHEMERAL_LOW;
        for (int i = 0; i < 200; i++) {
            int port = Ports.free();
            assertTrue(port >= Ports.LOWEST && port < low, port + " outside [" + Ports.LOWEST + ", " + low + ")");
        }
    }

    @Test
    void oneJvmNeverHandsOutAPortTwice() {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            ports.add(Ports.free());
        }
        assertEquals(500, ports.size());
    }

    @Test
    void aFreePortHasNoListener() {
        assertFalse(Ports.isListening(Ports.free()));
    }
}
