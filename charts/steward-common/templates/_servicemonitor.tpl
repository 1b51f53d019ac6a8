{{/* A Prometheus Operator ServiceMonitor for the metrics Service, when serviceMonitor.enabled.
The series get job="steward/<chart>" and instance=<pod name>, as the OpenTelemetry Collector's
Prometheus exporter names them (service.namespace/service.name, service.instance.id), so the
dashboards and alerting rules read both alike; honorLabels keeps the objects' own namespace label
on Steward's per-object health metrics. */}}
{{- define "steward-common.serviceMonitor" -}}
{{- if .Values.serviceMonitor.enabled }}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "steward-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
    {{- with .Values.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "steward-common.selectorLabels" . | nindent 6 }}
  namespaceSelector:
    matchNames:
      - {{ .Release.Namespace }}
  endpoints:
    - port: metrics
      path: /metrics
      honorLabels: true
      relabelings:
        - targetLabel: job
          replacement: steward/{{ .Chart.Name }}
        - sourceLabels: [__meta_kubernetes_pod_name]
          targetLabel: instance
      interval: {{ .Values.serviceMonitor.interval }}
      scrapeTimeout: {{ .Values.serviceMonitor.scrapeTimeout }}
{{- end }}
{{- end }}
