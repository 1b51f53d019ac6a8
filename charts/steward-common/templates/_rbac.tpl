{{/*
The controller's RBAC, least privilege: a ClusterRole for what is cluster-wide, and with watched
namespaces (watchNamespaces, or the deprecated watchNamespace), a Role per watched namespace for
what is namespaced. Called with a dict:
  root                  the controller chart's root context (`.`)
  watchRules            YAML list of the rules on the kinds the controller watches (and, for a
                        controller that writes Secrets next to them, on those Secrets): in the
                        ClusterRole without watched namespaces, in a Role in each watched namespace
                        with them
  watchRulesReadSecrets true when watchRules already grant `get` on Secrets; otherwise ProviderProfiles'
                        Secrets get a rule of their own wherever they may be read
  readsProfileSecrets   optional, default true. false: the process reads no Secret a ProviderProfile
                        names (its providers' profiles name none, e.g. kubernetes): no profile-Secret
                        rule anywhere, and a non-empty rbac.credentialsSecretNamespaces is refused
                        rather than ignored
  legacyWatchNamespaceSecrets
                        optional, default true. false: the deprecated watchNamespace with an empty
                        rbac.credentialsSecretNamespaces grants no cluster-wide `get` on Secrets
                        (for a chart that began reading profile Secrets after watchNamespaces
                        existed, so no installation relies on it)
  profileRulesWhenManaged
                        optional, default false. true: the ProviderProfile controller's own
                        permissions (patch on profiles and their status, Events in `default` about
                        them) only when it runs (see "steward-common.manageProviderProfiles"); the
                        chart's controller then gets only get/list/watch on ProviderProfiles
                        otherwise. false: always, as if it ran
What every Steward controller needs besides (ProviderProfiles, Namespaces, Events, the Secrets
profiles name) is added here.

Where the Secrets ProviderProfiles name may be read (`get`, by name), for a chart that reads them:
  - rbac.credentialsSecretNamespaces set: in those namespaces only, in every mode (a Role each, or
    the rule in a watched namespace's Role);
  - empty, every namespace watched: everywhere (a cluster-scoped profile may name a Secret in any
    namespace, and nobody said which);
  - empty, with the deprecated watchNamespace: everywhere, as before watchNamespaces existed;
  - empty, with watchNamespaces: nowhere. A namespaced installation never reads Secrets
    cluster-wide: name the credentials' namespaces.
A chart whose watchRules grant `get` on Secrets (it writes Secrets next to its objects) reads any
Secret wherever it watches: every namespace without watched namespaces, whatever the list says.

A label selector of namespaces cannot be expressed in RBAC (a Role is bound in a namespace named
in advance), so the charts offer none: watching "the namespaces labelled x" would need every
namespaced rule cluster-wide, which is what watchNamespaces exists to avoid.
*/}}

{{/*
The watched namespaces as a JSON list, sorted, without repeats: watchNamespaces, or the
deprecated watchNamespace as a list of one; `[]` for every namespace. Setting both is refused.
Called with the chart's root context.
*/}}
{{- define "steward-common.watchNamespaces" -}}
{{- $namespaces := .Values.watchNamespaces | default list }}
{{- with .Values.watchNamespace }}
{{- if $namespaces }}
{{- fail "watchNamespace is deprecated and replaced by watchNamespaces: set watchNamespaces only (add the namespace of watchNamespace to it)" }}
{{- end }}
{{- $namespaces = list . }}
{{- end }}
{{- $namespaces | uniq | sortAlpha | toJson }}
{{- end }}

{{/*
"true" when the process runs the ProviderProfile controller, as libs/controller-process decides
STEWARD_MANAGE_PROVIDER_PROFILES: manageProviderProfiles when it is a boolean, else on when every
namespace is watched and off with watched namespaces. Called with the chart's root context.
*/}}
{{- define "steward-common.manageProviderProfiles" -}}
{{- if kindIs "bool" .Values.manageProviderProfiles }}
{{- .Values.manageProviderProfiles }}
{{- else }}
{{- not (include "steward-common.watchNamespaces" . | fromJsonArray) }}
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

{{/*
The namespaces where the dict's chart may read the Secrets its ProviderProfiles name, as a JSON
list without repeats (rbac.credentialsSecretNamespaces); `[]` when it reads none.
*/}}
{{- define "steward-common.rbac.credentialNamespaces" -}}
{{- if eq (include "steward-common.rbac.readsProfileSecrets" .) "true" }}
{{- .root.Values.rbac.credentialsSecretNamespaces | default list | uniq | toJson }}
{{- else }}
{{- list | toJson }}
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

