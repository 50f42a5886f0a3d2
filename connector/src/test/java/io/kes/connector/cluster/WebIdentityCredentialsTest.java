package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.internal.WebIdentityCredentialsUtils;

/**
 * EKS's IAM roles for service accounts hand the pod a web identity token, which the SDK's default
 * chain exchanges for credentials through its {@code sts} module, found by reflection: without the
 * module on the classpath the chain skips the token and the first signed request fails.
 */
class WebIdentityCredentialsTest {

    @Test
    void theDefaultChainCanExchangeAWebIdentityTokenForCredentials() {
        assertThat(WebIdentityCredentialsUtils.factory()).isNotNull();
    }
}
