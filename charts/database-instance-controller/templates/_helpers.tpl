{{/*
The chart's own rules; everything else comes from the steward-common library chart (vendored as
charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
DatabaseInstances and their connection Secrets: in the ClusterRole without watched namespaces, in a
Role in each watched namespace with them.
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
# A connection Secret the controller generates is owned by its DatabaseInstance with
# blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement admission plugin allows only to
# who may update the owner's finalizers.
- apiGroups: [database.steward.dev]
  resources: [databaseinstances/finalizers]
  verbs: [update]
# Secrets are read by name only (a profile's credentials, an instance's connection Secret) and
# connection Secrets are written; never listed or watched.
- apiGroups: ['']
  resources: [secrets]
  verbs: [get, create, update, patch]
{{- end }}
