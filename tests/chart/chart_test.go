package chart

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const chartDir = "../../charts/gpuadmit"

// A stand-in caBundle: the base64 of a PEM block (what `gpuadmit certs` prints).
var caBundle = base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))

var rel = Release{Name: "gpuadmit", Namespace: "gpu-system", Service: "Helm", IsInstall: true, Revision: 1}

func withCA(extra Map) Map {
	return Coalesce(Map{"webhook": Map{"caBundle": caBundle}}, extra)
}

func render(t *testing.T, r Release, user Map) ([]Map, *Rendered) {
	t.Helper()
	out, err := Render(chartDir, r, user)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	objs, err := out.Objects()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o["apiVersion"] == nil || o["kind"] == nil || get(o, "metadata", "name") == nil {
			t.Fatalf("object without apiVersion, kind or metadata.name:\n%s", toYAML(o))
		}
	}
	return objs, out
}

// get walks maps by key and lists by int index; nil when the path is absent.
func get(v interface{}, path ...interface{}) interface{} {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(Map)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]interface{})
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func find(t *testing.T, objs []Map, kind string) Map {
	t.Helper()
	var found Map
	for _, o := range objs {
		if o["kind"] == kind {
			if found != nil {
				t.Fatalf("two %s objects", kind)
			}
			found = o
		}
	}
	if found == nil {
		t.Fatalf("no %s rendered", kind)
	}
	return found
}

func count(objs []Map, kind string) int {
	n := 0
	for _, o := range objs {
		if o["kind"] == kind {
			n++
		}
	}
	return n
}

func strs(v interface{}) []string {
	var out []string
	l, _ := v.([]interface{})
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func container(t *testing.T, objs []Map) Map {
	t.Helper()
	c, ok := get(find(t, objs, "Deployment"), "spec", "template", "spec", "containers", 0).(Map)
	if !ok {
		t.Fatal("Deployment has no container")
	}
	return c
}

func TestDefaultRenderHasEveryObject(t *testing.T) {
	objs, _ := render(t, rel, withCA(nil))
	for _, kind := range []string{"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget",
		"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		find(t, objs, kind)
	}
	if n := count(objs, "ConfigMap"); n != 1 {
		t.Errorf("%d ConfigMaps, want 1 (config only)", n)
	}
	if n := count(objs, "Secret"); n != 0 {
		t.Errorf("a Secret was rendered without tls.create")
	}
	for _, o := range objs {
		ns := get(o, "metadata", "namespace")
		cluster := strings.HasSuffix(o["kind"].(string), "WebhookConfiguration")
		if cluster != (ns == nil) || (!cluster && ns != "gpu-system") {
			t.Errorf("%s: namespace %v", o["kind"], ns)
		}
	}
}

func TestDeploymentServesWithCertKeyConfig(t *testing.T) {
	objs, _ := render(t, rel, withCA(nil))
	c := container(t, objs)
	args := strs(c["args"])
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("args %v do not start with serve", args)
	}
	for _, want := range []string{"--listen=:9443", "--metrics-listen=:8080", "--cert=/etc/gpuadmit/tls/tls.crt", "--threads=2",
		"--key=/etc/gpuadmit/tls/tls.key", "--config=/etc/gpuadmit/config/config.yaml"} {
		if !contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--inventory") || strings.HasPrefix(a, "--client-ca") || a == "--http2" {
			t.Errorf("unexpected %s by default", a)
		}
	}
	if get(c, "image") != "gpuadmit:0.1.0" {
		t.Errorf("image %v", get(c, "image"))
	}
	// Probes on the metrics port's health paths.
	for probe, path := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
		if get(c, probe, "httpGet", "path") != path || get(c, probe, "httpGet", "port") != "metrics" {
			t.Errorf("%s: %v", probe, get(c, probe))
		}
	}
	ports := map[string]int{}
	for _, p := range get(c, "ports").([]interface{}) {
		ports[get(p, "name").(string)] = get(p, "containerPort").(int)
	}
	if ports["webhook"] != 9443 || ports["metrics"] != 8080 {
		t.Errorf("container ports %v", ports)
	}
	// The Secret and the ConfigMap are mounted as directories (no subPath), so reloads see rotations.
	dep := find(t, objs, "Deployment")
	vols := map[string]Map{}
	for _, v := range get(dep, "spec", "template", "spec", "volumes").([]interface{}) {
		vols[get(v, "name").(string)] = v.(Map)
	}
	if get(vols["tls"], "secret", "secretName") != "gpuadmit-tls" {
		t.Errorf("tls volume %v", vols["tls"])
	}
	cm := find(t, objs, "ConfigMap")
	if get(vols["config"], "configMap", "name") != get(cm, "metadata", "name") {
		t.Errorf("config volume %v does not name ConfigMap %v", vols["config"], get(cm, "metadata", "name"))
	}
	mounts := map[string]string{}
	for _, m := range get(c, "volumeMounts").([]interface{}) {
		if get(m, "subPath") != nil {
			t.Errorf("mount %v uses subPath: a rotated Secret would never reach the server", m)
		}
		mounts[get(m, "name").(string)] = get(m, "mountPath").(string)
	}
	if mounts["tls"] != "/etc/gpuadmit/tls" || mounts["config"] != "/etc/gpuadmit/config" {
		t.Errorf("mounts %v", mounts)
	}
	if get(c, "securityContext", "readOnlyRootFilesystem") != true || get(c, "securityContext", "allowPrivilegeEscalation") != false {
		t.Errorf("container securityContext %v", get(c, "securityContext"))
	}
	if get(dep, "spec", "template", "metadata", "annotations", "prometheus.io/port") != "8080" {
		t.Errorf("scrape annotations %v", get(dep, "spec", "template", "metadata", "annotations"))
	}
}

