// fakeapi: a Kubernetes API server for gpuadmit's tests, where it matters: TLS with its own CA, bearer tokens
// and client certificates, an object store with resourceVersions, paged lists with continue tokens, chunked watch
// streams with bookmarks, 410 Gone on a too-old resourceVersion, and faults on request (streams cut mid-event,
// 5xx, slow answers, an absent CRD, a token that changes). Go's standard library only.
//
// usage: fakeapi -dir DIR [-token T] [-no-crd] [-bookmark-ms N] [-exit-on-stdin-eof]
//
// It writes DIR/ca.crt, DIR/client.crt, DIR/client.key (a client certificate it accepts) and, once listening,
// DIR/url ("https://127.0.0.1:PORT"). Tests drive it through /_fake/* (no authentication): docs/testing.md.
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

type object = map[string]interface{}

// A resource the fake serves: where it lives and what its lists are called.
type resource struct {
	group, version, kind string
	namespaced           bool
}

var resources = map[string]resource{
	"nodes":                           {"", "v1", "Node", false},
	"pods":                            {"", "v1", "Pod", true},
	"secrets":                         {"", "v1", "Secret", true},
	"devices":                         {"scheduling.koordinator.sh", "v1alpha1", "Device", false},
	"validatingwebhookconfigurations": {"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", false},
	"mutatingwebhookconfigurations":   {"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", false},
}

func (r resource) apiVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// A watch event, encoded once when it happens (JSON of maps is slow; the benchmark streams 100,000 of them).
type event struct {
	rv       int64
	resource string
	ns       string
	line     []byte // {"type": ..., "object": ...} and a newline
}

func encodeEvent(typ string, o object) []byte {
	line, _ := json.Marshal(object{"type": typ, "object": o})
	return append(line, '\n')
}

// A list in progress: the items as they were at the list's resourceVersion, served page by page.
type snapshot struct {
	rv    int64
	items [][]byte
}

type faults struct {
	Fail           int    `json:"fail"`           // the next N API requests answer 503
	RetryAfter     int    `json:"retryAfter"`     // ... with Retry-After: N (seconds)
	SlowMs         int    `json:"slowMs"`         // every API request waits this long first
	CutMidEvent    int    `json:"cutMidEvent"`    // the next N watch events are cut half-way (connection dropped)
	Gone           string `json:"gone"`           // how a too-old resourceVersion is refused: "http" (default) or "event"
	ExpireContinue bool   `json:"expireContinue"` // forget every continue token (410 Expired)
	Compact        bool   `json:"compact"`        // forget the history: every watch from before now is 410
	Cut            bool   `json:"cut"`            // drop every open watch now
	CRD            *bool  `json:"crd"`            // serve devices.scheduling.koordinator.sh or not (404)
	NoDRA          *bool  `json:"noDra"`          // serve resource.k8s.io/v1 (false) or not (true: 404, a cluster before 1.34)
	ForbidDRA      *bool  `json:"forbidDra"`      // refuse resource.k8s.io with 403 (a ServiceAccount without the RBAC)
	DRAVersion     string `json:"draVersion"`     // serve resource.k8s.io at this version only ("v1beta1": before 1.34)
	Token          string `json:"token"`          // the bearer token accepted from now on
}

type server struct {
	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every change
	cut        chan struct{} // closed and replaced to drop the open watches
	rv         int64
	objects    map[string]map[string]object // resource -> "ns/name" -> object (never changed once stored)
	items      map[string]map[string][]byte // the same objects encoded as list items
	history    []event
	compacted  int64 // watches from a resourceVersion below this are 410 Gone
	snapshots  map[string]*snapshot
	nextSnap   int
	token      string
	crd        bool
	noDRA      bool
	forbidDRA  bool
	draVersion string // "" or "v1": v1
	f          faults
	counts     map[string]int // requests by kind, for tests: list, watch, unauthorized, gone, ...
	bookmark   time.Duration
}

func newServer(token string, crd bool, bookmark time.Duration) *server {
	s := &server{changed: make(chan struct{}), cut: make(chan struct{}), rv: 1, objects: map[string]map[string]object{},
		items: map[string]map[string][]byte{}, snapshots: map[string]*snapshot{}, token: token, crd: crd,
		counts: map[string]int{}, bookmark: bookmark}
	for name := range resources {
		s.objects[name] = map[string]object{}
		s.items[name] = map[string][]byte{}
	}
	return s
}

