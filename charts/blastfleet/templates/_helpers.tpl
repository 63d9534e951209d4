{{/*
Names. fullname is the release name when it already contains the chart
name ("blastfleet"), else "<release>-blastfleet"; at most 63 characters.
*/}}
{{- define "blastfleet.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "blastfleet.fullname" -}}
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

{{- define "blastfleet.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "blastfleet.labels" -}}
helm.sh/chart: {{ include "blastfleet.chart" . }}
{{ include "blastfleet.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: blastfleet
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Labels selecting the operator's pods. */}}
{{- define "blastfleet.selectorLabels" -}}
app.kubernetes.io/name: {{ include "blastfleet.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end }}

{{- define "blastfleet.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "blastfleet.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* image renders repository:tag or repository@digest; the tag defaults to the chart's appVersion. */}}
{{- define "blastfleet.image" -}}
{{- $img := index . 0 }}{{- $root := index . 1 }}
{{- if $img.digest }}
{{- printf "%s@%s" $img.repository $img.digest }}
{{- else }}
{{- printf "%s:%s" $img.repository (default $root.Chart.AppVersion $img.tag) }}
{{- end }}
{{- end }}

{{/*
The manager's Configuration (config.blastfleet.io/v1alpha1): what the
chart decides, then only the operator and policy values set (not null);
every other setting keeps the default in the operator's code.
*/}}
{{- define "blastfleet.managerConfig" -}}
{{- $o := .Values.operator }}
{{- $c := dict "apiVersion" "config.blastfleet.io/v1alpha1" "kind" "Configuration" }}
{{- $_ := set $c "workerImage" (include "blastfleet.image" (list .Values.workerImage .)) }}
{{- $_ := set $c "leaderElection" (dict "leaderElect" .Values.leaderElection.enabled "resourceName" (.Values.leaderElection.id | default (printf "%s.blastfleet.io" (include "blastfleet.fullname" .)))) }}
{{- if .Values.metrics.enabled }}
{{- $_ := set $c "metrics" (dict "bindAddress" (printf ":%v" .Values.metrics.port)) }}
{{- else }}
{{- $_ := set $c "metrics" (dict "bindAddress" "0") }}
{{- end }}
{{- $_ := set $c "health" (dict "healthProbeBindAddress" (printf ":%v" .Values.probes.port)) }}
{{- range $k := list "ledgerPollInterval" "summaryMaxAge" "partitionTTL" "partitionWindDown" "partitionNetworkPolicy" "site" }}
{{- $v := index $o $k }}
{{- if not (kindIs "invalid" $v) }}{{ $_ := set $c $k $v }}{{ end }}
{{- end }}
{{- if $o.watchNamespace }}
{{- $_ := set $c "namespace" $o.watchNamespace }}
{{- else if not (kindIs "invalid" $o.namespaceSelector) }}
{{- $_ := set $c "namespaceSelector" $o.namespaceSelector }}
{{- end }}
{{- $b := dict }}
{{- range $k := list "storeRequestTimeout" "reconcileTimeout" "assembleTimeout" }}
{{- $v := index $o.bounds $k }}
{{- if not (kindIs "invalid" $v) }}{{ $_ := set $b $k $v }}{{ end }}
{{- end }}
{{- range $k := list "maxConcurrentReconciles" "maxObjectBytes" }}
{{- $v := index $o.bounds $k }}
{{- if not (kindIs "invalid" $v) }}{{ $_ := set $b $k ($v | int64) }}{{ end }}
{{- end }}
{{- if $b }}{{ $_ := set $c "bounds" $b }}{{ end }}
{{- $cc := dict }}
{{- if not (kindIs "invalid" $o.bounds.kubeApiQPS) }}{{ $_ := set $cc "qps" ($o.bounds.kubeApiQPS | int64) }}{{ end }}
{{- if not (kindIs "invalid" $o.bounds.kubeApiBurst) }}{{ $_ := set $cc "burst" ($o.bounds.kubeApiBurst | int64) }}{{ end }}
{{- if $cc }}{{ $_ := set $c "clientConnection" $cc }}{{ end }}
{{- $bu := dict }}
{{- range $k := list "interval" "window" }}
{{- $v := index $o.burst $k }}
{{- if not (kindIs "invalid" $v) }}{{ $_ := set $bu $k $v }}{{ end }}
{{- end }}
{{- if not (kindIs "invalid" $o.burst.margin) }}{{ $_ := set $bu "margin" ($o.burst.margin | float64) }}{{ end }}
{{- if $bu }}{{ $_ := set $c "burst" $bu }}{{ end }}
{{- $p := dict }}
{{- range $k, $v := .Values.policy }}
{{- if not (kindIs "invalid" $v) }}{{ $_ := set $p $k $v }}{{ end }}
{{- end }}
{{- if $p }}{{ $_ := set $c "policy" $p }}{{ end }}
{{- if $o.caBundle.configMap }}
{{- $_ := set $c "caBundle" "/etc/blastfleet/operator-ca/ca.pem" }}
{{- end }}
{{- with .Values.sts.endpoint }}{{ $_ := set $c "stsEndpoint" . }}{{ end }}
{{- with $o.defaultStore.endpoint }}{{ $_ := set $c "defaultStore" (dict "endpoint" .) }}{{ end }}
{{- toYaml $c }}
{{- end }}