func TestServiceMatchesDeploymentAndWebhooks(t *testing.T) {
	objs, _ := render(t, rel, withCA(nil))
	svc, dep := find(t, objs, "Service"), find(t, objs, "Deployment")
	podLabels := get(dep, "spec", "template", "metadata", "labels").(Map)
	for k, v := range get(svc, "spec", "selector").(Map) {
		if podLabels[k] != v {
			t.Errorf("Service selector %s=%v does not match the Pods' labels %v", k, v, podLabels)
		}
	}
	if !reflect.DeepEqual(get(svc, "spec", "selector"), get(dep, "spec", "selector", "matchLabels")) {
		t.Errorf("Service and Deployment selectors differ")
	}
	var httpsPort interface{}
	for _, p := range get(svc, "spec", "ports").([]interface{}) {
		if get(p, "name") == "https" {
			httpsPort = get(p, "port")
			if get(p, "targetPort") != "webhook" {
				t.Errorf("https targets %v", get(p, "targetPort"))
			}
		}
	}
	if httpsPort != 443 {
		t.Errorf("https port %v", httpsPort)
	}
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		cc := get(find(t, objs, kind), "webhooks", 0, "clientConfig", "service").(Map)
		if cc["name"] != get(svc, "metadata", "name") || cc["namespace"] != "gpu-system" || cc["port"] != httpsPort {
			t.Errorf("%s clientConfig.service %v does not point at the Service", kind, cc)
		}
	}
	pdb := find(t, objs, "PodDisruptionBudget")
	if !reflect.DeepEqual(get(pdb, "spec", "selector", "matchLabels"), get(svc, "spec", "selector")) ||
		get(pdb, "spec", "minAvailable") != 1 {
		t.Errorf("PDB %v", get(pdb, "spec"))
	}
}

// The kinds of docs/rules.md#objects: group -> version -> resources.
var wantRules = map[string]string{
	"/v1":                       "pods",
	"apps/v1":                   "deployments,replicasets,statefulsets,daemonsets",
	"batch/v1":                  "jobs,cronjobs",
	"batch.volcano.sh/v1alpha1": "jobs",
	"ray.io/v1":                 "rayclusters,rayjobs",
}

