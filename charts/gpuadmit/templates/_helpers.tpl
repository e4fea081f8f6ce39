{{/* The chart's name, at most 63 characters (a DNS label). */}}
{{- define "gpuadmit.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The objects' name: the release name, with the chart's name appended unless the release name holds it.
It is also the Service's name, so it is the name the serving certificate must carry (gpuadmit certs --service).
*/}}
{{- define "gpuadmit.fullname" -}}
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

{{- define "gpuadmit.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gpuadmit.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpuadmit.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "gpuadmit.labels" -}}
helm.sh/chart: {{ include "gpuadmit.chart" . }}
{{ include "gpuadmit.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: admission-webhook
{{- end }}

{{- define "gpuadmit.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gpuadmit.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "gpuadmit.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "gpuadmit.fullname" .)) .Values.tls.secretName }}
{{- end }}

{{- define "gpuadmit.inventoryConfigMap" -}}
{{- default (printf "%s-inventory" (include "gpuadmit.fullname" .)) .Values.inventory.existingConfigMap }}
{{- end }}

{{- define "gpuadmit.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Checks the values the webhook configurations depend on; renders nothing. */}}
{{- define "gpuadmit.checkValues" -}}
{{- $w := .Values.webhook }}
{{- if not (has $w.failurePolicy (list "Fail" "Ignore")) }}
{{- fail (printf "webhook.failurePolicy must be Fail or Ignore, not %v" $w.failurePolicy) }}
{{- end }}
{{- $t := int $w.timeoutSeconds }}
{{- if or (lt $t 1) (gt $t 30) }}
{{- fail (printf "webhook.timeoutSeconds must be 1..30 (kube-apiserver's limit), not %v" $w.timeoutSeconds) }}
{{- end }}
{{- if and (not $w.caBundle) (not $w.injectCAFrom) }}
{{- fail "webhook.caBundle is required: run `gpuadmit certs --service <fullname> --namespace <namespace> --out DIR` and pass what it prints (--set webhook.caBundle=...), or set webhook.injectCAFrom" }}
{{- end }}
{{- end }}

{{/* Namespaces never sent to the webhook, comma-separated: the configured ones and, by default, the release's. */}}
{{- define "gpuadmit.excludedNamespaces" -}}
{{- $ns := .Values.webhook.excludeNamespaces | default (list) }}
{{- if .Values.webhook.excludeReleaseNamespace }}
{{- $ns = append $ns .Release.Namespace }}
{{- end }}
{{- uniq $ns | join "," }}
{{- end }}

{{- define "gpuadmit.namespaceSelector" -}}
{{- $ns := include "gpuadmit.excludedNamespaces" . }}
{{- if $ns -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values:
        {{- range (splitList "," $ns) }}
        - {{ . | quote }}
        {{- end }}
{{- end }}
{{- end }}

{{/*
What the webhooks see: Pods and every workload that carries a Pod template (docs/rules.md#objects). Argument: a dict with
"ops", the operations.
*/}}
{{- define "gpuadmit.rules" -}}
{{- $ops := .ops -}}
{{- $kinds := list
  (list "" "v1" "pods")
  (list "apps" "v1" "deployments,replicasets,statefulsets,daemonsets")
  (list "batch" "v1" "jobs,cronjobs")
  (list "batch.volcano.sh" "v1alpha1" "jobs")
  (list "ray.io" "v1" "rayclusters,rayjobs") -}}
rules:
{{- range $kinds }}
  - operations: {{ toJson $ops }}
    apiGroups: [{{ index . 0 | quote }}]
    apiVersions: [{{ index . 1 | quote }}]
    resources: {{ toJson (splitList "," (index . 2)) }}
    scope: Namespaced
{{- end }}
{{- end }}

{{/* The fields both webhooks share. Argument: a dict with "root" (the chart context) and "path". */}}
{{- define "gpuadmit.webhookCommon" -}}
{{- $root := .root -}}
admissionReviewVersions: ["v1", "v1beta1"]
sideEffects: None
timeoutSeconds: {{ int $root.Values.webhook.timeoutSeconds }}
failurePolicy: {{ $root.Values.webhook.failurePolicy }}
matchPolicy: Equivalent
clientConfig:
  service:
    name: {{ include "gpuadmit.fullname" $root }}
    namespace: {{ $root.Release.Namespace }}
    path: {{ .path }}
    port: {{ int $root.Values.service.port }}
  {{- if $root.Values.webhook.caBundle }}
  caBundle: {{ $root.Values.webhook.caBundle | quote }}
  {{- end }}
{{- with include "gpuadmit.namespaceSelector" $root }}
{{ . }}
{{- end }}
{{- end }}

{{- define "gpuadmit.webhookAnnotations" -}}
{{- if .Values.webhook.injectCAFrom -}}
annotations:
  cert-manager.io/inject-ca-from: {{ .Values.webhook.injectCAFrom | quote }}
{{- end }}
{{- end }}
