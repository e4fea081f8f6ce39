// The DRA kinds the live view lists and watches (cluster/view.h), in resource.k8s.io/v1; the fault "noDra" makes
// them 404 as on a cluster that does not serve v1.
package main

func init() {
	for name, r := range map[string]resource{
		"deviceclasses":          {"resource.k8s.io", "v1", "DeviceClass", false},
		"resourceclaimtemplates": {"resource.k8s.io", "v1", "ResourceClaimTemplate", true},
		"resourceclaims":         {"resource.k8s.io", "v1", "ResourceClaim", true},
	} {
		resources[name] = r
	}
}
