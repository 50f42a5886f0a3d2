{{/*
Helpers of the kes chart. The rules they encode:

- Names. kes.fullname is the FlinkDeployment name, which the operator uses as the Flink cluster id
  and as the prefix of the Services it creates (<name>-rest), so it is truncated to 45 characters
  (the operator rejects longer names) and stripped of a trailing '-'. Every other resource is named
  after it with a suffix (<fullname>-mapping).
- Labels. kes.labels go on every resource; kes.selectorLabels (name + instance) are also put on the
  JobManager and TaskManager pods through the pod template, and the PodMonitor selects on them. They
  never change between upgrades, so selectors stay valid.
- Flink configuration values. The operator wants strings. Helm reads numbers in values files as
  float64 and would print 1000000 as 1e+06, so kes.flinkValue prints whole floats as integers and
  everything else with toString. Quote fractional values in values files ("2.0") to keep them as
  written.
- Precedence of flinkConfiguration (later wins): task slots, checkpointing, storage, HA, metrics,
  then .Values.flinkConfiguration. See job/_flink-configuration.tpl.
- Secrets. The chart never creates a Secret nor inlines a credential: kes.secretEnv turns the
  existingSecret names of .Values.secrets into env entries with secretKeyRef, which the mapping
  references as ${VAR}; kes.podTemplate mounts .Values.secrets.files as read-only secret volumes,
  which the mapping reads as ${file:<mountPath>/<key>}.
- Validation. kes.validate fails the render on combinations the operator would reject later.
*/}}

{{/* Chart name, overridable with nameOverride. */}}
{{- define "kes.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 45 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: fullnameOverride, or <release>-<name> unless the release name already contains it. */}}
{{- define "kes.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 45 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 45 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 45 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of the ConfigMap holding the mapping. */}}
{{- define "kes.mappingConfigMap" -}}
{{- printf "%s-mapping" (include "kes.fullname" .) -}}
{{- end -}}

{{/* Path of the mapping file inside the pods: what the job gets as --config. */}}
{{- define "kes.mappingPath" -}}
{{- printf "%s/mapping.yaml" (trimSuffix "/" .Values.mappingMountPath) -}}
{{- end -}}

{{/* The mapping file's content: a string as written, a map as YAML. */}}
{{- define "kes.mapping" -}}
{{- if kindIs "string" .Values.mapping -}}
{{- .Values.mapping -}}
{{- else -}}
{{- toYaml .Values.mapping -}}
{{- end -}}
{{- end -}}

{{/* Labels that select the pods; stable across upgrades. */}}
{{- define "kes.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kes.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every resource. */}}
{{- define "kes.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kes.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: streaming-job
app.kubernetes.io/part-of: kes
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* image:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "kes.image" -}}
{{- printf "%s:%s" (required "image.repository is required" .Values.image.repository) (default .Chart.AppVersion (toString .Values.image.tag)) -}}
{{- end -}}

{{/* A Flink configuration value as the string Flink expects. */}}
{{- define "kes.flinkValue" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/* env entries from the existing Secrets of .Values.secrets (and S3 keys of .Values.storage.s3). */}}
{{- define "kes.secretEnv" -}}
{{- range $group := list "elasticsearch" "kafka" }}
{{- $s := index $.Values.secrets $group }}
{{- if and $s $s.existingSecret }}
{{- range $var, $key := $s.env }}
- name: {{ $var }}
  valueFrom:
    secretKeyRef:
      name: {{ $s.existingSecret }}
      key: {{ $key | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- range .Values.secrets.extraEnv }}
- name: {{ required "secrets.extraEnv[].name is required" .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required "secrets.extraEnv[].secretName is required" .secretName }}
      key: {{ required "secrets.extraEnv[].key is required" .key | quote }}
{{- end }}
{{- with .Values.storage.s3.existingSecret }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.storage.s3.accessKeyIdKey | quote }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.storage.s3.secretAccessKeyKey | quote }}
{{- end }}
{{- end -}}

{{/* Fails the render on values the operator or Flink would reject. */}}
{{- define "kes.validate" -}}
{{- $modes := list "last-state" "savepoint" "stateless" -}}
{{- if not (has .Values.job.upgradeMode $modes) -}}
{{- fail (printf "job.upgradeMode must be one of %s, got %q" (join ", " $modes) .Values.job.upgradeMode) -}}
{{- end -}}
{{- if not (has .Values.job.state (list "running" "suspended")) -}}
{{- fail (printf "job.state must be running or suspended, got %q" .Values.job.state) -}}
{{- end -}}
{{- if and (eq .Values.job.upgradeMode "last-state") (not .Values.highAvailability.enabled) -}}
{{- fail "job.upgradeMode last-state needs highAvailability.enabled: true (the operator reads the latest checkpoint from the HA metadata)" -}}
{{- end -}}
{{- if and (gt (int .Values.jobManager.replicas) 1) (not .Values.highAvailability.enabled) -}}
{{- fail "jobManager.replicas > 1 needs highAvailability.enabled: true" -}}
{{- end -}}
{{- if lt (int .Values.job.parallelism) 1 -}}
{{- fail "job.parallelism must be >= 1" -}}
{{- end -}}
{{- if lt (int .Values.taskManager.taskSlots) 1 -}}
{{- fail "taskManager.taskSlots must be >= 1" -}}
{{- end -}}
{{- if not (regexMatch "^v[0-9]+_[0-9]+$" .Values.flinkVersion) -}}
{{- fail (printf "flinkVersion must be spelled as the operator's CRD does (v2_2), got %q" .Values.flinkVersion) -}}
{{- end -}}
{{- if not .Values.storage.checkpointDir -}}
{{- fail "storage.checkpointDir is required: checkpoints must outlive the pods" -}}
{{- end -}}
{{- if and .Values.highAvailability.enabled (not .Values.storage.haStorageDir) -}}
{{- fail "storage.haStorageDir is required with highAvailability.enabled" -}}
{{- end -}}
{{- if and .Values.metrics.podMonitor.enabled (not .Values.metrics.prometheus.enabled) -}}
{{- fail "metrics.podMonitor.enabled needs metrics.prometheus.enabled" -}}
{{- end -}}
{{- if eq (toString .Values.image.tag) "latest" -}}
{{- fail "image.tag latest is not allowed: pin a version so restores run the code that wrote the state" -}}
{{- end -}}
{{- range $k, $v := .Values.checkpointing -}}
{{- if or (eq $k "execution.checkpointing.dir") (eq $k "execution.checkpointing.savepoint-dir") -}}
{{- fail (printf "set %s through storage.checkpointDir / storage.savepointDir, not checkpointing" $k) -}}
{{- end -}}
{{- end -}}
{{- end -}}
