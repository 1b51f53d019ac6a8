{{/* The ServiceAccount, unless serviceAccount.create is false. */}}
{{- define "steward-common.serviceAccount" -}}
{{- if .Values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "steward-common.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# Only the controller's pod mounts a token (it asks for one in its own spec); anything else that
# happens to run as this ServiceAccount gets none.
automountServiceAccountToken: false
{{- end }}
{{- end }}
