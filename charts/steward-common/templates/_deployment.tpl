{{/*
The controller's Deployment: one container running the app with its configuration in STEWARD_*
variables, non-root, read-only root filesystem (an emptyDir at /tmp is the only writable path),
seccomp RuntimeDefault, no capabilities, probes on /healthz and /readyz. Admitted under the
`restricted` Pod Security Standard.

Called with the chart's root context (`.`), or, for a chart whose controller reads variables of its
own, with a dict: root (the root context) and env (YAML list of Kubernetes EnvVars, rendered by the
chart's own template), put after the variables every controller reads and before extraEnv.
*/}}
{{- define "steward-common.deployment" -}}
{{- $env := "" }}
{{- $root := . }}
{{- if hasKey . "root" }}
{{- $env = .env }}
{{- $root = .root }}
{{- end }}
{{- with $root }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "steward-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "steward-common.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "steward-common.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "steward-common.labels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "steward-common.serviceAccountName" . }}
      # The controller talks to the API server with this token; the ServiceAccount itself does not
      # automount it for other pods.
      automountServiceAccountToken: true
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        fsGroup: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: controller
          image: {{ include "steward-common.image" . | quote }}
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          env:
            # Comma-separated; empty: every namespace (watchNamespaces, or the deprecated watchNamespace).
            - name: STEWARD_WATCH_NAMESPACES
              value: {{ include "steward-common.watchNamespaces" . | fromJsonArray | join "," | quote }}
            - name: STEWARD_PROBE_PORT
              value: {{ .Values.probePort | quote }}
            - name: STEWARD_LEADER_ELECT
              value: {{ .Values.leaderElection.enabled | quote }}
            - name: STEWARD_LOG_LEVEL
              value: {{ .Values.logLevel | quote }}
            - name: STEWARD_MAX_CONCURRENT_RECONCILES
              value: {{ .Values.maxConcurrentReconciles | quote }}
            - name: STEWARD_POLL_INTERVAL_SECONDS
              value: {{ .Values.pollIntervalSeconds | quote }}
            {{- if kindIs "bool" .Values.manageProviderProfiles }}
            - name: STEWARD_MANAGE_PROVIDER_PROFILES
              value: {{ .Values.manageProviderProfiles | quote }}
            {{- end }}
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- with .Values.otel.endpoint }}
            - name: OTEL_EXPORTER_OTLP_ENDPOINT
              value: {{ . | quote }}
            {{- end }}
            {{- /* the chart's own variables, except those extraEnv sets (extraEnv wins) */}}
            {{- $extraNames := list }}
            {{- range .Values.extraEnv }}
            {{- $extraNames = append $extraNames .name }}
            {{- end }}
            {{- with $env }}
            {{- range (fromYamlArray .) }}
            {{- if not (has .name $extraNames) }}
            {{- list . | toYaml | nindent 12 }}
            {{- end }}
            {{- end }}
            {{- end }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: http
              containerPort: {{ .Values.probePort }}
              protocol: TCP
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: 10
            periodSeconds: 10
            timeoutSeconds: 2
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 3
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            runAsNonRoot: true
            runAsUser: 65532
            runAsGroup: 65532
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            privileged: false
            capabilities:
              drop: [ALL]
            seccompProfile:
              type: RuntimeDefault
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        # The only writable path: the root filesystem is read-only.
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml .Values.topologySpreadConstraints | nindent 8 }}
      {{- else if gt (int .Values.replicas) 1 }}
      # Standbys on other nodes than the leader, where the nodes allow it.
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "steward-common.selectorLabels" . | nindent 14 }}
      {{- end }}
{{- end }}
{{- end }}
