{{/*
The controller's NetworkPolicy: its pods accept connections only on the probe port (health probes,
/metrics) and only from networkPolicy.metricsFrom. Nothing else reaches them — the controller serves
no other port (no webhook: admission is CEL and ValidatingAdmissionPolicies). Egress is not
restricted: it reaches the API server, the servers it manages and the provider APIs, whose
addresses the chart cannot know.
*/}}
{{- define "steward-common.networkPolicy" -}}
{{- if .Values.networkPolicy.enabled }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "steward-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "steward-common.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress]
  ingress:
    - ports:
        - protocol: TCP
          port: {{ .Values.probePort }}
      {{- with .Values.networkPolicy.metricsFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end }}
