{{- define "caldera.fullname" -}}
{{- printf "%s-caldera" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "caldera.labels" -}}
app.kubernetes.io/name: caldera
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "caldera.selector" -}}
app.kubernetes.io/name: caldera
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
