{{/*
The chart's own rules; everything else comes from the steward-common library chart (vendored as
charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
CacheClusters: in the ClusterRole without watchNamespace, in a Role in the watched namespace with it. The
controller reads them from its cache and writes only their status, by patch.
*/}}
{{- define "cache-cluster-controller.watchRules" -}}
- apiGroups: [cache.steward.dev]
  resources: [cacheclusters]
  verbs: [get, list, watch]
- apiGroups: [cache.steward.dev]
  resources: [cacheclusters/status]
  verbs: [patch]
{{- end }}
