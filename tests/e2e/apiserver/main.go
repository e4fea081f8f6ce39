// apiserver: calls gpuadmit the way kube-apiserver calls admission webhooks, for the end-to-end tests.
//
// HTTPS verified against the CA, HTTP/1.1 keep-alive only (TLSNextProto empty, as kube-apiserver's webhook
// client), a fresh uid per call, POST to /<hook>?timeout=10s. Each answer is checked the way kube-apiserver
// checks it (apiVersion, kind, uid, patch/patchType rules, warnings); a returned JSON Patch is applied with
// github.com/evanphx/json-patch (what kube-apiserver uses) and the patched Pod is checked against the API
// server's extended-resource rules (whole numbers, request == limit).
//
// Modes:
//
//	review   one call per input file; prints one JSON line per file {file, allowed, code, message, warnings,
//	         patch (decoded), patched (object after the patch)}; exit 1 when any answer fails the checks
//	load     -conns goroutines send -in until -duration passes or -stop-file appears; prints
//	         {"ok":N,"failed":M,"errors":[...]}; exit 1 on any failure
//	burst    -conns goroutines post -in once each, at once, each on its own connection (burst.go): every call
//	         must be answered 200 or 503 with Retry-After, never closed without an answer
//	mkclient writes a client certificate and key signed by -ca/-ca-key into -out (for the mTLS tests)
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jsonpatch "github.com/evanphx/json-patch"
)

var (
	mode       = flag.String("mode", "review", "review | load | mkclient")
	baseURL    = flag.String("url", "", "https://127.0.0.1:PORT")
	serverName = flag.String("server-name", "gpuadmit.gpuadmit-system.svc", "TLS server name to verify")
	caFile     = flag.String("ca", "", "CA bundle the server's certificate must chain to")
	caKey      = flag.String("ca-key", "", "mkclient: the CA's key")
	certFile   = flag.String("cert", "", "client certificate (mTLS)")
	keyFile    = flag.String("key", "", "client key (mTLS)")
	hook       = flag.String("hook", "validate", "validate | mutate")
	conns      = flag.Int("conns", 16, "load: concurrent keep-alive connections")
	duration   = flag.Duration("duration", 3*time.Second, "load: how long")
	stopFile   = flag.String("stop-file", "", "load: stop when this file exists")
	reconnect  = flag.Int("reconnect-every", 0, "load: drop idle connections every N requests per worker (new handshakes)")
	outDir     = flag.String("out", "", "mkclient: output directory")
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "apiserver: "+format+"\n", args...)
	os.Exit(2)
}

