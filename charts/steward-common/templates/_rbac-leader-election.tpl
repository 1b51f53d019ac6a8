{{/*
Leader election, when leaderElection.enabled: a Role for the one Lease, in the release namespace
only, and its RoleBinding.
*/}}
{{- define "steward-common.rbac.leaderElection" -}}
{{- if .Values.leaderElection.enabled }}
{{- $fullname := include "steward-common.fullname" . }}
# Leader election: one Lease, in the release namespace only.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $fullname }}-leader-election
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
rules:
  # `create` cannot be limited by name (the object does not exist yet); get and update can.
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [create]
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    resourceNames: [{{ include "steward-common.leaseName" . }}]
    verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $fullname }}-leader-election
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $fullname }}-leader-election
subjects:
  - kind: ServiceAccount
    name: {{ include "steward-common.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- end }}
{{- end }}
