{{/* The controller chart's dashboards/*.json as one ConfigMap the Grafana sidecar picks up
(label grafana_dashboard: "1"), when dashboard.enabled. */}}
{{- define "steward-common.dashboard" -}}
{{- if .Values.dashboard.enabled }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "steward-common.fullname" . }}-dashboard
  namespace: {{ default .Release.Namespace .Values.dashboard.namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
    grafana_dashboard: "1"
    {{- with .Values.dashboard.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.dashboard.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
data:
  {{- range $path, $_ := .Files.Glob "dashboards/*.json" }}
  {{ base $path }}: |-
    {{- $.Files.Get $path | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}