func checkWebhook(t *testing.T, kind string, wh Map, path string, policy string, timeout int) {
	t.Helper()
	if get(wh, "clientConfig", "service", "path") != path {
		t.Errorf("%s path %v", kind, get(wh, "clientConfig", "service", "path"))
	}
	if get(wh, "clientConfig", "caBundle") != caBundle {
		t.Errorf("%s caBundle %v", kind, get(wh, "clientConfig", "caBundle"))
	}
	if !reflect.DeepEqual(strs(wh["admissionReviewVersions"]), []string{"v1", "v1beta1"}) {
		t.Errorf("%s admissionReviewVersions %v", kind, wh["admissionReviewVersions"])
	}
	if wh["sideEffects"] != "None" || wh["failurePolicy"] != policy || wh["timeoutSeconds"] != timeout {
		t.Errorf("%s sideEffects %v failurePolicy %v timeoutSeconds %v", kind, wh["sideEffects"], wh["failurePolicy"],
			wh["timeoutSeconds"])
	}
	name, _ := wh["name"].(string)
	if strings.Count(name, ".") < 2 {
		t.Errorf("%s webhook name %q is not fully qualified", kind, name)
	}
	expr := get(wh, "namespaceSelector", "matchExpressions", 0)
	excluded := strs(get(expr, "values"))
	if get(expr, "key") != "kubernetes.io/metadata.name" || get(expr, "operator") != "NotIn" ||
		!contains(excluded, "kube-system") || !contains(excluded, "gpu-system") {
		t.Errorf("%s namespaceSelector %v", kind, wh["namespaceSelector"])
	}
	got := map[string]string{}
	for _, r := range wh["rules"].([]interface{}) {
		ops := strs(get(r, "operations"))
		if !reflect.DeepEqual(ops, []string{"CREATE", "UPDATE"}) {
			t.Errorf("%s rule %v operations %v", kind, r, ops)
		}
		key := strs(get(r, "apiGroups"))[0] + "/" + strs(get(r, "apiVersions"))[0]
		got[key] = strings.Join(strs(get(r, "resources")), ",")
	}
	if !reflect.DeepEqual(got, wantRules) {
		t.Errorf("%s rules %v, want %v", kind, got, wantRules)
	}
}

func TestWebhookConfigurations(t *testing.T) {
	objs, _ := render(t, rel, withCA(nil))
	v := find(t, objs, "ValidatingWebhookConfiguration")
	m := find(t, objs, "MutatingWebhookConfiguration")
	checkWebhook(t, "validating", get(v, "webhooks", 0).(Map), "/validate", "Fail", 10)
	checkWebhook(t, "mutating", get(m, "webhooks", 0).(Map), "/mutate", "Fail", 10)
	if get(m, "webhooks", 0, "reinvocationPolicy") != "IfNeeded" {
		t.Errorf("mutating reinvocationPolicy %v", get(m, "webhooks", 0, "reinvocationPolicy"))
	}
	if get(v, "webhooks", 0, "reinvocationPolicy") != nil {
		t.Errorf("validating webhook has a reinvocationPolicy")
	}
	if len(get(v, "webhooks").([]interface{})) != 1 || len(get(m, "webhooks").([]interface{})) != 1 {
		t.Errorf("want one webhook in each configuration")
	}
}

func TestFailurePolicyAndTimeoutFromValues(t *testing.T) {
	objs, _ := render(t, rel, withCA(Map{"webhook": Map{"failurePolicy": "Ignore", "timeoutSeconds": 5}}))
	checkWebhook(t, "validating", get(find(t, objs, "ValidatingWebhookConfiguration"), "webhooks", 0).(Map), "/validate", "Ignore", 5)
	checkWebhook(t, "mutating", get(find(t, objs, "MutatingWebhookConfiguration"), "webhooks", 0).(Map), "/mutate", "Ignore", 5)
}

