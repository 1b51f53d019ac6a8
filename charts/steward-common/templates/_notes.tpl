{{/*
The parts of a controller chart's NOTES.txt that every Steward controller shares. The chart's
NOTES.txt puts its own next steps (which resources to create) between the two.
*/}}

{{/*
What was installed, what it watches, its Lease and how to see that it runs. Called with a dict:
root (the chart's root context), kind (e.g. "KafkaTopic") and plural (e.g. "KafkaTopics").
*/}}
{{- define "steward-common.notes.installed" -}}
{{- $root := .root -}}
{{- $fullname := include "steward-common.fullname" $root -}}
{{- $namespaces := include "steward-common.watchNamespaces" $root | fromJsonArray -}}
The {{ .kind }} controller {{ $root.Chart.AppVersion }} is installed as release "{{ $root.Release.Name }}" in namespace "{{ $root.Release.Namespace }}".

It reconciles {{ .plural }} in {{ if eq (len $namespaces) 1 }}namespace "{{ first $namespaces }}"{{ else if $namespaces }}namespaces "{{ join "\", \"" $namespaces }}"{{ else }}every namespace{{ end }}, against the cluster-scoped ProviderProfiles.
{{- if $root.Values.watchNamespace }}
watchNamespace is deprecated: set watchNamespaces: [{{ $root.Values.watchNamespace }}] instead.
{{- end }}
{{- if $root.Values.leaderElection.enabled }}
Leader election: Lease "{{ include "steward-common.leaseName" $root }}" in "{{ $root.Release.Namespace }}" ({{ $root.Values.replicas }} replica(s), one leader).
{{- end }}

Check that it runs:

  kubectl -n {{ $root.Release.Namespace }} rollout status deployment/{{ $fullname }}
  kubectl -n {{ $root.Release.Namespace }} logs deployment/{{ $fullname }}
{{- end }}

{{/* Where the metrics and the dashboard are. Called with the chart's root context. */}}
{{- define "steward-common.notes.observability" -}}
{{- $fullname := include "steward-common.fullname" . -}}
Metrics: service/{{ $fullname }}-metrics, port "metrics" ({{ .Values.service.port }}), path /metrics.
{{- if .Values.serviceMonitor.enabled }}
A ServiceMonitor selects it for Prometheus.
{{- end }}
{{- if .Values.dashboard.enabled }}
Grafana dashboard: ConfigMap "{{ $fullname }}-dashboard" (label grafana_dashboard: "1") in "{{ default .Release.Namespace .Values.dashboard.namespace }}".
{{- end }}
{{- end }}
