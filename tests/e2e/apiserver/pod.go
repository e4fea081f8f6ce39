package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// The resources the API server treats as extended resources here: every GPU name gpuadmit knows.
var gpuPrefixes = []string{"nvidia.com/", "amd.com/", "dcu.com/", "koordinator.sh/gpu", "vke.volcengine.com/mgpu"}

func isGPU(name string) bool {
	for _, p := range gpuPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var suffixes = map[string]*big.Int{
	"": big.NewInt(1), "k": big.NewInt(1e3), "M": big.NewInt(1e6), "G": big.NewInt(1e9), "T": big.NewInt(1e12),
	"P": big.NewInt(1e15), "E": big.NewInt(1e18), "Ki": big.NewInt(1 << 10), "Mi": big.NewInt(1 << 20),
	"Gi": big.NewInt(1 << 30), "Ti": big.NewInt(1 << 40), "Pi": big.NewInt(1 << 50), "Ei": big.NewInt(1 << 60),
}

// wholeQuantity parses a quantity that must be a whole number (no fraction, no milli): what the API server
// requires of extended resources. Exponent forms are not needed by these tests and are refused.
func wholeQuantity(s string) (*big.Int, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return nil, fmt.Errorf("%q is not a whole number", s)
	}
	m, ok := suffixes[s[i:]]
	if !ok {
		return nil, fmt.Errorf("%q is not a whole number", s)
	}
	n, _ := new(big.Int).SetString(s[:i], 10)
	return n.Mul(n, m), nil
}

// podSpecs finds the Pod spec(s) inside the object (Pod, or a workload's template).
func podSpecs(obj map[string]interface{}) []map[string]interface{} {
	get := func(m map[string]interface{}, path ...string) map[string]interface{} {
		for _, p := range path {
			next, _ := m[p].(map[string]interface{})
			if next == nil {
				return nil
			}
			m = next
		}
		return m
	}
	for _, path := range [][]string{{"spec", "jobTemplate", "spec", "template", "spec"}, {"spec", "template", "spec"}} {
		if s := get(obj, path...); s != nil {
			return []map[string]interface{}{s}
		}
	}
	if obj["kind"] == "Pod" {
		if s := get(obj, "spec"); s != nil {
			return []map[string]interface{}{s}
		}
	}
	return nil
}

func checkPod(data []byte) error {
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	for _, spec := range podSpecs(obj) {
		for _, list := range []string{"containers", "initContainers"} {
			cs, _ := spec[list].([]interface{})
			for i, c := range cs {
				if err := checkContainer(c, fmt.Sprintf("spec.%s[%d]", list, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkContainer(c interface{}, where string) error {
	cm, _ := c.(map[string]interface{})
	res, _ := cm["resources"].(map[string]interface{})
	req, _ := res["requests"].(map[string]interface{})
	lim, _ := res["limits"].(map[string]interface{})
	for _, m := range []map[string]interface{}{req, lim} {
		for name, v := range m {
			if !isGPU(name) {
				continue
			}
			s, _ := v.(string)
			if _, err := wholeQuantity(s); err != nil {
				return fmt.Errorf("%s %s: %v", where, name, err)
			}
		}
	}
	for name, v := range req {
		if !isGPU(name) {
			continue
		}
		l, ok := lim[name]
		if !ok {
			return fmt.Errorf("%s: Limit must be set for non overcommitable resources (%s)", where, name)
		}
		a, _ := wholeQuantity(v.(string))
		b, err := wholeQuantity(fmt.Sprint(l))
		if err != nil || a.Cmp(b) != 0 {
			return fmt.Errorf("%s %s: must be equal to %s limit", where, name, name)
		}
	}
	return nil
}