// ---- answers ----

func writeJSON(w http.ResponseWriter, code int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func status(code int, reason, message string) object {
	return object{"kind": "Status", "apiVersion": "v1", "metadata": object{}, "status": "Failure",
		"message": message, "reason": reason, "code": code}
}

func fail(w http.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, status(code, reason, message))
}

func metadata(o object) object {
	m, ok := o["metadata"].(object)
	if !ok {
		m = object{}
		o["metadata"] = m
	}
	return m
}

func str(m object, key string) string {
	s, _ := m[key].(string)
	return s
}

func deepCopy(o object) object {
	b, _ := json.Marshal(o)
	var c object
	json.Unmarshal(b, &c)
	return c
}

// ---- the store (callers hold s.mu) ----

func (s *server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Stores (or deletes) o at a new resourceVersion and records its event. o belongs to the store afterwards.
func (s *server) put(typ, res string, o object) {
	m := metadata(o)
	key := str(m, "namespace") + "/" + str(m, "name")
	s.rv++
	m["resourceVersion"] = strconv.FormatInt(s.rv, 10)
	if _, ok := m["uid"]; !ok && typ != "DELETED" {
		m["uid"] = fmt.Sprintf("uid-%s-%d", res, s.rv)
	}
	// As kube-apiserver writes them: a list says the kind, its items do not; a watch event's object does.
	delete(o, "kind")
	delete(o, "apiVersion")
	item, _ := json.Marshal(o)
	o["kind"] = resources[res].kind
	o["apiVersion"] = resources[res].apiVersion()
	if typ == "DELETED" {
		delete(s.objects[res], key)
		delete(s.items[res], key)
	} else {
		s.objects[res][key] = o
		s.items[res][key] = item
	}
	s.history = append(s.history, event{s.rv, res, str(m, "namespace"), encodeEvent(typ, o)})
	s.notify()
}

// ---- control (/_fake/*) ----

type op struct {
	Resource string `json:"resource"`
	Type     string `json:"type"` // ADDED, MODIFIED, DELETED (ADDED and MODIFIED both store)
	Object   object `json:"object"`
}

func (s *server) control(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/_fake/apply":
		var ops []op
		if len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '{' {
			ops = make([]op, 1)
			if err := json.Unmarshal(body, &ops[0]); err != nil {
				fail(w, 400, "BadRequest", err.Error())
				return
			}
		} else if err := json.Unmarshal(body, &ops); err != nil {
			fail(w, 400, "BadRequest", err.Error())
			return
		}
		for _, o := range ops {
			if _, ok := resources[o.Resource]; !ok || o.Object == nil {
				fail(w, 400, "BadRequest", "unknown resource "+o.Resource)
				return
			}
			if o.Type == "" {
				o.Type = "ADDED"
			}
			m := metadata(o.Object)
			key := str(m, "namespace") + "/" + str(m, "name")
			_, exists := s.objects[o.Resource][key]
			if o.Type != "DELETED" && exists {
				o.Type = "MODIFIED"
			} else if o.Type != "DELETED" {
				o.Type = "ADDED"
			} else if !exists {
				continue
			} else {
				o.Object = s.objects[o.Resource][key] // a DELETED event carries the object's last state
			}
			s.put(o.Type, o.Resource, o.Object)
		}
		writeJSON(w, 200, object{"resourceVersion": strconv.FormatInt(s.rv, 10)})
	case "/_fake/fault":
		var f faults
		if err := json.Unmarshal(body, &f); err != nil {
			fail(w, 400, "BadRequest", err.Error())
			return
		}
		s.f.Fail, s.f.RetryAfter, s.f.SlowMs, s.f.CutMidEvent = f.Fail, f.RetryAfter, f.SlowMs, f.CutMidEvent
		if f.Gone != "" {
			s.f.Gone = f.Gone
		}
		if f.ExpireContinue {
			s.snapshots = map[string]*snapshot{}
		}
		if f.Compact {
			// The compaction takes a revision of its own, as etcd's does: a watcher that was current
			// (even by a bookmark) is now behind it, so every watch from before now is 410.
			s.rv++
			s.compacted = s.rv
			s.history = nil
		}
		if f.CRD != nil {
			s.crd = *f.CRD
		}
		if f.NoDRA != nil {
			s.noDRA = *f.NoDRA
		}
		if f.ForbidDRA != nil {
			s.forbidDRA = *f.ForbidDRA
		}
		if f.DRAVersion != "" {
			s.draVersion = f.DRAVersion
		}
		if f.Token != "" {
			s.token = f.Token
		}
		if f.Cut || f.Compact || f.CRD != nil {
			close(s.cut)
			s.cut = make(chan struct{})
		}
		writeJSON(w, 200, object{})
	case "/_fake/state":
		counts := object{}
		for k, v := range s.counts {
			counts[k] = v
		}
		writeJSON(w, 200, object{"resourceVersion": strconv.FormatInt(s.rv, 10), "counts": counts})
	default:
		fail(w, 404, "NotFound", "no control "+r.URL.Path)
	}
}

