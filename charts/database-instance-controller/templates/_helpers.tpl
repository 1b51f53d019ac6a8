{{/*
Names and labels shared by every template of the chart.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "database-instance-controller.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of namespaced objects: fullnameOverride, else the release name when it already
contains the chart name, else "<release>-<chart>"; 63 characters at most (DNS label).
*/}}
{{- define "database-instance-controller.fullname" -}}
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
{{- define "database-instance-controller.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "database-instance-controller.fullname" .) }}
{{- end }}

{{/* "<chart>-<version>" for the helm.sh/chart label. */}}
{{- define "database-instance-controller.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object carries. */}}
{{- define "database-instance-controller.labels" -}}
helm.sh/chart: {{ include "database-instance-controller.chart" . }}
{{ include "database-instance-controller.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: steward
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The labels the Deployment, Service, PDB and ServiceMonitor select pods by; immutable. */}}
{{- define "database-instance-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "database-instance-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the controller runs as. */}}
{{- define "database-instance-controller.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "database-instance-controller.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The container image: repository:tag, or repository@digest when a digest is set. */}}
{{- define "database-instance-controller.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Lease the controller's leader election uses; its name is fixed by the controller. */}}
{{- define "database-instance-controller.leaseName" -}}
database-instance-controller-leader
{{- end }}