func newClient() *http.Client {
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(*caFile)
	if err != nil || !pool.AppendCertsFromPEM(ca) {
		fail("cannot read CA %s: %v", *caFile, err)
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: *serverName, NextProtos: []string{"http/1.1"}}
	if *certFile != "" {
		pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			fail("client certificate: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	tr := &http.Transport{
		TLSClientConfig:     cfg,
		MaxIdleConnsPerHost: 25, // kube-apiserver's webhook client keeps up to 25 idle connections per host
		IdleConnTimeout:     90 * time.Second,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1 only
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func freshUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

type result struct {
	File     string          `json:"file,omitempty"`
	Allowed  bool            `json:"allowed"`
	Code     int             `json:"code,omitempty"`
	Message  string          `json:"message,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Patch    json.RawMessage `json:"patch,omitempty"`
	Patched  json.RawMessage `json:"patched,omitempty"`
}

// call sends one review with a fresh uid and checks the answer as kube-apiserver does.
func call(c *http.Client, review map[string]interface{}) (*result, error) {
	req, ok := review["request"].(map[string]interface{})
	if !ok {
		return nil, errors.New("input has no request")
	}
	uid := freshUID()
	req["uid"] = uid
	body, _ := json.Marshal(review)
	resp, err := c.Post(*baseURL+"/"+*hook+"?timeout=10s", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
	}
	return verify(review, req, uid, data)
}

type answer struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   *struct {
		UID       string   `json:"uid"`
		Allowed   bool     `json:"allowed"`
		Patch     *string  `json:"patch"`
		PatchType *string  `json:"patchType"`
		Warnings  []string `json:"warnings"`
		Status    *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	} `json:"response"`
}

func verify(review, req map[string]interface{}, uid string, data []byte) (*result, error) {
	var a answer
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("answer is not JSON: %v", err)
	}
	asked, _ := review["apiVersion"].(string)
	if asked == "admission.k8s.io/v1" && (a.APIVersion != asked || a.Kind != "AdmissionReview") {
		return nil, fmt.Errorf("expected response of kind AdmissionReview in %s, got %s %s", asked, a.Kind, a.APIVersion)
	}
	if asked == "admission.k8s.io/v1beta1" && a.APIVersion != asked {
		return nil, fmt.Errorf("asked v1beta1, answered %q", a.APIVersion)
	}
	if a.Response == nil {
		return nil, errors.New("answer has no response")
	}
	r := a.Response
	if r.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	}
	if *hook == "validate" && (r.Patch != nil || r.PatchType != nil) {
		return nil, errors.New("validating webhook answered with a patch")
	}
	if (r.Patch == nil) != (r.PatchType == nil) {
		return nil, errors.New("patch and patchType must come together")
	}
	if r.PatchType != nil && *r.PatchType != "JSONPatch" {
		return nil, fmt.Errorf("unsupported patchType %q", *r.PatchType)
	}
	for _, w := range r.Warnings {
		if len(w) >= 120 || strings.ContainsAny(w, "\r\n") || strings.HasPrefix(strings.ToLower(w), "warning:") {
			return nil, fmt.Errorf("bad warning %q", w)
		}
	}
	res := &result{Allowed: r.Allowed, Warnings: r.Warnings}
	if !r.Allowed {
		// 403 for findings; 400 for an object gpuadmit cannot read (kube-apiserver shows either code to the user).
		if r.Status == nil || (r.Status.Code != 403 && r.Status.Code != 400) || r.Status.Message == "" {
			return nil, fmt.Errorf("denial without status 403 (or 400) and a message: %s", data)
		}
		res.Code, res.Message = r.Status.Code, r.Status.Message
	}
	if r.Patch != nil {
		if err := applyPatch(req, *r.Patch, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func applyPatch(req map[string]interface{}, b64 string, res *result) error {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return fmt.Errorf("patch is not base64: %v", err)
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return fmt.Errorf("patch does not decode: %v", err)
	}
	obj, _ := json.Marshal(req["object"])
	patched, err := patch.Apply(obj)
	if err != nil {
		return fmt.Errorf("patch does not apply: %v", err)
	}
	if err := checkPod(patched); err != nil {
		return fmt.Errorf("patched object fails the API server's rules: %v", err)
	}
	res.Patch, res.Patched = raw, patched
	return nil
}

func run(files []string) int {
	c := newClient()
	bad := 0
	for _, f := range files {
		review := readReview(f)
		res, err := call(c, review)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			bad++
			continue
		}
		res.File = f
		line, _ := json.Marshal(res)
		fmt.Println(string(line))
	}
	if bad != 0 {
		return 1
	}
	return 0
}

func readReview(f string) map[string]interface{} {
	data, err := os.ReadFile(f)
	if err != nil {
		fail("%v", err)
	}
	var review map[string]interface{}
	if err := json.Unmarshal(data, &review); err != nil {
		fail("%s: %v", f, err)
	}
	return review
}

func load(file string) int {
	c := newClient()
	data, err := os.ReadFile(file)
	if err != nil {
		fail("%v", err)
	}
	var ok, failed int64
	var mu sync.Mutex
	var errs []string
	deadline := time.Now().Add(*duration)
	var wg sync.WaitGroup
	for i := 0; i < *conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; time.Now().Before(deadline) && !exists(*stopFile); n++ {
				var review map[string]interface{}
				json.Unmarshal(data, &review)
				if _, err := call(c, review); err != nil {
					atomic.AddInt64(&failed, 1)
					mu.Lock()
					if len(errs) < 10 {
						errs = append(errs, err.Error())
					}
					mu.Unlock()
				} else {
					atomic.AddInt64(&ok, 1)
				}
				if *reconnect > 0 && n%*reconnect == 0 {
					c.Transport.(*http.Transport).CloseIdleConnections()
				}
			}
		}()
	}
	wg.Wait()
	out, _ := json.Marshal(map[string]interface{}{"ok": ok, "failed": failed, "errors": errs})
	fmt.Println(string(out))
	if failed != 0 || ok == 0 {
		return 1
	}
	return 0
}

func exists(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

func mkclient() int {
	caPEM, err1 := os.ReadFile(*caFile)
	keyPEM, err2 := os.ReadFile(*caKey)
	if err1 != nil || err2 != nil {
		fail("CA: %v %v", err1, err2)
	}
	cb, _ := pem.Decode(caPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		fail("CA files are not PEM")
	}
	ca, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		fail("CA certificate: %v", err)
	}
	signer, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		if k, err2 := x509.ParseECPrivateKey(kb.Bytes); err2 == nil {
			signer = k
		} else {
			fail("CA key: %v", err)
		}
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "kube-apiserver-webhook-client"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, signer)
	if err != nil {
		fail("sign: %v", err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	os.WriteFile(filepath.Join(*outDir, "client.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0644)
	os.WriteFile(filepath.Join(*outDir, "client.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0600)
	return 0
}

func main() {
	flag.Parse()
	switch *mode {
	case "review":
		os.Exit(run(flag.Args()))
	case "load":
		if flag.NArg() != 1 {
			fail("load takes one review file")
		}
		os.Exit(load(flag.Arg(0)))
	case "burst":
		if flag.NArg() != 1 {
			fail("burst takes one review file")
		}
		os.Exit(burst(flag.Arg(0)))
	case "mkclient":
		os.Exit(mkclient())
	default:
		fail("unknown mode %q", *mode)
	}
}
