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
