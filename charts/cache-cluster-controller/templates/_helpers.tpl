{{/*
The chart's own rules and environment; everything else comes from the steward-common library chart
(vendored as charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
CacheClusters and everything the controller runs them with: in the ClusterRole without watched
namespaces, in a Role in each watched namespace with them. These rules grant `get` on Secrets
(the auth Secrets are children), and kubernetes ProviderProfiles name no Secret, so steward-common
adds no profile-Secret rule (watchRulesReadSecrets, readsProfileSecrets false). Nothing is ever
updated but the finalizers subresource; nothing is deleted but children and volumes.
*/}}
{{- define "cache-cluster-controller.watchRules" -}}
# CacheClusters: cached; the cleanup finalizer added and removed by (JSON) patch, status by merge
# patch; never updated.
- apiGroups: [cache.steward.dev]
  resources: [cacheclusters]
  verbs: [get, list, watch, patch]
- apiGroups: [cache.steward.dev]
  resources: [cacheclusters/status]
  verbs: [patch]
# The children's ownerReferences set blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement
# admission plugin allows only to who may update the owner's finalizers.
- apiGroups: [cache.steward.dev]
  resources: [cacheclusters/finalizers]
  verbs: [update]
# The children, cached by label: applied server-side (patch; create when absent), the generated auth
# Secret created once, pruned when no longer wanted (delete), detached from their CacheCluster on
# Retain (patch). Secrets also: the user's spec.auth.existingSecret, read by name in its namespace.
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: ['']
  resources: [services, configmaps, secrets]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [get, list, watch, create, patch, delete]
# The Redis/Valkey pods (the StatefulSet creates them): observed, the primary's role label patched so
# that the read-write Service follows it, and deleted one at a time by the controller's own rolling
# update (the StatefulSet's updateStrategy is OnDelete; it re-creates them on the new template).
- apiGroups: ['']
  resources: [pods]
  verbs: [get, list, watch, patch, delete]
# The StatefulSet's volumes: grown by patch, detached on Retain, deleted with a CacheCluster whose
# deletionPolicy is Delete.
- apiGroups: ['']
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, patch, delete]
# The Events of a pod or volume stuck for a while (listed by involvedObject, only then): how the
# CacheCluster names a volume not provisioned or a Secret a volume cannot mount.
- apiGroups: ['']
  resources: [events]
  verbs: [list]
{{- end }}

{{/* The chart's selector labels as `k=v,k=v`, sorted by key: STEWARD_CONTROLLER_POD_LABELS. */}}
{{- define "cache-cluster-controller.podLabels" -}}
{{- $pairs := list }}
{{- range $key, $value := include "steward-common.selectorLabels" . | fromYaml }}
{{- $pairs = append $pairs (printf "%s=%s" $key $value) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{/*
The variables only this controller reads (libs/controller-process/src/workload-settings.ts), and
STEWARD_BUSY_POLL_INTERVAL_SECONDS, which every controller process reads but only this chart sets:
steward-common's Deployment puts them before extraEnv.
*/}}
{{- define "cache-cluster-controller.env" -}}
- name: STEWARD_BUSY_POLL_INTERVAL_SECONDS
  value: {{ .Values.busyPollIntervalSeconds | quote }}
- name: STEWARD_DEFAULT_PROVIDER_PROFILE
  value: {{ .Values.defaultProviderProfile | quote }}
# Every CacheCluster's NetworkPolicy admits the controller's pods (these labels, in POD_NAMESPACE)
# to the Redis port.
- name: STEWARD_CONTROLLER_POD_LABELS
  value: {{ include "cache-cluster-controller.podLabels" . | quote }}
{{- end }}