func TestConfigMapHoldsTheConfig(t *testing.T) {
	objs, _ := render(t, rel, withCA(nil))
	text, _ := get(find(t, objs, "ConfigMap"), "data", "config.yaml").(string)
	cfg := fromYAML(text)
	want := Map{
		"minDeviceMemory":  "256Mi",
		"maxPodsPerDevice": 16,
		"dialects":         []interface{}{"vendor", "koordinator", "mgpu"},
		"rules":            Map{"min-memory": "deny", "infeasible": "deny"},
		"namespaces":       Map{"exclude": []interface{}{"kube-system"}},
		"placement":        Map{"strategy": "binpack", "coreWeight": 20},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("config.yaml:\n%s\nwant the README.md#configuration defaults", text)
	}
	// A user's config replaces keys and merges maps, as Helm coalesces values.
	objs, _ = render(t, rel, withCA(Map{"config": Map{"rules": Map{"min-memory": "warn"}, "minDeviceMemory": "1Gi"}}))
	cfg = fromYAML(get(find(t, objs, "ConfigMap"), "data", "config.yaml").(string))
	if get(cfg, "rules", "min-memory") != "warn" || get(cfg, "rules", "infeasible") != "deny" || cfg["minDeviceMemory"] != "1Gi" {
		t.Errorf("overridden config %v", cfg)
	}
}

func TestInventory(t *testing.T) {
	inv := "nodes:\n  - name: n1\n    gpus: 8\n"
	objs, _ := render(t, rel, withCA(Map{"inventory": Map{"enabled": true, "content": inv}}))
	if n := count(objs, "ConfigMap"); n != 2 {
		t.Fatalf("%d ConfigMaps, want config and inventory", n)
	}
	var invCM Map
	for _, o := range objs {
		if o["kind"] == "ConfigMap" && get(o, "data", "inventory.yaml") != nil {
			invCM = o
		}
	}
	if invCM == nil || get(invCM, "data", "inventory.yaml") != inv {
		t.Fatalf("inventory ConfigMap %v", invCM)
	}
	if !contains(strs(container(t, objs)["args"]), "--inventory=/etc/gpuadmit/inventory/inventory.yaml") {
		t.Errorf("no --inventory in %v", container(t, objs)["args"])
	}
	found := false
	for _, v := range get(find(t, objs, "Deployment"), "spec", "template", "spec", "volumes").([]interface{}) {
		found = found || get(v, "configMap", "name") == get(invCM, "metadata", "name")
	}
	if !found {
		t.Errorf("inventory ConfigMap not mounted")
	}
	// A ConfigMap the user manages: mounted, not rendered.
	objs, _ = render(t, rel, withCA(Map{"inventory": Map{"enabled": true, "existingConfigMap": "gpu-inventory", "key": "inv.json"}}))
	if n := count(objs, "ConfigMap"); n != 1 {
		t.Errorf("%d ConfigMaps with an existing inventory ConfigMap", n)
	}
	if !contains(strs(container(t, objs)["args"]), "--inventory=/etc/gpuadmit/inventory/inv.json") {
		t.Errorf("args %v", container(t, objs)["args"])
	}
}

func TestServeOptionsFromValues(t *testing.T) {
	objs, _ := render(t, rel, withCA(Map{"serve": Map{"clientCASecret": "apiserver-client-ca", "threads": 0,
		"http2": true, "port": 8443, "extraArgs": []interface{}{"--tls-min-version=1.3"}}}))
	c := container(t, objs)
	args := strs(c["args"])
	for _, want := range []string{"--client-ca=/etc/gpuadmit/client-ca/ca.crt", "--http2", "--listen=:8443", "--tls-min-version=1.3"} {
		if !contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--threads") {
			t.Errorf("threads 0 still passes %s", a)
		}
	}
	found := false
	for _, v := range get(find(t, objs, "Deployment"), "spec", "template", "spec", "volumes").([]interface{}) {
		found = found || get(v, "secret", "secretName") == "apiserver-client-ca"
	}
	if !found {
		t.Errorf("client CA Secret not mounted")
	}
	if get(c, "ports", 0, "containerPort") != 8443 {
		t.Errorf("webhook port %v", get(c, "ports", 0))
	}
}