{{/*
Namespaces are cluster-scoped: always in the ClusterRole, in every mode (the cache holds every
namespace's labels, which a ProviderProfile's spec.namespaceSelector is matched against).
*/}}
{{- define "steward-common.rbac.namespaceRules" -}}
# Namespaces: cached for their labels (a ProviderProfile's spec.namespaceSelector), never written.
- apiGroups: ['']
  resources: [namespaces]
  verbs: [get, list, watch]
{{- end }}

{{/*
Nodes are cluster-scoped: in the ClusterRole, in every mode, for a workload controller that
follows drains (readsNodes): whether its primary's node is cordoned, from its cache.
*/}}
{{- define "steward-common.rbac.nodeRules" -}}
# Nodes: cached to see a drain coming (a cordoned node), never written.
- apiGroups: ['']
  resources: [nodes]
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
The ClusterRole and its binding. Without watched namespaces it holds every rule, but the
profile-Secret rule only while rbac.credentialsSecretNamespaces is empty (the `<fullname>-credentials`
Roles grant it otherwise). With watched namespaces, only the cluster-scoped rules (ProviderProfiles,
Namespaces), and `get` on Secrets for the deprecated watchNamespace when
rbac.credentialsSecretNamespaces is empty (none with readsProfileSecrets false).
*/}}
{{- define "steward-common.rbac.cluster" -}}
{{- $root := .root }}
{{- $profileSecrets := eq (include "steward-common.rbac.readsProfileSecrets" .) "true" }}
{{- $namespaces := include "steward-common.watchNamespaces" $root | fromJsonArray }}
{{- $credentialNamespaces := include "steward-common.rbac.credentialNamespaces" . | fromJsonArray }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "steward-common.clusterName" $root }}
  labels:
    {{- include "steward-common.labels" $root | nindent 4 }}
rules:
  {{- include "steward-common.rbac.profileRulesOf" . | nindent 2 }}
  {{- include "steward-common.rbac.namespaceRules" $root | nindent 2 }}
  {{- if .readsNodes }}
  {{- include "steward-common.rbac.nodeRules" $root | nindent 2 }}
  {{- end }}
  {{- if not $namespaces }}
  {{- .watchRules | nindent 2 }}
  {{- if and $profileSecrets (not .watchRulesReadSecrets) (not $credentialNamespaces) }}
  {{- include "steward-common.rbac.profileSecretRules" $root | nindent 2 }}
  {{- end }}
  {{- include "steward-common.rbac.eventRules" $root | nindent 2 }}
  {{- else if and $profileSecrets $root.Values.watchNamespace (not $credentialNamespaces) (or (not (hasKey . "legacyWatchNamespaceSecrets")) .legacyWatchNamespaceSecrets) }}
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
The Roles and their bindings:
- in each watched namespace (watchNamespaces, or the deprecated watchNamespace), `<fullname>`:
  watchRules and Events (and `get` on Secrets when it is one of rbac.credentialsSecretNamespaces and
  watchRules do not grant it);
- with watched namespaces, in `default` unless it is watched, `<fullname>-events`: Events about
  cluster-scoped objects (ProviderProfiles), which the event recorder writes there as client-go does
  (with profileRulesWhenManaged, only when the ProviderProfile controller runs: nothing else reports
  on them);
- in each other namespace of rbac.credentialsSecretNamespaces, `<fullname>-credentials`: `get` on
  Secrets (unless readsProfileSecrets is false; without watched namespaces, only when watchRules do
  not grant `get` on Secrets everywhere already).
*/}}
{{- define "steward-common.rbac.namespaced" -}}
{{- $args := . }}
{{- $root := .root }}
{{- $namespaces := include "steward-common.watchNamespaces" $root | fromJsonArray }}
{{- $fullname := include "steward-common.fullname" $root }}
{{- $labels := include "steward-common.labels" $root }}
{{- $subject := include "steward-common.serviceAccountName" $root }}
{{- $credentialNamespaces := include "steward-common.rbac.credentialNamespaces" $args | fromJsonArray }}
{{- $profileEvents := or (not $args.profileRulesWhenManaged) (eq (include "steward-common.manageProviderProfiles" $root) "true") }}
{{- $roles := list }}
{{- range $namespaces }}
{{- $roles = append $roles (dict "name" $fullname "namespace" . "kind" "watch") }}
{{- end }}
{{- if and $namespaces $profileEvents (not (has "default" $namespaces)) }}
{{- $roles = append $roles (dict "name" (printf "%s-events" $fullname) "namespace" "default" "kind" "events") }}
{{- end }}
{{- if or $namespaces (not $args.watchRulesReadSecrets) }}
{{- range $credentialNamespaces }}
{{- if not (has . $namespaces) }}
{{- $roles = append $roles (dict "name" (printf "%s-credentials" $fullname) "namespace" . "kind" "credentials") }}
{{- end }}
{{- end }}
{{- end }}
{{- range $roles }}
{{- $ns := .namespace }}
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
