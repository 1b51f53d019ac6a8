{{/*
The chart's own rules and environment; everything else comes from the steward-common library chart
(vendored as charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
PostgresClusters and everything the controller runs them with: in the ClusterRole without watched
namespaces, in a Role in each watched namespace with them. These rules grant `get` on Secrets
(the superuser and application Secrets are children, and the controller reads the superuser's to
connect to PostgreSQL), so steward-common adds a profile-Secret rule (for a kubernetes profile's
backup.credentialsSourceSecretRef, readsProfileSecrets true) only in the namespaces of
rbac.credentialsSecretNamespaces outside the watched ones (watchRulesReadSecrets). Nothing is ever
updated but the finalizers subresource; nothing is deleted but children, volumes and the pods
the controller restarts one at a time (its StatefulSet rolls OnDelete).
*/}}
{{- define "postgres-cluster-controller.watchRules" -}}
# PostgresClusters: cached; the cleanup finalizer added and removed by (JSON) patch, status by merge
# patch; never updated.
- apiGroups: [postgres.steward.dev]
  resources: [postgresclusters]
  verbs: [get, list, watch, patch]
- apiGroups: [postgres.steward.dev]
  resources: [postgresclusters/status]
  verbs: [patch]
# The children's ownerReferences set blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement
# admission plugin allows only to who may update the owner's finalizers.
- apiGroups: [postgres.steward.dev]
  resources: [postgresclusters/finalizers]
  verbs: [update]
# The children, cached by label: applied server-side (patch; create when absent), the generated
# superuser and application Secrets created once, pruned when no longer wanted (delete), detached
# from their PostgresCluster on Retain (patch).
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
# The PostgreSQL pods (the StatefulSet creates them): observed; their role label patched so that the
# read-write and read-only Services follow the roles, their instruction annotation patched (the
# instance agent reads it through the downward API); deleted one at a time to roll a changed
# template (the StatefulSet's update strategy is OnDelete: standbys first, the primary last).
- apiGroups: ['']
  resources: [pods]
  verbs: [get, list, watch, patch, delete]
# The StatefulSet's volumes: grown by patch, detached on Retain, deleted with a PostgresCluster whose
# deletionPolicy is Delete.
- apiGroups: ['']
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, patch, delete]
# The Events of a pod or volume stuck for a while (listed by involvedObject, only then): how the
# PostgresCluster names a volume not provisioned or a Secret a volume cannot mount.
- apiGroups: ['']
  resources: [events]
  verbs: [list]
# Base backups (spec.backup, PostgresBackups, the final backup of a deletion) and restore rehearsals:
# one Job each, created by the controller (never updated), cached by label, deleted only by their TTL
# or with the PostgresCluster (owner reference).
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch, create]
# PostgresBackups (on-demand backups): cached (the PostgresCluster controller starts their Jobs), their
# finalizer added and removed by patch, status by merge patch.
- apiGroups: [postgres.steward.dev]
  resources: [postgresbackups]
  verbs: [get, list, watch, patch]
- apiGroups: [postgres.steward.dev]
  resources: [postgresbackups/status]
  verbs: [patch]
# The instances' own ServiceAccount, Role and RoleBinding (children, like the above): the Role lets
# the instances get and patch their cluster's fence Lease by name and nothing else. RBAC lets the
# controller grant only what it holds: the lease rule below.
- apiGroups: ['']
  resources: [serviceaccounts]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [get, list, watch, create, patch, delete]
# The fence's Lease (<name>-primary), which the primary's instance agent renews: cached; created,
# and taken for a new primary by an update preconditioned on the version read (a failover), owned
# by the PostgresCluster (garbage-collected with it). get and patch are what the instances' Role
# grants, which the controller must hold itself.
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, list, watch, create, update, patch]
{{- end }}

{{/* The chart's selector labels as `k=v,k=v`, sorted by key: STEWARD_CONTROLLER_POD_LABELS. */}}
{{- define "postgres-cluster-controller.podLabels" -}}
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
{{- define "postgres-cluster-controller.env" -}}
- name: STEWARD_BUSY_POLL_INTERVAL_SECONDS
  value: {{ .Values.busyPollIntervalSeconds | quote }}
- name: STEWARD_DEFAULT_PROVIDER_PROFILE
  value: {{ .Values.defaultProviderProfile | quote }}
# Every PostgresCluster's NetworkPolicy admits the controller's pods (these labels, in
# POD_NAMESPACE) to the PostgreSQL port.
- name: STEWARD_CONTROLLER_POD_LABELS
  value: {{ include "postgres-cluster-controller.podLabels" . | quote }}
{{- end }}