// ---- the API ----

type target struct {
	res        string
	ns, name   string
	collection bool
}

// /api/v1/[namespaces/NS/]RES[/NAME] and /apis/GROUP/VERSION/[namespaces/NS/]RES[/NAME]
func parsePath(p string) (target, bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	var group, version string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, version, parts = parts[1], parts[2], parts[3:]
	default:
		return target{}, false
	}
	var t target
	if len(parts) >= 3 && parts[0] == "namespaces" {
		t.ns, parts = parts[1], parts[2:]
	}
	if len(parts) < 1 || len(parts) > 2 {
		return target{}, false
	}
	t.res = parts[0]
	r, ok := resources[t.res]
	if !ok || r.group != group || r.version != version || (t.ns != "" && !r.namespaced) {
		return target{}, false
	}
	if len(parts) == 2 {
		t.name = parts[1]
	} else {
		t.collection = true
	}
	return t, true
}

func (s *server) authorized(r *http.Request) bool {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		return true
	}
	return r.Header.Get("Authorization") == "Bearer "+s.token
}

func (s *server) api(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	slow := s.f.SlowMs
	s.mu.Unlock()
	if slow > 0 {
		time.Sleep(time.Duration(slow) * time.Millisecond)
	}
	s.mu.Lock()
	if !s.authorized(r) {
		s.counts["unauthorized"]++
		s.mu.Unlock()
		fail(w, 401, "Unauthorized", "Unauthorized")
		return
	}
	if s.f.Fail > 0 {
		s.f.Fail--
		s.counts["failed"]++
		if s.f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(s.f.RetryAfter))
		}
		s.mu.Unlock()
		fail(w, 503, "ServiceUnavailable", "injected failure")
		return
	}
	if r.Method == "GET" && strings.TrimSuffix(r.URL.Path, "/") == "/apis/resource.k8s.io" {
		s.mu.Unlock()
		writeJSON(w, 200, draDiscovery(s.draVersion))
		return
	}
	t, ok := parsePath(draPath(r.URL.Path, s.draVersion))
	if !ok || (t.res == "devices" && !s.crd) || (resources[t.res].group == "resource.k8s.io" && s.noDRA) {
		s.counts["notfound"]++
		s.mu.Unlock()
		fail(w, 404, "NotFound", "the server could not find the requested resource")
		return
	}
	if resources[t.res].group == "resource.k8s.io" && s.forbidDRA {
		s.counts["forbidden"]++
		s.mu.Unlock()
		fail(w, 403, "Forbidden", t.res+".resource.k8s.io is forbidden")
		return
	}
	q := r.URL.Query()
	if r.Method == "GET" && t.collection && (q.Get("watch") == "1" || q.Get("watch") == "true") {
		s.counts["watch"]++
		s.mu.Unlock()
		s.watch(w, r, t)
		return
	}
	defer s.mu.Unlock()
	switch {
	case r.Method == "GET" && t.collection:
		s.counts["list"]++
		s.list(w, t, q.Get("limit"), q.Get("continue"))
	case r.Method == "GET":
		o, ok := s.objects[t.res][t.ns+"/"+t.name]
		if !ok {
			fail(w, 404, "NotFound", fmt.Sprintf("%s %q not found", t.res, t.name))
			return
		}
		writeJSON(w, 200, o)
	case r.Method == "POST" && t.collection:
		s.create(w, r, t)
	case r.Method == "PUT" && !t.collection:
		s.update(w, r, t)
	case r.Method == "PATCH" && !t.collection:
		s.patch(w, r, t)
	case r.Method == "DELETE" && !t.collection:
		o, ok := s.objects[t.res][t.ns+"/"+t.name]
		if !ok {
			fail(w, 404, "NotFound", fmt.Sprintf("%s %q not found", t.res, t.name))
			return
		}
		s.put("DELETED", t.res, o)
		writeJSON(w, 200, object{"kind": "Status", "apiVersion": "v1", "status": "Success"})
	default:
		fail(w, 405, "MethodNotAllowed", r.Method+" is not allowed here")
	}
}

