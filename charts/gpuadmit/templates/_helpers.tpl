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
{{- default (printf "%s-tls" (include "gpuadmit.fullname" .)) .Values.certs.secretName }}
{{- end }}

{{/* The cert-manager Certificate (certs.mode certManager), named in cert-manager.io/inject-ca-from. */}}
{{- define "gpuadmit.certificateName" -}}
{{- printf "%s-serving" (include "gpuadmit.fullname" .) }}
{{- end }}

{{/* Whether the server talks to the API server at all (self-managed certificates, the live inventory, registering
the webhooks): a service-account token is mounted only then. */}}
{{- define "gpuadmit.needsAPI" -}}
{{- if or (eq .Values.certs.mode "selfManaged") .Values.inventory.cluster (eq .Values.webhook.registration "server") }}true{{ end }}
{{- end }}

{{- define "gpuadmit.inventoryConfigMap" -}}
{{- default (printf "%s-inventory" (include "gpuadmit.fullname" .)) .Values.inventory.existingConfigMap }}
{{- end }}

{{/* The configuration's dialects: config.dialects, or gpuadmit's default (all). */}}
{{- define "gpuadmit.dialects" -}}
{{- toJson (.Values.config.dialects | default (list "vendor" "koordinator" "mgpu" "hami" "dra")) }}
{{- end }}

{{/* Whether the dra dialect is on (the webhooks see resource.k8s.io; the live view reads it). */}}
{{- define "gpuadmit.draOn" -}}
{{- if has "dra" (include "gpuadmit.dialects" . | fromJsonArray) }}true{{ end }}
{{- end }}

{{/*
The configuration gpuadmit loads, as JSON: the config value, its dra block filled from the top-level dra values
(dra.kubernetesVersion, else the version Helm installs on, as 1.<minor>; dra.nvidia.featureGates when set). A
provider's minor such as "30+" is read as 30.
*/}}
{{- define "gpuadmit.config" -}}
{{- $cfg := deepCopy (.Values.config | default dict) }}
{{- if include "gpuadmit.draOn" . }}
{{- $dra := $cfg.dra | default dict }}
{{- $version := .Values.dra.kubernetesVersion }}
{{- if and (not $version) (not $dra.kubernetesVersion) }}
{{- $version = printf "%s.%s" .Capabilities.KubeVersion.Major (regexFind "^[0-9]+" .Capabilities.KubeVersion.Minor) }}
{{- end }}
{{- if $version }}{{ $_ := set $dra "kubernetesVersion" $version }}{{ end }}
{{- with .Values.dra.nvidia.featureGates }}
{{- $nvidia := $dra.nvidia | default dict }}
{{- $gates := deepCopy ($nvidia.featureGates | default dict) }}
{{- range $gate, $on := . }}{{ $_ := set $gates $gate $on }}{{ end }}{{/* not merge: it would keep a true over a false */}}
{{- $_ := set $nvidia "featureGates" $gates }}
{{- $_ := set $dra "nvidia" $nvidia }}
{{- end }}
{{- $_ := set $cfg "dra" $dra }}
{{- end }}
{{- toJson $cfg }}
{{- end }}

