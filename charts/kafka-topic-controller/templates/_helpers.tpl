{{/*
The chart's own rules; everything else comes from the steward-common library chart (vendored as
charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
KafkaTopics: in the ClusterRole without watched namespaces, in a Role in each watched namespace
with them.
The controller writes no Secrets; it reads the TLS and SASL Secrets its ProviderProfiles name
(steward-common adds that rule).
*/}}
{{- define "kafka-topic-controller.watchRules" -}}
# KafkaTopics: cached; finalizer (JSON patch), annotations and status (merge patch) written by
# patch only, never by update.
- apiGroups: [kafka.steward.dev]
  resources: [kafkatopics]
  verbs: [get, list, watch, patch]
- apiGroups: [kafka.steward.dev]
  resources: [kafkatopics/status]
  verbs: [patch]
{{- end }}
