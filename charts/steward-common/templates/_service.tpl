{{/* The metrics Service: port "metrics" to the probe port, which serves /metrics. */}}
{{- define "steward-common.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "steward-common.fullname" . }}-metrics
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
  {{- with .Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: ClusterIP
  selector:
    {{- include "steward-common.selectorLabels" . | nindent 4 }}
  ports:
    - name: metrics
      port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
{{- end }}
