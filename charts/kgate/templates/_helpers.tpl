{{- define "kgate.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kgate.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "kgate.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* What selects the pods: fixed for the life of a release (a Deployment's selector is immutable). */}}
{{- define "kgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kgate.labels" -}}
{{ include "kgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "kgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "kgate.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* The ConfigMap of the files written from values (authorization config, audit policy). */}}
{{- define "kgate.configName" -}}
{{- printf "%s-config" (include "kgate.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kgate.hasConfig" -}}
{{- if or .Values.authorization.config .Values.audit.policy -}}true{{- end -}}
{{- end -}}

{{/* Refusals of values the schema cannot express. */}}
{{- define "kgate.validate" -}}
{{- if and (not .Values.authorization.config) (has "AlwaysAllow" (splitList "," .Values.authorization.mode)) -}}
{{- fail "authorization.mode AlwaysAllow turns anonymous requests off, so the kubelet's probes of /livez and /readyz would fail: choose another mode (Node,RBAC) or an authorization.config" -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.serviceMonitor.bearerTokenSecret.name) -}}
{{- fail "metrics.serviceMonitor needs metrics.serviceMonitor.bearerTokenSecret.name: kgate serves /metrics to authenticated users in group system:monitoring only" -}}
{{- end -}}
{{- end -}}

{{/* kgate's flags: only flags kgate has (gateway/server/gw_config.c), kube-apiserver's names. */}}
{{- define "kgate.args" -}}
- --etcd-servers={{ .Values.etcd.servers }}
- --etcd-prefix={{ .Values.etcd.prefix }}
- --etcd-compaction-interval={{ .Values.etcd.compactionInterval }}
{{- if .Values.etcd.tlsSecret }}
- --etcd-cafile=/etc/kgate/etcd/ca.crt
- --etcd-certfile=/etc/kgate/etcd/tls.crt
- --etcd-keyfile=/etc/kgate/etcd/tls.key
{{- end }}
{{- with .Values.storageMediaType }}
- --storage-media-type={{ . }}
{{- end }}
- --secure-port=6443
- --shutdown-delay-duration={{ .Values.shutdownDelayDuration }}
{{- if .Values.servingTLSSecret }}
- --tls-cert-file=/etc/kgate/serving/tls.crt
- --tls-private-key-file=/etc/kgate/serving/tls.key
{{- else }}
- --cert-dir=/var/run/kubernetes
{{- end }}
{{- if .Values.clientCASecret }}
- --client-ca-file=/etc/kgate/client-ca/ca.crt
{{- end }}
{{- if .Values.tokenAuthSecret }}
- --token-auth-file=/etc/kgate/tokens/tokens.csv
{{- end }}
{{- if .Values.serviceAccount.keysSecret }}
- --service-account-issuer={{ .Values.serviceAccount.issuer }}
- --service-account-signing-key-file=/etc/kgate/sa/sa.key
- --service-account-key-file=/etc/kgate/sa/sa.pub
{{- end }}
{{- with .Values.serviceAccount.apiAudiences }}
- --api-audiences={{ join "," . }}
{{- end }}
{{- if .Values.authorization.config }}
- --authorization-config=/etc/kgate/config/authorization-config.yaml
{{- else }}
- --authorization-mode={{ .Values.authorization.mode }}
{{- end }}
{{- if .Values.audit.policy }}
- --audit-policy-file=/etc/kgate/config/audit-policy.yaml
- --audit-log-path={{ .Values.audit.logPath }}
{{- if ne .Values.audit.logPath "-" }}
- --audit-log-maxage={{ .Values.audit.maxAge }}
- --audit-log-maxbackup={{ .Values.audit.maxBackup }}
- --audit-log-maxsize={{ .Values.audit.maxSize }}
{{- end }}
{{- end }}
{{- if .Values.encryption.secret }}
- --encryption-provider-config=/etc/kgate/encryption/config.yaml
{{- end }}
{{- with .Values.featureGates }}
- --feature-gates={{ range $i, $k := keys . | sortAlpha }}{{ if $i }},{{ end }}{{ $k }}={{ get $.Values.featureGates $k }}{{ end }}
{{- end }}
{{- if .Values.workers }}
- --workers={{ .Values.workers }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/* Files from Secrets and the chart's ConfigMap: volume name, Secret or ConfigMap, path. */}}
{{- define "kgate.volumeMounts" -}}
- {name: cert-dir, mountPath: /var/run/kubernetes}
{{- if and .Values.audit.policy (ne .Values.audit.logPath "-") }}
- {name: audit-log, mountPath: {{ dir .Values.audit.logPath }}}
{{- end }}
{{- if .Values.etcd.tlsSecret }}
- {name: etcd-tls, mountPath: /etc/kgate/etcd, readOnly: true}
{{- end }}
{{- if .Values.servingTLSSecret }}
- {name: serving-tls, mountPath: /etc/kgate/serving, readOnly: true}
{{- end }}
{{- if .Values.clientCASecret }}
- {name: client-ca, mountPath: /etc/kgate/client-ca, readOnly: true}
{{- end }}
{{- if .Values.tokenAuthSecret }}
- {name: tokens, mountPath: /etc/kgate/tokens, readOnly: true}
{{- end }}
{{- if .Values.serviceAccount.keysSecret }}
- {name: sa-keys, mountPath: /etc/kgate/sa, readOnly: true}
{{- end }}
{{- if include "kgate.hasConfig" . }}
- {name: config, mountPath: /etc/kgate/config, readOnly: true}
{{- end }}
{{- if .Values.encryption.secret }}
- {name: encryption, mountPath: /etc/kgate/encryption, readOnly: true}
{{- end }}
{{- end -}}

{{- define "kgate.volumes" -}}
- {name: cert-dir, emptyDir: {}}
{{- if and .Values.audit.policy (ne .Values.audit.logPath "-") }}
- {name: audit-log, emptyDir: {}}
{{- end }}
{{- range $name, $secret := dict "etcd-tls" .Values.etcd.tlsSecret "serving-tls" .Values.servingTLSSecret "client-ca" .Values.clientCASecret "tokens" .Values.tokenAuthSecret "sa-keys" .Values.serviceAccount.keysSecret "encryption" .Values.encryption.secret }}
{{- if $secret }}
- {name: {{ $name }}, secret: {secretName: {{ $secret | quote }}, defaultMode: 0440}}
{{- end }}
{{- end }}
{{- if include "kgate.hasConfig" . }}
- {name: config, configMap: {name: {{ include "kgate.configName" . }}}}
{{- end }}
{{- end -}}