func (s *server) list(w http.ResponseWriter, t target, limitText, cont string) {
	var snap *snapshot
	offset := 0
	if cont != "" {
		parts := strings.SplitN(cont, ":", 2)
		snap = s.snapshots[parts[0]]
		if snap == nil || len(parts) != 2 {
			s.counts["expired"]++
			fail(w, 410, "Expired", "The provided continue parameter is too old to display a consistent list result.")
			return
		}
		offset, _ = strconv.Atoi(parts[1])
	} else {
		snap = &snapshot{rv: s.rv}
		var keys []string
		for key := range s.items[t.res] {
			if t.ns == "" || strings.HasPrefix(key, t.ns+"/") {
				keys = append(keys, key)
			}
		}
		sort.Strings(keys)
		for _, key := range keys {
			snap.items = append(snap.items, s.items[t.res][key])
		}
	}
	limit, _ := strconv.Atoi(limitText)
	end := len(snap.items)
	if limit > 0 && offset+limit < end {
		end = offset + limit
	}
	if offset > end {
		offset = end
	}
	next := ""
	if end < len(snap.items) {
		id := ""
		for k, v := range s.snapshots {
			if v == snap {
				id = k
			}
		}
		if id == "" {
			s.nextSnap++
			id = "snap" + strconv.Itoa(s.nextSnap)
			s.snapshots[id] = snap
		}
		next = id + ":" + strconv.Itoa(end)
	}
	res := resources[t.res]
	head, _ := json.Marshal(object{"kind": res.kind + "List", "apiVersion": res.apiVersion(),
		"metadata": object{"resourceVersion": strconv.FormatInt(snap.rv, 10), "continue": next}})
	var b bytes.Buffer
	b.Write(head[:len(head)-1]) // the items join the object: {"apiVersion":...,"metadata":{...},"items":[...]}
	b.WriteString(`,"items":[`)
	for i, item := range snap.items[offset:end] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(item)
	}
	b.WriteString("]}\n")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	w.Write(b.Bytes())
}

func readObject(w http.ResponseWriter, r *http.Request) (object, bool) {
	var o object
	if err := json.NewDecoder(r.Body).Decode(&o); err != nil || o == nil {
		fail(w, 400, "BadRequest", "the body is not a JSON object")
		return nil, false
	}
	return o, true
}

func (s *server) create(w http.ResponseWriter, r *http.Request, t target) {
	o, ok := readObject(w, r)
	if !ok {
		return
	}
	m := metadata(o)
	if t.ns != "" {
		m["namespace"] = t.ns
	}
	if str(m, "name") == "" {
		fail(w, 422, "Invalid", "metadata.name: Required value")
		return
	}
	if _, exists := s.objects[t.res][t.ns+"/"+str(m, "name")]; exists {
		fail(w, 409, "AlreadyExists", fmt.Sprintf("%s %q already exists", t.res, str(m, "name")))
		return
	}
	delete(m, "resourceVersion")
	m["creationTimestamp"] = time.Now().UTC().Format(time.RFC3339)
	s.put("ADDED", t.res, o)
	writeJSON(w, 201, o)
}