{{- define "gpuadmit.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Checks what the schema cannot (values.schema.json checks types, enums and ranges); renders nothing. */}}
{{- define "gpuadmit.checkValues" -}}
{{- if and (eq .Values.certs.mode "secret") (not .Values.certs.secret.caBundle) }}
{{- fail "certs.secret.caBundle is required with certs.mode=secret: run `gpuadmit certs --service <fullname> --namespace <namespace> --out DIR` and pass what it prints (--set certs.secret.caBundle=...); or leave certs.mode at selfManaged" }}
{{- end }}
{{- if and .Values.certs.secret.create (ne .Values.certs.mode "secret") }}
{{- fail (printf "certs.secret.create needs certs.mode=secret (it is %s)" .Values.certs.mode) }}
{{- end }}
{{- if and .Values.inventory.cluster .Values.inventory.enabled }}
{{- fail "inventory.cluster and inventory.enabled exclude each other: the inventory comes from the cluster or from a file" }}
{{- end }}
{{- if and (eq .Values.webhook.registration "server") (not .Values.rbac.create) }}
{{- fail "webhook.registration=server needs rbac.create=true: the release's ClusterRole owns the webhook configurations the server registers (so uninstalling removes them); or set webhook.registration=chart" }}
{{- end }}
{{- if and (not .Values.webhook.validating.enabled) (not .Values.webhook.mutating.enabled) }}
{{- fail "webhook.validating.enabled and webhook.mutating.enabled are both false: nothing would be checked" }}
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

{{/* The namespaceSelector and objectSelector both webhooks share. */}}
{{- define "gpuadmit.selectors" -}}
{{- $ns := include "gpuadmit.excludedNamespaces" . }}
{{- $exprs := list }}
{{- if $ns }}
{{- $exprs = append $exprs (dict "key" "kubernetes.io/metadata.name" "operator" "NotIn" "values" (splitList "," $ns)) }}
{{- end }}
{{- $exprs = concat $exprs (.Values.webhook.namespaceSelectorExpressions | default list) }}
{{- if $exprs }}
namespaceSelector:
  matchExpressions:
    {{- toYaml $exprs | nindent 4 }}
{{- end }}
{{- with .Values.webhook.objectSelector }}
objectSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The kinds the webhooks see (docs/rules.md#objects), as data: per API group the resources, and for each the paths
where Pod templates ("templates": an object with metadata and spec), PodSpecs ("podspecs") or a ResourceRequirements
("resources_at") sit. "" is the object itself. `[*]` is every item of a list, `*` every value of a map. `switch` names the
webhook.kinds value that turns the group off, `dialect` the config.dialects entry it needs; none: always on. Resources
with the same paths share a line. A kind's `ops` narrows the webhooks' operations for it; `object: true` sends every
object of the kind (the object is itself what gpuadmit judges), except those holding an annotation of `unless` (objects
a controller made).
*/}}
{{- define "gpuadmit.kindTable" -}}
- group: ""
  versions: [v1]
  scope: Namespaced
  kinds:
    - {resources: [pods], templates: [""]}
    - {resources: [podtemplates], templates: [template]}
- group: apps
  versions: [v1]
  scope: Namespaced
  kinds:
    - {resources: [deployments, replicasets, statefulsets, daemonsets], templates: [spec.template]}
- group: batch
  versions: [v1]
  scope: Namespaced
  kinds:
    - {resources: [jobs], templates: [spec.template]}
    - {resources: [cronjobs], templates: [spec.jobTemplate.spec.template]}
- group: batch.volcano.sh
  switch: volcano
  versions: ["*"]
  scope: Namespaced
  kinds:
    - {resources: [jobs], templates: ["spec.tasks[*].template"]}
    - {resources: [cronjobs], templates: ["spec.jobTemplate.spec.tasks[*].template"]}
- group: ray.io
  switch: ray
  versions: ["*"]
  scope: Namespaced
  kinds:
    - {resources: [rayclusters], templates: [spec.headGroupSpec.template, "spec.workerGroupSpecs[*].template"]}
    - {resources: [rayjobs], templates: [spec.rayClusterSpec.headGroupSpec.template, "spec.rayClusterSpec.workerGroupSpecs[*].template"]}
    - {resources: [rayservices], templates: [spec.rayClusterConfig.headGroupSpec.template, "spec.rayClusterConfig.workerGroupSpecs[*].template"]}
- group: leaderworkerset.x-k8s.io
  switch: leaderWorkerSet
  versions: ["*"]
  scope: Namespaced
  kinds:
    - {resources: [leaderworkersets], templates: [spec.leaderWorkerTemplate.leaderTemplate, spec.leaderWorkerTemplate.workerTemplate]}
- group: jobset.x-k8s.io
  switch: jobSet
  versions: ["*"]
  scope: Namespaced
  kinds:
    - {resources: [jobsets], templates: ["spec.replicatedJobs[*].template.spec.template"]}
- group: kubeflow.org
  switch: kubeflow
  versions: ["*"]
  scope: Namespaced
  kinds:
    - resources: [pytorchjobs, tfjobs, xgboostjobs, paddlejobs, mpijobs]
      templates: ["spec.pytorchReplicaSpecs.*.template", "spec.tfReplicaSpecs.*.template", "spec.xgbReplicaSpecs.*.template", "spec.paddleReplicaSpecs.*.template", "spec.mpiReplicaSpecs.*.template"]
- group: trainer.kubeflow.org
  switch: trainer
  versions: ["*"]
  scope: "*"
  kinds:
    - {resources: [trainingruntimes, clustertrainingruntimes], templates: ["spec.template.spec.replicatedJobs[*].template.spec.template"]}
    - {resources: [trainjobs], resources_at: [spec.trainer.resourcesPerNode]}
- group: resource.k8s.io
  dialect: dra
  versions: [v1, v1beta2, v1beta1]
  scope: "*"
  kinds:
    - resources: [resourceclaims]
      ops: [CREATE]
      object: true
      unless: [resource.kubernetes.io/pod-claim-name, resource.kubernetes.io/extended-resource-claim]
    - {resources: [resourceclaimtemplates], ops: [CREATE], object: true}
    - {resources: [deviceclasses], ops: [CREATE, UPDATE], object: true}
{{- end }}

{{/*
The kinds a configuration adds (config.workloads) reach the webhooks through webhook.extraKinds: each names its
API group, kind, resource (plural), versions and scope; its paths are those of the config.workloads entry of the
same group and kind (one source, so the webhook and gpuadmit read the same places). As kind table rows.
*/}}
{{- define "gpuadmit.extraGroups" -}}
{{- $rows := list }}
{{- range $i, $x := .Values.webhook.extraKinds | default list }}
{{- $w := dict }}
{{- range $.Values.config.workloads | default list }}
{{- if and (eq .group $x.group) (eq .kind $x.kind) }}{{ $w = . }}{{ end }}
{{- end }}
{{- if not $w }}
{{- fail (printf "webhook.extraKinds[%d]: no config.workloads entry for kind %s of group %q: gpuadmit would not read it" $i $x.kind $x.group) }}
{{- end }}
{{- $kind := dict "resources" (list $x.resource) "templates" ($w.podTemplates | default list) "podspecs" ($w.podSpecs | default list) "resources_at" ($w.resources | default list) }}
{{- $rows = append $rows (dict "group" $x.group "versions" ($x.versions | default (list "*")) "scope" ($x.scope | default "*") "kinds" (list $kind)) }}
{{- end }}
{{- toJson $rows }}
{{- end }}

{{/* The kind table's groups that are switched on, then webhook.extraKinds, as a list. */}}
{{- define "gpuadmit.enabledGroups" -}}
{{- $on := list }}
{{- $dialects := include "gpuadmit.dialects" . | fromJsonArray }}
{{- range (include "gpuadmit.kindTable" . | fromYamlArray) }}
{{- if and (or (not .switch) (index $.Values.webhook.kinds .switch)) (or (not .dialect) (has .dialect $dialects)) }}
{{- $on = append $on . }}
{{- end }}
{{- end }}
{{- toJson (concat $on (include "gpuadmit.extraGroups" . | fromJsonArray)) }}
{{- end }}

{{/*
The webhook rules for the enabled kinds: one per group and set of operations (a kind's `ops` narrows the webhook's;
a kind left with none is not registered). Argument: dict "root" and "ops" (the operations).
*/}}
{{- define "gpuadmit.rules" -}}
rules:
{{- range $group := (include "gpuadmit.enabledGroups" .root | fromJsonArray) }}
{{- $byOps := dict }}
{{- $order := list }}
{{- range $kind := .kinds }}
{{- $ops := list }}
{{- range $.ops }}{{ if or (not $kind.ops) (has . $kind.ops) }}{{ $ops = append $ops . }}{{ end }}{{ end }}
{{- if $ops }}
{{- $key := toJson $ops }}
{{- if not (hasKey $byOps $key) }}{{ $order = append $order $key }}{{ $_ := set $byOps $key list }}{{ end }}
{{- $_ := set $byOps $key (concat (get $byOps $key) $kind.resources) }}
{{- end }}
{{- end }}
{{- range $key := $order }}
  - operations: {{ $key }}
    apiGroups: [{{ $group.group | quote }}]
    apiVersions: {{ toJson $group.versions }}
    resources: {{ toJson (get $byOps $key) }}
    scope: {{ $group.scope | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
A regular expression matching a domain whatever its case ("nvidia.com" -> "[nN][vV][iI][dD][iI][aA][.][cC][oO][mM]"),
in the syntax RE2 (kube-apiserver) and JavaScript (tests/chart) share: no (?i) flag, no CEL extension needed.
*/}}
{{- define "gpuadmit.anyCase" -}}
{{- range splitList "" . }}
{{- if eq . "." }}[.]{{ else if ne (lower .) (upper .) }}[{{ lower . }}{{ upper . }}]{{ else }}{{ . }}{{ end }}
{{- end }}
{{- end }}

{{/*
The GPU names of the enabled dialects (config.dialects), as JSON: "domains", whose every name reaches gpuadmit (in
resources in any case, as the unknown-resource rule reads them: a near miss must reach gpuadmit too), and "exact",
HAMi's names as config.hami renames them outside those domains (gpuadmit knows them exactly as written), and
"claims", whether DRA claims count (the dra dialect). Argument:
dict "dialects", "hami".
*/}}
{{- define "gpuadmit.gpuNames" -}}
{{- $domains := list }}
{{- if has "vendor" .dialects }}{{ $domains = concat $domains (list "nvidia.com" "amd.com" "dcu.com") }}{{ end }}
{{- if has "koordinator" .dialects }}{{ $domains = append $domains "koordinator.sh" }}{{ end }}
{{- if has "mgpu" .dialects }}{{ $domains = append $domains "vke.volcengine.com" }}{{ end }}
{{- /* dra: the implicit resource of every DeviceClass (a class's own extendedResourceName is in a domain above) */}}
{{- if has "dra" .dialects }}{{ $domains = append $domains "deviceclass.resource.kubernetes.io" }}{{ end }}
{{- $exact := list }}
{{- if has "hami" .dialects }}
{{- if not (has "nvidia.com" $domains) }}{{ $domains = append $domains "nvidia.com" }}{{ end }}
{{- $h := .hami | default dict }}
{{- range $k := list "resourceCountName" "resourceMemoryName" "resourceMemoryPercentageName" "resourceCoreName" }}
{{- $name := toString (index $h $k | default "nvidia.com/") }}{{/* unset: HAMi's own name, in nvidia.com */}}
{{- if not (has (lower (first (splitList "/" $name))) $domains) }}{{ $exact = append $exact $name }}{{ end }}
{{- end }}
{{- end }}
{{- toJson (dict "domains" $domains "exact" (uniq $exact) "claims" (has "dra" .dialects)) }}
{{- end }}

{{/* A CEL list literal of strings, single-quoted, a backslash or quote in one escaped (a name is the user's text). */}}
{{- define "gpuadmit.celList" -}}
{{- $q := list }}
{{- range . }}{{ $q = append $q (printf "'%s'" (. | replace "\\" "\\\\" | replace "'" "\\'")) }}{{ end }}
{{- printf "[%s]" (join ", " $q) }}
{{- end }}

{{/* CEL: whether the resource name at "var" is a GPU name (gpuadmit.gpuNames). Argument: dict "var", "names". */}}
{{- define "gpuadmit.celGpuName" -}}
{{- $terms := list }}
{{- $res := list }}
{{- range .names.domains }}{{ $res = append $res (include "gpuadmit.anyCase" .) }}{{ end }}
{{- if $res }}{{ $terms = append $terms (printf "%s.matches('^(%s)/')" .var (join "|" $res)) }}{{ end }}
{{- if .names.exact }}{{ $terms = append $terms (printf "%s in %s" .var (include "gpuadmit.celList" .names.exact)) }}{{ end }}
{{- if $terms }}{{ join " || " $terms }}{{ else }}false{{ end }}
{{- end }}

{{/* CEL: a ResourceRequirements at "var" declares a GPU resource (or, with DRA, uses a claim). Argument: dict "var", "names". */}}
{{- define "gpuadmit.celResources" -}}
{{- $r := .var -}}
{{- $g := include "gpuadmit.celGpuName" (dict "var" "n" "names" .names) -}}
(has({{ $r }}.limits) && {{ $r }}.limits.exists(n, {{ $g }})) || (has({{ $r }}.requests) && {{ $r }}.requests.exists(n, {{ $g }}))
{{- if .names.claims }} || (has({{ $r }}.claims) && size({{ $r }}.claims) > 0){{ end }}
{{- end }}

{{/* CEL: a PodSpec at "var" declares a GPU resource in a container or an init container, or (DRA) names claims. */}}
{{- define "gpuadmit.celPodSpec" -}}
{{- $s := .var -}}
{{- $res := include "gpuadmit.celResources" (dict "var" "c.resources" "names" .names) -}}
{{- if .names.claims }}{{ printf "(has(%s.resourceClaims) && size(%s.resourceClaims) > 0) || " $s $s }}{{ end }}
{{- /* One test over both lists (each absent one empty): the name test is written once per PodSpec, not twice. */}}
{{- printf "((has(%s.containers) ? %s.containers : []) + (has(%s.initContainers) ? %s.initContainers : [])).exists(c, has(c.resources) && (%s))" $s $s $s $s $res }}
{{- end }}

{{/*
CEL: a Pod template (metadata, spec) at "var" declares a GPU resource, or holds an annotation whose key is in a GPU
domain, as written (the mGPU card annotation; a resource written as an annotation, which resource-in-annotation
reports), or is a renamed HAMi name.
*/}}
{{- define "gpuadmit.celTemplate" -}}
{{- $t := .var -}}
{{- $expr := printf "(has(%s.spec) && (%s))" $t (include "gpuadmit.celPodSpec" (dict "var" (printf "%s.spec" $t) "names" .names)) -}}
{{- $terms := list }}
{{- if .names.domains }}{{ $terms = append $terms (printf "k.matches('^(%s)/')" (join "|" .names.domains | replace "." "[.]")) }}{{ end }}
{{- if .names.exact }}{{ $terms = append $terms (printf "k in %s" (include "gpuadmit.celList" .names.exact)) }}{{ end }}
{{- if $terms }}
{{- $expr = printf "%s || (has(%s.metadata) && has(%s.metadata.annotations) && %s.metadata.annotations.exists(k, %s))" $expr $t $t $t (join " || " $terms) }}
{{- end }}
{{- $expr }}
{{- end }}

{{/*
CEL: follows a path (list of segments) from "var" and applies "leaf" (celTemplate or celResources) where it
ends. Each level has its own iteration variable (x1, x2, ...), so nested lists never shadow one another.
*/}}
{{- define "gpuadmit.celPath" -}}
{{- if not .segs }}
{{- include .leaf (dict "var" .var "names" .names) }}
{{- else }}
{{- $seg := first .segs }}
{{- $rest := rest .segs }}
{{- $it := printf "x%d" (int .depth) }}
{{- $next := dict "segs" $rest "leaf" .leaf "names" .names "depth" (add1 .depth) }}
{{- if eq $seg "*" }}
{{- /* A map's values, as a list (has() takes a field of a variable, not of an index expression). */}}
{{- $key := printf "k%d" (int .depth) }}
{{- $_ := set $next "var" $it }}
{{- printf "%s.map(%s, %s[%s]).exists(%s, %s)" .var $key .var $key $it (include "gpuadmit.celPath" $next) }}
{{- else if hasSuffix "[*]" $seg }}
{{- $list := printf "%s.%s" .var (trimSuffix "[*]" $seg) }}
{{- $_ := set $next "var" $it }}
{{- printf "has(%s) && %s.exists(%s, %s)" $list $list $it (include "gpuadmit.celPath" $next) }}
{{- else }}
{{- $field := printf "%s.%s" .var $seg }}
{{- $_ := set $next "var" $field }}
{{- printf "has(%s) && (%s)" $field (include "gpuadmit.celPath" $next) }}
{{- end }}
{{- end }}
{{- end }}

{{/* CEL: the object holds none of the annotation keys given (a list; none given: true). */}}
{{- define "gpuadmit.celUnless" -}}
{{- if . }}
{{- printf "!(has(object.metadata) && has(object.metadata.annotations) && object.metadata.annotations.exists(k, k in %s))" (include "gpuadmit.celList" .) }}
{{- else }}true{{ end }}
{{- end }}

{{/*
The one matchCondition: the request is for an enabled kind and the object declares a GPU resource of an
enabled dialect somewhere gpuadmit reads (docs/rules.md#objects). One disjunct per group of resources that
share their paths, chosen by request.resource, so a kind is only searched where it keeps Pod templates.
*/}}
{{- define "gpuadmit.matchExpression" -}}
{{- $dialects := include "gpuadmit.dialects" . | fromJsonArray }}
{{- $names := include "gpuadmit.gpuNames" (dict "dialects" $dialects "hami" .Values.config.hami) | fromJson }}
{{- $branches := list }}
{{- range (include "gpuadmit.enabledGroups" . | fromJsonArray) }}
{{- $group := .group }}
{{- range .kinds }}
{{- $paths := list }}
{{- range (.templates | default list) }}
{{- $segs := ternary (list) (splitList "." .) (eq . "") }}
{{- $paths = append $paths (include "gpuadmit.celPath" (dict "var" "object" "segs" $segs "leaf" "gpuadmit.celTemplate" "names" $names "depth" 1)) }}
{{- end }}
{{- range (.podspecs | default list) }}
{{- $paths = append $paths (include "gpuadmit.celPath" (dict "var" "object" "segs" (splitList "." .) "leaf" "gpuadmit.celPodSpec" "names" $names "depth" 1)) }}
{{- end }}
{{- range (.resources_at | default list) }}
{{- $paths = append $paths (include "gpuadmit.celPath" (dict "var" "object" "segs" (splitList "." .) "leaf" "gpuadmit.celResources" "names" $names "depth" 1)) }}
{{- end }}
{{- if .object }}
{{- $paths = append $paths (include "gpuadmit.celUnless" .unless) }}
{{- end }}
{{- $which := printf "request.resource.resource == '%s'" (first .resources) }}
{{- if gt (len .resources) 1 }}
{{- $quoted := list }}
{{- range .resources }}{{ $quoted = append $quoted (printf "'%s'" .) }}{{ end }}
{{- $which = printf "request.resource.resource in [%s]" (join ", " $quoted) }}
{{- end }}
{{- $branches = append $branches (printf "(request.resource.group == '%s' && %s && ((%s)))" $group $which (join ") || (" $paths)) }}
{{- end }}
{{- end }}
{{- join " ||\n" $branches }}
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
  {{- if eq $root.Values.certs.mode "secret" }}
  caBundle: {{ $root.Values.certs.secret.caBundle | quote }}
  {{- end }}
{{- with include "gpuadmit.selectors" $root | trim }}
{{ . }}
{{- end }}
{{- if $root.Values.webhook.matchConditions }}
matchConditions:
  - name: declares-gpu-resource
    # One line per group of kinds; generated from the kind table above (gpuadmit.kindTable).
    expression: |-
      {{- include "gpuadmit.matchExpression" $root | nindent 6 }}
{{- end }}
{{- end }}

{{/* The webhook configurations' labels: the release's, but managed by gpuadmit when the server registers them. */}}
{{- define "gpuadmit.webhookLabels" -}}
{{- if eq .Values.webhook.registration "server" }}
{{- include "gpuadmit.labels" . | replace (printf "app.kubernetes.io/managed-by: %s" .Release.Service) "app.kubernetes.io/managed-by: gpuadmit" }}
{{- else }}
{{- include "gpuadmit.labels" . }}
{{- end }}
{{- end }}

{{- define "gpuadmit.webhooksConfigMap" -}}
{{- printf "%s-webhooks" (include "gpuadmit.fullname" .) }}
{{- end }}

{{- define "gpuadmit.webhookAnnotations" -}}
{{- if eq .Values.certs.mode "certManager" -}}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "gpuadmit.certificateName" .) | quote }}
{{- end }}
{{- end }}
