{{/*
The pod template the operator merges into the JobManager and TaskManager pods. Everything the job
needs from Kubernetes is here: the mapping ConfigMap mounted at mappingMountPath, credentials as env
or as read-only files (secrets.files) from existing Secrets, enabled file system plugins, the
metrics port, an optional storage volume.
The container must be named flink-main-container for the operator to merge it with Flink's own.
*/}}
{{- define "kes.podTemplate" -}}
apiVersion: v1
kind: Pod
metadata:
  labels:
    {{- include "kes.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # A changed mapping changes the spec, so the operator upgrades the job (upgradeMode) to load it.
    kes.io/mapping-checksum: {{ include "kes.mapping" . | sha256sum }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: flink-main-container
      {{- $env := include "kes.secretEnv" . | trim }}
      {{- if or $env .Values.storage.builtInPlugins }}
      env:
        {{- with .Values.storage.builtInPlugins }}
        - name: ENABLE_BUILT_IN_PLUGINS
          value: {{ join ";" . | quote }}
        {{- end }}
        {{- with $env }}
        {{- . | nindent 8 }}
        {{- end }}
      {{- end }}
      {{- if .Values.metrics.prometheus.enabled }}
      ports:
        - name: metrics
          containerPort: {{ .Values.metrics.prometheus.port }}
          protocol: TCP
      {{- end }}
      volumeMounts:
        - name: kes-mapping
          mountPath: {{ .Values.mappingMountPath }}
          readOnly: true
        {{- range $i, $f := .Values.secrets.files }}
        - name: kes-secret-{{ $i }}
          mountPath: {{ required "secrets.files[].mountPath is required (an absolute directory)" $f.mountPath }}
          readOnly: true
        {{- end }}
        {{- if .Values.storage.volume }}
        - name: kes-state
          mountPath: {{ .Values.storage.volumeMountPath }}
        {{- end }}
  volumes:
    - name: kes-mapping
      configMap:
        name: {{ include "kes.mappingConfigMap" . }}
        items:
          - key: mapping.yaml
            path: mapping.yaml
    {{- range $i, $f := .Values.secrets.files }}
    - name: kes-secret-{{ $i }}
      secret:
        secretName: {{ required "secrets.files[].secretName is required (an existing Secret)" $f.secretName }}
    {{- end }}
    {{- with .Values.storage.volume }}
    - name: kes-state
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end -}}