func (s *server) conflict(w http.ResponseWriter, t target, sent, have string) bool {
	if sent != "" && sent != have {
		s.counts["conflict"]++
		fail(w, 409, "Conflict", fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; "+
			"please apply your changes to the latest version and try again", t.res, t.name))
		return true
	}
	return false
}

func (s *server) update(w http.ResponseWriter, r *http.Request, t target) {
	o, ok := readObject(w, r)
	if !ok {
		return
	}
	old, exists := s.objects[t.res][t.ns+"/"+t.name]
	if !exists {
		fail(w, 404, "NotFound", fmt.Sprintf("%s %q not found", t.res, t.name))
		return
	}
	m := metadata(o)
	if s.conflict(w, t, str(m, "resourceVersion"), str(metadata(old), "resourceVersion")) {
		return
	}
	m["name"], m["uid"] = t.name, metadata(old)["uid"]
	if t.ns != "" {
		m["namespace"] = t.ns
	}
	s.put("MODIFIED", t.res, o)
	writeJSON(w, 200, o)
}

// RFC 7386 JSON merge patch.
func merge(dst object, patch object) {
	for k, v := range patch {
		if v == nil {
			delete(dst, k)
		} else if p, ok := v.(object); ok {
			d, ok := dst[k].(object)
			if !ok {
				d = object{}
				dst[k] = d
			}
			merge(d, p)
		} else {
			dst[k] = v
		}
	}
}

func (s *server) patch(w http.ResponseWriter, r *http.Request, t target) {
	ct := r.Header.Get("Content-Type")
	if ct != "application/merge-patch+json" && ct != "application/strategic-merge-patch+json" {
		fail(w, 415, "UnsupportedMediaType", "the fake takes merge patches only, not "+ct)
		return
	}
	p, ok := readObject(w, r)
	if !ok {
		return
	}
	old, exists := s.objects[t.res][t.ns+"/"+t.name]
	if !exists {
		fail(w, 404, "NotFound", fmt.Sprintf("%s %q not found", t.res, t.name))
		return
	}
	pm, _ := p["metadata"].(object)
	if s.conflict(w, t, str(pm, "resourceVersion"), str(metadata(old), "resourceVersion")) {
		return
	}
	o := deepCopy(old)
	merge(o, p)
	s.put("MODIFIED", t.res, o)
	writeJSON(w, 200, o)
}

// ---- watch ----

func (s *server) watch(w http.ResponseWriter, r *http.Request, t target) {
	q := r.URL.Query()
	bookmarks := q.Get("allowWatchBookmarks") == "true"
	timeout := 30 * time.Minute
	if n, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && n > 0 {
		timeout = time.Duration(n) * time.Second
	}
	flusher := w.(http.Flusher)
	s.mu.Lock()
	from, err := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
	var pending []event
	if err != nil || from == 0 {
		// No resourceVersion: the current state as ADDED events, then what follows.
		from = s.rv
		for _, o := range s.objects[t.res] {
			if t.ns == "" || str(metadata(o), "namespace") == t.ns {
				pending = append(pending, event{s.rv, t.res, t.ns, encodeEvent("ADDED", o)})
			}
		}
	} else if from < s.compacted {
		s.counts["gone"]++
		gone := s.f.Gone
		s.mu.Unlock()
		st := status(410, "Expired", fmt.Sprintf("too old resource version: %d (%d)", from, s.compacted))
		if gone == "event" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			json.NewEncoder(w).Encode(object{"type": "ERROR", "object": st})
			return
		}
		writeJSON(w, 410, st)
		return
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(200)
	flusher.Flush()
	deadline := time.After(timeout)
	tick := time.NewTicker(s.bookmark)
	defer tick.Stop()
	for {
		s.mu.Lock()
		first := sort.Search(len(s.history), func(i int) bool { return s.history[i].rv > from })
		for _, e := range s.history[first:] {
			if e.resource == t.res && (t.ns == "" || e.ns == t.ns) {
				pending = append(pending, e)
			}
		}
		if len(s.history) > 0 && s.history[len(s.history)-1].rv > from {
			from = s.history[len(s.history)-1].rv
		}
		changed, cut := s.changed, s.cut
		s.mu.Unlock()
		for _, e := range pending {
			line := e.line
			s.mu.Lock()
			cutHere := s.f.CutMidEvent > 0
			if cutHere {
				s.f.CutMidEvent--
				s.counts["cutMidEvent"]++
			}
			s.mu.Unlock()
			if cutHere {
				w.Write(line[:len(line)/2])
				flusher.Flush()
				panic(http.ErrAbortHandler) // the connection closes without the chunked body's end
			}
			if _, err := w.Write(line); err != nil {
				return
			}
		}
		pending = pending[:0]
		flusher.Flush()
		select {
		case <-changed:
		case <-cut:
			panic(http.ErrAbortHandler)
		case <-deadline:
			return
		case <-r.Context().Done():
			return
		case <-tick.C:
			if bookmarks {
				// Everything up to `from` was sent: a bookmark never runs ahead of an undelivered event.
				rv := strconv.FormatInt(from, 10)
				res := resources[t.res]
				line, _ := json.Marshal(object{"type": "BOOKMARK", "object": object{"kind": res.kind,
					"apiVersion": res.apiVersion(), "metadata": object{"resourceVersion": rv}}})
				if _, err := w.Write(append(line, '\n')); err != nil {
					return
				}
				flusher.Flush()
			}
		}
	}
}

