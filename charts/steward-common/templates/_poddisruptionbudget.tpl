{{/* A PodDisruptionBudget when replicas > 1: a standby stays up through voluntary disruptions. */}}
{{- define "steward-common.podDisruptionBudget" -}}
{{- if and .Values.podDisruptionBudget.enabled (gt (int .Values.replicas) 1) }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "steward-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ .Values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "steward-common.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}