func TestSecretFromValues(t *testing.T) {
	objs, _ := render(t, rel, withCA(Map{"tls": Map{"create": true, "cert": "CERT PEM", "key": "KEY PEM"}}))
	s := find(t, objs, "Secret")
	if s["type"] != "kubernetes.io/tls" || get(s, "metadata", "name") != "gpuadmit-tls" {
		t.Errorf("Secret %v", s)
	}
	if get(s, "data", "tls.crt") != base64.StdEncoding.EncodeToString([]byte("CERT PEM")) ||
		get(s, "data", "tls.key") != base64.StdEncoding.EncodeToString([]byte("KEY PEM")) {
		t.Errorf("Secret data %v", s["data"])
	}
}

func TestNamesFollowTheRelease(t *testing.T) {
	objs, out := render(t, Release{Name: "prod", Namespace: "admission", Service: "Helm"}, withCA(Map{"replicaCount": 1}))
	if n := count(objs, "PodDisruptionBudget"); n != 0 {
		t.Errorf("a PDB with one replica would block node drains")
	}
	svc := find(t, objs, "Service")
	if get(svc, "metadata", "name") != "prod-gpuadmit" {
		t.Errorf("Service name %v", get(svc, "metadata", "name"))
	}
	wh := get(find(t, objs, "ValidatingWebhookConfiguration"), "webhooks", 0).(Map)
	if get(wh, "clientConfig", "service", "namespace") != "admission" ||
		!contains(strs(get(wh, "namespaceSelector", "matchExpressions", 0, "values")), "admission") {
		t.Errorf("webhook %v", wh)
	}
	if !strings.Contains(out.Notes, "gpuadmit certs --service prod-gpuadmit --namespace admission") {
		t.Errorf("NOTES.txt does not give the certs command:\n%s", out.Notes)
	}
	if !strings.Contains(out.Notes, "kube-system, admission") {
		t.Errorf("NOTES.txt does not list the excluded namespaces:\n%s", out.Notes)
	}
}

func TestCertManagerInjection(t *testing.T) {
	objs, _ := render(t, rel, Map{"webhook": Map{"injectCAFrom": "gpu-system/gpuadmit"}})
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		o := find(t, objs, kind)
		if get(o, "metadata", "annotations", "cert-manager.io/inject-ca-from") != "gpu-system/gpuadmit" {
			t.Errorf("%s annotations %v", kind, get(o, "metadata", "annotations"))
		}
		if get(o, "webhooks", 0, "clientConfig", "caBundle") != nil {
			t.Errorf("%s has an empty caBundle", kind)
		}
	}
}

func TestOneWebhookDisabled(t *testing.T) {
	objs, _ := render(t, rel, withCA(Map{"webhook": Map{"mutating": Map{"enabled": false}}}))
	if count(objs, "MutatingWebhookConfiguration") != 0 || count(objs, "ValidatingWebhookConfiguration") != 1 {
		t.Errorf("mutating disabled: %d/%d", count(objs, "MutatingWebhookConfiguration"), count(objs, "ValidatingWebhookConfiguration"))
	}
	objs, _ = render(t, rel, withCA(Map{"webhook": Map{"validating": Map{"enabled": false}}}))
	if count(objs, "MutatingWebhookConfiguration") != 1 || count(objs, "ValidatingWebhookConfiguration") != 0 {
		t.Errorf("validating disabled")
	}
}

