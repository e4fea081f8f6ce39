// The DRA kinds the live view lists and watches (cluster/view.h), in resource.k8s.io/v1; the fault "noDra" makes
// them 404 as on a cluster that does not serve v1, "draVersion" serves them at another version only (v1 then 404),
// and GET /apis/resource.k8s.io says which (discovery).
package main

import "strings"

const draGroup = "/apis/resource.k8s.io/"

// The path as the store knows it: the served version's read as v1, v1's made unknown when another is served.
func draPath(p, version string) string {
	if version == "" || version == "v1" || !strings.HasPrefix(p, draGroup) {
		return p
	}
	if strings.HasPrefix(p, draGroup+version+"/") {
		return draGroup + "v1/" + strings.TrimPrefix(p, draGroup+version+"/")
	}
	return "/unserved" + p
}

func draDiscovery(version string) object {
	if version == "" {
		version = "v1"
	}
	gv := object{"groupVersion": "resource.k8s.io/" + version, "version": version}
	return object{"kind": "APIGroup", "apiVersion": "v1", "name": "resource.k8s.io", "versions": []interface{}{gv}, "preferredVersion": gv}
}

func init() {
	for name, r := range map[string]resource{
		"deviceclasses":          {"resource.k8s.io", "v1", "DeviceClass", false},
		"resourceclaimtemplates": {"resource.k8s.io", "v1", "ResourceClaimTemplate", true},
		"resourceclaims":         {"resource.k8s.io", "v1", "ResourceClaim", true},
		"resourceslices":         {"resource.k8s.io", "v1", "ResourceSlice", false},
	} {
		resources[name] = r
	}
}
