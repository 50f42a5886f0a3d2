{{/*
The FlinkDeployment's flinkConfiguration, built as one dict so later groups override earlier ones:
  1. task slots
  2. .Values.checkpointing           (defaults: checkpoints-config/production.yaml)
  3. storage: checkpoint and savepoint dirs, S3 endpoint settings
  4. Kubernetes HA
  5. Prometheus reporter
  6. .Values.flinkConfiguration      (anything else; wins over all of the above)
Keys are sorted on output (toYaml), every value is a string.
*/}}
{{- define "kes.flinkConfiguration" -}}
{{- $conf := dict -}}
{{- $_ := set $conf "taskmanager.numberOfTaskSlots" (include "kes.flinkValue" .Values.taskManager.taskSlots) -}}
{{- range $k, $v := .Values.checkpointing -}}
{{- $_ := set $conf $k (include "kes.flinkValue" $v) -}}
{{- end -}}
{{- $_ := set $conf "execution.checkpointing.dir" .Values.storage.checkpointDir -}}
{{- with .Values.storage.savepointDir -}}
{{- $_ := set $conf "execution.checkpointing.savepoint-dir" . -}}
{{- end -}}
{{- with .Values.storage.s3.endpoint -}}
{{- $_ := set $conf "s3.endpoint" . -}}
{{- end -}}
{{- if .Values.storage.s3.pathStyleAccess -}}
{{- $_ := set $conf "s3.path.style.access" "true" -}}
{{- end -}}
{{- if .Values.highAvailability.enabled -}}
{{- $_ := set $conf "high-availability.type" "kubernetes" -}}
{{- $_ := set $conf "high-availability.storageDir" .Values.storage.haStorageDir -}}
{{- end -}}
{{- if .Values.metrics.prometheus.enabled -}}
{{- $_ := set $conf "metrics.reporter.prom.factory.class" "org.apache.flink.metrics.prometheus.PrometheusReporterFactory" -}}
{{- $_ := set $conf "metrics.reporter.prom.port" (include "kes.flinkValue" .Values.metrics.prometheus.port) -}}
{{- end -}}
{{- range $k, $v := .Values.flinkConfiguration -}}
{{- $_ := set $conf $k (include "kes.flinkValue" $v) -}}
{{- end -}}
{{- range $k := keys $conf | sortAlpha }}
{{ $k }}: {{ index $conf $k | quote }}
{{- end -}}
{{- end -}}