func TestBadValuesAreRefused(t *testing.T) {
	cases := []struct {
		name   string
		values Map
		want   string
	}{
		{"no caBundle", Map{}, "webhook.caBundle is required"},
		{"failurePolicy", withCA(Map{"webhook": Map{"failurePolicy": "Sometimes"}}), "failurePolicy must be Fail or Ignore"},
		{"timeout high", withCA(Map{"webhook": Map{"timeoutSeconds": 31}}), "timeoutSeconds must be 1..30"},
		{"timeout zero", withCA(Map{"webhook": Map{"timeoutSeconds": 0}}), "timeoutSeconds must be 1..30"},
		{"secret without cert", withCA(Map{"tls": Map{"create": true, "key": "K"}}), "tls.cert is required"},
		{"inventory without content", withCA(Map{"inventory": Map{"enabled": true}}), "inventory.content"},
	}
	for _, c := range cases {
		_, err := Render(chartDir, rel, c.values)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// The documented flow end to end, when the gpuadmit binary is built: `gpuadmit certs` makes the caBundle the
// chart is installed with (GPUADMIT_BIN names the binary; ctest sets it).
func TestCaBundleFromGpuadmitCerts(t *testing.T) {
	bin := os.Getenv("GPUADMIT_BIN")
	if bin == "" {
		t.Skip("GPUADMIT_BIN not set")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s not built", bin)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "certs", "--service", "gpuadmit", "--namespace", "gpu-system", "--out", filepath.Join(dir, "certs"))
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("gpuadmit certs: %v", err)
	}
	bundle := strings.TrimSpace(string(stdout))
	caPEM, err := base64.StdEncoding.DecodeString(bundle)
	if err != nil || !strings.HasPrefix(string(caPEM), "-----BEGIN CERTIFICATE-----") {
		t.Fatalf("caBundle %q does not decode to a PEM certificate", bundle)
	}
	crt, _ := os.ReadFile(filepath.Join(dir, "certs", "tls.crt"))
	key, _ := os.ReadFile(filepath.Join(dir, "certs", "tls.key"))
	verifyAsAPIServer(t, caPEM, crt)
	objs, _ := render(t, rel, Map{"webhook": Map{"caBundle": bundle}, "tls": Map{"create": true, "cert": string(crt), "key": string(key)}})
	if get(find(t, objs, "ValidatingWebhookConfiguration"), "webhooks", 0, "clientConfig", "caBundle") != bundle {
		t.Errorf("caBundle not carried into the webhook configuration")
	}
	data, _ := base64.StdEncoding.DecodeString(get(find(t, objs, "Secret"), "data", "tls.key").(string))
	if string(data) != string(key) {
		t.Errorf("Secret tls.key differs from the file")
	}
}

// verifyAsAPIServer checks the serving certificate as kube-apiserver (Go's crypto/x509) does with the caBundle,
// for every name the webhook's Service is reached by.
func verifyAsAPIServer(t *testing.T, caPEM, leafPEM []byte) {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("caBundle holds no certificate Go can read")
	}
	block, _ := pem.Decode(leafPEM)
	if block == nil {
		t.Fatal("tls.crt is not PEM")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("tls.crt: %v", err)
	}
	for _, name := range []string{"gpuadmit.gpu-system.svc", "gpuadmit.gpu-system.svc.cluster.local", "gpuadmit.gpu-system"} {
		opts := x509.VerifyOptions{Roots: pool, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if _, err := leaf.Verify(opts); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "gpuadmit.other.svc"}); err == nil {
		t.Errorf("the certificate verifies for a name it was not made for")
	}
}

// The ConfigMap's config.yaml is one gpuadmit itself accepts (`validate --config` exits 2 on a bad config).
func TestRenderedConfigLoadsInGpuadmit(t *testing.T) {
	bin := os.Getenv("GPUADMIT_BIN")
	if bin == "" {
		t.Skip("GPUADMIT_BIN not set")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s not built", bin)
	}
	dir := t.TempDir()
	pod := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, user := range []Map{withCA(nil), withCA(Map{"config": Map{"rules": Map{"min-memory": "warn", "infeasible": "off"},
		"placement": Map{"strategy": "spread"}, "minDeviceMemory": "1Gi"}})} {
		objs, _ := render(t, rel, user)
		cfg := filepath.Join(dir, fmt.Sprintf("config%d.yaml", i))
		if err := os.WriteFile(cfg, []byte(get(find(t, objs, "ConfigMap"), "data", "config.yaml").(string)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "validate", "--config", cfg, pod).CombinedOutput()
		if err != nil {
			t.Errorf("gpuadmit validate --config %s: %v\n%s", cfg, err, out)
		}
	}
}

// GPA_CHART_PRINT=1 prints the default render (a stand-in for `helm template`).
func TestPrintManifest(t *testing.T) {
	if os.Getenv("GPA_CHART_PRINT") == "" {
		t.Skip("set GPA_CHART_PRINT=1 to print the rendered chart")
	}
	_, out := render(t, rel, withCA(nil))
	fmt.Print(out.Manifest())
	fmt.Print(out.Notes)
}
