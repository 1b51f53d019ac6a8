{{/* The controller chart's alerting rules (alerts/<chart>.rules.yaml, generated with its
dashboard) as a Prometheus Operator PrometheusRule, when prometheusRule.enabled. Every rule selects
job="steward/<chart>", the job both the ServiceMonitor and the OpenTelemetry Collector's Prometheus
exporter give the controller's metrics. */}}
{{- define "steward-common.prometheusRule" -}}
{{- if .Values.prometheusRule.enabled }}
{{- $file := printf "alerts/%s.rules.yaml" .Chart.Name }}
{{- $rules := .Files.Get $file | fromYaml }}
{{- if not $rules.groups }}
{{- fail (printf "%s holds no rule groups: regenerate it with tools/scripts/generate-charts.ts" $file) }}
{{- end }}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ include "steward-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
    {{- with .Values.prometheusRule.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  groups:
    {{- toYaml $rules.groups | nindent 4 }}
{{- end }}
{{- end }}