// ---- certificates ----

func writePEM(path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0600); err != nil {
		log.Fatal(err)
	}
}

func newKey() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	return k
}

func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) *x509.Certificate {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		log.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c
}

// A CA, a serving certificate for 127.0.0.1 and localhost, and a client certificate, all written to dir.
func makeCerts(dir string) (tls.Certificate, *x509.CertPool) {
	now := time.Now()
	caKey := newKey()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fakeapi-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	ca := sign(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	writePEM(filepath.Join(dir, "ca.crt"), "CERTIFICATE", ca.Raw)
	srvKey := newKey()
	srv := sign(&x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "fakeapi"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}, ca, &srvKey.PublicKey, caKey)
	cliKey := newKey()
	cli := sign(&x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "gpuadmit-test"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature},
		ca, &cliKey.PublicKey, caKey)
	writePEM(filepath.Join(dir, "client.crt"), "CERTIFICATE", cli.Raw)
	der, _ := x509.MarshalECPrivateKey(cliKey)
	writePEM(filepath.Join(dir, "client.key"), "EC PRIVATE KEY", der)
	srvDER, _ := x509.MarshalECPrivateKey(srvKey)
	pair, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Raw}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: srvDER}))
	if err != nil {
		log.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pair, pool
}

func main() {
	dir := flag.String("dir", "", "where ca.crt, client.crt, client.key and url are written")
	token := flag.String("token", "test-token", "the bearer token accepted")
	noCRD := flag.Bool("no-crd", false, "do not serve devices.scheduling.koordinator.sh (404) until told to")
	bookmarkMs := flag.Int("bookmark-ms", 200, "how often an idle watch gets a BOOKMARK")
	stdinEOF := flag.Bool("exit-on-stdin-eof", false, "exit when stdin closes (the test that started it is gone)")
	flag.Parse()
	if *dir == "" {
		log.Fatal("fakeapi: -dir is required")
	}
	log.SetFlags(0)
	pair, pool := makeCerts(*dir)
	s := newServer(*token, !*noCRD, time.Duration(*bookmarkMs)*time.Millisecond)
	mux := http.NewServeMux()
	mux.HandleFunc("/_fake/", s.control)
	mux.HandleFunc("/", s.api)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	url := "https://" + ln.Addr().String()
	tmp := filepath.Join(*dir, "url.tmp")
	os.WriteFile(tmp, []byte(url), 0600)
	os.Rename(tmp, filepath.Join(*dir, "url"))
	fmt.Println(url)
	if *stdinEOF {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
	}
	hs := &http.Server{Handler: mux, ErrorLog: log.New(io.Discard, "", 0),
		ConnState: func(c net.Conn, state http.ConnState) {
			if state == http.StateNew {
				s.mu.Lock()
				s.counts["connections"]++
				s.mu.Unlock()
			}
		},
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.VerifyClientCertIfGiven,
			NextProtos: []string{"http/1.1"}}}
	log.Fatal(hs.ServeTLS(ln, "", ""))
}
