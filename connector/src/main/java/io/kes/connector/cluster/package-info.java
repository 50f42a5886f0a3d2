/**
 * Talking to the cluster: REST clients with TLS and auth ({@code RestClients}, {@code TlsContexts}),
 * sending a request to a chosen node ({@code TargetNodeSelector}, {@code PrimaryNodes}), and the
 * metadata reads every stage shares ({@code ClusterMetadataClient}, {@code IndexMetadata},
 * {@code PrivilegeCheck}), and what kes does after Elasticsearch answers ({@code StatusPolicy}: the
 * bulk writer's and the fence's one decision table). The bottom layer: it depends on no stage.
 */
package io.kes.connector.cluster;
