{{/*
Names and labels of a Steward controller chart's objects. Every template here is called with the
controller chart's root context (`.`), so `.Chart` is the controller chart, not this library.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "steward-common.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of namespaced objects: fullnameOverride, else the release name when it already
contains the chart name, else "<release>-<chart>"; 63 characters at most (DNS label).
*/}}
{{- define "steward-common.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The name of cluster-scoped objects (ClusterRole, ClusterRoleBinding): prefixed with the release
namespace, so that releases of the same name in different namespaces (one per watched namespace)
do not overwrite each other's.
*/}}
{{- define "steward-common.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "steward-common.fullname" .) }}
{{- end }}

{{/* "<chart>-<version>" for the helm.sh/chart label. */}}
{{- define "steward-common.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object carries. */}}
{{- define "steward-common.labels" -}}
helm.sh/chart: {{ include "steward-common.chart" . }}
{{ include "steward-common.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: steward
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The labels the Deployment, Service, PDB and ServiceMonitor select pods by; immutable. */}}
{{- define "steward-common.selectorLabels" -}}
app.kubernetes.io/name: {{ include "steward-common.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the controller runs as. */}}
{{- define "steward-common.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "steward-common.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The container image: repository:tag, or repository@digest when a digest is set. */}}
{{- define "steward-common.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The Lease the controller's leader election uses. The controller names it "<app>-leader", and each
app's chart is named after the app; nameOverride does not change it.
*/}}
{{- define "steward-common.leaseName" -}}
{{- printf "%s-leader" .Chart.Name }}
{{- end }}
