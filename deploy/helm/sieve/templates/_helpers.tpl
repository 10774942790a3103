{{/* Names and labels. */}}
{{- define "sieve.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sieve.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "sieve.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sieve.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one role: (dict "root" $ "component" "collector"). */}}
{{- define "sieve.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sieve.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "sieve.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The Secret holding SIEVE_API_KEYS, SIEVE_METRICS_TOKEN, CLICKHOUSE_PASSWORD, JUDGE_API_KEY. */}}
{{- define "sieve.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "sieve.fullname" .) -}}
{{- end -}}

{{- define "sieve.configMapName" -}}
{{- printf "%s-config" (include "sieve.fullname" .) -}}
{{- end -}}

{{/* A setting read from the Secret: (dict "root" $ "name" "SIEVE_API_KEYS" "optional" true). */}}
{{- define "sieve.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ get . "secretName" | default (include "sieve.secretName" .root) }}
      key: {{ .name }}
      optional: {{ .optional }}
{{- end -}}

{{/* The config file (from the ConfigMap) and the writable data folder, for the long-running roles. */}}
{{- define "sieve.env.files" -}}
- name: SIEVE_CONFIG_FILE
  value: /etc/sieve/sieve.yaml
- name: SIEVE_DATA_DIR
  value: /var/lib/sieve
{{- end -}}

{{/* Storage settings (every role, the migrate job too): the ClickHouse server. Called with
     (dict "root" $) or, for the migrate hook, (dict "root" $ "passwordSecret" name). */}}
{{- define "sieve.env.storage" -}}
{{- $v := .root.Values -}}
- name: CLICKHOUSE_URL
  value: {{ required "clickhouse.url is required (a ClickHouse server's HTTP address)" $v.clickhouse.url | quote }}
- name: CLICKHOUSE_USER
  value: {{ $v.clickhouse.user | quote }}
- name: CLICKHOUSE_DATABASE
  value: {{ $v.clickhouse.database | quote }}
{{- with $v.clickhouse.cluster }}
- name: CLICKHOUSE_CLUSTER
  value: {{ . | quote }}
{{- end }}
{{ include "sieve.secretEnv" (dict "root" .root "name" "CLICKHOUSE_PASSWORD" "optional" true "secretName" (get . "passwordSecret")) }}
{{- end -}}

{{/* What a role serving HTTP reads: where to listen, who may call it, the log level. */}}
{{- define "sieve.env.server" -}}
- name: SIEVE_HOST
  value: "0.0.0.0"
- name: SIEVE_PORT
  value: "4318"
- name: SIEVE_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{ include "sieve.secretEnv" (dict "root" . "name" "SIEVE_API_KEYS" "optional" false) }}
{{ include "sieve.secretEnv" (dict "root" . "name" "SIEVE_METRICS_TOKEN" "optional" true) }}
{{- end -}}

{{- define "sieve.env.kafka" -}}
- name: KAFKA_BROKERS
  value: {{ required "kafka.brokers is required" (join "," .Values.kafka.brokers) | quote }}
- name: KAFKA_CLIENT_ID
  value: {{ .Values.kafka.clientId | quote }}
- name: KAFKA_SPANS_TOPIC
  value: {{ .Values.kafka.topics.spans | quote }}
- name: KAFKA_SCORES_TOPIC
  value: {{ .Values.kafka.topics.scores | quote }}
- name: KAFKA_DEAD_LETTER_TOPIC
  value: {{ .Values.kafka.topics.deadLetter | quote }}
- name: KAFKA_TOPIC_PARTITIONS
  value: {{ .Values.kafka.partitions | int64 | quote }}
- name: KAFKA_REPLICATION_FACTOR
  value: {{ .Values.kafka.replicationFactor | int64 | quote }}
{{- with .Values.kafka.minInsyncReplicas }}
- name: KAFKA_MIN_INSYNC_REPLICAS
  value: {{ . | int64 | quote }}
{{- end }}
{{- end -}}

{{/* Pod-level settings every Sieve pod shares. */}}
{{- define "sieve.podSpec" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Volumes every Sieve pod mounts: the config file, and the only writable paths. */}}
{{- define "sieve.volumes" -}}
- name: config
  configMap:
    name: {{ include "sieve.configMapName" .root }}
- name: tmp
  emptyDir: {}
- name: data
  emptyDir: {}
{{- end -}}

{{- define "sieve.volumeMounts" -}}
- name: config
  mountPath: /etc/sieve
  readOnly: true
- name: tmp
  mountPath: /tmp
- name: data
  mountPath: /var/lib/sieve
{{- end -}}

{{/* Pod annotations: a change of the config file or the Secret the chart makes rolls the pods. */}}
{{- define "sieve.podAnnotations" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Probes of a role that serves /healthz and /readyz: (dict "root" $ "readiness" "/readyz"). */}}
{{- define "sieve.probes" -}}
startupProbe:
  httpGet: { path: /healthz, port: http }
  periodSeconds: {{ .root.Values.probes.startup.periodSeconds }}
  failureThreshold: {{ .root.Values.probes.startup.failureThreshold }}
livenessProbe:
  httpGet: { path: /healthz, port: http }
  periodSeconds: {{ .root.Values.probes.liveness.periodSeconds }}
  timeoutSeconds: {{ .root.Values.probes.liveness.timeoutSeconds }}
  failureThreshold: {{ .root.Values.probes.liveness.failureThreshold }}
readinessProbe:
  httpGet: { path: /readyz, port: http }
  periodSeconds: {{ .root.Values.probes.readiness.periodSeconds }}
  timeoutSeconds: {{ .root.Values.probes.readiness.timeoutSeconds }}
  failureThreshold: {{ .root.Values.probes.readiness.failureThreshold }}
{{- end -}}

{{/* Replicas of a consumer group member: at most the spans topic's partitions. */}}
{{- define "sieve.consumerReplicas" -}}
{{- $replicas := int .replicas -}}
{{- $partitions := int .root.Values.kafka.partitions -}}
{{- if gt $replicas $partitions -}}
{{- fail (printf "%s.replicas (%d) is more than kafka.partitions (%d): each partition is read by one %s of the group, the others would stay idle" .role $replicas $partitions .role) -}}
{{- end -}}
{{- $replicas -}}
{{- end -}}

{{/* The required API keys, unless an existing Secret holds them. */}}
{{- define "sieve.checkSecrets" -}}
{{- if and (not .Values.secrets.existingSecret) (not .Values.secrets.apiKeys) -}}
{{- fail "secrets.apiKeys is required (SIEVE_API_KEYS, e.g. key1:project1): Sieve refuses to listen on the pod's address without API keys. Or name a Secret of yours in secrets.existingSecret." -}}
{{- end -}}
{{- end -}}
