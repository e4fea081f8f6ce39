package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// burst: -conns goroutines post the review in file at once, each once, on its own connection, as that many
// kube-apiserver replicas would. Every call must get an HTTP answer: 200 (checked as call checks it) or 503 with
// Retry-After (kube-apiserver retries that within the webhook's timeout). A connection closed or reset without an
// answer is what kube-apiserver never retries (the Pod is refused): a failure. Prints
// {"ok":N,"shed":S,"failed":F,"errors":[...]}; exit 1 on any failure or when no call was judged.
func burst(file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fail("%v", err)
	}
	var ok, shed, failed int
	var mu sync.Mutex
	var errs []string
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < *conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient() // a connection of its own
			var review map[string]interface{}
			json.Unmarshal(data, &review)
			<-start
			outcome, err := burstOne(c, review)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed++
				if len(errs) < 10 {
					errs = append(errs, err.Error())
				}
			case outcome == "shed":
				shed++
			default:
				ok++
			}
		}()
	}
	close(start)
	wg.Wait()
	out, _ := json.Marshal(map[string]interface{}{"ok": ok, "shed": shed, "failed": failed, "errors": errs})
	fmt.Println(string(out))
	if failed != 0 || ok == 0 {
		return 1
	}
	return 0
}

// burstOne posts one review with a fresh uid: "ok" (a verified 200), "shed" (503 with Retry-After), or an error.
func burstOne(c *http.Client, review map[string]interface{}) (string, error) {
	req, ok := review["request"].(map[string]interface{})
	if !ok {
		return "", errors.New("input has no request")
	}
	uid := freshUID()
	req["uid"] = uid
	body, _ := json.Marshal(review)
	resp, err := c.Post(*baseURL+"/"+*hook+"?timeout=10s", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("no answer: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("answer cut short: %v", err)
	}
	switch {
	case resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "":
		return "shed", nil
	case resp.StatusCode != 200:
		return "", fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, data)
	}
	if _, err := verify(review, req, uid, data); err != nil {
		return "", err
	}
	return "ok", nil
}
