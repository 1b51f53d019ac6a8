{{/*
The controller's RBAC, least privilege: a ClusterRole for what is cluster-wide, and with
watchNamespace set, Roles for what is namespaced. Called with a dict:
  root                  the controller chart's root context (`.`)
  watchRules            YAML list of the rules on the kinds the controller watches (and, for a
                        controller that writes Secrets next to them, on those Secrets): in the
                        ClusterRole without watchNamespace, in a Role in the watched namespace with it
  watchRulesReadSecrets true when watchRules already grant `get` on Secrets; otherwise ProviderProfiles'
                        Secrets get a rule of their own wherever they may be read
What every Steward controller needs besides (ProviderProfiles, Events, the Secrets profiles name)
is added here.
*/}}

{{/* ProviderProfiles are cluster-scoped: these rules are always in the ClusterRole. */}}
{{- define "steward-common.rbac.providerProfileRules" -}}
# The profile controller caches profiles, adds and removes its steward.dev/in-use finalizer and
# writes their status, all by patch.
- apiGroups: [steward.dev]
  resources: [providerprofiles]
  verbs: [get, list, watch, patch]
- apiGroups: [steward.dev]
  resources: [providerprofiles/status]
  verbs: [patch]
{{- end }}

{{- define "steward-common.rbac.eventRules" -}}
# Event series: created, then their count patched.
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, patch]
{{- end }}

{{- define "steward-common.rbac.profileSecretRules" -}}
# The Secrets ProviderProfiles name (credentials, TLS, SASL), read by name only; never listed or
# watched.
- apiGroups: ['']
  resources: [secrets]
  verbs: [get]
{{- end }}

{{/*
The ClusterRole and its binding. Without watchNamespace it holds every rule. With it, only the
ProviderProfile rules, and `get` on Secrets when rbac.credentialsSecretNamespaces is empty: a
cluster-scoped ProviderProfile may name a Secret in any namespace.
*/}}
{{- define "steward-common.rbac.cluster" -}}
{{- $root := .root }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "steward-common.clusterName" $root }}
  labels:
    {{- include "steward-common.labels" $root | nindent 4 }}
rules:
  {{- include "steward-common.rbac.providerProfileRules" $root | nindent 2 }}
  {{- if not $root.Values.watchNamespace }}
  {{- .watchRules | nindent 2 }}
  {{- if not .watchRulesReadSecrets }}
  {{- include "steward-common.rbac.profileSecretRules" $root | nindent 2 }}
  {{- end }}
  {{- include "steward-common.rbac.eventRules" $root | nindent 2 }}
  {{- else if not $root.Values.rbac.credentialsSecretNamespaces }}
  {{- include "steward-common.rbac.profileSecretRules" $root | nindent 2 }}
  {{- end }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ include "steward-common.clusterName" $root }}
  labels:
    {{- include "steward-common.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ include "steward-common.clusterName" $root }}
subjects:
  - kind: ServiceAccount
    name: {{ include "steward-common.serviceAccountName" $root }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}

{{/*
With watchNamespace set, the namespaced permissions are granted per namespace:
- in the watched namespace, watchRules and Events (and `get` on Secrets when it is one of
  rbac.credentialsSecretNamespaces and watchRules do not grant it);
- in `default`, Events about cluster-scoped objects (ProviderProfiles), which the event recorder
  writes there as client-go does;
- in each other namespace of rbac.credentialsSecretNamespaces, `get` on Secrets.
Without watchNamespace, nothing.
*/}}
{{- define "steward-common.rbac.namespaced" -}}
{{- $args := . }}
{{- $root := .root }}
{{- with $root.Values.watchNamespace }}
{{- $ns := . }}
{{- $fullname := include "steward-common.fullname" $root }}
{{- $labels := include "steward-common.labels" $root }}
{{- $subject := include "steward-common.serviceAccountName" $root }}
{{- $credentialNamespaces := $root.Values.rbac.credentialsSecretNamespaces | default list | uniq }}
{{- $roles := list (dict "name" $fullname "namespace" $ns "kind" "watch") }}
{{- if ne $ns "default" }}
{{- $roles = append $roles (dict "name" (printf "%s-events" $fullname) "namespace" "default" "kind" "events") }}
{{- end }}
{{- range $credentialNamespaces }}
{{- if ne . $ns }}
{{- $roles = append $roles (dict "name" (printf "%s-credentials" $fullname) "namespace" . "kind" "credentials") }}
{{- end }}
{{- end }}
{{- range $roles }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    {{- $labels | nindent 4 }}
rules:
  {{- if eq .kind "watch" }}
  {{- $args.watchRules | nindent 2 }}
  {{- if and (not $args.watchRulesReadSecrets) (has $ns $credentialNamespaces) }}
  {{- include "steward-common.rbac.profileSecretRules" $root | nindent 2 }}
  {{- end }}
  {{- end }}
  {{- if ne .kind "credentials" }}
  {{- include "steward-common.rbac.eventRules" $root | nindent 2 }}
  {{- else }}
  {{- include "steward-common.rbac.profileSecretRules" $root | nindent 2 }}
  {{- end }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    {{- $labels | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ $subject }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end }}
{{- end }}
