{{/* Names. */}}
{{- define "mmgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mmgate.fullname" -}}
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

{{- define "mmgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mmgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The pods' component: central gateways or worker pods with the gateway inside. */}}
{{- define "mmgate.component" -}}
{{- if eq .Values.mode "sidecar" }}worker{{ else }}gateway{{ end }}
{{- end }}

{{- define "mmgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mmgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: {{ include "mmgate.component" . }}
{{- end }}

{{- define "mmgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "mmgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "mmgate.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* The namespace discovery watches, when not cluster-wide. */}}
{{- define "mmgate.discoveryNamespace" -}}
{{- default .Release.Namespace .Values.discovery.namespace }}
{{- end }}

{{/* Checks that fail the render with a reason. */}}
{{- define "mmgate.validate" -}}
{{- if not (has .Values.mode (list "gateway" "sidecar")) }}
{{- fail (printf "mode must be gateway or sidecar, not %q" .Values.mode) }}
{{- end }}
{{- if and (eq .Values.mode "gateway") (not .Values.discovery.enabled) (not .Values.workers) }}
{{- fail "mode gateway needs discovery.enabled or at least one entry in workers" }}
{{- end }}
{{- if and (eq .Values.mode "gateway") .Values.discovery.enabled (not .Values.discovery.selector) }}
{{- fail "discovery.selector needs at least one label: an empty selector would take every pod" }}
{{- end }}
{{- if and (eq .Values.mode "sidecar") (not .Values.sidecar.worker.image) }}
{{- fail "mode sidecar needs sidecar.worker.image" }}
{{- end }}
{{- if and .Values.podDisruptionBudget.enabled (not (kindIs "invalid" .Values.podDisruptionBudget.minAvailable)) (not (kindIs "invalid" .Values.podDisruptionBudget.maxUnavailable)) }}
{{- fail "podDisruptionBudget: set minAvailable or maxUnavailable, not both" }}
{{- end }}
{{- end }}

{{/* mmgate serve flags, one list item each. */}}
{{- define "mmgate.args" -}}
- serve
- --listen=0.0.0.0:{{ .Values.gateway.port }}
- --shutdown-timeout={{ .Values.gateway.shutdownTimeoutSeconds }}s
- --policy={{ .Values.gateway.policy }}
- --log-format={{ .Values.gateway.logFormat }}
- --log-level={{ .Values.gateway.logLevel }}
{{- with .Values.gateway.model }}
- --model={{ . }}
{{- end }}
{{- if .Values.apiKeys.existingSecret }}
- --api-key-file=/etc/mmgate/api-keys/keys
{{- end }}
{{- if eq .Values.mode "sidecar" }}
- --worker=grpc://127.0.0.1:{{ .Values.sidecar.worker.port }}
{{- if not (kindIs "invalid" .Values.sidecar.shmGroup) }}
- --shm-group={{ .Values.sidecar.shmGroup }}
{{- end }}
{{- else }}
{{- if .Values.discovery.enabled }}
- --service-discovery
{{- range $k, $v := .Values.discovery.selector }}
- --selector={{ $k }}={{ $v }}
{{- end }}
- --service-discovery-port={{ .Values.discovery.port }}
{{- if not .Values.discovery.clusterWide }}
- --service-discovery-namespace={{ include "mmgate.discoveryNamespace" . }}
{{- end }}
{{- end }}
{{- range .Values.workers }}
- --worker={{ . }}
{{- end }}
{{- end }}
{{- range .Values.gateway.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end }}

{{/* The gateway container, in both modes. */}}
{{- define "mmgate.gatewayContainer" -}}
- name: gateway
  image: {{ include "mmgate.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    {{- include "mmgate.args" . | nindent 4 }}
  ports:
    - name: http
      containerPort: {{ .Values.gateway.port }}
      protocol: TCP
  {{- with .Values.gateway.extraEnv }}
  env:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  livenessProbe:
    httpGet: {path: /health, port: http}
    {{- toYaml .Values.gateway.livenessProbe | nindent 4 }}
  readinessProbe:
    httpGet: {path: /health/ready, port: http}
    {{- toYaml .Values.gateway.readinessProbe | nindent 4 }}
  lifecycle:
    preStop:
      sleep: {seconds: {{ .Values.gateway.preStopSleepSeconds }}}
  resources:
    {{- toYaml .Values.gateway.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  volumeMounts:
    - {name: tmp, mountPath: /tmp}
    {{- if eq .Values.mode "sidecar" }}
    - {name: shm, mountPath: /dev/shm}
    {{- end }}
    {{- if .Values.apiKeys.existingSecret }}
    - {name: api-keys, mountPath: /etc/mmgate/api-keys, readOnly: true}
    {{- end }}
    {{- with .Values.gateway.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/* The gateway's volumes, in both modes. */}}
{{- define "mmgate.gatewayVolumes" -}}
- name: tmp
  emptyDir: {}
{{- if .Values.apiKeys.existingSecret }}
- name: api-keys
  secret:
    secretName: {{ .Values.apiKeys.existingSecret }}
    defaultMode: 0400
{{- end }}
{{- with .Values.gateway.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}
