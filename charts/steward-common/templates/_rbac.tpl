{{/*
The controller's RBAC, least privilege: a ClusterRole for what is cluster-wide, and with
watchNamespace set, Roles for what is namespaced. Called with a dict:
  root                  the controller chart's root context (`.`)
  watchRules            YAML list of the rules on the kinds the controller watches (and, for a
                        controller that writes Secrets next to them, on those Secrets): in the
                        ClusterRole without watchNamespace, in a Role in the watched namespace with it
  watchRulesReadSecrets true when watchRules already grant `get` on Secrets; otherwise ProviderProfiles'
                        Secrets get a rule of their own wherever they may be read
  readsProfileSecrets   optional, default true. false: the process reads no Secret a ProviderProfile
                        names (its providers' profiles name none, e.g. kubernetes): no profile-Secret
                        rule anywhere, and a non-empty rbac.credentialsSecretNamespaces is refused
                        rather than ignored
  profileRulesWhenManaged
                        optional, default false. true: the ProviderProfile controller's own
                        permissions (patch on profiles and their status, Events in `default` about
                        them) only when it runs (see "steward-common.manageProviderProfiles"); the
                        chart's controller then gets only get/list/watch on ProviderProfiles
                        otherwise. false: always, as if it ran
What every Steward controller needs besides (ProviderProfiles, Events, the Secrets profiles name)
is added here.
*/}}

{{/*
"true" when the process runs the ProviderProfile controller, as libs/controller-process decides
STEWARD_MANAGE_PROVIDER_PROFILES: manageProviderProfiles when it is a boolean, else on without
watchNamespace and off with it. Called with the chart's root context.
*/}}
{{- define "steward-common.manageProviderProfiles" -}}
{{- if kindIs "bool" .Values.manageProviderProfiles }}
{{- .Values.manageProviderProfiles }}
{{- else }}
{{- not .Values.watchNamespace }}
{{- end }}
{{- end }}

{{/*
The ProviderProfile rules of the dict's chart (see above): in full, or only the read rules when
profileRulesWhenManaged is set and the ProviderProfile controller does not run.
*/}}
{{- define "steward-common.rbac.profileRulesOf" -}}
{{- if and .profileRulesWhenManaged (ne (include "steward-common.manageProviderProfiles" .root) "true") }}
{{- include "steward-common.rbac.providerProfileReadRules" .root }}
{{- else }}
{{- include "steward-common.rbac.providerProfileRules" .root }}
{{- end }}
{{- end }}

{{/*
Whether the dict's chart reads the Secrets its ProviderProfiles name: "true" unless
readsProfileSecrets is false. A chart that reads none refuses rbac.credentialsSecretNamespaces.
*/}}
{{- define "steward-common.rbac.readsProfileSecrets" -}}
{{- if and (hasKey . "readsProfileSecrets") (not .readsProfileSecrets) }}
{{- with .root.Values.rbac.credentialsSecretNamespaces }}
{{- fail (printf "rbac.credentialsSecretNamespaces is not used by %s: its controller reads no Secret that a ProviderProfile names; leave it empty" $.root.Chart.Name) }}
{{- end }}
{{- false }}
{{- else }}
{{- true }}
{{- end }}
{{- end }}

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

{{/* ProviderProfiles as a controller that only resolves them sees them: cached, never written. */}}
{{- define "steward-common.rbac.providerProfileReadRules" -}}
# ProviderProfiles: cached (each object's profile is resolved from them), never written; no
# ProviderProfile controller runs in this process.
- apiGroups: [steward.dev]
  resources: [providerprofiles]
  verbs: [get, list, watch]
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
cluster-scoped ProviderProfile may name a Secret in any namespace (none with readsProfileSecrets
false).
*/}}
{{- define "steward-common.rbac.cluster" -}}
{{- $root := .root }}
{{- $profileSecrets := eq (include "steward-common.rbac.readsProfileSecrets" .) "true" }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "steward-common.clusterName" $root }}
  labels:
    {{- include "steward-common.labels" $root | nindent 4 }}
rules:
  {{- include "steward-common.rbac.profileRulesOf" . | nindent 2 }}
  {{- if not $root.Values.watchNamespace }}
  {{- .watchRules | nindent 2 }}
  {{- if and $profileSecrets (not .watchRulesReadSecrets) }}
  {{- include "steward-common.rbac.profileSecretRules" $root | nindent 2 }}
  {{- end }}
  {{- include "steward-common.rbac.eventRules" $root | nindent 2 }}
  {{- else if and $profileSecrets (not $root.Values.rbac.credentialsSecretNamespaces) }}
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
  writes there as client-go does (with profileRulesWhenManaged, only when the ProviderProfile
  controller runs: nothing else reports on them);
- in each other namespace of rbac.credentialsSecretNamespaces, `get` on Secrets (unless
  readsProfileSecrets is false).
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
{{- $profileSecrets := eq (include "steward-common.rbac.readsProfileSecrets" $args) "true" }}
{{- $credentialNamespaces := list }}
{{- if $profileSecrets }}
{{- $credentialNamespaces = $root.Values.rbac.credentialsSecretNamespaces | default list | uniq }}
{{- end }}
{{- $profileEvents := or (not $args.profileRulesWhenManaged) (eq (include "steward-common.manageProviderProfiles" $root) "true") }}
{{- $roles := list (dict "name" $fullname "namespace" $ns "kind" "watch") }}
{{- if and $profileEvents (ne $ns "default") }}
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
