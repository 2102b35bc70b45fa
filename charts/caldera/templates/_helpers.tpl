{{/* The name of every object of the release: the release name when it already says caldera, <release>-caldera otherwise. */}}
{{- define "caldera.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "caldera" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-caldera" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "caldera.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: caldera
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The manager pods' labels that Services, the PodDisruptionBudget and spreading select on. Never change them: a Deployment's selector is immutable. */}}
{{- define "caldera.selector" -}}
app.kubernetes.io/name: caldera
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The manager's ServiceAccount. */}}
{{- define "caldera.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "caldera.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The manager's image: repository@digest when a digest is set, repository:tag otherwise (tag defaults to the chart's appVersion). */}}
{{- define "caldera.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* The Secret that holds the webhook's serving certificate. */}}
{{- define "caldera.webhookSecretName" -}}
{{- include "caldera.fullname" . }}-webhook-cert
{{- end -}}
