{{/*
The chart's own rules; everything else comes from the steward-common library chart (vendored as
charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
DatabaseInstances and their connection Secrets: in the ClusterRole without watchNamespace, in a
Role in the watched namespace with it.
*/}}
{{- define "database-instance-controller.watchRules" -}}
# DatabaseInstances: cached; finalizer (JSON patch), annotations and status (merge patch)
# written by patch only, never by update.
- apiGroups: [database.steward.dev]
  resources: [databaseinstances]
  verbs: [get, list, watch, patch]
- apiGroups: [database.steward.dev]
  resources: [databaseinstances/status]
  verbs: [patch]
# Secrets are read by name only (a profile's credentials, an instance's connection Secret) and
# connection Secrets are written; never listed or watched.
- apiGroups: ['']
  resources: [secrets]
  verbs: [get, create, update, patch]
{{- end }}
